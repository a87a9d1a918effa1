"""Sending and editing messages with Telegram's failure modes handled (issue 3): edits that
change nothing are skipped, "message is not modified" is ignored, a lost message is sent
again, a 403 marks the user unreachable, a migrated group moves the game's chat id.

Every call takes a slot of its chat's :class:`~bot.budget.ChatBudget` (issue 9). Table
messages are shown with :meth:`Messenger.show`: when the table's share of the budget is used
up the edit waits, and newer content replaces the waiting one, so the table always shows the
newest state and never an older one after a newer. :meth:`Messenger.seal` gives a message its
last word: no later ``show`` changes it. PTB's ``AIORateLimiter`` (configured in
:mod:`bot.app`) guards the global rate and retries a 429.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError

from bot.budget import ChatBudget
from bot.callbacks import game_button
from bot.render.common import Keyboard

log = logging.getLogger(__name__)

SHOWN_LIMIT = 10_000
"""Messages whose current content the messenger remembers."""

OnMigrated = Callable[[int, int], Awaitable[None]]
OnForbidden = Callable[[int], Awaitable[None]]
Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]
Content = tuple[str, "InlineKeyboardMarkup | None"]


def markup(
    keyboard: Keyboard, scope: str, game_id: int, version: int
) -> InlineKeyboardMarkup | None:
    """Turn abstract buttons into Telegram buttons; actions become callback data
    ``<scope><game>.<version>.<action>``."""
    if not keyboard:
        return None
    rows = []
    for row in keyboard:
        out = []
        for b in row:
            if b.url:
                out.append(InlineKeyboardButton(b.label, url=b.url))
            else:
                out.append(
                    InlineKeyboardButton(
                        b.label, callback_data=game_button(scope, game_id, version, b.action)
                    )
                )
        rows.append(out)
    return InlineKeyboardMarkup(rows)


class Messenger:
    """Thin wrapper over the Bot with our error policy, the per-chat budget and a cache of
    what each message shows.

    Args:
        bot: the PTB bot.
        on_migrated: called with (old_chat_id, new_chat_id) when Telegram says a group became a
            supergroup; the call is then retried once in the new chat.
        on_forbidden: called with the chat id when Telegram refuses a private message (403).
        budget: when each chat may get its next call (default: Telegram's limits).
        spawn: starts a deferred table edit as a task (the application's ``create_task``, so
            shutdown and the tests' ``settle`` wait for it); default ``asyncio.create_task``.
    """

    def __init__(
        self,
        bot: Bot,
        on_migrated: OnMigrated,
        on_forbidden: OnForbidden,
        budget: ChatBudget | None = None,
        spawn: Spawn | None = None,
    ) -> None:
        self.bot = bot
        self._on_migrated = on_migrated
        self._on_forbidden = on_forbidden
        self.budget = budget or ChatBudget()
        self._spawn: Spawn = spawn or asyncio.create_task
        self._shown: OrderedDict[tuple[int, int], tuple[str, object]] = OrderedDict()
        self.migrated: dict[int, int] = {}
        self._pending: dict[tuple[int, int], Content] = {}
        self._workers: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._sealed: OrderedDict[tuple[int, int], None] = OrderedDict()

    async def send(
        self,
        chat_id: int,
        text: str,
        reply_markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
        final: bool = False,
    ) -> Message | None:
        """Send a message; None when Telegram refused it (logged, never raised). ``final``:
        the message is sent sealed (see :meth:`seal`)."""
        chat_id = self.migrated.get(chat_id, chat_id)
        for _ in range(2):
            try:
                async with self.budget.slot(chat_id):
                    msg = await self.bot.send_message(
                        chat_id,
                        text,
                        parse_mode=ParseMode.HTML,
                        reply_markup=reply_markup,
                        reply_to_message_id=reply_to,
                        allow_sending_without_reply=True,
                        disable_web_page_preview=True,
                    )
            except ChatMigrated as exc:
                await self._migrated(chat_id, exc.new_chat_id)
                chat_id = exc.new_chat_id
                continue
            except Forbidden:
                await self._on_forbidden(chat_id)
                return None
            except TelegramError as exc:
                log.warning("send to %s failed: %s", chat_id, exc)
                return None
            self._remember(chat_id, msg.message_id, (text, _key(reply_markup)))
            if final:
                self._sealed[(chat_id, msg.message_id)] = None
            return msg
        return None

    async def send_photo(
        self,
        chat_id: int,
        png: bytes,
        caption: str,
        reply_markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
    ) -> Message | None:
        """Send a picture (PNG bytes, uploaded) with an HTML ``caption`` (at most 1024
        characters after parsing); None when Telegram refused it (logged, never raised).
        The same error policy and budget slot as :meth:`send`. The message's caption is not
        remembered for skipping edits: :meth:`edit` edits texts, not captions."""
        chat_id = self.migrated.get(chat_id, chat_id)
        for _ in range(2):
            try:
                async with self.budget.slot(chat_id):
                    msg = await self.bot.send_photo(
                        chat_id,
                        InputFile(png, filename="boompje.png"),
                        caption=caption,
                        parse_mode=ParseMode.HTML,
                        reply_markup=reply_markup,
                        reply_to_message_id=reply_to,
                        allow_sending_without_reply=True,
                    )
            except ChatMigrated as exc:
                await self._migrated(chat_id, exc.new_chat_id)
                chat_id = exc.new_chat_id
                continue
            except Forbidden:
                await self._on_forbidden(chat_id)
                return None
            except TelegramError as exc:
                log.warning("photo to %s failed: %s", chat_id, exc)
                return None
            return msg
        return None

    async def edit(
        self, chat_id: int, message_id: int, text: str, reply_markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Edit a message now (a priority call) to show ``text`` and ``reply_markup``; skips
        the call when it already does. A table edit still waiting for this message is
        dropped (this content is newer). Returns False when the message is gone or its group
        migrated (the caller may send a new one)."""
        key = (chat_id, message_id)
        self._pending.pop(key, None)
        if key in self._sealed:
            return True
        return await self._edit(chat_id, message_id, (text, reply_markup), table=False)

    async def seal(
        self, chat_id: int, message_id: int, text: str, reply_markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Give a message its last word (a stopped or finished table): edit it now, and
        ignore every later :meth:`show` or :meth:`edit` of it. False when the message is gone
        (the caller sends the last word as a new message)."""
        key = (chat_id, message_id)
        self._pending.pop(key, None)
        if key in self._sealed:
            return True
        self._sealed[key] = None
        while len(self._sealed) > SHOWN_LIMIT:
            self._sealed.popitem(last=False)
        return await self._edit(chat_id, message_id, (text, reply_markup), table=False)

    def sealed(self, chat_id: int, message_id: int) -> bool:
        """Whether the message has had its last word."""
        return (chat_id, message_id) in self._sealed

    async def show(
        self, chat_id: int, message_id: int, text: str, reply_markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Show new content of a table message: at once when the table's budget allows, else
        by a deferred edit that sends the newest content once a slot is free. Returns False
        only when an immediate edit failed (the message is gone); True when done, deferred,
        or ignored (the message is sealed)."""
        key = (chat_id, message_id)
        if key in self._sealed:
            return True
        if self._shown.get(key) == (text, _key(reply_markup)):
            self._pending.pop(key, None)
            return True
        if key in self._workers:
            self._pending[key] = (text, reply_markup)
            return True
        if self.budget.wait(chat_id, table=True) <= 0 and not self.budget.busy(chat_id):
            return await self._edit(chat_id, message_id, (text, reply_markup), table=True)
        self._pending[key] = (text, reply_markup)
        self._workers[key] = self._spawn(self._drain(key))
        return True

    def cancel(self, chat_id: int, message_id: int) -> None:
        """Drop a deferred table edit (the message is being replaced)."""
        self._pending.pop((chat_id, message_id), None)

    def pending(self) -> int:
        """Deferred table edits not yet sent."""
        return len(self._pending)

    async def _drain(self, key: tuple[int, int]) -> None:
        """Send the newest content of a table message whenever the budget has room."""
        try:
            while key in self._pending:
                async with self.budget.slot(key[0], table=True):
                    content = self._pending.pop(key, None)
                    if content is None or key in self._sealed:
                        return
                    await self._call_edit(key[0], key[1], content)
        finally:
            self._workers.pop(key, None)

    async def _edit(self, chat_id: int, message_id: int, content: Content, *, table: bool) -> bool:
        if self._shown.get((chat_id, message_id)) == (content[0], _key(content[1])):
            return True
        if chat_id in self.migrated:
            return False
        async with self.budget.slot(chat_id, table=table):
            return await self._call_edit(chat_id, message_id, content)

    async def _call_edit(self, chat_id: int, message_id: int, content: Content) -> bool:
        """The edit itself, with the error policy; the caller holds the chat's slot."""
        text, reply_markup = content
        shown = (text, _key(reply_markup))
        if self._shown.get((chat_id, message_id)) == shown:
            return True
        try:
            await self.bot.edit_message_text(
                text,
                chat_id,
                message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=reply_markup,
                disable_web_page_preview=True,
            )
        except ChatMigrated as exc:
            await self._migrated(chat_id, exc.new_chat_id)
            return False
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():
                log.info("edit of %s/%s failed: %s", chat_id, message_id, exc)
                return False
        except Forbidden:
            await self._on_forbidden(chat_id)
            return False
        except TelegramError as exc:
            log.warning("edit of %s/%s failed: %s", chat_id, message_id, exc)
            return False
        self._remember(chat_id, message_id, shown)
        return True

    def _remember(self, chat_id: int, message_id: int, shown: tuple[str, object]) -> None:
        """What a message shows now, for skipping edits that change nothing (the latest
        :data:`SHOWN_LIMIT` messages)."""
        self._shown[(chat_id, message_id)] = shown
        self._shown.move_to_end((chat_id, message_id))
        while len(self._shown) > SHOWN_LIMIT:
            self._shown.popitem(last=False)

    async def _migrated(self, old: int, new: int) -> None:
        self.migrated[old] = new
        await self._on_migrated(old, new)

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message; failures (too old, already gone) are ignored."""
        self._shown.pop((chat_id, message_id), None)
        self._pending.pop((chat_id, message_id), None)
        try:
            async with self.budget.slot(chat_id, counted=False):
                await self.bot.delete_message(chat_id, message_id)
        except TelegramError as exc:
            log.debug("delete of %s/%s failed: %s", chat_id, message_id, exc)


def _key(reply_markup: InlineKeyboardMarkup | None) -> object:
    return reply_markup.to_json() if reply_markup is not None else None
