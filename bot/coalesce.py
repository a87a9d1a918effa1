"""Coalesced edits of the group's table message (``design.md`` §4: Telegram allows about 20
messages a minute in a group). An edit within ``interval`` seconds of the previous call to the
same chat is deferred; while it waits, newer content replaces it, so a burst of moves becomes
one edit showing the latest state."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import InlineKeyboardMarkup

from bot.telegram_io import Messenger

Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]


class EditCoalescer:
    """At most one edit per chat every ``interval`` seconds; the newest content wins.

    Args:
        messenger: does the actual edit.
        interval: seconds between calls to one chat (0 disables coalescing).
        spawn: starts the deferred edit as a task (the application's ``create_task``, so a
            shutdown waits for it).
        clock: monotonic seconds (the messenger's ``last_call`` uses ``time.monotonic``).
    """

    def __init__(
        self,
        messenger: Messenger,
        interval: float,
        spawn: Spawn,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.messenger = messenger
        self.interval = interval
        self._spawn = spawn
        self._clock = clock
        self._pending: dict[tuple[int, int], tuple[str, InlineKeyboardMarkup | None]] = {}
        self._tasks: dict[tuple[int, int], asyncio.Task[None]] = {}

    def cancel(self, chat_id: int, message_id: int) -> None:
        """Drop a deferred edit (the message is being replaced or finalised)."""
        key = (chat_id, message_id)
        self._pending.pop(key, None)
        task = self._tasks.pop(key, None)
        if task is not None:
            task.cancel()

    async def edit(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Edit now, or defer the edit; False only when an immediate edit failed (the message
        is gone)."""
        key = (chat_id, message_id)
        if key in self._tasks:
            self._pending[key] = (text, markup)
            return True
        last = self.messenger.last_call.get(chat_id, float("-inf"))
        wait = last + self.interval - self._clock()
        if wait <= 0:
            return await self.messenger.edit(chat_id, message_id, text, markup)
        self._pending[key] = (text, markup)
        self._tasks[key] = self._spawn(self._flush(key, wait))
        return True

    async def _flush(self, key: tuple[int, int], wait: float) -> None:
        try:
            await asyncio.sleep(wait)
        finally:
            self._tasks.pop(key, None)
        content = self._pending.pop(key, None)
        if content is not None:
            await self.messenger.edit(key[0], key[1], *content)
