"""Sending and editing messages with Telegram's failure modes handled (issue 3): edits that
change nothing are skipped, "message is not modified" is ignored, a lost message is sent
again, a 403 marks the user unreachable, a migrated group moves the game's chat id.

PTB's ``AIORateLimiter`` (configured in :mod:`bot.app`) spaces the calls and retries 429s.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError

from bot.callbacks import game_button
from bot.render.common import Keyboard

log = logging.getLogger(__name__)

SHOWN_LIMIT = 10_000
"""Messages whose current content the messenger remembers."""

OnMigrated = Callable[[int, int], Awaitable[None]]
OnForbidden = Callable[[int], Awaitable[None]]


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
    """Thin wrapper over the Bot with our error policy and a cache of what each message shows.

    Args:
        bot: the PTB bot.
        on_migrated: called with (old_chat_id, new_chat_id) when Telegram says a group became a
            supergroup; the call is then retried once in the new chat.
        on_forbidden: called with the chat id when Telegram refuses a private message (403).
        group_interval: least seconds between two messages (sent or edited) in one group, so
            a game stays within Telegram's ~20 messages a minute per group.
    """

    def __init__(
        self,
        bot: Bot,
        on_migrated: OnMigrated,
        on_forbidden: OnForbidden,
        group_interval: float = 0.0,
    ) -> None:
        self.bot = bot
        self._on_migrated = on_migrated
        self._on_forbidden = on_forbidden
        self._shown: OrderedDict[tuple[int, int], tuple[str, object]] = OrderedDict()
        self.migrated: dict[int, int] = {}
        self.last_call: dict[int, float] = {}
        """Monotonic time of the last send or edit per chat (for :mod:`bot.coalesce`)."""
        self.group_interval = group_interval
        self._pace_locks: dict[int, asyncio.Lock] = {}

    async def send(
        self,
        chat_id: int,
        text: str,
        reply_markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
    ) -> Message | None:
        """Send a message; None when Telegram refused it (logged, never raised)."""
        chat_id = self.migrated.get(chat_id, chat_id)
        await self._pace(chat_id)
        for _ in range(2):
            try:
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
            return msg
        return None

    async def edit(
        self, chat_id: int, message_id: int, text: str, reply_markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Edit a message to show ``text`` and ``reply_markup``; skips the call when it already
        does. Returns False when the message is gone or its group migrated (the caller may send
        a new one)."""
        shown = (text, _key(reply_markup))
        if self._shown.get((chat_id, message_id)) == shown:
            return True
        if chat_id in self.migrated:
            return False
        await self._pace(chat_id)
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

    async def _pace(self, chat_id: int) -> None:
        """Wait for this group's next free slot (``group_interval`` after the previous call)
        and take it. Private chats are not paced."""
        if chat_id < 0 and self.group_interval > 0:
            lock = self._pace_locks.setdefault(chat_id, asyncio.Lock())
            async with lock:
                wait = self.last_call.get(chat_id, float("-inf")) + self.group_interval
                wait -= time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                self.last_call[chat_id] = time.monotonic()
        else:
            self.last_call[chat_id] = time.monotonic()

    async def _migrated(self, old: int, new: int) -> None:
        self.migrated[old] = new
        await self._on_migrated(old, new)

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message; failures (too old, already gone) are ignored."""
        self._shown.pop((chat_id, message_id), None)
        try:
            await self.bot.delete_message(chat_id, message_id)
        except TelegramError as exc:
            log.debug("delete of %s/%s failed: %s", chat_id, message_id, exc)


def _key(reply_markup: InlineKeyboardMarkup | None) -> object:
    return reply_markup.to_json() if reply_markup is not None else None
