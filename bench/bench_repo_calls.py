"""Database statements per card tap, SQLite vs PostgreSQL, through the whole bot.

Four human players sit at a group table (no computers, so every tap is one player's move and
nothing else moves) and play ``--taps`` taps against the fake Bot API; after each tap the bot
is let settle (the callback answered, the table and the hands redrawn, the message ids
recorded). A counting wrapper around the database connection counts what each tap costs:

* ``postgresql``: every call that goes to the server (``fetch``, ``fetchrow``, ``fetchval``,
  ``execute``, ``executemany`` of asyncpg's connection, which also carry ``BEGIN`` /
  ``COMMIT`` and the advisory locks): one call, one round trip. The pool's reset of a
  connection given back (asyncpg runs ``RESET ALL``... on release) is counted apart;
* ``sqlite``: every statement handed to the aiosqlite connection (``execute``,
  ``execute_fetchall``, ``executemany``, ``commit``, ``rollback``): one hop to the database
  thread each.

Backends: ``sqlite`` (a file), ``postgresql`` (``DATABASE_URL``, one bot process:
``BOT_WORKERS=1``), ``postgresql-shared`` (the repository opened as one of several workers
would have it: nothing but what never changes kept in memory, turn timers and message claims in
the database).

Prints, per backend, the mean and the largest count per tap, and the mean per statement kind.
Asserts nothing. PostgreSQL is a throwaway server (``tests/pg.py``).

Run: ``python bench/bench_repo_calls.py [--taps 40] [--trace N]
[--backend sqlite postgresql postgresql-shared]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bot.repo_calls import Counter, measure
from tests.pg import PostgresDatabases, PostgresServer, find_bindir


def report(name: str, per_tap: list[int], summary: Counter, resets: int) -> None:
    """Print one backend's numbers."""
    n = max(len(per_tap), 1)
    print(
        f"{name}: {len(per_tap)} taps, statements per tap: mean {statistics.mean(per_tap):.2f}, "
        f"median {statistics.median(per_tap)}, max {max(per_tap)}; pool resets per tap "
        f"{resets / n:.2f}"
    )
    for kind, count in summary.kinds.most_common():
        print(f"    {kind:28s} {count / n:6.2f}")


async def main(argv: list[str] | None = None) -> None:
    """Parse the options and measure each backend asked for."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--taps", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--trace", type=int, default=0, help="print the statements of tap N")
    parser.add_argument(
        "--backend",
        nargs="+",
        default=["sqlite", "postgresql", "postgresql-shared"],
        choices=["sqlite", "postgresql", "postgresql-shared"],
    )
    args = parser.parse_args(argv)
    if "sqlite" in args.backend:
        with tempfile.TemporaryDirectory() as tmp:
            report(
                "sqlite",
                *await measure(str(Path(tmp) / "b.sqlite3"), args.taps, args.seed, args.trace),
            )
    wanted = [b for b in args.backend if b.startswith("postgresql")]
    if wanted:
        bindir = find_bindir()
        if bindir is None:
            print("postgresql: no PostgreSQL server binaries found; skipped")
            return
        server = PostgresServer(bindir)
        server.start()
        try:
            databases = PostgresDatabases(server.url, "bench_calls_")
            for name in wanted:
                url = await databases.create(migrated=False)
                try:
                    shared = name == "postgresql-shared"
                    found = await measure(url, args.taps, args.seed, args.trace, shared=shared)
                    report(name, *found)
                finally:
                    await databases.drop(url)
        finally:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
