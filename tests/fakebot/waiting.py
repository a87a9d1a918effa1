"""Waiting without racy sleeps: a state-change signal, ``wait_for`` and ``idle``.

Every change of the fake's state (a call arriving or finishing, an update queued or
confirmed) calls ``notify``; waiters take ``change_event`` before checking their condition and
sleep on it, so they wake exactly when something changed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

from .calls import CallLog
from .updates import UpdateQueue

T = TypeVar("T")


class WaitTimeoutError(AssertionError):
    """``wait_for``, ``idle`` or ``settle`` gave up; the message shows the last API calls."""


class Waiting:
    """Mixin of ``FakeBotApi``: the change signal and the bot-activity bookkeeping."""

    calls: CallLog
    updates: UpdateQueue
    _changed: asyncio.Event
    _inflight: int  # calls other than getUpdates being answered right now
    _last_activity: float  # time.monotonic() of the last call start/end or confirmation

    def notify(self) -> None:
        """Signal that the state changed (wakes ``wait_for``, ``idle`` and long polls)."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, event: asyncio.Event, seconds: float) -> None:
        """Wait until ``event`` (the state-change event taken before a check) or ``seconds``."""
        if seconds <= 0:
            return
        try:
            async with asyncio.timeout(seconds):
                await event.wait()
        except TimeoutError:
            pass

    @property
    def change_event(self) -> asyncio.Event:
        """The event the next state change sets; take it before checking a condition."""
        return self._changed

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = 5.0,  # noqa: ASYNC109  (a deadline for repeated checks)
        *,
        what: str = "",
    ) -> T:
        """Wait until ``predicate()`` is truthy, re-checking on every state change.

        Returns the predicate's value; raises ``WaitTimeoutError`` (an AssertionError listing the
        last calls) after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            event = self._changed
            value = predicate()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeoutError(
                    f"timed out after {timeout}s waiting for {what or predicate!r}\n"
                    f"last calls:\n{self.calls.tail()}"
                )
            await self.wait_change(event, remaining)

    def is_busy(self) -> bool:
        """True while updates wait to be fetched or a (non-getUpdates) call is running."""
        return self._inflight > 0 or bool(self.updates.pending)

    async def idle(
        self,
        quiet: float = 0.05,
        timeout: float = 5.0,  # noqa: ASYNC109  (a deadline for repeated checks)
    ) -> None:
        """Wait until the bot fetched all updates and no call came for ``quiet`` seconds.

        Raises ``WaitTimeoutError`` if that does not happen within ``timeout`` seconds.  For a PTB
        application prefer ``BotRunner.settle``, which also waits for running handlers.
        """
        deadline = time.monotonic() + timeout
        while True:
            event = self._changed
            now = time.monotonic()
            if not self.is_busy():
                calm = now - self._last_activity
                if calm >= quiet:
                    return
                wait = quiet - calm
            else:
                wait = deadline - now
            if now >= deadline:
                pending = [u.kind for u in self.updates.pending]
                raise WaitTimeoutError(
                    f"not idle after {timeout}s: {self._inflight} calls running, pending "
                    f"updates {pending}\nlast calls:\n{self.calls.tail()}"
                )
            await self.wait_change(event, min(wait, deadline - now))

    def touch(self) -> None:
        """Note bot activity now (``idle`` waits for a quiet period after it)."""
        self._last_activity = time.monotonic()
