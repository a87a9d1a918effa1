"""The SQLite backend of :class:`storage.sql_repository.SqlRepository`, on aiosqlite: its
:class:`SqliteDialect` and the opener :meth:`SqliteRepository.open`.

One connection per repository, in autocommit mode with explicit transactions: writes run in
``BEGIN IMMEDIATE`` (the write lock is taken up front, so a second process waits up to
``busy_timeout`` instead of failing half-way), reads in ``BEGIN`` (one consistent snapshot for
their several queries). An :class:`asyncio.Lock` keeps coroutines from interleaving inside a
transaction on the shared connection. Compare-and-set uses ``UPDATE ... RETURNING`` (SQLite >=
3.35), so a second process writing the same file is also refused cleanly.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Self

import aiosqlite

from storage.errors import SchemaError
from storage.imports import ACTION_COLUMNS, GAME_COLUMNS, SEAT_COLUMNS, ImportPlan
from storage.migrations import MIGRATIONS, Migration, apply_migrations
from storage.rows import SEAT_COUNT, Game, GameHistory, GameReaders, reader_ids
from storage.sql import Db, Params, SqliteDb, placeholders
from storage.sql_repository import SqlRepository
from storage.sql_rows import chat_from, game_from, seat_from, user_from

MIN_SQLITE = (3, 35, 0)
"""``RETURNING`` needs SQLite 3.35."""


class SqliteDialect:
    """:class:`storage.sql.Dialect` of one SQLite connection (one bot process per file)."""

    shared = False
    key_share = ""
    for_update = ""
    skip_locked = ""
    for_share = ""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._lock = asyncio.Lock()
        self.transactions = 0
        """Transactions begun so far (read and write), for benchmarks."""

    async def close(self) -> None:
        """Close the connection (waits for a running transaction). Idempotent."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()

    @asynccontextmanager
    async def _transaction(self, begin: str) -> AsyncIterator[Db]:
        async with self._lock:
            conn = self._conn
            if conn is None:
                raise RuntimeError("the repository is closed")
            try:
                self.transactions += 1
                await conn.execute(begin)
                yield SqliteDb(conn)
                await conn.commit()
            except BaseException:
                # rollback() is a no-op without an open transaction, and aiosqlite runs calls
                # in order, so this is right even if BEGIN/COMMIT is still queued after a
                # cancellation; shield it so a second cancellation cannot skip it.
                await asyncio.shield(conn.rollback())
                raise

    def read(self) -> AbstractAsyncContextManager[Db]:
        """See :meth:`storage.sql.Dialect.read`: ``BEGIN``."""
        return self._transaction("BEGIN")

    def write(self) -> AbstractAsyncContextManager[Db]:
        """See :meth:`storage.sql.Dialect.write`: ``BEGIN IMMEDIATE``."""
        return self._transaction("BEGIN IMMEDIATE")

    single = write

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """Nothing to hold (one bot process per file; the service's own lock serializes the
        process)."""
        yield

    async def load_games(
        self, db: Db, where: str, params: Params, *, with_actions: bool, order_by: str
    ) -> list[Game]:
        """See :meth:`storage.sql.Dialect.load_games`: three queries in the caller's
        transaction (games, seats, actions)."""
        game_rows = await db.all(
            f"SELECT g.* FROM games AS g WHERE {where} ORDER BY {order_by}", params
        )
        if not game_rows:
            return []
        seats: dict[int, list[Any]] = {int(r["game_id"]): [] for r in game_rows}
        for r in await db.all(
            "SELECT s.* FROM game_seats AS s JOIN games AS g ON g.game_id = s.game_id "
            f"WHERE {where} ORDER BY s.game_id, s.seat",
            params,
        ):
            seats[int(r["game_id"])].append(seat_from(r))
        actions: dict[int, list[str]] | None = None
        if with_actions:
            actions = {game_id: [] for game_id in seats}
            for r in await db.all(
                "SELECT a.game_id, a.action FROM game_actions AS a JOIN games AS g "
                f"ON g.game_id = a.game_id WHERE {where} ORDER BY a.game_id, a.seq",
                params,
            ):
                actions[int(r["game_id"])].append(str(r["action"]))
        games = []
        for r in game_rows:
            game_id = int(r["game_id"])
            if len(seats[game_id]) != SEAT_COUNT:  # pragma: no cover - guarded by create_game
                raise AssertionError(f"game {game_id} has {len(seats[game_id])} seats")
            log = tuple(actions[game_id]) if actions is not None else None
            games.append(game_from(r, tuple(seats[game_id]), log))
        return games

    async def load_readers(self, db: Db, game_id: int, also: Sequence[int]) -> GameReaders | None:
        """See :meth:`storage.sql.Dialect.load_readers`: the game, its chat and its readers in
        the caller's transaction (the repository keeps them in memory: this runs on a miss
        only)."""
        found = await self.load_games(
            db, "g.game_id = ?", (game_id,), with_actions=False, order_by="g.game_id"
        )
        if not found:
            return None
        game = found[0]
        chat = await db.one("SELECT * FROM chats WHERE chat_id = ?", (game.chat_id,))
        ids = sorted(reader_ids(game, also))
        rows = await db.all(f"SELECT * FROM users WHERE user_id IN ({placeholders(len(ids))})", ids)
        users = {u.user_id: u for u in map(user_from, rows)}
        return GameReaders(game, chat_from(chat) if chat is not None else None, users)

    async def load_histories(self, db: Db, after: int, limit: int) -> list[GameHistory]:
        """See :meth:`storage.sql.Dialect.load_histories` (two look-ups)."""
        where = (
            "g.game_id IN (SELECT game_id FROM games WHERE game_id > ? ORDER BY game_id LIMIT ?)"
        )
        found = await self.load_games(
            db, where, (after, limit), with_actions=True, order_by="g.game_id"
        )
        if not found:
            return []
        times: dict[int, list[float]] = {g.game_id: [] for g in found}
        for r in await db.all(
            "SELECT game_id, created_at FROM game_actions "
            f"WHERE game_id IN ({placeholders(len(times))}) ORDER BY game_id, seq",
            list(times),
        ):
            times[int(r["game_id"])].append(float(r["created_at"]))
        return [GameHistory(g, tuple(times[g.game_id])) for g in found]

    async def append_actions(
        self, db: Db, game_id: int, expected_version: int, values: Mapping[str, Any]
    ) -> Any | None:
        """See :meth:`storage.sql.Dialect.append_actions`: three statements in the caller's
        write transaction."""
        actions: list[str] = values["actions"]
        allowed: list[str] = values["allowed_from"]
        row = await db.one(
            "UPDATE games SET snapshot = ?, status = ?, deadline_at = ?, deadline_seat = ?, "
            "reminded = ?, action_count = action_count + ?, version = version + 1, "
            "updated_at = ?, timer_wake_at = NULL, timer_claimed_until = NULL "
            f"WHERE game_id = ? AND version = ? AND status IN ({placeholders(len(allowed))}) "
            "RETURNING version, action_count",
            (values["snapshot"], values["status"], values["deadline_at"],
             values["deadline_seat"], values["reminded"], len(actions), values["now"],
             game_id, expected_version, *allowed),
        )  # fmt: skip
        if row is None:
            return None
        first = int(row["action_count"]) - len(actions)
        await db.many(
            "INSERT INTO game_actions (game_id, seq, action, created_at) VALUES (?, ?, ?, ?)",
            [(game_id, first + i, action, values["now"]) for i, action in enumerate(actions)],
        )
        await db.many(
            "UPDATE game_seats SET timeouts = ? WHERE game_id = ? AND seat = ?",
            [(n, game_id, seat) for seat, n in sorted(values["timeouts"].items())],
        )
        return row

    def written(self, row: Any) -> GameReaders | None:
        """See :meth:`storage.sql.Dialect.written`: nothing is read back here."""
        return None

    async def note_migration(self, db: Db, old_chat_id: int, new_chat_id: int, now: float) -> None:
        """See :meth:`storage.sql.Dialect.note_migration` (numbered after the last one)."""
        await db.run(
            "INSERT INTO chat_migrations (old_chat_id, new_chat_id, seq, migrated_at) "
            "SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ? FROM chat_migrations WHERE true "
            "ON CONFLICT (old_chat_id) DO NOTHING",
            (old_chat_id, new_chat_id, now),
        )

    async def insert_games(self, db: Db, plan: ImportPlan) -> None:
        """See :meth:`storage.sql.Dialect.insert_games` (AUTOINCREMENT follows the imported
        ids)."""
        for table, columns, rows in (
            ("games", GAME_COLUMNS, plan.games),
            ("game_seats", SEAT_COLUMNS, plan.seats),
            ("game_actions", ACTION_COLUMNS, plan.actions),
        ):
            await db.many(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))})",
                rows,
            )


class SqliteRepository(SqlRepository):
    """:class:`~storage.repository.Repository` on one SQLite database file (or ``":memory:"``).

    Create with :meth:`open`; close with :meth:`close` or ``async with``. All methods are
    documented on the protocol (the standings' in :mod:`storage.stats_sql`).
    """

    def __init__(self, conn: aiosqlite.Connection, version: int) -> None:
        """Wrap an open, migrated connection; use :meth:`open` instead."""
        self._sqlite = SqliteDialect(conn)
        super().__init__(self._sqlite, version)

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = 5000,
        migrations: Sequence[Migration] = MIGRATIONS,
        clock: Callable[[], float] = time.time,
    ) -> Self:
        """Connect to ``path`` (created if missing, with its folders, readable by its owner
        only: mode ``0600``, and SQLite gives its WAL files the same; ``":memory:"`` for a
        private in-memory database), set the PRAGMAs (``journal_mode=WAL``, ``synchronous=NORMAL``,
        ``foreign_keys=ON``, ``busy_timeout``) and apply pending ``migrations`` (``clock`` only
        stamps ``schema_version.applied_at``).

        Raises:
            SchemaError: the database schema is newer than ``migrations``, or SQLite < 3.35.
            sqlite3.Error: the file cannot be opened or a migration failed.
        """
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise SchemaError(f"SQLite {sqlite3.sqlite_version} is too old; need 3.35 or newer")
        name = os.fspath(path)
        if name != ":memory:" and not name.startswith("file:"):
            try:
                Path(name).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise sqlite3.OperationalError(
                    f"cannot create the folder of {name}: {exc}"
                ) from exc
            _create_private(name)
        conn = await aiosqlite.connect(name, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            version = await apply_migrations(conn, migrations, clock=clock)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, version)

    async def pragmas(self) -> dict[str, object]:
        """Diagnostics: the connection's ``journal_mode``, ``synchronous`` (1 = NORMAL),
        ``foreign_keys``, ``busy_timeout`` (ms) and the stored ``schema_version``."""
        result: dict[str, object] = {}
        async with self._sqlite.read() as tx:
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout"):
                row = await tx.one(f"PRAGMA {name}")
                result[name] = row[0] if row is not None else None
            row = await tx.one("SELECT MAX(version) FROM schema_version")
            result["schema_version"] = row[0] if row is not None else None
        return result


def _create_private(name: str) -> None:
    """Create the database file ``name`` empty with mode ``0600`` (owner only: it holds
    people's ids and names) unless it exists; SQLite then takes the empty file as a new
    database.

    Raises:
        sqlite3.OperationalError: the file cannot be created.
    """
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        raise sqlite3.OperationalError(f"cannot create {name}: {exc}") from exc
    os.close(fd)
