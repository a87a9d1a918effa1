"""Counting the database calls of card taps through the whole bot (the test of the calls
per tap, ``tests/bot/test_e2e_repo_calls.py``, and ``bench/bench_repo_calls.py``).

Four human players sit at a group table (no computers, so every tap is one player's move and
nothing else moves) and play card taps against the fake Bot API; after each tap the bot is let
settle (the callback answered, the table and the hands redrawn, the message ids recorded). A
counting wrapper around the database connections counts what each tap costs: on PostgreSQL
every call that goes to the server (one call, one round trip; a pool's reset of a connection
given back is counted apart, :attr:`Counter.resets`), on SQLite every statement handed to the
aiosqlite connection.
"""

from __future__ import annotations

import collections
import contextlib
import random
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import asyncpg.connection

from storage import PostgresRepository
from tests.bot.helpers import active_buttons, by_action, hand_message, make_app, open_and_fill, pick
from tests.fakebot import FakeBotApi, run_polling

PG_METHODS = ("fetch", "fetchrow", "fetchval", "execute", "executemany")
SQLITE_METHODS = ("execute", "execute_fetchall", "executemany", "commit", "rollback")


class Counter:
    """Calls seen, by kind (the method and the statement's first word)."""

    def __init__(self) -> None:
        self.kinds: collections.Counter[str] = collections.Counter()
        self.resets = 0
        self.log: list[str] = []

    @property
    def total(self) -> int:
        """Every call counted."""
        return sum(self.kinds.values())


def _kind(method: str, args: tuple[Any, ...]) -> str:
    sql = args[0] if args and isinstance(args[0], str) else ""
    word = sql.split(None, 1)[0].upper() if sql.strip() else ""
    return f"{method} {word}".strip()


@contextlib.contextmanager
def counting(counter: Counter) -> Iterator[None]:
    """Wrap the connection classes of both drivers so that every call counts."""
    saved: list[tuple[type, str, Callable[..., Any]]] = []

    def wrap(cls: type, name: str) -> None:
        original = getattr(cls, name)

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            counter.kinds[_kind(name, args)] += 1
            counter.log.append(f"{name}: {' '.join(str(args[0] if args else '').split())[:150]}")
            return original(self, *args, **kwargs)  # a coroutine or aiosqlite's awaitable

        saved.append((cls, name, original))
        setattr(cls, name, counted)

    for name in PG_METHODS:
        wrap(asyncpg.connection.Connection, name)
    for name in SQLITE_METHODS:
        wrap(aiosqlite.Connection, name)
    original_reset = asyncpg.connection.Connection.reset

    async def reset(self: Any, *args: Any, **kwargs: Any) -> Any:
        counter.resets += 1 if self.get_reset_query() else 0
        before = counter.kinds.copy()
        try:
            return await original_reset(self, *args, **kwargs)
        finally:  # reset() runs its query through execute(): counted apart
            counter.kinds.subtract(counter.kinds - before)
            counter.log.append("(reset)")

    saved.append((asyncpg.connection.Connection, "reset", original_reset))
    asyncpg.connection.Connection.reset = reset  # type: ignore[method-assign]
    try:
        yield
    finally:
        for cls, name, original in reversed(saved):
            setattr(cls, name, original)


async def measure(
    database: str, taps: int, seed: int, trace: int = 0, *, shared: bool = False
) -> tuple[list[int], Counter, int]:
    """Play ``taps`` taps on ``database`` (a path or URL); return the count per tap, the
    counter over all the taps and the pool resets."""
    counter = Counter()
    per_tap: list[int] = []
    resets = 0
    with tempfile.TemporaryDirectory() as tmp, counting(counter):
        async with FakeBotApi() as api:
            humans = [api.add_user(n, language_code="nl", started=True) for n in "ABCD"]
            group = api.add_group("Club", members=humans, admins=humans[:1])
            config = {"database_url": database} if "://" in database else {}
            extra: dict[str, Any] = {}
            if shared:  # as one of several workers would (BOT_WORKERS > 1 needs webhooks)
                extra["repository"] = await PostgresRepository.open(database)
            app = make_app(api, Path(tmp) / "bench.sqlite3", config=config, **extra)
            rng = random.Random(seed)
            async with run_polling(app, api) as bot:
                await open_and_fill(api, bot, group, humans)
                await bot.settle()
                total = collections.Counter[str]()
                while len(per_tap) < taps:
                    mover = next(
                        (
                            (u, m, b)
                            for u in humans
                            if (m := hand_message(u)) is not None and (b := active_buttons(m))
                        ),
                        None,
                    )
                    if mover is None:
                        break
                    user, message, buttons = mover
                    _, action = pick(buttons, rng)
                    before, before_resets = counter.kinds.copy(), counter.resets
                    logged = len(counter.log)
                    await (await user.tap(message, by_action(action))).wait_answered(timeout=30)
                    await bot.settle(timeout=30)
                    diff = counter.kinds - before
                    total.update(diff)
                    per_tap.append(sum(diff.values()))
                    if trace and len(per_tap) == trace:
                        print(f"tap {trace} ({action}):", *counter.log[logged:], sep="\n  ")
                    resets += counter.resets - before_resets
            if shared:
                await extra["repository"].close()
    summary = Counter()
    summary.kinds = total
    return per_tap, summary, resets
