"""The outbox's calls to Telegram and its error policy (see :mod:`bot.outbox`): what to do
when a call succeeds, fails for a passing reason, or is refused."""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Coroutine, Hashable
from dataclasses import replace
from typing import Any, TypeVar

from telegram import Bot, InputFile, Message
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

from bot import telegram_ext
from bot.budget import ChatBudget
from bot.outbox.model import (
    CLAIM_RETRY,
    MAX_ATTEMPTS,
    SLOW_RETRY,
    ChatQueue,
    Claims,
    Content,
    Gone,
    Job,
    Kind,
    OnForbidden,
    OnLost,
    OnMigrated,
    Refresh,
    Surface,
)
from bot.telegram_buttons import fallback_for
from storage import MessageRef, SurfaceShown, SurfaceState

log = logging.getLogger("bot.outbox")

T = TypeVar("T")


class OutboxCalls:
    """The calls of :class:`bot.outbox.Outbox` (its queue and workers live there)."""

    bot: Bot
    budget: ChatBudget
    migrated: dict[int, int]
    _on_migrated: OnMigrated
    _on_forbidden: OnForbidden
    _recent: dict[int, OrderedDict[Hashable, float]]
    shared: bool
    refresh: Refresh | None
    claims: Claims | None
    on_lost: OnLost | None

    def _chat(self, chat_id: int) -> ChatQueue:
        raise NotImplementedError

    def _enqueue(self, job: Job, *, front: bool = False) -> None:
        raise NotImplementedError

    def delete(self, chat_id: int, message_id: int, *, receiver: int | None = None) -> None:
        """See :meth:`bot.outbox.Outbox.delete`."""
        raise NotImplementedError

    def migrate(self, old_chat_id: int, new_chat_id: int) -> bool:
        """See :meth:`bot.outbox.Outbox.migrate`."""
        raise NotImplementedError

    def _is_table_edit(self, job: Job) -> bool:
        s = job.surface
        return (
            s is not None and s.table and not s.final and not s.fresh and s.message_id is not None
        )

    def _is_hand_edit(self, job: Job) -> bool:
        """An edit of a hand shown in the group (an ephemeral surface without a tap to
        answer): it keeps within the table's share of the group's budget, so that replies
        to people go first, and needs only the lobby's gap after the table's last edit
        (:meth:`bot.outbox.Outbox._pick`)."""
        s = job.surface
        return s is not None and s.receiver is not None and s.query is None

    async def _run(self, job: Job) -> None:
        """One call, with the error policy (see the module docstring)."""
        if job.withdrawn:
            return
        try:
            if job.kind is Kind.POST:
                await self._post(job)
            elif job.kind is Kind.SURFACE:
                await self._surface(job)
            elif job.kind is Kind.EDIT and job.receiver is not None:
                assert job.message_id is not None and job.content is not None
                ref = telegram_ext.EphemeralRef(job.chat_id, job.receiver, job.message_id)
                with contextlib.suppress(telegram_ext.EphemeralError):
                    await self._counted(job, self._edit_ephemeral(ref, job.content))
            elif job.kind is Kind.EDIT:
                assert job.message_id is not None and job.content is not None
                with contextlib.suppress(Gone):
                    await self._edit(job, job.message_id, job.content)
            elif job.kind is Kind.DELETE and job.receiver is not None:
                assert job.message_id is not None
                ref = telegram_ext.EphemeralRef(job.chat_id, job.receiver, job.message_id)
                with contextlib.suppress(telegram_ext.EphemeralError):
                    await telegram_ext.delete_ephemeral(self.bot, ref)
            elif job.kind is Kind.DELETE:
                assert job.message_id is not None
                await self._delete(job, job.message_id)
            else:
                assert job.message_id is not None
                with contextlib.suppress(BadRequest):
                    call = self.bot.edit_message_reply_markup(job.chat_id, job.message_id)
                    await self._counted(job, call)
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
        if job.attempts >= MAX_ATTEMPTS and job.kind is not Kind.SURFACE:
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
        """The group became a supergroup: the caller is told (``on_migrated``; a failure is
        logged, never lost work), then this job and every other of the old chat move
        (:meth:`bot.outbox.Outbox.migrate`)."""
        old = job.chat_id
        self._chat(old).jobs.insert(0, job)
        try:  # storage first, so that what is sent to the new chat is recorded after it
            await self._on_migrated(old, new_chat_id)
        except Exception:
            log.warning("recording the migration of chat %s failed", old, exc_info=True)
        self.migrate(old, new_chat_id)

    def _resolve(self, job: Job, message: Message | None) -> None:
        job.done = True
        if message is not None:
            job.message_id = message.message_id
        if job.future is not None and not job.future.done():
            job.future.set_result(message)

    # --- the calls ---------------------------------------------------------------------------

    async def _counted(self, job: Job, call: Awaitable[T], *, table: bool = False) -> T:
        """Make one call that Telegram counts: it holds its place in the budget while in
        flight and is counted once it completed, failed or not (a failure may still have
        reached Telegram)."""
        self.budget.begin(table=table)
        try:
            return await call
        finally:
            self.budget.record(job.chat_id, table=table)

    async def _send(self, job: Job, content: Content, thread_id: int | None) -> Message:
        """sendMessage (or sendPhoto) for ``job``. A reply whose command is gone, or a topic
        that is gone, is sent without it; a refused picture as its ``alt`` text. After tries
        that timed out (perhaps delivered), the keyboards just above are taken off."""
        try:
            try:
                msg = await self._send_once(job, content, thread_id)
            except BadRequest as exc:  # a Bot API server without disabled buttons
                fallback = fallback_for(exc, content.markup)
                if fallback is None:
                    raise
                content = replace(content, markup=fallback)
                msg = await self._send_once(job, content, thread_id)
        except TimedOut:
            job.timeouts += 1  # it may have been delivered all the same
            raise
        if job.timeouts and content.markup is not None:
            # An earlier try timed out but may have been delivered: no second live keyboard.
            for orphan in range(max(1, msg.message_id - job.timeouts), msg.message_id):
                self._enqueue(Job(Kind.UNBUTTON, job.chat_id, message_id=orphan))
        return msg

    async def _send_once(self, job: Job, content: Content, thread_id: int | None) -> Message:
        if content.photo is not None:
            try:
                return await self._counted(
                    job,
                    self.bot.send_photo(
                        job.chat_id,
                        InputFile(content.photo, filename="boompje.png"),
                        caption=content.text,
                        parse_mode=ParseMode.HTML,
                        reply_markup=content.markup,
                        reply_to_message_id=job.reply_to,
                        allow_sending_without_reply=True,
                        message_thread_id=thread_id,
                    ),
                )
            except BadRequest as exc:
                if content.alt is None:
                    raise
                log.warning("a picture was refused in chat %s: %s", job.chat_id, exc)
                content = Content(content.alt, content.markup, mark=content.mark)
        try:
            return await self._counted(job, self._send_text(job, content, thread_id))
        except BadRequest as exc:
            if thread_id is None or "thread not found" not in exc.message.lower():
                raise
            return await self._counted(job, self._send_text(job, content, None))

    def _send_text(
        self, job: Job, content: Content, thread_id: int | None
    ) -> Coroutine[Any, Any, Message]:
        return self.bot.send_message(
            job.chat_id,
            content.text,
            parse_mode=ParseMode.HTML,
            reply_markup=content.markup,
            reply_to_message_id=job.reply_to,
            allow_sending_without_reply=True,
            message_thread_id=thread_id,
            disable_web_page_preview=True,
        )

    async def _edit(self, job: Job, message_id: int, content: Content) -> None:
        """editMessageText; "not modified" is success.

        Raises:
            Gone: the message cannot be edited any more (deleted, too old, not ours).
        """
        call = self.bot.edit_message_text(
            content.text,
            job.chat_id,
            message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=content.markup,
            disable_web_page_preview=True,
        )
        try:
            await self._counted(job, call, table=self._is_table_edit(job))
        except BadRequest as exc:
            fallback = fallback_for(exc, content.markup)  # a server without disabled buttons
            if fallback is not None:
                await self._edit(job, message_id, replace(content, markup=fallback))
                return
            text = exc.message.lower()
            if "not modified" in text:
                return
            if "not found" in text or "can't be edited" in text or "no text" in text:
                raise Gone from exc
            raise

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

    async def _delete(self, job: Job, message_id: int) -> None:
        """deleteMessage; failures (already gone, too old) are let go, and a message that
        could not be deleted but is still there becomes ``job.content`` (an old hand: "no
        longer current", without buttons) when there is one."""
        try:
            await self.bot.delete_message(job.chat_id, message_id)
        except BadRequest as exc:
            if job.content is None or "not found" in exc.message.lower():
                return
            log.info("could not delete message %s in chat %s: %s", message_id, job.chat_id, exc)
            with contextlib.suppress(BadRequest, Gone):
                await self._edit(job, message_id, job.content)

    async def _surface(self, job: Job) -> None:
        surface = job.surface
        assert surface is not None
        if surface.sealed or (surface.desired is None and surface.retire_as is None):
            return
        claims = self.claims
        if self.shared and claims is not None and claims.covers(surface.key):
            await self._claimed(job, surface, claims)
            return
        if not await self._redraw(surface):
            return
        content = surface.desired
        if surface.sealed or content is None:
            return
        await self._draw(job, surface, content)

    async def _redraw(self, surface: Surface, version: int | None = None) -> bool:
        """With ``shared``: draw the surface anew when the game moved past its drawing (other
        workers draw it too: never an older state over a newer one). False: the drawing is
        of no use any more (what replaces it is shown elsewhere). ``version``: the game's
        version as its claim read it (:attr:`storage.SurfaceState.game_version`); not past
        the drawing, nothing is asked."""
        if version is not None and surface.drawn_at is not None and version <= surface.drawn_at:
            return True
        if self.shared and self.refresh is not None and surface.drawn_at is not None:
            try:
                newer = await self.refresh(surface.key, surface.drawn_at)
            except Exception:
                log.warning("redrawing %s before sending failed", surface.key, exc_info=True)
                newer = None
            if newer is not None:
                surface.desired, surface.drawn_at = newer
                if surface.desired is None:
                    return False
        return True

    async def _claimed(self, job: Job, surface: Surface, claims: Claims) -> None:
        """Show the surface as its one owner across workers: claim it (another worker holds
        it: try again in :data:`CLAIM_RETRY` seconds), draw it as of now, and decide against
        what storage says it shows: nothing to do when it shows a newer drawing or this very
        content (or was sent anew since a fresh message was asked), else edit its current
        message or send a new one, and record that before the claim is dropped."""
        try:
            state = await claims.claim(surface.key)
        except Exception:  # storage out of reach (or no such game): draw as one process
            log.warning("claiming %s failed", surface.key, exc_info=True)
            if await self._redraw(surface) and surface.desired is not None:
                await self._draw(job, surface, surface.desired)
            return
        if state is None:  # another worker draws it right now
            job.not_before = self.budget.clock() + CLAIM_RETRY
            self._chat(job.chat_id).jobs.insert(0, job)
            return
        shown: SurfaceShown | None = None
        surface.claimed = True  # the release records the message, not on_sent
        try:
            shown = await self._owned(job, surface, state)
        finally:
            surface.claimed = False
            try:
                await claims.release(surface.key, shown)
            except Exception:
                log.warning("releasing %s failed", surface.key, exc_info=True)
                await self._record(surface)  # the caller's records, as without claims
            else:
                if shown is not None:
                    ref = shown.message
                    surface.recorded = ref.message_id if ref is not None else None

    async def _owned(self, job: Job, surface: Surface, state: SurfaceState) -> SurfaceShown | None:
        """:meth:`_claimed`'s work while the claim is held: what the surface shows now (None:
        unchanged)."""
        asked = surface.drawn_at
        current = (
            state.message.message_id
            if state.message is not None and state.message.chat_id == surface.chat_id
            else None
        )
        surface.message_id = current  # storage knows which message is current
        surface.recorded = current  # and records it
        if current is not None:
            surface.latest = max(surface.latest or 0, current)
        retiring = surface.retire_as is not None
        if (
            not await self._redraw(surface, state.game_version)
            or surface.sealed
            or surface.desired is None
        ):
            if retiring and current is not None and surface.retire_as is not None:
                self._retire_old(job, surface, current)  # the record stays, nothing follows
                surface.message_id = None
                return SurfaceShown(None, None, None, sent=False)
            return None
        content = surface.desired
        version = surface.drawn_at
        if not retiring and version is not None and state.shown_version > version:
            surface.fresh = False  # another worker shows a newer drawing
            return None
        fresh = surface.fresh or retiring or content.photo is not None
        if fresh and not retiring and content.photo is None and current is not None:
            # another worker sent it anew since this was asked: one new message is enough
            fresh = surface.again or asked is None or state.sent_version < asked
        if not fresh and current is not None and state.shown == content.digest:
            surface.fresh = False
            await self._shown(surface, content)  # already shows it: no "not modified"
            return None
        surface.fresh = fresh
        sent = await self._draw(job, surface, content)
        surface.again = False
        message = (
            MessageRef(surface.chat_id, surface.message_id)
            if surface.message_id is not None
            else None
        )
        return SurfaceShown(message, content.digest, version, sent=sent)

    def _retire_old(self, job: Job, surface: Surface, old: int) -> None:
        """The surface's old message becomes what :meth:`bot.outbox.Outbox.retire` asked."""
        retired, surface.retire_as = surface.retire_as, None
        if retired is not None:
            self._enqueue(Job(Kind.EDIT, job.chat_id, retired, message_id=old))

    async def _draw(self, job: Job, surface: Surface, content: Content) -> bool:
        """Edit the surface's message to ``content``, or send a new one (``fresh``, a
        picture, or the old one gone) and delete (or retire) the old one. True when a new
        message was sent."""
        if surface.receiver is not None:
            return await self._draw_ephemeral(job, surface, surface.receiver, content)
        if content.photo is not None and surface.shown != content.key:
            surface.fresh = True  # a picture is sent, never edited in
        old = surface.message_id
        if not surface.fresh and old is not None:
            if surface.shown == content.key and not self.shared:
                return False
            try:
                await self._edit(job, old, content)
            except Gone:
                surface.fresh, old = True, None  # gone: nothing left to delete
            else:
                await self._shown(surface, content)
                return False
        msg = await self._send(job, content, surface.thread_id)
        if surface.sealed and surface.desired is None:  # removed while it was on its way
            self.delete(job.chat_id, msg.message_id)
            return False
        surface.message_id, surface.fresh = msg.message_id, False
        surface.latest = max(surface.latest or 0, msg.message_id)
        await self._shown(surface, content)
        if old is not None and surface.retire_as is not None:
            self._retire_old(job, surface, old)
        elif old is not None and not surface.keep_old:
            self._enqueue(Job(Kind.DELETE, job.chat_id, surface.outdated, message_id=old))
        return True

    def _edit_ephemeral(self, ref: telegram_ext.EphemeralRef, content: Content) -> Awaitable[None]:
        return telegram_ext.edit_ephemeral_text(self.bot, ref, content.text, content.markup)

    async def _draw_ephemeral(
        self, job: Job, surface: Surface, receiver: int, content: Content
    ) -> bool:
        """:meth:`_draw` for an ephemeral surface (:mod:`bot.telegram_ext`): a new message
        only as the answer to a tap still within Telegram's window (the old one deleted),
        else an edit of the current one (``fresh`` means nothing here: Telegram takes no
        unasked message). Whatever Telegram refuses, or a tap too old, is
        :attr:`on_lost`'s to handle; timeouts and 5xx are tried again as for any call."""
        old = surface.message_id
        query, surface.query = surface.query, None
        now = self.budget.clock()
        if query is not None and now - query[1] > telegram_ext.REPLY_WINDOW - 2.0:
            query = None  # too late to answer that tap: Telegram would refuse it
        try:
            if query is None and old is not None:
                if surface.shown == content.key and not self.shared and not surface.fresh:
                    return False
                ref = telegram_ext.EphemeralRef(job.chat_id, receiver, old)
                await self._counted(job, self._edit_ephemeral(ref, content))
                surface.fresh = False
                await self._shown(surface, content)
                return False
            if query is None:
                raise telegram_ext.QueryExpired("no tap to answer with a new message")
            sent = await self._counted(
                job,
                telegram_ext.send_ephemeral(
                    self.bot,
                    job.chat_id,
                    receiver,
                    content.text,
                    content.markup,
                    callback_query_id=query[0],
                    thread_id=surface.thread_id,
                ),
            )
        except telegram_ext.EphemeralError as exc:
            log.info("ephemeral %s for user %s not shown: %s", surface.key, receiver, exc)
            surface.desired, surface.fresh, surface.shown = None, False, None
            if self.on_lost is not None:
                await self.on_lost(surface.key, receiver)
            return False
        except TelegramError:
            if query is not None:
                surface.query = query  # tried again while the tap is young enough
            raise
        surface.message_id, surface.fresh = sent.message_id, False
        surface.latest = max(surface.latest or 0, sent.message_id)
        await self._shown(surface, content)
        if old is not None and old != sent.message_id:
            self._enqueue(Job(Kind.DELETE, job.chat_id, message_id=old, receiver=receiver))
        return True

    async def _shown(self, surface: Surface, content: Content) -> None:
        """The surface's message shows ``content``: sealed if it is the last word, and the
        caller's records told which message that is when they do not know yet."""
        surface.shown = content.key
        if content.mark is not None:
            surface.shown_mark = content.mark
        if surface.final and surface.desired is content:
            surface.sealed = True
        if not surface.claimed:  # a claim's release records the message
            await self._record(surface)

    async def _record(self, surface: Surface) -> None:
        """Tell the caller's records (``on_sent``) which message shows the surface, when they
        do not know yet."""
        if surface.message_id is None:  # retired while the call was on its way
            return
        if surface.on_sent is not None and surface.recorded != surface.message_id:
            surface.recorded = surface.message_id
            await surface.on_sent(surface.message_id)
