"""A hand-moved clock for tests of time windows (flood limits, callback query expiry)."""

from __future__ import annotations

import asyncio


class ManualClock:
    """A monotonic clock that only moves when the test calls ``advance``.

    Pass it as ``FakeBotApi(clock=clock)``: call timestamps, the rate model and callback
    query expiry then use it (message dates and ``idle``'s quiet period keep real time).
    ``sleep`` waits until the test has advanced the clock far enough (give it to
    ``api.faults.sleep`` or ``api.webhook.sleep`` so that delays follow this clock).
    """

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        """The current time in seconds."""
        return self.now

    def advance(self, seconds: float) -> float:
        """Move the clock forward, wake the sleepers that are due, and return the new time."""
        self.now += seconds
        due = [(t, f) for t, f in self._sleepers if t <= self.now]
        self._sleepers = [(t, f) for t, f in self._sleepers if t > self.now]
        for _, future in due:
            if not future.done():
                future.set_result(None)
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Return once ``advance`` has moved the clock ``seconds`` past now (at once if <= 0)."""
        if seconds <= 0:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (self.now + seconds, future)
        self._sleepers.append(entry)
        try:
            await future
        finally:
            if entry in self._sleepers:
                self._sleepers.remove(entry)
