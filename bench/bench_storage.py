"""Repository time per card tap: SQLite vs PostgreSQL.

One tap costs the repository what ``GameService.act`` and the presenter ask of it:
``upsert_user`` (every update touches its user; the facts are unchanged), ``get_game``,
``get_actions`` (the whole log: what a process without the game's state in memory reads, e.g. a
second worker or after a restart), ``append_actions`` (one action, snapshot, status, timer)
and ``set_hand_message`` (the hand redrawn). Each tap appends to a game of four humans; a new
game starts every ``--actions`` taps (a 16-round game has about 530 actions), so the logs read
grow as in play. Times are wall-clock milliseconds of the awaited calls, one coroutine, on
this machine (the database server on the same machine, over 127.0.0.1 TCP).

Backends:

* ``sqlite``: a file in a temporary folder (WAL, ``synchronous=NORMAL``), as the bot opens it:
  its rows of users and games are kept in memory, so ``upsert_user`` and ``get_game`` usually
  cost no transaction;
* ``postgresql``: a throwaway server (``tests/pg.py``, PostgreSQL's durable defaults:
  ``fsync=on``, ``synchronous_commit=on``), no rows kept in memory;
* ``postgresql-async-commit``: the same with ``synchronous_commit=off`` for the bot's
  connections (a crash may lose the last few hundred milliseconds of commits, never
  consistency: about what SQLite's ``synchronous=NORMAL`` risks on a power cut).

``--postgres-url URL`` measures an existing server instead of starting one (the database must
exist and be empty or the bench's own). Prints p50 / p95 per operation and per tap, and the
transactions per tap. Asserts nothing.

Run: ``python bench/bench_storage.py [--taps 1000] [--actions 530] [--backend ...]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg

from storage import (
    GameStatus,
    MessageRef,
    Occupant,
    PostgresRepository,
    Repository,
    SqliteRepository,
    TurnTimer,
)
from tests.pg import PostgresDatabases, PostgresServer, find_bindir

OPS = ("upsert_user", "get_game", "get_actions", "append_actions", "set_hand_message")
CHAT = -100_123_456_789
USERS = [10**12 + n for n in range(4)]
SETTINGS = '{"preset": "amsterdam", "rounds": 16, "turn_timeout": 60}'
WARMUP = 20


def _snapshot(count: int) -> str:
    """A snapshot of the size the service writes (``bot.service._snapshot``)."""
    return (
        f'{{"format": 1, "actions": {count}, "round": {count // 33 + 1}, "phase": "play", '
        f'"to_act": {count % 4}, "totals": {{"NS": {count * 3}, "EW": {count * 2}}}}}'
    )


async def _new_game(repo: Repository, now: float) -> tuple[int, int]:
    """A started game of four humans; returns (game id, version)."""
    seats = [Occupant.human(u, f"P{i}") for i, u in enumerate(USERS)]
    game = await repo.create_game(CHAT, USERS[0], SETTINGS, 42, now=now, seats=seats)
    version = await repo.append_actions(
        game.game_id,
        game.version,
        [],
        snapshot=_snapshot(0),
        status=GameStatus.ACTIVE,
        timer=TurnTimer(now + 60, 0),
        now=now,
    )
    return game.game_id, version


class _Timer:
    """Awaits a call and records its milliseconds under a name."""

    def __init__(self, spent: dict[str, float]) -> None:
        self.spent = spent

    async def __call__(self, op: str, call: Awaitable[Any]) -> Any:
        t0 = time.perf_counter()
        result = await call
        self.spent[op] = (time.perf_counter() - t0) * 1000
        return result


async def measure(repo: Repository, taps: int, actions: int) -> dict[str, list[float]]:
    """Run ``taps`` tap sequences on ``repo``; milliseconds per op and per tap (key
    ``"tap"``), and transactions per tap (key ``"transactions"``)."""
    now = 1_700_000_000.0
    for user in USERS:
        await repo.upsert_user(user, f"P{user % 10}", "nl", now=now)
    await repo.upsert_chat(CHAT, "supergroup", "Bench", now=now)
    times: dict[str, list[float]] = {op: [] for op in (*OPS, "tap", "transactions")}
    game_id, version, count = *(await _new_game(repo, now)), 0
    for tap in range(WARMUP + taps):
        if count >= actions:
            await repo.append_actions(
                game_id, version, [], snapshot="{}", status=GameStatus.FINISHED, timer=None,
                now=now,
            )  # fmt: skip
            game_id, version, count = *(await _new_game(repo, now)), 0
        seat = count % 4
        now += 1.5
        spent: dict[str, float] = {}
        before = getattr(repo, "transactions", 0)
        timed = _Timer(spent)
        await timed("upsert_user", repo.upsert_user(USERS[seat], f"P{seat}", "nl", now=now))
        game = await timed("get_game", repo.get_game(game_id))
        assert game is not None and game.version == version
        log = await timed("get_actions", repo.get_actions(game_id))
        assert len(log) == count
        version = await timed(
            "append_actions",
            repo.append_actions(
                game_id,
                version,
                [f"{seat}:play:{'789TJQKA'[count % 8]}{'SHDC'[count // 8 % 4]}"],
                snapshot=_snapshot(count + 1),
                status=GameStatus.ACTIVE,
                timer=TurnTimer(now + 60, (seat + 1) % 4),
                now=now,
            ),
        )
        await timed(
            "set_hand_message",
            repo.set_hand_message(
                game_id, seat, MessageRef(USERS[seat], 1000 + tap), expected_version=version
            ),
        )
        count += 1
        if tap >= WARMUP:
            for op, ms in spent.items():
                times[op].append(ms)
            times["tap"].append(sum(spent.values()))
            times["transactions"].append(getattr(repo, "transactions", 0) - before)
    return times


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def report(name: str, times: dict[str, list[float]]) -> None:
    """Print one backend's lines."""
    print(f"{name}: {len(times['tap'])} taps")
    for op in (*OPS, "tap"):
        values = times[op]
        print(
            f"  {op:<17} p50 {_pct(values, 0.5):7.3f} ms   p95 {_pct(values, 0.95):7.3f} ms"
            f"   mean {statistics.mean(values):7.3f} ms"
        )
    print(f"  transactions/tap  mean {statistics.mean(times['transactions']):.2f}", flush=True)


@contextlib.asynccontextmanager
async def _postgres(
    url: str | None, *, async_commit: bool, server: PostgresServer | None
) -> AsyncIterator[Callable[[], Awaitable[Repository]]]:
    """An opener of a fresh database on ``url``'s server or on ``server``."""
    base = url or (server.url if server else "")
    databases = PostgresDatabases(base, "klaverjas_bench")
    db = await databases.create(migrated=False)
    if async_commit:
        name = db.rsplit("/", 1)[1]
        conn = await asyncpg.connect(base)
        try:
            await conn.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")
        finally:
            await conn.close()

    async def opener() -> Repository:
        return await PostgresRepository.open(db)

    try:
        yield opener
    finally:
        await databases.drop(db)


async def run(backends: list[str], taps: int, actions: int, postgres_url: str | None) -> None:
    """Measure and print each backend."""
    server = None
    if any(b.startswith("postgresql") for b in backends) and postgres_url is None:
        bindir = find_bindir()
        if bindir is None:
            print("no PostgreSQL binaries: give --postgres-url", file=sys.stderr)
            backends = [b for b in backends if not b.startswith("postgresql")]
        else:
            server = PostgresServer(bindir, durable=True)
            server.start()
    try:
        for name in backends:
            if name == "sqlite":
                with tempfile.TemporaryDirectory() as tmp:
                    async with await SqliteRepository.open(Path(tmp) / "bench.sqlite3") as repo:
                        report(name, await measure(repo, taps, actions))
                continue
            async with (
                _postgres(
                    postgres_url, async_commit=name.endswith("async-commit"), server=server
                ) as opener,
                await opener() as repo,
            ):
                report(name, await measure(repo, taps, actions))
    finally:
        if server is not None:
            server.stop()


def main() -> None:
    """Command line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=530, help="actions per game")
    parser.add_argument(
        "--backend",
        action="append",
        choices=("sqlite", "postgresql", "postgresql-async-commit"),
    )
    parser.add_argument("--postgres-url", default=None)
    args = parser.parse_args()
    backends = args.backend or ["sqlite", "postgresql", "postgresql-async-commit"]
    asyncio.run(run(backends, args.taps, args.actions, args.postgres_url))


if __name__ == "__main__":
    main()
