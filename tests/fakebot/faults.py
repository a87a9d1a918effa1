"""Injected faults: the ways a Bot API call goes wrong in production, on the wire.

A ``FaultRule`` picks calls (by method, chat, a predicate, a count and a seeded probability)
and spoils their answer in one of these ways (``kind``), each reaching python-telegram-bot
exactly as it would from Telegram or from the proxies in front of it:

==================== ======================================================= ================
kind                 what the client gets                                    PTB raises
==================== ======================================================= ================
``"500"``            HTTP 500 with Telegram's body                           ``NetworkError``
                     ``{"ok":false,"error_code":500,
                     "description":"Internal Server Error"}``
``"502"``            a bare HTTP 502 page from a proxy (HTML, not JSON)      ``NetworkError``
``"slow"``           the right answer, after ``delay`` seconds of            (nothing)
                     ``FaultInjector.sleep``
``"timeout_delivered"`` nothing until the client gives up: the call took     ``TimedOut``
                     effect (the message is in the chat)
``"timeout_lost"``   nothing until the client gives up: the call did not     ``TimedOut``
                     take effect
``"disconnect"``     the connection is closed without an answer              ``NetworkError``
``"photo_refused"``  HTTP 400 ``{"ok":false,"error_code":400,"description":  ``BadRequest``
                     "Bad Request: IMAGE_PROCESS_FAILED"}``: Telegram could
                     not process an uploaded picture (nothing is sent)
==================== ======================================================= ================

``takes_effect`` overrides the default of a kind ("500 but the message was sent" is real
too).  ``slow`` runs the method when its delay is over, so a client that gives up first sees
``TimedOut`` and the call does not take effect.  Held answers (the two timeouts) wait until
the client closes the connection (its read timeout) or the server stops; then the
connection is dropped.  Faulted calls are in the call log with ``ApiCall.fault`` set.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from aiohttp import web

if TYPE_CHECKING:
    from .calls import ApiCall

JSONDict = dict[str, Any]
FaultKind = Literal[
    "500", "502", "slow", "timeout_delivered", "timeout_lost", "disconnect", "photo_refused"
]
FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)
Sleep = Callable[[float], Awaitable[None]]
Answer = Callable[[], Awaitable[tuple[int, JSONDict]]]

#: Whether a kind's call changes the world when ``takes_effect`` is not given.
TAKES_EFFECT: dict[str, bool] = {
    "500": False,
    "502": False,
    "slow": True,
    "timeout_delivered": True,
    "timeout_lost": False,
    "disconnect": False,
    "photo_refused": False,
}
IMAGE_PROCESS_FAILED: JSONDict = {
    "ok": False,
    "error_code": 400,
    "description": "Bad Request: IMAGE_PROCESS_FAILED",
}
"""Telegram's answer to a picture it could not process."""
INTERNAL_SERVER_ERROR: JSONDict = {
    "ok": False,
    "error_code": 500,
    "description": "Internal Server Error",
}
#: What nginx in front of the Bot API answers when its upstream fails.
BAD_GATEWAY_PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n"
    "</body>\r\n</html>\r\n"
)


@dataclass(slots=True)
class FaultRule:
    """Spoil the answer of matching calls (see the module docstring for the kinds).

    A call matches when its method is in ``methods`` (None: any method but ``getUpdates``),
    its chat is ``chat_id`` (None: any), ``when(call)`` holds (if given), the rule has
    ``remaining`` uses left (None: unlimited) and, with ``probability``, a draw from the
    rule's own seeded ``rng`` falls below it.  ``calls`` are the calls it spoiled.
    """

    kind: FaultKind
    methods: frozenset[str] | None = None
    chat_id: int | None = None
    remaining: int | None = 1
    probability: float | None = None
    delay: float = 1.0
    takes_effect: bool = False
    when: Callable[[ApiCall], bool] | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    calls: list[ApiCall] = field(default_factory=list)

    @property
    def hits(self) -> int:
        """How many calls this rule spoiled."""
        return len(self.calls)

    def matches(self, call: ApiCall) -> bool:
        """Whether the rule spoils this call (draws from ``rng`` in probability mode)."""
        if self.remaining is not None and self.remaining <= 0:
            return False
        if self.methods is None:
            if call.method == "getUpdates":
                return False
        elif call.method not in self.methods:
            return False
        if self.chat_id is not None and call.chat_id != self.chat_id:
            return False
        if self.when is not None and not self.when(call):
            return False
        return self.probability is None or self.rng.random() < self.probability


class FaultInjector:
    """The server's fault rules, its sleep for ``slow`` and its held answers.

    ``sleep`` defaults to ``asyncio.sleep`` (real seconds); give it a scaled clock's sleep
    (``FastTime.sleep``, ``ManualClock.sleep``) to count ``delay`` on the fake's clock.
    """

    def __init__(self, sleep: Sleep = asyncio.sleep) -> None:
        self.rules: list[FaultRule] = []
        self.sleep = sleep
        self._held: set[asyncio.Future[None]] = set()

    def inject(
        self,
        *,
        kind: FaultKind,
        method: str | Iterable[str] | None = None,
        chat_id: int | None = None,
        count: int | None = 1,
        probability: float | None = None,
        seed: int = 0,
        delay: float = 1.0,
        takes_effect: bool | None = None,
        when: Callable[[ApiCall], bool] | None = None,
    ) -> FaultRule:
        """Add a rule (see ``FaultRule``); ``seed`` seeds its own ``random.Random``."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; one of {FAULT_KINDS}")
        if probability is not None and not 0.0 <= probability <= 1.0:
            raise ValueError("probability must be between 0 and 1")
        if kind == "slow" and takes_effect is False:
            raise ValueError("a slow answer is a correct answer: it always takes effect")
        methods = frozenset([method] if isinstance(method, str) else method) if method else None
        rule = FaultRule(
            kind=kind, methods=methods, chat_id=chat_id, remaining=count,
            probability=probability, delay=delay,
            takes_effect=TAKES_EFFECT[kind] if takes_effect is None else takes_effect,
            when=when, rng=random.Random(seed),
        )  # fmt: skip
        self.rules.append(rule)
        return rule

    def clear(self) -> None:
        """Remove every rule (held answers stay held)."""
        self.rules.clear()

    @property
    def held(self) -> int:
        """Answers being held right now."""
        return len(self._held)

    def pick(self, call: ApiCall) -> FaultRule | None:
        """The first rule that spoils ``call`` (and use it up once), or None."""
        for rule in self.rules:
            if rule.matches(call):
                if rule.remaining is not None:
                    rule.remaining -= 1
                rule.calls.append(call)
                call.fault = rule.kind
                call.took_effect = rule.takes_effect
                return rule
        return None

    def release_holds(self) -> None:
        """End every held answer: their connections are dropped (the server is stopping)."""
        for future in self._held:
            if not future.done():
                future.set_result(None)

    async def respond(
        self, request: web.Request, rule: FaultRule, call: ApiCall, answer: Answer
    ) -> web.StreamResponse:
        """Answer a spoiled call; ``answer()`` runs the method (Telegram's own answer)."""
        if rule.kind == "slow":
            await self.sleep(rule.delay)
        if rule.takes_effect:
            status, body = await answer()
            if rule.kind == "slow":
                call.record(status, body)
                return web.json_response(body, status=status)
            call.result = body.get("result")
            call.description = body.get("description")
        if rule.kind == "500":
            call.record(500, INTERNAL_SERVER_ERROR)
            return web.json_response(INTERNAL_SERVER_ERROR, status=500)
        if rule.kind == "photo_refused":
            call.record(400, IMAGE_PROCESS_FAILED)
            return web.json_response(IMAGE_PROCESS_FAILED, status=400)
        if rule.kind == "502":
            call.status, call.description = 502, "Bad Gateway"
            return web.Response(status=502, text=BAD_GATEWAY_PAGE, content_type="text/html")
        if rule.kind in ("timeout_delivered", "timeout_lost"):
            await self._hold()
        return _drop(request)

    async def _hold(self) -> None:
        """Wait until the client goes away (this task is cancelled) or the server stops."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._held.add(future)
        try:
            await future
        finally:
            self._held.discard(future)


def _drop(request: web.Request) -> web.StreamResponse:
    """Close the connection without an answer (the response is never written)."""
    if request.transport is not None:
        request.transport.abort()
    return web.Response(status=204)


class FaultsMixin:
    """``FakeBotApi.inject_fault``: the test-facing entry point of the fault rules."""

    faults: FaultInjector

    def inject_fault(
        self,
        *,
        kind: FaultKind,
        method: str | Iterable[str] | None = None,
        chat_id: int | None = None,
        count: int | None = 1,
        probability: float | None = None,
        seed: int = 0,
        delay: float = 1.0,
        takes_effect: bool | None = None,
        when: Callable[[ApiCall], bool] | None = None,
    ) -> FaultRule:
        """Spoil the next ``count`` matching calls (None: all) with ``kind``.

        ``probability`` (with ``seed``) spoils only that share of the matching calls, drawn
        from the rule's own ``random.Random(seed)``: deterministic for a given call order.
        ``delay`` is the wait of ``slow`` (seconds of ``api.faults.sleep``).  ``method=None``
        matches every method but ``getUpdates`` (name it to spoil long polls).
        """
        return self.faults.inject(
            kind=kind, method=method, chat_id=chat_id, count=count, probability=probability,
            seed=seed, delay=delay, takes_effect=takes_effect, when=when,
        )  # fmt: skip
