"""One message budget per chat (``design.md`` §4): the only place that decides when
the bot may send or edit a message.

Telegram allows about 20 messages a minute in a group, counted over any 60 s (a sliding
window, sends and edits alike), and about one a second in a private chat. The budget keeps
the table's own edits well below that (15 a minute in a group, at least 4 s apart) so that
replies to commands, notices and the last word of a table always fit: those *priority* calls
may use the whole budget and wait for a slot rather than be dropped.

Telegram also limits the bot as a whole, to about 30 messages a second over all chats. A
burst over it is answered ``429``, and PTB's limiter then holds back *every* call of the bot,
the answers to taps included, until the retry time is over (at 50 solo tables that made taps
wait 0.7 s and more). So the budget also keeps all calls together under :data:`OVERALL` (25 a
second, sliding). Many chats' workers start calls at once, so a call holds its place from
when it starts (:meth:`ChatBudget.begin`) and is counted from when it completed
(:meth:`ChatBudget.record`), never later than Telegram counts it.

The :class:`~bot.outbox.Outbox` makes the calls, one at a time per chat, so a newer content
of a message never overtakes an older one on the way to Telegram.

A sliding window is not what a leaky bucket (``aiolimiter``, PTB's ``AIORateLimiter``) does:
a bucket of 20 that leaks one every 3 s lets a 21st message through 3 s after a burst of 20,
which Telegram answers with ``429``. Hence this small window counter, the bot's one rate
mechanism (PTB's limiter is not used; a ``429`` that happens anyway is retried by the outbox in
that chat alone).
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
    of which table edits may use ``table_limit``, at least ``table_gap`` seconds apart; a
    lobby's edits (people sitting down, who want to see it) count as table edits but need
    only ``lobby_gap`` seconds after the previous table edit."""

    limit: int
    window: float
    table_limit: int
    table_gap: float
    lobby_gap: float = 1.0


GROUP = Limits(limit=20, window=60.0, table_limit=15, table_gap=4.0, lobby_gap=1.0)
"""Telegram's ~20 messages a minute per group; the table keeps 5 a minute free. A lobby tap
after a quiet second is drawn at once; a burst of taps is drawn once a second at most."""

PRIVATE = Limits(limit=1, window=1.0, table_limit=1, table_gap=1.0)
"""Telegram's ~1 message a second per private chat."""

OVERALL = Limits(limit=25, window=1.0, table_limit=20, table_gap=0.0)
"""Telegram's ~30 messages a second for the whole bot, with headroom; table edits may use 20
of the 25, so hands and replies still go out when every table is busy."""


def shared(limits: Limits | None, workers: int) -> Limits | None:
    """One worker's share of ``limits`` when ``workers`` bot processes send for one bot
    (``BOT_WORKERS``): the counts divided among them, so that together they stay
    within Telegram's limit in any window (20 a minute in a group: 10 each for two); a
    limit that cannot be divided (one a second in a private chat) gets a window ``workers``
    times as long instead (one every 2 s each). ``workers`` < 1 is taken as 1."""
    n = max(workers, 1)
    if limits is None or n == 1:
        return limits
    if limits.limit // n >= 1:
        return Limits(
            limit=limits.limit // n,
            window=limits.window,
            table_limit=max(limits.table_limit // n, 1),
            table_gap=limits.table_gap * n,
            lobby_gap=limits.lobby_gap * n,
        )
    return Limits(
        limit=limits.limit,
        window=limits.window * n,
        table_limit=limits.table_limit,
        table_gap=limits.table_gap * n,
        lobby_gap=limits.lobby_gap * n,
    )


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
        overall: the limit of all chats together (None: off).
        clock: monotonic seconds.
        sleep: waits the given seconds (tests pass a scaled clock and sleep together).
    """

    def __init__(
        self,
        group: Limits | None = GROUP,
        private: Limits | None = PRIVATE,
        *,
        overall: Limits | None = OVERALL,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.group = group
        self.private = private
        self.overall = overall
        self._overall: deque[float] = deque()
        self._overall_table: deque[float] = deque()
        self._in_flight = 0
        self._in_flight_table = 0
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
        """Seconds until a call (a table edit when ``table``) fits in the chat's budget and in
        the bot's overall one; 0 when it fits now. A chat's calls are counted from when they
        completed (so a call Telegram counts from when it arrived never ends up in our window
        later than in Telegram's); overall, from when they start (:meth:`begin`)."""
        return max(self.chat_wait(chat_id, table=table), self.overall_wait(table=table))

    @property
    def overall_gap(self) -> float:
        """Seconds between two calls at the overall limit's pace (0 when it is off)."""
        return self.overall.window / self.overall.limit if self.overall is not None else 0.0

    def overall_wait(self, *, table: bool = False) -> float:
        """Seconds until a call fits in the bot's overall budget (0: now)."""
        limits = self.overall
        if limits is None:
            return 0.0
        now = self.clock()
        wait = _window_wait(self._overall, limits.limit - self._in_flight, limits.window, now)
        table_wait = _window_wait(
            self._overall_table, limits.table_limit - self._in_flight_table, limits.window, now
        )
        return max(wait, table_wait) if table else wait

    def begin(self, *, table: bool = False) -> None:
        """A counted call starts now: it holds a place in the overall budget until
        :meth:`record` (or :meth:`abort`)."""
        if self.overall is None:
            return
        self._in_flight += 1
        self._in_flight_table += table

    def abort(self, *, table: bool = False) -> None:
        """A call begun with :meth:`begin` failed before Telegram could count it: its place
        is counted from now (a failure may still have reached Telegram)."""
        self._finish(table)

    def _finish(self, table: bool) -> None:
        if self.overall is None or self._in_flight <= 0:
            return
        now = self.clock()
        self._in_flight -= 1
        self._overall.append(now)
        if table and self._in_flight_table > 0:
            self._in_flight_table -= 1
            self._overall_table.append(now)

    def chat_wait(self, chat_id: int, *, table: bool = False, lobby: bool = False) -> float:
        """Seconds until a call fits in the chat's own budget (0: now); ``lobby``: a table
        edit of a lobby, which needs only :attr:`Limits.lobby_gap` after the last table
        edit."""
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
            gap = min(limits.lobby_gap, limits.table_gap) if lobby else limits.table_gap
            wait = max(wait, chat.last_table + gap - now)
        return max(wait, 0.0)

    def migrate(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group ``old_chat_id`` became ``new_chat_id``: its calls so far count for the
        new id too (the same people read both; on the safe side of Telegram's limit)."""
        old = self._chats.pop(old_chat_id, None)
        if old is None:
            return
        new = self._chat(new_chat_id)
        new.stamps = deque(sorted([*new.stamps, *old.stamps]))
        new.last_table = max(new.last_table, old.last_table)

    def record(self, chat_id: int, *, table: bool = False) -> None:
        """Count one call in the chat that just completed (a table edit when ``table``), also
        overall when it was begun (:meth:`begin`)."""
        self._finish(table)
        if self.limits(chat_id) is None:
            return
        chat = self._chat(chat_id)
        now = self.clock()
        chat.stamps.append(now)
        if table:
            chat.last_table = now


def _window_wait(stamps: deque[float], limit: int, window: float, now: float) -> float:
    """Seconds until one more call fits in ``limit`` calls per sliding ``window`` seconds,
    given the calls' ``stamps`` (old ones are dropped); 0 when it fits now."""
    while stamps and now - stamps[0] >= window:
        stamps.popleft()
    if len(stamps) < limit:
        return 0.0
    if limit <= 0:  # every place is held by calls still in flight: wait for one of them
        return window / 10
    return max(stamps[len(stamps) - limit] + window - now, 0.0)
