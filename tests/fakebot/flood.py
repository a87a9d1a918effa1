"""Flood control: 429 answers injected by a test, and an optional per-chat rate model."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .calls import MESSAGE_METHODS
from .errors import ApiError, too_many_requests

SEND_METHODS = frozenset({"sendMessage", "sendPhoto"})


@dataclass(slots=True)
class FloodRule:
    """The next ``remaining`` matching calls answer 429 with ``retry_after`` seconds.

    ``chat_id=None`` matches calls for any chat (and calls without a chat, except
    ``getUpdates``); ``methods=None`` matches every method but ``getUpdates``.
    """

    retry_after: int
    remaining: int
    chat_id: int | None = None
    methods: frozenset[str] | None = None
    hits: int = 0

    def matches(self, method: str, chat_id: int | None) -> bool:
        """Whether this rule applies to a call."""
        if self.remaining <= 0:
            return False
        if self.methods is None and method == "getUpdates":
            return False
        if self.methods is not None and method not in self.methods:
            return False
        return self.chat_id is None or self.chat_id == chat_id


@dataclass(slots=True)
class RateLimits:
    """Telegram's documented limits, enforced per chat when switched on.

    ``group_per_minute``: messages sent (and, with ``count_edits``, edited) in one group or
    supergroup per 60 s; ``private_per_second``: per private chat per second (None: off);
    ``global_per_second``: over all chats per second (None: off).
    """

    group_per_minute: int | None = 20
    private_per_second: int | None = None
    global_per_second: int | None = 30
    count_edits: bool = True


@dataclass(slots=True)
class FloodControl:
    """Decides whether a call gets 429; the server asks ``check`` before and ``record`` after."""

    clock: Callable[[], float]
    rules: list[FloodRule] = field(default_factory=list)
    limits: RateLimits | None = None
    _per_chat: dict[int, deque[float]] = field(default_factory=dict)
    _overall: deque[float] = field(default_factory=deque)

    def inject(
        self,
        *,
        chat_id: int | None = None,
        retry_after: int = 1,
        count: int = 1,
        methods: Iterable[str] | None = None,
    ) -> FloodRule:
        """Add a rule making the next ``count`` matching calls fail with 429."""
        rule = FloodRule(
            retry_after=retry_after,
            remaining=count,
            chat_id=chat_id,
            methods=frozenset(methods) if methods is not None else None,
        )
        self.rules.append(rule)
        return rule

    def _counted(self, method: str) -> bool:
        assert self.limits is not None
        return method in (MESSAGE_METHODS if self.limits.count_edits else SEND_METHODS)

    def _window(self, is_group: bool) -> tuple[int | None, float]:
        assert self.limits is not None
        if is_group:
            return self.limits.group_per_minute, 60.0
        return self.limits.private_per_second, 1.0

    def check(self, method: str, chat_id: int | None, is_group: bool) -> ApiError | None:
        """Return the 429 error this call gets, or None."""
        for rule in self.rules:
            if rule.matches(method, chat_id):
                rule.remaining -= 1
                rule.hits += 1
                return too_many_requests(rule.retry_after)
        if self.limits is None or chat_id is None or not self._counted(method):
            return None
        now = self.clock()
        limit, window = self._window(is_group)
        stamps = self._per_chat.setdefault(chat_id, deque())
        wait = _wait(stamps, limit, window, now)
        wait = max(wait, _wait(self._overall, self.limits.global_per_second, 1.0, now))
        return too_many_requests(max(1, math.ceil(wait))) if wait > 0 else None

    def record(self, method: str, chat_id: int | None) -> None:
        """Count a successful call towards the rate model."""
        if self.limits is None or chat_id is None or not self._counted(method):
            return
        now = self.clock()
        self._per_chat.setdefault(chat_id, deque()).append(now)
        self._overall.append(now)


def _wait(stamps: deque[float], limit: int | None, window: float, now: float) -> float:
    """Seconds until one more call fits in ``limit`` calls per ``window``; 0 if it fits."""
    while stamps and now - stamps[0] >= window:
        stamps.popleft()
    if limit is None or len(stamps) < limit:
        return 0.0
    return stamps[len(stamps) - limit] + window - now
