"""A hand-moved clock for tests of time windows (flood limits, callback query expiry)."""

from __future__ import annotations


class ManualClock:
    """A monotonic clock that only moves when the test calls ``advance``.

    Pass it as ``FakeBotApi(clock=clock)``: call timestamps, the rate model and callback
    query expiry then use it (message dates and ``idle``'s quiet period keep real time).
    """

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        """The current time in seconds."""
        return self.now

    def advance(self, seconds: float) -> float:
        """Move the clock forward and return the new time."""
        self.now += seconds
        return self.now
