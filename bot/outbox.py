"""The outbox (issues 9 and 10): every message the bot sends, edits or deletes goes through
here, and nobody waits for Telegram on the update path.

* **One worker per chat** makes that chat's calls one at a time, each when the chat's
  :class:`~bot.budget.ChatBudget` has room. A chat that floods, or a Telegram that answers
  slowly, delays that chat only: handlers, timers and the computer players only enqueue.
* **Surfaces** are messages the bot keeps showing the newest state of: a game's table, a
  player's hand. :meth:`Outbox.show` sets what a surface should show; the worker edits the
  message (or sends a new one when asked to, or when the old one is gone) and records the new
  message id through the surface's ``on_sent``. A waiting edit is replaced by newer content,
  so a surface never shows an older content after a newer one, and a surface's *last word*
  (``final``: a stopped or finished table) is sealed: nothing shown later changes it.
  The table's edits use only the table's share of a group's budget (:data:`bot.budget.GROUP`),
  so replies and notices always find room.
* **Posts** are one-off messages (replies, round summaries, reminders), sent in order. A reply
  whose ``dedupe`` key equals that of one still waiting in the same chat, or sent there in the
  last :data:`RECENT` seconds, is dropped (300 ``/help`` in a second get one answer), and a
  flooded chat keeps at most :data:`MAX_REPLIES` replies waiting.
* **Faults.** A call that fails for a passing reason (a timeout, a 5xx, a dropped connection,
  a ``429`` that PTB's limiter gave up on) is tried again with back-off; a surface keeps being
  tried (every :data:`SLOW_RETRY` seconds at most) until it is shown or replaced, so a player
  always gets their cards. A send that timed out may still have been delivered: when its retry
  succeeds, the keyboards of the messages just before it are removed, so no orphan keeps live
  buttons. ``403`` marks the user unreachable (``on_forbidden``), a migrated group moves every
  waiting call to the new chat id (``on_migrated``), a deleted message is sent again, a reply
  to a deleted command is sent without the reply, a deleted forum topic falls back to the
  group's General topic.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from bot.budget import ChatBudget

log = logging.getLogger(__name__)

MAX_REPLIES = 30
"""Replies (dedupe-able posts) that may wait in one chat; more are dropped (a flood)."""

RECENT = 60.0
"""Seconds (budget clock) a reply's ``dedupe`` key is remembered after it was sent: the same
reply asked again meanwhile is not sent a second time (it is right above in the chat)."""

MAX_ATTEMPTS = 6
"""Tries of a call that keeps failing for a passing reason before a post is given up (a
surface is tried on, every :data:`SLOW_RETRY` seconds)."""

SLOW_RETRY = 30.0
"""Seconds between two tries of a surface after :data:`MAX_ATTEMPTS` failures."""

SHUTDOWN_GRACE = 5.0
"""Real seconds the workers go on sending (waiting for budget) once the bot stops."""

SURFACES_KEPT = 20_000
"""Surfaces remembered (the most recently shown)."""

OnMigrated = Callable[[int, int], Awaitable[None]]
OnForbidden = Callable[[int], Awaitable[None]]
OnSent = Callable[[int], Awaitable[None]]
Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]
SurfaceKey = tuple[Hashable, ...]


@dataclass(frozen=True, slots=True)
class Content:
    """What a message shows: HTML text and an inline keyboard (or none); with ``photo`` (PNG
    bytes) a picture whose caption is ``text``, and ``alt`` the text sent instead should
    Telegram refuse the picture. A picture is never edited: a surface shows a new one."""

    text: str
    markup: InlineKeyboardMarkup | None = None
    photo: bytes | None = field(default=None, repr=False)
    alt: str | None = None

    @property
    def key(self) -> tuple[str, object]:
        """Equal for equal contents (an edit to the same content is skipped)."""
        photo = hash(self.photo) if self.photo is not None else None
        return self.text, (self.markup.to_json() if self.markup is not None else None, photo)


@dataclass(eq=False, slots=True)
class Surface:
    """A message the bot keeps showing the newest state of (see the module docstring)."""

    key: SurfaceKey
    chat_id: int
    thread_id: int | None = None
    message_id: int | None = None
    desired: Content | None = None
    shown: tuple[str, object] | None = None
    fresh: bool = False
    keep_old: bool = False
    final: bool = False
    sealed: bool = False
    table: bool = False
    on_sent: OnSent | None = None
    recorded: int | None = None
    """The message id the caller's records hold (``on_sent`` brings them up to date)."""


class _Kind(Enum):
    POST = "post"
    SURFACE = "surface"
    EDIT = "edit"
    DELETE = "delete"
    UNBUTTON = "unbutton"


@dataclass(eq=False, slots=True)
class Job:
    """One call waiting in a chat's queue. A post's handle: :meth:`Outbox.withdraw` takes it
    back; ``message_id`` is set once it was sent."""

    kind: _Kind
    chat_id: int
    content: Content | None = None
    surface: Surface | None = None
    message_id: int | None = None
    thread_id: int | None = None
    reply_to: int | None = None
    dedupe: Hashable | None = None
    on_sent: OnSent | None = None
    future: asyncio.Future[Message | None] | None = None
    attempts: int = 0
    timeouts: int = 0
    not_before: float = 0.0
    withdrawn: bool = False
    done: bool = False


@dataclass(slots=True)
class _Chat:
    jobs: list[Job] = field(default_factory=list)
    worker: asyncio.Task[None] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)


class _Gone(Exception):
    """The message a surface edits is gone (deleted, too old): send it anew."""


class Outbox:
    """The bot's message queues, one per chat (see the module docstring).

    Args:
        bot: the PTB bot that makes the calls.
        budget: when each chat may get its next call.
        on_migrated: called with (old_chat_id, new_chat_id) when Telegram says a group became
            a supergroup.
        on_forbidden: called with the chat id when Telegram refuses a private chat (403).
        spawn: starts a chat's worker as a task (the application's ``create_task``, so the
            tests' ``settle`` sees the work); default ``asyncio.create_task``.
        running: whether the bot still runs; once it stops, the workers finish what they can
            in :data:`SHUTDOWN_GRACE` seconds (what is left unsent is redrawn after the
            restart).
    """

    def __init__(
        self,
        bot: Bot,
        budget: ChatBudget,
        on_migrated: OnMigrated,
        on_forbidden: OnForbidden,
        spawn: Spawn | None = None,
        running: Callable[[], bool] = lambda: True,
    ) -> None:
        self.bot = bot
        self._running = running
        self.budget = budget
        self._on_migrated = on_migrated
        self._on_forbidden = on_forbidden
        self._spawn: Spawn = spawn or asyncio.create_task
        self._chats: dict[int, _Chat] = {}
        self._surfaces: OrderedDict[SurfaceKey, Surface] = OrderedDict()
        self.migrated: dict[int, int] = {}
        self._recent: dict[int, OrderedDict[Hashable, float]] = {}
        """chat → dedupe keys of the replies sent there lately, oldest first."""
        self._closed = False
        self._deadline: float | None = None
        """When the workers give up waiting, once the bot stops (monotonic seconds)."""

    # --- enqueueing --------------------------------------------------------------------------

    def post(
        self,
        chat_id: int,
        content: Content,
        *,
        thread_id: int | None = None,
        reply_to: int | None = None,
        dedupe: Hashable | None = None,
        on_sent: OnSent | None = None,
    ) -> Job | None:
        """Send a one-off message, in order with the chat's other posts. ``dedupe``: a reply,
        dropped when one with an equal key still waits in the chat (or the chat already has
        :data:`MAX_REPLIES` replies waiting). Returns the job (None when dropped)."""
        chat_id = self.migrated.get(chat_id, chat_id)
        chat = self._chat(chat_id)
        if dedupe is not None:
            waiting = [j for j in chat.jobs if j.kind is _Kind.POST and j.dedupe is not None]
            now = self.budget.clock()
            recent = self._recent.get(chat_id)
            if recent is not None:
                while recent and now - next(iter(recent.values())) >= RECENT:
                    recent.popitem(last=False)
            if (
                len(waiting) >= MAX_REPLIES
                or any(j.dedupe == dedupe for j in waiting)
                or (recent is not None and dedupe in recent)
            ):
                log.info("dropped a reply in busy chat %s", chat_id)
                return None
        job = Job(
            _Kind.POST,
            chat_id,
            content,
            thread_id=thread_id,
            reply_to=reply_to,
            dedupe=dedupe,
            on_sent=on_sent,
        )
        self._enqueue(job)
        return job

    async def send_now(
        self,
        chat_id: int,
        content: Content,
        *,
        thread_id: int | None = None,
        timeout: float = 20.0,  # noqa: ASYNC109
    ) -> Message | None:
        """:meth:`post` and wait until it was sent: the message, or None when Telegram refused
        it or it took longer than ``timeout`` seconds (it is still sent then). For the few
        callers that must know, e.g. whether a user started the bot."""
        job = self.post(chat_id, content, thread_id=thread_id)
        assert job is not None
        future: asyncio.Future[Message | None] = asyncio.get_running_loop().create_future()
        job.future = future
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            return None

    def show(
        self,
        key: SurfaceKey,
        chat_id: int,
        content: Content,
        *,
        message_id: int | None,
        thread_id: int | None = None,
        fresh: bool = False,
        keep_old: bool = False,
        final: bool = False,
        table: bool = False,
        on_sent: OnSent | None = None,
    ) -> None:
        """Make the surface ``key`` show ``content`` in ``chat_id``.

        Args:
            message_id: the message that shows it now as far as the caller knows (storage);
                the outbox's own knowledge wins once it has met the surface, and ``on_sent``
                tells the caller when the two differ.
            fresh: send a new message (below the chat's latest, so the phone notifies) and
                delete the old one unless ``keep_old``; otherwise the old one is edited.
            final: the surface's last word: sealed once shown.
            table: edits use the table's share of the budget.
            on_sent: called with the id of the surface's message whenever the caller's
                ``message_id`` is not that one (a new message, or one the caller forgot).
        """
        chat_id = self.migrated.get(chat_id, chat_id)
        surface = self._surfaces.get(key)
        if surface is None or surface.chat_id != chat_id:
            surface = Surface(key, chat_id, message_id=message_id)
            self._surfaces[key] = surface
        self._surfaces.move_to_end(key)
        while len(self._surfaces) > SURFACES_KEPT:
            self._surfaces.popitem(last=False)
        if surface.sealed or (surface.final and not final):
            return
        surface.recorded = message_id
        surface.desired = content
        surface.thread_id = thread_id
        surface.final = final
        surface.table = table
        surface.on_sent = on_sent
        pending = self._pending(surface)
        if fresh:
            surface.fresh, surface.keep_old = True, keep_old
            if pending is not None:
                self._chat(chat_id).jobs.remove(pending)
            self._enqueue(Job(_Kind.SURFACE, chat_id, surface=surface))
        elif pending is None and (surface.fresh or surface.shown != content.key):
            self._enqueue(Job(_Kind.SURFACE, chat_id, surface=surface))

    def retire(
        self, key: SurfaceKey, chat_id: int, content: Content, *, message_id: int | None
    ) -> bool:
        """Turn the surface's current message into ``content`` for good (a round's summary
        where the table was) and leave the surface without a message: its next
        :meth:`show` sends a new one, below. ``message_id``: as in :meth:`show`. False when
        the surface has no message to retire."""
        chat_id = self.migrated.get(chat_id, chat_id)
        surface = self._surfaces.get(key)
        if surface is None or surface.chat_id != chat_id:
            surface = Surface(key, chat_id, message_id=message_id)
            self._surfaces[key] = surface
        if surface.message_id is None or surface.sealed:
            return False
        pending = self._pending(surface)
        if pending is not None:
            self._chat(surface.chat_id).jobs.remove(pending)
        self.edit(surface.chat_id, surface.message_id, content)
        surface.message_id, surface.shown, surface.fresh, surface.keep_old = None, None, True, True
        return True

    def knows(self, key: SurfaceKey) -> bool:
        """Whether the outbox has met the surface ``key`` (it owns its message id then)."""
        return key in self._surfaces

    def forget(self, key: SurfaceKey) -> None:
        """Drop a surface that will not be shown again (its waiting call is cancelled)."""
        surface = self._surfaces.pop(key, None)
        if surface is not None and (pending := self._pending(surface)) is not None:
            self._chat(surface.chat_id).jobs.remove(pending)

    def edit(self, chat_id: int, message_id: int, content: Content) -> None:
        """Edit a message that is no surface (once; a vanished message is let go)."""
        chat_id = self.migrated.get(chat_id, chat_id)
        self._enqueue(Job(_Kind.EDIT, chat_id, content, message_id=message_id))

    def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message (failures: too old, already gone, are let go)."""
        chat_id = self.migrated.get(chat_id, chat_id)
        self._enqueue(Job(_Kind.DELETE, chat_id, message_id=message_id))

    def withdraw(self, job: Job) -> None:
        """Take a post back: not sent if it still waits, deleted if it was sent."""
        job.withdrawn = True
        chat = self._chats.get(job.chat_id)
        if chat is not None and job in chat.jobs:
            chat.jobs.remove(job)
        elif job.done and job.message_id is not None:
            self.delete(job.chat_id, job.message_id)

    def waiting(self, chat_id: int | None = None) -> int:
        """Calls waiting (in one chat, or in all)."""
        if chat_id is not None:
            chat = self._chats.get(chat_id)
            return len(chat.jobs) if chat is not None else 0
        return sum(len(c.jobs) for c in self._chats.values())

    async def close(self, grace: float = 5.0) -> None:
        """Stop the workers, giving them ``grace`` seconds to finish what they are doing
        (what is left unsent is redrawn after the restart)."""
        self._closed = True
        workers = [c.worker for c in self._chats.values() if c.worker is not None]
        for chat in self._chats.values():
            chat.wake.set()
        if workers:
            _, pending = await asyncio.wait(workers, timeout=grace)
            for task in pending:
                task.cancel()

    # --- the workers -------------------------------------------------------------------------

    def _accepting(self) -> bool:
        """Whether workers may (still) be started: the bot runs, or stops within its grace."""
        return self._running() or self._deadline is None or time.monotonic() < self._deadline

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = _Chat()
        return chat

    def _pending(self, surface: Surface) -> Job | None:
        chat = self._chats.get(surface.chat_id)
        if chat is None:
            return None
        return next((j for j in chat.jobs if j.surface is surface), None)

    def _enqueue(self, job: Job) -> None:
        chat = self._chat(job.chat_id)
        chat.jobs.append(job)
        chat.wake.set()
        if chat.worker is None and not self._closed:
            chat.worker = self._spawn(self._work(job.chat_id))

    async def _work(self, chat_id: int) -> None:
        """Make the chat's calls until its queue is empty."""
        chat = self._chat(chat_id)
        try:
            while chat.jobs and not self._closed:
                job, wait = self._pick(chat_id, chat)
                if job is None:
                    if not self._running():  # stopping: a few seconds more, not a minute
                        if self._deadline is None:
                            self._deadline = time.monotonic() + SHUTDOWN_GRACE
                        if time.monotonic() >= self._deadline:
                            return
                    chat.wake.clear()
                    await self._doze(chat, min(wait, 1.0))
                    continue
                chat.jobs.remove(job)
                try:
                    await self._run(job)
                except Exception:  # a bug here must never stop the chat's other messages
                    log.exception("a call in chat %s failed", chat_id)
                    self._resolve(job, None)
        finally:
            chat.worker = None
            if chat.jobs and not self._closed and self._accepting():  # enqueued meanwhile
                chat.worker = self._spawn(self._work(chat_id))
            elif not chat.jobs:
                self._chats.pop(chat_id, None)
                recent = self._recent.get(chat_id)
                if recent and self.budget.clock() - next(reversed(recent.values())) >= RECENT:
                    del self._recent[chat_id]  # memory stays flat

    def _is_table_edit(self, job: Job) -> bool:
        s = job.surface
        return (
            s is not None and s.table and not s.final and not s.fresh and s.message_id is not None
        )

    def _pick(self, chat_id: int, chat: _Chat) -> tuple[Job | None, float]:
        """The next job that may run now (table edits give way to the rest when the table's
        share is used up), else how long until one may."""
        now = self.budget.clock()
        waits = []
        for job in chat.jobs:
            table = self._is_table_edit(job)
            if job.not_before > now:
                waits.append(job.not_before - now)
            else:
                counted = job.kind is not _Kind.DELETE
                wait = self.budget.wait(chat_id, table=table) if counted else 0.0
                if wait <= 0:
                    return job, 0.0
                waits.append(wait)
            if not table:
                break  # the rest keep their order behind this one
        return None, min(waits) if waits else 0.0

    async def _doze(self, chat: _Chat, seconds: float) -> None:
        """Sleep ``seconds`` (budget time), or until a new job arrives."""
        sleeper = asyncio.ensure_future(self.budget.sleep(seconds))
        waker = asyncio.ensure_future(chat.wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            waker.cancel()

    async def _run(self, job: Job) -> None:
        """One call, with the error policy (see the module docstring)."""
        if job.withdrawn:
            return
        try:
            if job.kind is _Kind.POST:
                await self._post(job)
            elif job.kind is _Kind.SURFACE:
                await self._surface(job)
            elif job.kind is _Kind.EDIT:
                assert job.message_id is not None and job.content is not None
                with contextlib.suppress(_Gone):
                    await self._edit(job, job.message_id, job.content)
            elif job.kind is _Kind.DELETE:
                assert job.message_id is not None
                with contextlib.suppress(BadRequest):
                    await self.bot.delete_message(job.chat_id, job.message_id)
            else:
                assert job.message_id is not None
                with contextlib.suppress(BadRequest):
                    await self.bot.edit_message_reply_markup(job.chat_id, job.message_id)
                self.budget.record(job.chat_id)
        except ChatMigrated as exc:
            await self._moved(job, int(exc.new_chat_id))
        except Forbidden:
            await self._on_forbidden(job.chat_id)
            self._resolve(job, None)
        except (BadRequest, InvalidToken, Conflict, EndPointNotFound) as exc:
            log.warning("Telegram refused a call in chat %s: %s", job.chat_id, exc)
            self._resolve(job, None)
        except TelegramError as exc:  # passing: a timeout, a 5xx, a lost connection, a 429
            self._again(job, exc)

    def _again(self, job: Job, exc: TelegramError) -> None:
        """Put a job that failed for a passing reason back, to be tried again later."""
        job.attempts += 1
        if job.attempts >= MAX_ATTEMPTS and job.kind is not _Kind.SURFACE:
            log.warning("gave up a call in chat %s (%s tries): %s", job.chat_id, job.attempts, exc)
            self._resolve(job, None)
            return
        delay = min(0.5 * 2 ** (job.attempts - 1), SLOW_RETRY)
        if isinstance(exc, RetryAfter):
            retry = exc.retry_after
            delay = max(delay, retry.total_seconds() if hasattr(retry, "total_seconds") else retry)
        log.info("a call in chat %s failed (%s); again in %.1f s", job.chat_id, exc, delay)
        job.not_before = self.budget.clock() + delay
        self._chat(job.chat_id).jobs.insert(0, job)

    async def _moved(self, job: Job, new_chat_id: int) -> None:
        """The group became a supergroup: this job and every other of the old chat move."""
        old = job.chat_id
        self.migrated[old] = new_chat_id
        await self._on_migrated(old, new_chat_id)
        moved = [job, *self._chat(old).jobs]
        self._chat(old).jobs.clear()
        for j in moved:
            j.chat_id = new_chat_id
            if j.surface is not None:  # its message stays behind in the old chat
                j.surface.chat_id, j.surface.message_id, j.surface.fresh = new_chat_id, None, True
            if j.kind in (_Kind.POST, _Kind.SURFACE):
                self._enqueue(j)
            else:
                self._resolve(j, None)

    def _resolve(self, job: Job, message: Message | None) -> None:
        job.done = True
        if message is not None:
            job.message_id = message.message_id
        if job.future is not None and not job.future.done():
            job.future.set_result(message)

    # --- the calls ---------------------------------------------------------------------------

    async def _send(self, job: Job, content: Content, thread_id: int | None) -> Message:
        """sendMessage (or sendPhoto) for ``job``, counted in the budget. A reply whose
        command is gone, or a topic that is gone, is sent without it; a refused picture as its
        ``alt`` text."""
        if content.photo is not None:
            try:
                msg = await self.bot.send_photo(
                    job.chat_id,
                    InputFile(content.photo, filename="boompje.png"),
                    caption=content.text,
                    parse_mode=ParseMode.HTML,
                    reply_markup=content.markup,
                    reply_to_message_id=job.reply_to,
                    allow_sending_without_reply=True,
                    message_thread_id=thread_id,
                )
            except TimedOut:
                job.timeouts += 1
                raise
            except BadRequest as exc:
                if content.alt is None:
                    raise
                log.warning("a picture was refused in chat %s: %s", job.chat_id, exc)
                content = Content(content.alt, content.markup)
            else:
                self.budget.record(job.chat_id)
                return msg
        try:
            msg = await self.bot.send_message(
                job.chat_id,
                content.text,
                parse_mode=ParseMode.HTML,
                reply_markup=content.markup,
                reply_to_message_id=job.reply_to,
                allow_sending_without_reply=True,
                message_thread_id=thread_id,
                disable_web_page_preview=True,
            )
        except TimedOut:
            job.timeouts += 1  # it may have been delivered all the same
            raise
        except BadRequest as exc:
            if thread_id is None or "thread not found" not in exc.message.lower():
                raise
            msg = await self.bot.send_message(
                job.chat_id,
                content.text,
                parse_mode=ParseMode.HTML,
                reply_markup=content.markup,
                disable_web_page_preview=True,
            )
        self.budget.record(job.chat_id)
        if job.timeouts and content.markup is not None:
            # An earlier try timed out but may have been delivered: no second live keyboard.
            for orphan in range(max(1, msg.message_id - job.timeouts), msg.message_id):
                self._enqueue(Job(_Kind.UNBUTTON, job.chat_id, message_id=orphan))
        return msg

    async def _edit(self, job: Job, message_id: int, content: Content) -> None:
        """editMessageText (counted); "not modified" is success.

        Raises:
            _Gone: the message cannot be edited any more (deleted, too old, not ours).
        """
        try:
            await self.bot.edit_message_text(
                content.text,
                job.chat_id,
                message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=content.markup,
                disable_web_page_preview=True,
            )
        except BadRequest as exc:
            text = exc.message.lower()
            if "not modified" in text:
                return
            if "not found" in text or "can't be edited" in text or "no text" in text:
                raise _Gone from exc
            raise
        finally:
            table = self._is_table_edit(job)
            self.budget.record(job.chat_id, table=table)

    async def _post(self, job: Job) -> None:
        assert job.content is not None
        if job.dedupe is not None:  # from now on (in flight too) the same reply is not taken
            recent = self._recent.setdefault(job.chat_id, OrderedDict())
            recent.pop(job.dedupe, None)
            recent[job.dedupe] = self.budget.clock()
        msg = await self._send(job, job.content, job.thread_id)
        self._resolve(job, msg)
        if job.withdrawn:  # taken back while it was on its way
            self.delete(job.chat_id, msg.message_id)
        elif job.on_sent is not None:
            await job.on_sent(msg.message_id)

    async def _surface(self, job: Job) -> None:
        surface = job.surface
        assert surface is not None
        content = surface.desired
        if surface.sealed or content is None:
            return
        if content.photo is not None and surface.shown != content.key:
            surface.fresh = True  # a picture is sent, never edited in
        if not surface.fresh and surface.message_id is not None:
            if surface.shown == content.key:
                return
            try:
                await self._edit(job, surface.message_id, content)
            except _Gone:
                surface.fresh, surface.keep_old = True, False
            else:
                await self._shown(surface, content)
                return
        old = surface.message_id
        msg = await self._send(job, content, surface.thread_id)
        surface.message_id, surface.fresh = msg.message_id, False
        await self._shown(surface, content)
        if old is not None and not surface.keep_old:
            self.delete(job.chat_id, old)

    async def _shown(self, surface: Surface, content: Content) -> None:
        """The surface's message shows ``content``: sealed if it is the last word, and the
        caller's records told which message that is when they do not know yet."""
        surface.shown = content.key
        if surface.final and surface.desired is content:
            surface.sealed = True
        if surface.on_sent is not None and surface.recorded != surface.message_id:
            assert surface.message_id is not None
            surface.recorded = surface.message_id
            await surface.on_sent(surface.message_id)
