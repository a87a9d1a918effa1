"""The SQL written once for both backends: one connection interface (:class:`Db`) over
SQLite (aiosqlite) and PostgreSQL (asyncpg), and the :class:`Dialect` each backend gives
:class:`storage.sql_repository.SqlRepository` (its transactions, locks and the few statements
that differ).

The shared SQL uses ``?`` placeholders (numbered ``$1, $2...`` for PostgreSQL here), passes
Python ``bool`` for boolean columns (SQLite stores 0/1: decode with ``bool()``), and casts a
parameter whose type PostgreSQL cannot infer with ``CAST(? AS BIGINT)`` (which SQLite reads
as INTEGER). Rows are read by column name (``sqlite3.Row`` and ``asyncpg.Record`` both allow
``row["name"]`` and ``row[0]``).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, TypeAlias

import aiosqlite
from asyncpg import Record
from asyncpg.pool import PoolConnectionProxy

from storage.imports import ImportPlan
from storage.rows import Game, GameHistory, GameReaders
from storage.stats_sql import numbered

Row: TypeAlias = "sqlite3.Row | Record"
"""A result row of either driver (read by column name or position)."""

Params = Sequence[Any]

Conn: TypeAlias = "PoolConnectionProxy[Record]"  # generic only in the stubs
"""A connection of the PostgreSQL repository's pool."""


class Db(Protocol):
    """One connection (inside a transaction, or in autocommit for one statement)."""

    async def all(self, sql: str, params: Params = ()) -> list[Any]:
        """Run a query; every row."""

    async def one(self, sql: str, params: Params = ()) -> Any | None:
        """Run a query (or ``... RETURNING``); its first row, or ``None``."""

    async def val(self, sql: str, params: Params = ()) -> Any:
        """The first column of the first row, or ``None`` without a row."""

    async def run(self, sql: str, params: Params = ()) -> int:
        """Run a statement; the number of rows it changed."""

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        """Run a statement once per parameter row (nothing for no rows)."""

    async def rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Every row as a tuple (:class:`storage.stats_sql.StatsDb`)."""


class SqliteDb:
    """:class:`Db` over an aiosqlite connection."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def all(self, sql: str, params: Params = ()) -> list[Any]:
        """See :meth:`Db.all`."""
        return list(await self.conn.execute_fetchall(sql, params))

    async def one(self, sql: str, params: Params = ()) -> Any | None:
        """See :meth:`Db.one`."""
        rows = await self.all(sql, params)
        return rows[0] if rows else None

    async def val(self, sql: str, params: Params = ()) -> Any:
        """See :meth:`Db.val`."""
        row = await self.one(sql, params)
        return row[0] if row is not None else None

    async def run(self, sql: str, params: Params = ()) -> int:
        """See :meth:`Db.run`."""
        async with self.conn.execute(sql, params) as cursor:
            return cursor.rowcount

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        """See :meth:`Db.many`."""
        if rows:
            async with self.conn.executemany(sql, rows):
                pass

    async def rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """See :meth:`Db.rows`."""
        return [tuple(r) for r in await self.all(sql, params)]


@functools.lru_cache(maxsize=512)
def _pg(sql: str) -> str:
    return numbered(sql)


class PostgresDb:
    """:class:`Db` over a pooled asyncpg connection (``?`` numbered to ``$n``)."""

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    async def all(self, sql: str, params: Params = ()) -> list[Any]:
        """See :meth:`Db.all`."""
        return list(await self.conn.fetch(_pg(sql), *params))

    async def one(self, sql: str, params: Params = ()) -> Any | None:
        """See :meth:`Db.one`."""
        return await self.conn.fetchrow(_pg(sql), *params)

    async def val(self, sql: str, params: Params = ()) -> Any:
        """See :meth:`Db.val`."""
        return await self.conn.fetchval(_pg(sql), *params)

    async def run(self, sql: str, params: Params = ()) -> int:
        """See :meth:`Db.run` (from the command tag, ``UPDATE 3``)."""
        tag = await self.conn.execute(_pg(sql), *params)
        last = tag.rsplit(" ", 1)[-1]
        return int(last) if last.isdigit() else 0

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        """See :meth:`Db.many` (one round trip)."""
        if rows:
            await self.conn.executemany(_pg(sql), rows)

    async def rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """See :meth:`Db.rows`."""
        return [tuple(r) for r in await self.all(sql, params)]


class Dialect(Protocol):
    """What differs between the backends, for :class:`~storage.sql_repository.SqlRepository`.

    Attributes:
        shared: several bot processes may share the database (then the row cache keeps only
            what never changes, see :class:`storage.row_cache.RowCache`).
        key_share: the clause that share-locks rows read inside a write (``FOR KEY SHARE``,
            or nothing where a write transaction locks the whole database).
        for_update: the clause that locks rows for an update (``FOR UPDATE``, or nothing).
        skip_locked: ``FOR UPDATE SKIP LOCKED`` (or nothing).
        for_share: ``FOR SHARE`` (or nothing).
    """

    shared: bool
    key_share: str
    for_update: str
    skip_locked: str
    for_share: str

    def read(self) -> AbstractAsyncContextManager[Db]:
        """A connection for reads: one consistent snapshot where the backend needs a
        transaction for it (SQLite), autocommit otherwise."""

    def write(self) -> AbstractAsyncContextManager[Db]:
        """A connection inside one write transaction (committed at the end, rolled back if
        the block raises)."""

    def single(self) -> AbstractAsyncContextManager[Db]:
        """A connection for writes of one statement each (autocommit where that is atomic,
        else a write transaction)."""

    transactions: int

    def game_lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """See :meth:`storage.repository.Repository.game_lock`."""

    async def close(self) -> None:
        """Close the connections (idempotent)."""

    async def load_games(
        self, db: Db, where: str, params: Params, *, with_actions: bool, order_by: str
    ) -> list[Game]:
        """The games matching ``where`` (over alias ``g``; trusted text of this package) with
        their seats, and their action logs if asked."""

    async def load_readers(self, db: Db, game_id: int, also: Sequence[int]) -> GameReaders | None:
        """See :meth:`storage.repository.Repository.game_readers` (``also`` sorted, no
        duplicates)."""

    async def load_histories(self, db: Db, after: int, limit: int) -> list[GameHistory]:
        """Up to ``limit`` games with ``game_id > after`` in id order, with their logs and the
        time of every action."""

    async def append_actions(
        self, db: Db, game_id: int, expected_version: int, values: Mapping[str, Any]
    ) -> Any | None:
        """The compare-and-set of :func:`storage.sql_games.append_actions` with the log's new
        rows and the seats' timeout counts; a row with the columns ``version`` and
        ``action_count`` (and more, see :meth:`written`), or ``None`` when the compare-and-set
        matched nothing (nothing written)."""

    def written(self, row: Any) -> GameReaders | None:
        """The game's new row with its chat's and readers' rows, when the row
        :meth:`append_actions` returned carries them (read back in the same statement);
        None when it does not."""

    async def note_migration(self, db: Db, old_chat_id: int, new_chat_id: int, now: float) -> None:
        """Record for good where ``old_chat_id`` went (the first record wins), numbered."""

    async def insert_games(self, db: Db, plan: ImportPlan) -> None:
        """Insert an import's games, seats and actions verbatim, and move what numbers new
        games past the imported ids."""


def placeholders(count: int) -> str:
    """``"?, ?, ?"`` for ``count`` parameters (``count >= 1``).

    Raises:
        ValueError: ``count < 1`` (an empty ``IN ()`` list).
    """
    if count < 1:
        raise ValueError("an IN list needs at least one value")
    return ", ".join("?" * count)
