"""Coalesced table edits (``design.md`` §4): bursts become one edit with the newest content."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.coalesce import EditCoalescer


class FakeMessenger:
    """Records edits; ``last_call`` as the real Messenger keeps it."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock
        self.last_call: dict[int, float] = {}
        self.edits: list[tuple[int, int, str]] = []

    async def edit(self, chat_id: int, message_id: int, text: str, markup: Any) -> bool:
        self.last_call[chat_id] = self.clock[0]
        self.edits.append((chat_id, message_id, text))
        return True


async def test_edits_within_the_interval_are_merged_into_the_newest() -> None:
    now = [100.0]
    messenger = FakeMessenger(now)
    tasks: list[asyncio.Task[None]] = []

    def spawn(coro: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        tasks.append(task)
        return task

    co = EditCoalescer(messenger, 0.05, spawn, clock=lambda: now[0])  # type: ignore[arg-type]
    assert await co.edit(-1, 7, "a", None)  # first edit goes at once
    assert await co.edit(-1, 7, "b", None)  # deferred
    assert await co.edit(-1, 7, "c", None)  # replaces "b"
    assert await co.edit(-2, 9, "x", None)  # another chat is independent
    assert messenger.edits == [(-1, 7, "a"), (-2, 9, "x")]
    await asyncio.gather(*tasks)
    assert messenger.edits == [(-1, 7, "a"), (-2, 9, "x"), (-1, 7, "c")]


async def test_cancel_drops_a_deferred_edit() -> None:
    now = [5.0]
    messenger = FakeMessenger(now)
    tasks: list[asyncio.Task[None]] = []

    def spawn(coro: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        tasks.append(task)
        return task

    co = EditCoalescer(messenger, 10.0, spawn, clock=lambda: now[0])  # type: ignore[arg-type]
    await co.edit(-1, 1, "first", None)
    await co.edit(-1, 1, "stale", None)
    co.cancel(-1, 1)
    await asyncio.gather(*tasks, return_exceptions=True)
    assert messenger.edits == [(-1, 1, "first")]


async def test_zero_interval_edits_at_once() -> None:
    now = [0.0]
    messenger = FakeMessenger(now)
    co = EditCoalescer(messenger, 0.0, lambda c: None, clock=lambda: now[0])  # type: ignore[arg-type, return-value]
    for text in "abc":
        await co.edit(-1, 1, text, None)
    assert [e[2] for e in messenger.edits] == ["a", "b", "c"]
