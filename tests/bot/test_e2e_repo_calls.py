"""End to end: what a human's card tap costs the database, through the whole bot (the tap,
its answer, the table's and the hands' redraws, the message ids), on each backend
(``docs/design.md`` §3, §5; the numbers in ``bench/bench_repo_calls.py``).

On PostgreSQL shared by several bot processes nothing that may change is kept in memory,
so every step pays a round trip: the tapper's row, the game's lock, the table under it, the
write (which reads the new row back with its readers: the view costs nothing more), the
lock's release, and each redrawn surface's claim and release. On the database of one bot
process the rows are kept in memory: the write alone, and its message-id bookkeeping."""

from __future__ import annotations

from pathlib import Path

from tests.bot.repo_calls import measure
from tests.pg import PostgresDatabases

TAPS = 8


def _per_tap(per_tap: list[int], resets: int) -> float:
    """Round trips per tap: the calls counted and the pool's resets (on PostgreSQL a game
    lock's connection is given back with a reset that releases the lock)."""
    return (sum(per_tap) + resets) / len(per_tap)


async def test_a_card_tap_on_postgresql_shared_by_workers_costs_a_dozen_round_trips(
    postgres_server: PostgresDatabases,
) -> None:
    url = await postgres_server.create(migrated=False)
    try:
        per_tap, _, resets = await measure(url, TAPS, seed=5, shared=True)
    finally:
        await postgres_server.drop(url)
    assert len(per_tap) == TAPS
    assert _per_tap(per_tap, resets) <= 12


async def test_a_card_tap_on_postgresql_of_one_bot_process_costs_three_round_trips(
    postgres_server: PostgresDatabases,
) -> None:
    url = await postgres_server.create(migrated=False)
    try:
        per_tap, _, resets = await measure(url, TAPS, seed=5)
    finally:
        await postgres_server.drop(url)
    assert len(per_tap) == TAPS
    assert _per_tap(per_tap, resets) <= 3


async def test_a_card_tap_on_sqlite_costs_two_transactions(tmp_path: Path) -> None:
    per_tap, counter, _ = await measure(str(tmp_path / "calls.sqlite3"), TAPS, seed=5)
    assert len(per_tap) == TAPS
    begun = sum(n for kind, n in counter.kinds.items() if kind.startswith("execute BEGIN"))
    assert begun / TAPS <= 2  # the move's write and its message-id bookkeeping
    assert sum(per_tap) / TAPS <= 11
