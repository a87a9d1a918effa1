"""Per-key asyncio locks that exist only while somebody holds or waits for them, and a small
bounded LRU mapping: the bot's per-game state stays flat however many games it has played."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class KeyedLocks(Generic[K]):
    """One :class:`asyncio.Lock` per key, dropped when its last holder or waiter leaves.

    ``async with locks(key): ...`` serializes work on ``key`` (never a global lock); memory
    grows with the keys in use at one moment, not with every key ever used.
    """

    def __init__(self) -> None:
        self._locks: dict[K, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        """Keys whose lock is held or awaited now."""
        return len(self._locks)

    @asynccontextmanager
    async def __call__(self, key: K) -> AsyncIterator[None]:
        """Hold ``key``'s lock for the block."""
        lock, users = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock_now, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock_now, users - 1)


class LruDict(Generic[K, V]):
    """A mapping that keeps at most ``size`` entries, dropping the least recently used.

    Args:
        size: the most entries kept (at least 1).

    Raises:
        ValueError: ``size`` below 1.
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("size must be at least 1")
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recently used), or None."""
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        """Store ``value`` under ``key``, dropping the oldest entries beyond :attr:`size`."""
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.size:
            self._data.popitem(last=False)

    def pop(self, key: K) -> V | None:
        """Remove ``key``; its value or None."""
        return self._data.pop(key, None)
