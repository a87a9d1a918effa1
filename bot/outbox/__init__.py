"""The outbox: every message the bot sends, edits or deletes goes through
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
  so replies and notices always find room. An old message that cannot be deleted is edited to
  the surface's ``outdated`` content (an old hand: "no longer current", without buttons).
* **Several workers** (``shared``, one database): with :attr:`Outbox.claims`, each surface
  has one owner at a time. A worker claims the surface in storage before it draws it, draws
  it as of now, and decides against what storage says the surface shows (which message, the
  game version drawn there, a digest of the content, the version its message was sent at):
  nothing to do when it shows a newer drawing or this very content, else it edits that
  message or sends a new one (deleting the old), and records it before it lets go. A worker
  that finds the claim held does nothing and tries again shortly; so two workers never
  redraw the same hand, and an edit that finds its message gone leaves no second hand.
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
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

from telegram import Bot, Message

from bot.budget import ChatBudget
from bot.outbox.calls import OutboxCalls, log
from bot.outbox.model import (
    CLAIM_LEASE,
    CLAIM_RETRY,
    MAX_ATTEMPTS,
    MAX_REPLIES,
    RECENT,
    SHUTDOWN_GRACE,
    SLOW_RETRY,
    SURFACES_KEPT,
    ChatQueue,
    Claims,
    Content,
    Job,
    Kind,
    OnForbidden,
    OnLost,
    OnMigrated,
    OnSent,
    Refresh,
    Spawn,
    Surface,
    SurfaceKey,
)

__all__ = [
    "CLAIM_LEASE",
    "CLAIM_RETRY",
    "MAX_ATTEMPTS",
    "MAX_REPLIES",
    "RECENT",
    "SHUTDOWN_GRACE",
    "SLOW_RETRY",
    "SURFACES_KEPT",
    "Claims",
    "Content",
    "Job",
    "OnSent",
    "Outbox",
    "Surface",
    "SurfaceKey",
]


class Outbox(OutboxCalls):
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
        shared: other bot workers show the same surfaces (several workers on one
            database): a newer message id from the caller's records (storage) wins over this
            outbox's own, and what a surface shows is never taken as known (another worker
            may have edited it since), so every :meth:`show` is drawn.
    """

    def __init__(
        self,
        bot: Bot,
        budget: ChatBudget,
        on_migrated: OnMigrated,
        on_forbidden: OnForbidden,
        spawn: Spawn | None = None,
        running: Callable[[], bool] = lambda: True,
        *,
        shared: bool = False,
    ) -> None:
        self.bot = bot
        self.shared = shared
        self.refresh: Refresh | None = None
        """With ``shared``: asked before a surface drawn at a game version is sent; returns
        the content as of now (and its version) when the game moved on, else None."""
        self.claims: Claims | None = None
        """With ``shared``: one owner per surface across workers (the module docstring)."""
        self.on_lost: OnLost | None = None
        """Told when an ephemeral surface (``receiver``) could not be shown: not delivered,
        its message gone, or its tap too old for a new message (:meth:`show`)."""
        self._running = running
        self.budget = budget
        self._on_migrated = on_migrated
        self._on_forbidden = on_forbidden
        self._spawn: Spawn = spawn or asyncio.create_task
        self._chats: dict[int, ChatQueue] = {}
        self._surfaces: OrderedDict[SurfaceKey, Surface] = OrderedDict()
        self.migrated: dict[int, int] = {}
        """Groups that became supergroups: old chat id → new (:meth:`migrate`)."""
        self._recent: dict[int, OrderedDict[Hashable, float]] = {}
        """chat → dedupe keys of the replies sent there lately, oldest first."""
        self._closed = False
        self._line: list[int] = []
        """Chats whose worker waits for the bot's overall budget, in the order they came, those
        waiting with a reply to a person first, then those waiting with another post (a
        notice, a summary), then those waiting with a redraw."""
        self._posts_in_line: set[int] = set()
        """The chats of :attr:`_line` waiting with a post (its front)."""
        self._replies_in_line: set[int] = set()
        """The chats of :attr:`_line` waiting with a reply to a person (a post with a
        ``dedupe`` key: the very front, before the games' own posts)."""
        self._turns: dict[int, list[asyncio.Future[None]]] = {}
        """chat → who waits for the chat to leave :attr:`_line` (:meth:`turn`)."""
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
            waiting = [j for j in chat.jobs if j.kind is Kind.POST and j.dedupe is not None]
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
            Kind.POST,
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
        lobby: bool = False,
        on_sent: OnSent | None = None,
        drawn_at: int | None = None,
        outdated: Content | None = None,
        again: bool = False,
        receiver: int | None = None,
        query: tuple[str, float] | None = None,
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
            lobby: a lobby (with ``table``): its edits go before the chat's other waiting
                calls and need only the budget's ``lobby_gap`` after the last table edit, so
                a tap is seen at once and a burst of taps is drawn in few edits; with
                ``receiver``: the hand of the player to act, which goes first the same way.
            on_sent: called with the id of the surface's message whenever the caller's
                ``message_id`` is not that one (a new message, or one the caller forgot).
            drawn_at: the game version ``content`` was drawn at; with ``shared``, the
                :attr:`refresh` hook may draw it anew just before it is sent.
            outdated: what an old message of the surface becomes when it cannot be deleted.
            again: with ``fresh`` and :attr:`claims`: a new message even when another worker
                sent one since ``drawn_at`` (otherwise one is enough).
            receiver: an ephemeral message in the group ``chat_id`` that this user alone
                sees (:mod:`bot.telegram_ext`); its edits count in the group's budget. Telegram
                takes a new one only as the answer to a tap: ``query`` (callback query id, and
                when it was tapped on the budget clock) within
                :data:`bot.telegram_ext.REPLY_WINDOW`; otherwise (and whenever Telegram
                refuses it) :attr:`on_lost` is told and nothing is shown.
        """
        chat_id = self.migrated.get(chat_id, chat_id)
        surface = self._surfaces.get(key)
        if surface is None or surface.chat_id != chat_id or surface.receiver != receiver:
            surface = Surface(key, chat_id, message_id=message_id, latest=message_id)
            surface.receiver = receiver
            self._surfaces[key] = surface
        if query is not None:
            surface.query = query
        self._surfaces.move_to_end(key)
        while len(self._surfaces) > SURFACES_KEPT:
            self._surfaces.popitem(last=False)
        if surface.sealed or (surface.final and not final):
            return
        if self.shared:
            if message_id is not None and message_id > (surface.latest or 0):
                # another worker sent the surface's newest message: show it there
                surface.message_id = surface.latest = message_id
                surface.fresh = False
            surface.shown = None
        surface.recorded = message_id
        surface.desired = content
        surface.drawn_at = drawn_at
        surface.thread_id = thread_id
        surface.final = final
        surface.table = table
        surface.lobby = lobby
        surface.on_sent = on_sent
        surface.outdated = outdated
        pending = self._pending(surface)
        if fresh:
            surface.fresh, surface.keep_old, surface.again = True, keep_old, again
            if pending is not None:
                self._chat(chat_id).jobs.remove(pending)
            # the answer to a tap goes first: Telegram takes it only within its window
            self._enqueue(Job(Kind.SURFACE, chat_id, surface=surface), front=query is not None)
        elif pending is None and (surface.fresh or surface.shown != content.key):
            self._enqueue(Job(Kind.SURFACE, chat_id, surface=surface))

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
            surface = Surface(key, chat_id, message_id=message_id, latest=message_id)
            self._surfaces[key] = surface
        if surface.message_id is None or surface.sealed:
            return False
        pending = self._pending(surface)
        if pending is not None:
            self._chat(surface.chat_id).jobs.remove(pending)
        if surface.receiver is not None:  # an ephemeral hand: its last word, sealed
            self.edit(surface.chat_id, surface.message_id, content, receiver=surface.receiver)
            surface.sealed, surface.desired = True, None
            return True
        if self.shared and self.claims is not None and self.claims.covers(key):
            # the surface's owner retires the message that is current then, below the new one
            surface.retire_as, surface.fresh, surface.keep_old = content, True, True
            surface.shown = None
            self._enqueue(Job(Kind.SURFACE, surface.chat_id, surface=surface))
            return True
        self.edit(surface.chat_id, surface.message_id, content)
        surface.message_id, surface.shown, surface.fresh, surface.keep_old = None, None, True, True
        return True

    def remove(self, key: SurfaceKey, chat_id: int, *, message_id: int | None) -> None:
        """Delete the surface's message for good (a daily's hand once the result is there):
        its waiting call is cancelled, nothing is shown on it again, and a message still on
        its way is deleted when it arrives. ``message_id``: as in :meth:`show`."""
        chat_id = self.migrated.get(chat_id, chat_id)
        surface = self._surfaces.get(key)
        if surface is None or surface.chat_id != chat_id:
            surface = Surface(key, chat_id, message_id=message_id, latest=message_id)
            self._surfaces[key] = surface
        pending = self._pending(surface)
        if pending is not None:
            self._chat(chat_id).jobs.remove(pending)
        old, surface.message_id = surface.message_id, None
        surface.sealed, surface.desired = True, None
        if old is not None:
            self.delete(chat_id, old, receiver=surface.receiver)

    def shown_mark(self, key: SurfaceKey) -> object:
        """The :attr:`Content.mark` of the newest content the surface ``key`` has shown (None:
        none, or unknown to this outbox)."""
        surface = self._surfaces.get(key)
        return surface.shown_mark if surface is not None else None

    def message_of(self, key: SurfaceKey, chat_id: int) -> int | None:
        """The message that shows the surface ``key`` in ``chat_id`` as far as this outbox
        knows (None: none, or unknown)."""
        surface = self._surfaces.get(key)
        chat_id = self.migrated.get(chat_id, chat_id)
        if surface is None or surface.chat_id != chat_id:
            return None
        return surface.message_id

    def knows(self, key: SurfaceKey) -> bool:
        """Whether the outbox has met the surface ``key`` (it owns its message id then)."""
        return key in self._surfaces

    def forget(self, key: SurfaceKey) -> None:
        """Drop a surface that will not be shown again (its waiting call is cancelled)."""
        surface = self._surfaces.pop(key, None)
        if surface is not None and (pending := self._pending(surface)) is not None:
            self._chat(surface.chat_id).jobs.remove(pending)

    def edit(
        self, chat_id: int, message_id: int, content: Content, *, receiver: int | None = None
    ) -> None:
        """Edit a message that is no surface (once; a vanished message is let go);
        ``receiver``: an ephemeral message that user sees."""
        chat_id = self.migrated.get(chat_id, chat_id)
        self._enqueue(Job(Kind.EDIT, chat_id, content, message_id=message_id, receiver=receiver))

    def delete(self, chat_id: int, message_id: int, *, receiver: int | None = None) -> None:
        """Delete a message (failures: too old, already gone, are let go); ``receiver``: an
        ephemeral message that user sees."""
        chat_id = self.migrated.get(chat_id, chat_id)
        self._enqueue(Job(Kind.DELETE, chat_id, message_id=message_id, receiver=receiver))

    def withdraw(self, job: Job) -> None:
        """Take a post back: not sent if it still waits, deleted if it was sent."""
        job.withdrawn = True
        chat = self._chats.get(job.chat_id)
        if chat is not None and job in chat.jobs:
            chat.jobs.remove(job)
        elif job.done and job.message_id is not None:
            self.delete(job.chat_id, job.message_id)

    def migrate(self, old_chat_id: int, new_chat_id: int) -> bool:
        """The group ``old_chat_id`` became the supergroup ``new_chat_id``: from now on every
        call for it goes to the new id, and what waits for it moves there: posts (no longer
        quoting a message of the old chat), surfaces (sent anew: their messages stay behind
        in the old chat; a surface already shown elsewhere is left to that one), the dedupe
        memory and the chat's budget. Edits and deletes of old messages are let go. False
        (nothing done) when it was known already."""
        if old_chat_id == new_chat_id or self.migrated.get(old_chat_id) == new_chat_id:
            return False
        self.migrated[old_chat_id] = new_chat_id
        for old, new in list(self.migrated.items()):  # a chain: a → old → new
            if new == old_chat_id:
                self.migrated[old] = new_chat_id
        for surface in self._surfaces.values():
            if surface.chat_id == old_chat_id:
                surface.chat_id, surface.message_id, surface.fresh = new_chat_id, None, True
                surface.shown = None
        chat = self._chats.get(old_chat_id)
        jobs = list(chat.jobs) if chat is not None else []
        if chat is not None:
            chat.jobs.clear()
            if chat.sleeper is not None:
                chat.sleeper.cancel()
        for job in jobs:
            job.chat_id = new_chat_id
            job.reply_to = None
            current = self._surfaces.get(job.surface.key) if job.surface is not None else None
            if job.kind is Kind.POST or (
                job.kind is Kind.SURFACE and current in (None, job.surface)
            ):
                self._enqueue(job)
            else:
                self._resolve(job, None)
        recent = self._recent.pop(old_chat_id, None)
        if recent:
            self._recent.setdefault(new_chat_id, OrderedDict()).update(recent)
        self.budget.migrate(old_chat_id, new_chat_id)
        return True

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
            if chat.sleeper is not None:
                chat.sleeper.cancel()
        if workers:
            _, pending = await asyncio.wait(workers, timeout=grace)
            for task in pending:
                task.cancel()

    # --- the workers -------------------------------------------------------------------------

    def _accepting(self) -> bool:
        """Whether workers may (still) be started: the bot runs, or stops within its grace."""
        return self._running() or self._deadline is None or time.monotonic() < self._deadline

    def _chat(self, chat_id: int) -> ChatQueue:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = ChatQueue()
        return chat

    def _pending(self, surface: Surface) -> Job | None:
        chat = self._chats.get(surface.chat_id)
        if chat is None:
            return None
        return next((j for j in chat.jobs if j.surface is surface), None)

    def _enqueue(self, job: Job, *, front: bool = False) -> None:
        chat = self._chat(job.chat_id)
        if front:
            chat.jobs.insert(0, job)
        else:
            chat.jobs.append(job)
        if chat.sleeper is not None:  # wake the worker: this one may fit now
            chat.sleeper.cancel()
        if chat.worker is None and not self._closed:
            chat.worker = self._spawn(self._work(job.chat_id))

    async def _work(self, chat_id: int) -> None:
        """Make the chat's calls until its queue is empty."""
        chat = self._chat(chat_id)
        try:
            while chat.jobs and not self._closed:
                job, wait, overall = self._pick(chat_id, chat)
                if job is None:
                    if not self._running():  # stopping: a few seconds more, not a minute
                        if self._deadline is None:
                            self._deadline = time.monotonic() + SHUTDOWN_GRACE
                        if time.monotonic() >= self._deadline:
                            return
                    if overall:  # the bot's own budget is full: queue up, wake in turn
                        self._join_line(chat_id, chat)
                        wait += self._line.index(chat_id) * self.budget.overall_gap
                    else:  # the chat's own budget: nobody else waits for this chat
                        self._leave_line(chat_id)
                    await self._doze(chat, min(wait, 1.0))
                    continue
                self._leave_line(chat_id)
                chat.jobs.remove(job)
                try:
                    await self._run(job)
                except Exception:  # a bug here must never stop the chat's other messages
                    log.exception("a call in chat %s failed", chat_id)
                    self._resolve(job, None)
        finally:
            chat.worker = None
            self._leave_line(chat_id)
            if chat.jobs and not self._closed and self._accepting():  # enqueued meanwhile
                chat.worker = self._spawn(self._work(chat_id))
            elif not chat.jobs:
                self._chats.pop(chat_id, None)
                recent = self._recent.get(chat_id)
                if recent and self.budget.clock() - next(reversed(recent.values())) >= RECENT:
                    del self._recent[chat_id]  # memory stays flat

    def _join_line(self, chat_id: int, chat: ChatQueue) -> None:
        """Queue the chat for the bot's overall budget: a reply to a person (a post with a
        ``dedupe`` key, e.g. the answer to ``/help``) behind the other replies only, another
        post behind the posts, a redraw at the end. So a person waits for other people's
        replies, never behind 100 tables' notices and redraws."""
        if chat_id in self._line:
            return
        first = chat.jobs[0] if chat.jobs else None
        if first is not None and first.kind is Kind.POST and first.dedupe is not None:
            self._line.insert(len(self._replies_in_line), chat_id)
            self._replies_in_line.add(chat_id)
            self._posts_in_line.add(chat_id)
        elif first is not None and first.kind is Kind.POST:
            self._line.insert(len(self._posts_in_line), chat_id)
            self._posts_in_line.add(chat_id)
        else:
            self._line.append(chat_id)

    def _leave_line(self, chat_id: int) -> None:
        if chat_id in self._line:
            self._line.remove(chat_id)
            self._posts_in_line.discard(chat_id)
            self._replies_in_line.discard(chat_id)
        for waiter in self._turns.pop(chat_id, ()):
            if not waiter.done():
                waiter.set_result(None)

    def in_line(self, key: SurfaceKey) -> bool:
        """Whether the next call in the chat of surface ``key`` waits for the bot's overall
        budget (many chats want Telegram at once: the bot is at Telegram's limit for all
        chats together)."""
        surface = self._surfaces.get(key)
        return surface is not None and surface.chat_id in self._line

    async def turn(self, key: SurfaceKey) -> None:
        """Return once the chat of surface ``key`` no longer waits for the bot's overall
        budget (at once when it does not): its call got its place, or its worker stopped.
        The computer players wait for it before their next move, so at Telegram's limit they
        slow down, their chats served in the order they came (:class:`bot.driver.TableDriver`)."""
        surface = self._surfaces.get(key)
        if surface is None or surface.chat_id not in self._line:
            return
        chat_id = surface.chat_id
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._turns.setdefault(chat_id, []).append(waiter)
        try:
            await waiter
        finally:
            waiters = self._turns.get(chat_id)
            if waiters is not None and waiter in waiters:
                waiters.remove(waiter)
                if not waiters:
                    del self._turns[chat_id]

    def _pick(self, chat_id: int, chat: ChatQueue) -> tuple[Job | None, float, bool]:
        """The next job that may run now (a lobby's first, then in order; table edits give
        way to the rest when the table's share is used up; while a post waits for the bot's
        overall budget in another chat, only posts take that budget), else how long until one
        may, and whether the bot's overall budget (not the chat's own) is what it waits
        for."""
        now = self.budget.clock()
        waits: list[tuple[float, bool]] = []
        lobbies = [j for j in chat.jobs if j.surface is not None and j.surface.lobby]
        for job in (*lobbies, *(j for j in chat.jobs if j not in lobbies)):
            table = self._is_table_edit(job)
            lobby = job.surface is not None and job.surface.lobby
            if self._is_hand_edit(job):  # within the table's share, a second after its edit
                table = lobby = True
            if job.not_before > now:
                waits.append((job.not_before - now, False))
            elif job.kind is Kind.DELETE:  # Telegram does not count deletes
                return job, 0.0, False
            else:
                own = self.budget.chat_wait(chat_id, table=table, lobby=lobby)
                overall = self.budget.overall_wait(table=table)
                if overall <= 0 and self._yields(chat_id, job):
                    overall = self.budget.overall_gap  # a reply elsewhere waits: it goes first
                if own <= 0 and overall <= 0:
                    return job, 0.0, False
                waits.append((max(own, overall), overall > own))
            if not table and not lobby:
                break  # the rest keep their order behind this one
        if not waits:
            return None, 0.0, False
        wait, overall = min(waits)
        return None, wait, overall

    def _yields(self, chat_id: int, job: Job) -> bool:
        """Whether ``job`` leaves the bot's overall budget to another chat that waits for it
        with something more urgent: a redraw to any waiting post, a game's post to a waiting
        reply to a person (:meth:`_join_line`)."""
        if job.kind is Kind.POST and job.dedupe is not None:
            return False
        ahead = self._posts_in_line if job.kind is not Kind.POST else self._replies_in_line
        return bool(ahead - {chat_id})

    async def _doze(self, chat: ChatQueue, seconds: float) -> None:
        """Sleep ``seconds`` (budget time), or until a new job arrives (:meth:`_enqueue`
        cancels the sleep)."""
        sleeper = asyncio.ensure_future(self.budget.sleep(seconds))
        chat.sleeper = sleeper
        try:
            await asyncio.wait({sleeper})
        finally:
            chat.sleeper = None
            sleeper.cancel()
