"""The call log: every Bot API request the bot made, with its parameters and answer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]

#: Methods that put a new message into a chat or change one (what flood limits count).
MESSAGE_METHODS = frozenset(
    {
        "sendMessage", "sendPhoto", "editMessageText", "editMessageReplyMarkup",
        "editMessageCaption", "editMessageMedia", "editEphemeralMessageText",
        "editEphemeralMessageReplyMarkup",
    }
)  # fmt: skip


@dataclass(slots=True)
class ApiCall:
    """One Bot API request.

    ``params`` are as received (strings for form bodies); ``chat_id`` is the chat the call
    concerned, when it has one.  ``started``/``finished`` come from the server's clock
    (``time.monotonic`` unless a test gave another).  ``status`` is the HTTP status (200 on
    success, 0 while running or when the bot went away before an answer).  ``fault`` names the
    injected fault (``faults.py``) the call met, ``took_effect`` whether it still changed the
    world then (None for calls without a fault).
    """

    seq: int
    method: str
    params: dict[str, Any]
    chat_id: int | None
    started: float
    finished: float | None = None
    status: int = 0
    description: str | None = None
    result: Any = None
    error_parameters: JSONDict | None = field(default=None, repr=False)
    fault: str | None = None
    took_effect: bool | None = None

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.status == 200

    def record(self, status: int, body: JSONDict) -> None:
        """Keep the answer the client got (the server calls this)."""
        self.status = status
        if body.get("ok"):
            self.result = body["result"]
        else:
            self.description = body.get("description")
            self.error_parameters = body.get("parameters")

    def param(self, name: str) -> Any:
        """A parameter with JSON strings decoded (``reply_markup``, ``scope``, numbers...)."""
        value = self.params.get(name)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value

    def __str__(self) -> str:
        outcome = "ok" if self.ok else f"{self.status} {self.description}"
        fault = f" [fault {self.fault}]" if self.fault else ""
        return f"#{self.seq} {self.method}(chat={self.chat_id}) -> {outcome}{fault}"


class CallLog:
    """All calls in arrival order, with filters used by tests."""

    def __init__(self) -> None:
        self._calls: list[ApiCall] = []

    def __iter__(self) -> Iterator[ApiCall]:
        return iter(self._calls)

    def __len__(self) -> int:
        return len(self._calls)

    def __getitem__(self, index: int) -> ApiCall:
        return self._calls[index]

    def append(self, call: ApiCall) -> None:
        """Record a call (the server does this on arrival)."""
        self._calls.append(call)

    def filter(
        self,
        *methods: str,
        chat_id: int | None = None,
        ok: bool | None = None,
        since: int = 0,
    ) -> list[ApiCall]:
        """Calls of the given methods (all if none), optionally for one chat and outcome.

        ``since`` is a sequence number: only calls with ``seq >= since`` are returned (take
        ``len(api.calls)`` before an action to see only the calls it caused).
        """
        return [
            c
            for c in self._calls[since:]
            if (not methods or c.method in methods)
            and (chat_id is None or c.chat_id == chat_id)
            and (ok is None or c.ok == ok)
        ]

    def count(self, *methods: str, chat_id: int | None = None, since: int = 0) -> int:
        """Number of calls matching ``filter``."""
        return len(self.filter(*methods, chat_id=chat_id, since=since))

    def errors(self, since: int = 0) -> list[ApiCall]:
        """Finished calls that got an error answer."""
        return [c for c in self._calls[since:] if c.status not in (0, 200)]

    def faulted(self, *methods: str, since: int = 0) -> list[ApiCall]:
        """Calls that met an injected fault (``FakeBotApi.inject_fault``)."""
        return [c for c in self.filter(*methods, since=since) if c.fault is not None]

    def methods(self, since: int = 0) -> list[str]:
        """Method names in call order (handy in assertion messages)."""
        return [c.method for c in self._calls[since:]]

    def max_in_window(
        self,
        chat_id: int,
        window: float = 60.0,
        methods: Iterable[str] = MESSAGE_METHODS,
        *,
        ok_only: bool = True,
    ) -> int:
        """The most calls to ``methods`` for one chat within any ``window`` seconds."""
        wanted = set(methods)
        times = [
            c.started
            for c in self._calls
            if c.chat_id == chat_id and c.method in wanted and (c.ok or not ok_only)
        ]
        best, start = 0, 0
        for end, moment in enumerate(times):
            while moment - times[start] >= window:
                start += 1
            best = max(best, end - start + 1)
        return best

    def tail(self, count: int = 15) -> str:
        """The last calls, one per line, for failure messages."""
        return "\n".join(str(c) for c in self._calls[-count:]) or "(no calls)"
