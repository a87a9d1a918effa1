"""One message budget per chat (issue 9, ``design.md`` §4): the only place that decides when
the bot may send or edit a message.

Telegram allows about 20 messages a minute in a group, counted over any 60 s (a sliding
window, sends and edits alike), and about one a second in a private chat. The budget keeps
the table's own edits well below that (15 a minute in a group, at least 4 s apart) so that
replies to commands, notices and the last word of a table always fit: those *priority* calls
may use the whole budget and wait for a slot rather than be dropped.

The :class:`~bot.outbox.Outbox` makes the calls, one at a time per chat, so a newer content
of a message never overtakes an older one on the way to Telegram.

A sliding window is not what a leaky bucket (``aiolimiter``, PTB's ``AIORateLimiter``) does:
a bucket of 20 that leaks one every 3 s lets a 21st message through 3 s after a burst of 20,
which Telegram answers with ``429``. Hence this small window counter; PTB's limiter still
guards the global 30 a second and retries a ``429`` should one happen anyway.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Limits:
    """The budget of one kind of chat: at most ``limit`` calls in any ``window`` seconds,
    of which table edits may use ``table_limit``, at least ``table_gap`` seconds apart."""

    limit: int
    window: float
    table_limit: int
    table_gap: float


GROUP = Limits(limit=20, window=60.0, table_limit=15, table_gap=4.0)
"""Telegram's ~20 messages a minute per group; the table keeps 5 a minute free."""

PRIVATE = Limits(limit=1, window=1.0, table_limit=1, table_gap=1.0)
"""Telegram's ~1 message a second per private chat."""


@dataclass(slots=True)
class _Chat:
    stamps: deque[float] = field(default_factory=deque)
    last_table: float = float("-inf")


class ChatBudget:
    """Per-chat accounting of Telegram calls: how long until the next call fits, and the
    record of the calls made. The :class:`~bot.outbox.Outbox` is its only user: one worker per
    chat asks :meth:`wait` before a call and :meth:`record` after it.

    Args:
        group, private: the limits of groups (negative chat ids) and private chats; None
            switches limiting off for that kind.
        clock: monotonic seconds.
        sleep: waits the given seconds (tests pass a scaled clock and sleep together).
    """

    def __init__(
        self,
        group: Limits | None = GROUP,
        private: Limits | None = PRIVATE,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.group = group
        self.private = private
        self.clock = clock
        self.sleep = sleep
        self._chats: dict[int, _Chat] = {}

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = _Chat()
        return chat

    def limits(self, chat_id: int) -> Limits | None:
        """The limits that apply to ``chat_id`` (None: unlimited)."""
        return self.group if chat_id < 0 else self.private

    def wait(self, chat_id: int, *, table: bool = False) -> float:
        """Seconds until a call (a table edit when ``table``) fits in the chat's budget; 0
        when it fits now. Calls are counted from when they completed (so a call Telegram
        counts from when it arrived never ends up in our window later than in Telegram's)."""
        limits = self.limits(chat_id)
        if limits is None:
            return 0.0
        chat = self._chat(chat_id)
        now = self.clock()
        stamps = chat.stamps
        while stamps and now - stamps[0] >= limits.window:
            stamps.popleft()
        if not stamps and chat.last_table + limits.table_gap <= now:
            del self._chats[chat_id]  # nothing to remember: memory stays flat
            return 0.0
        limit = limits.table_limit if table else limits.limit
        wait = 0.0
        if len(stamps) >= limit:
            wait = stamps[len(stamps) - limit] + limits.window - now
        if table:
            wait = max(wait, chat.last_table + limits.table_gap - now)
        return max(wait, 0.0)

    def record(self, chat_id: int, *, table: bool = False) -> None:
        """Count one call in the chat that just completed (a table edit when ``table``)."""
        if self.limits(chat_id) is None:
            return
        chat = self._chat(chat_id)
        now = self.clock()
        chat.stamps.append(now)
        if table:
            chat.last_table = now
