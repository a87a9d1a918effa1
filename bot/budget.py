"""One message budget per chat (issue 9, ``design.md`` §4): the only place that decides when
the bot may send or edit a message.

Telegram allows about 20 messages a minute in a group, counted over any 60 s (a sliding
window, sends and edits alike), and about one a second in a private chat. The budget keeps
the table's own edits well below that (15 a minute in a group, at least 4 s apart) so that
replies to commands, notices and the last word of a table always fit: those *priority* calls
may use the whole budget and wait for a slot rather than be dropped.

Calls in one chat are serialized (one at a time, first come first served), so a newer
content of a message never overtakes an older one on the way to Telegram.

A sliding window is not what a leaky bucket (``aiolimiter``, PTB's ``AIORateLimiter``) does:
a bucket of 20 that leaks one every 3 s lets a 21st message through 3 s after a burst of 20,
which Telegram answers with ``429``. Hence this small window counter; PTB's limiter still
guards the global 30 a second and retries a ``429`` should one happen anyway.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
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
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    stamps: deque[float] = field(default_factory=deque)
    last_table: float = float("-inf")


class ChatBudget:
    """Per-chat slots for Telegram calls.

    Args:
        group, private: the limits of groups (negative chat ids) and private chats; None
            switches limiting off for that kind (calls are still serialized per chat).
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
        limit = limits.table_limit if table else limits.limit
        wait = 0.0
        if len(stamps) >= limit:
            wait = stamps[len(stamps) - limit] + limits.window - now
        if table:
            wait = max(wait, chat.last_table + limits.table_gap - now)
        return max(wait, 0.0)

    def busy(self, chat_id: int) -> bool:
        """Whether a call in the chat runs (or waits for its slot) right now."""
        return self._chat(chat_id).lock.locked()

    @asynccontextmanager
    async def slot(
        self, chat_id: int, *, table: bool = False, counted: bool = True
    ) -> AsyncIterator[None]:
        """Hold the chat's turn for one call: waits for the chat's earlier calls and for room
        in the budget, then yields; the call is counted when the block ends. ``table``: a
        table edit, which waits for the table's share without blocking priority calls
        meanwhile. ``counted=False``: a call Telegram does not count (a delete)."""
        chat = self._chat(chat_id)
        if table:
            while True:
                wait = self.wait(chat_id, table=True)
                if wait > 0:
                    await self.sleep(wait)
                    continue
                await chat.lock.acquire()
                if self.wait(chat_id, table=True) <= 0:
                    break
                chat.lock.release()
        else:
            await chat.lock.acquire()
            while counted and (wait := self.wait(chat_id)) > 0:
                await self.sleep(wait)
        try:
            yield
        finally:
            if counted and self.limits(chat_id) is not None:
                now = self.clock()
                chat.stamps.append(now)
                if table:
                    chat.last_table = now
            chat.lock.release()
