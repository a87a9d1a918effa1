"""The PostgreSQL backend of :class:`storage.sql_repository.SqlRepository`, on asyncpg: its
:class:`PostgresDialect` and the opener :meth:`PostgresRepository.open`.

A connection pool; every call takes a connection for its own work and gives it back. Writes
and reads are single statements where the contract allows (autocommit: one round trip, one
transaction, atomic): loading a game (seats and log in the same statement), appending
actions (the compare-and-set and the new log rows in one data-modifying ``WITH``), the
bookkeeping writes. Writes of several statements (``create_game``, ``set_seats``,
``migrate_chat``, imports) run in one READ COMMITTED transaction; compare-and-set is
``UPDATE ... WHERE version = ? RETURNING``, which makes a concurrent second writer, in this
process or another, wait for the first and then match nothing.

Several bot processes may share one database, so the row cache keeps only what never changes
(chat migrations, link tokens, :mod:`storage.row_cache`): each call sees what the others
committed. Opened for the database's only bot process (``sole_writer``), it keeps rows as the
SQLite backend does.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Self

import asyncpg

from storage.errors import DatabaseInUse, DatabaseUnavailable
from storage.imports import ACTION_COLUMNS, GAME_COLUMNS, SEAT_COLUMNS, ImportPlan
from storage.migrations import Migration
from storage.postgres_migrations import PG_MIGRATIONS, apply_migrations
from storage.rows import SEAT_COUNT, Game, GameHistory, GameReaders
from storage.sql import Db, Params, PostgresDb
from storage.sql_repository import SqlRepository
from storage.sql_rows import chat_from, game_from, seat, user_from
from storage.urls import redact

_CONNECT_ERRORS = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)
BOT_PROCESS_KEY = (0x6B6C6A62, 0)
"""The advisory lock (two-int form, a key space apart from the games' one-bigint keys) that
every bot process holds while it runs: exclusively the database's only bot process, shared by
each of several (:meth:`PostgresDialect.claim`)."""
"""What asyncpg raises when a server cannot be reached or refuses us."""

_SEATS = """
CROSS JOIN LATERAL (
    SELECT array_agg(s.seat ORDER BY s.seat) AS seat_indices,
           array_agg(s.kind ORDER BY s.seat) AS seat_kinds,
           array_agg(s.user_id ORDER BY s.seat) AS seat_users,
           array_agg(s.display_name ORDER BY s.seat) AS seat_names,
           array_agg(s.former_user_id ORDER BY s.seat) AS seat_formers,
           array_agg(s.hand_chat_id ORDER BY s.seat) AS seat_hand_chats,
           array_agg(s.hand_message_id ORDER BY s.seat) AS seat_hand_messages,
           array_agg(s.timeouts ORDER BY s.seat) AS seat_timeouts
    FROM game_seats AS s WHERE s.game_id = g.game_id
) AS seats
"""

_ACTIONS = (
    ", array(SELECT a.action FROM game_actions AS a WHERE a.game_id = g.game_id "
    "ORDER BY a.seq) AS actions"
)

_ACTION_TIMES = (
    ", array(SELECT a.created_at FROM game_actions AS a WHERE a.game_id = g.game_id "
    "ORDER BY a.seq) AS action_times"
)

_READERS = (
    ", (SELECT row_to_json(c) FROM chats AS c WHERE c.chat_id = g.chat_id) AS readers_chat"
    ", (SELECT json_agg(u) FROM users AS u WHERE u.user_id = ANY("
    "seats.seat_users || seats.seat_formers || g.creator_id || CAST(? AS BIGINT[])"
    ")) AS readers"
)
"""The game's chat row and its readers' user rows (:meth:`PostgresDialect.load_readers`),
as JSON beside the game's columns and seat arrays."""

_SEAT_ARRAYS = (
    "seat_indices", "seat_kinds", "seat_users", "seat_names", "seat_formers",
    "seat_hand_chats", "seat_hand_messages", "seat_timeouts",
)  # fmt: skip

_APPEND = (
    "WITH game AS ("
    " UPDATE games SET snapshot = $3, status = $4, deadline_at = $5, deadline_seat = $6,"
    " reminded = $7, action_count = action_count + cardinality($8::text[]),"
    " version = version + 1, updated_at = $9, timer_wake_at = NULL,"
    " timer_claimed_until = NULL"
    " WHERE game_id = $1 AND version = $2 AND status = ANY($10::text[])"
    " RETURNING *"
    "), log AS ("
    " INSERT INTO game_actions (game_id, seq, action, created_at)"
    " SELECT $1, game.action_count - cardinality($8::text[]) + a.n - 1, a.action, $9"
    " FROM game, unnest($8::text[]) WITH ORDINALITY AS a(action, n)"
    "), counts AS ("
    " UPDATE game_seats AS s SET timeouts = t.n"
    " FROM game, unnest($11::int[], $12::int[]) AS t(seat, n)"
    " WHERE s.game_id = $1 AND s.seat = t.seat"
    ") SELECT g.*, seats.*"
    ", (SELECT row_to_json(c) FROM chats AS c WHERE c.chat_id = g.chat_id) AS readers_chat"
    ", (SELECT json_agg(u) FROM users AS u WHERE u.user_id = ANY("
    "seats.seat_users || seats.seat_formers || g.creator_id)) AS readers"
    " FROM game AS g"
    + _SEATS.replace(
        "array_agg(s.timeouts ORDER BY s.seat)",
        "array_agg(COALESCE(t.n, s.timeouts) ORDER BY s.seat)",
    ).replace(
        "FROM game_seats AS s WHERE",
        "FROM game_seats AS s LEFT JOIN unnest($11::int[], $12::int[]) AS t(seat, n)"
        " ON t.seat = s.seat WHERE",
    )
)
"""The game's compare-and-set, the log's new rows and the seats' timeout counts in one
statement (numbered parameters: run on the connection itself), which returns the game's new
row (its seats with their new timeout counts: a statement does not see its own changes) with
its chat and readers, as :meth:`PostgresDialect.load_readers` reads them."""


def _game(row: Any, *, with_actions: bool) -> Game:
    """Decode a row of :meth:`PostgresDialect.load_games` (the ``games`` columns, the seat
    arrays, and the action array if it was asked for)."""
    seats = tuple(
        seat(*columns) for columns in zip(*(row[name] or () for name in _SEAT_ARRAYS), strict=True)
    )
    if len(seats) != SEAT_COUNT:  # pragma: no cover - guarded by create_game
        raise AssertionError(f"game {row['game_id']} has {len(seats)} seats")
    return game_from(row, seats, tuple(row["actions"]) if with_actions else None)


def _readers(row: Any) -> GameReaders:
    """Decode a game row with its chat and readers as JSON (``readers_chat``, ``readers``)
    beside it (:data:`_READERS`, :data:`_APPEND`)."""
    chat = row["readers_chat"]
    users = [user_from(u) for u in json.loads(row["readers"] or "[]")]
    return GameReaders(
        _game(row, with_actions=False),
        chat_from(json.loads(chat)) if chat is not None else None,
        {u.user_id: u for u in users},
    )


class _DataConnection(asyncpg.Connection):
    """A connection of the data pool. The repository keeps no session state on it (no
    ``LISTEN``, cursors, ``SET`` or session advisory locks: those live on the lock pool), so
    giving it back to the pool costs no reset statement; asyncpg's default (``RESET ALL``...)
    is one more round trip per call. An open transaction is still rolled back."""

    def get_reset_query(self) -> str:
        """Nothing to reset."""
        return ""


class _LockConnection(asyncpg.Connection):
    """A connection of the lock pool: it holds session advisory locks (a game's, the bot
    process's claim) and nothing else, so giving it back to the pool releases them all in
    the one statement of its reset (instead of an unlock and then asyncpg's default reset:
    two round trips). A reset that fails closes the connection, which releases them too."""

    def get_reset_query(self) -> str:
        """Release every advisory lock of the session."""
        return "SELECT pg_advisory_unlock_all()"


class PostgresDialect:
    """:class:`storage.sql.Dialect` of a PostgreSQL pool. ``shared``: several bot processes
    may share the database (the default); False when this process is its only bot process
    (``BOT_WORKERS=1``): then rows are kept in memory as on SQLite and :meth:`game_lock`
    holds nothing."""

    key_share = " FOR KEY SHARE"
    for_update = " FOR UPDATE"
    skip_locked = " FOR UPDATE SKIP LOCKED"
    for_share = " FOR SHARE"

    def __init__(
        self,
        pool: asyncpg.Pool[asyncpg.Record],
        lock_pool: asyncpg.Pool[asyncpg.Record] | None = None,
        *,
        shared: bool = True,
    ) -> None:
        self.shared = shared
        self._pool: asyncpg.Pool[asyncpg.Record] | None = pool
        self._lock_pool: asyncpg.Pool[asyncpg.Record] | None = lock_pool or pool
        self._claim: asyncpg.pool.PoolConnectionProxy[asyncpg.Record] | None = None
        self.transactions = 0
        """Database transactions begun so far, for benchmarks: one per call (an autocommit
        statement or an explicit transaction); the second look-up that explains a refused
        write is not counted."""

    async def close(self) -> None:
        """Close the pools (waits for calls in progress to give their connection back).
        Idempotent."""
        claim, self._claim = self._claim, None
        if claim is not None and self._lock_pool is not None:
            await self._lock_pool.release(claim)  # asyncpg's reset unlocks it
        pool, self._pool = self._pool, None
        locks, self._lock_pool = self._lock_pool, None
        if locks is not None and locks is not pool:
            await locks.close()
        if pool is not None:
            await pool.close()

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Db]:
        """A pooled connection in autocommit mode (each statement its own transaction)."""
        pool = self._pool
        if pool is None:
            raise RuntimeError("the repository is closed")
        async with pool.acquire() as conn:
            self.transactions += 1
            yield PostgresDb(conn)

    single = read

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Db]:
        """A pooled connection inside one READ COMMITTED transaction (rolled back if the
        block raises)."""
        async with self.read() as db:
            assert isinstance(db, PostgresDb)
            async with db.conn.transaction():
                yield db

    async def claim(self, *, sole: bool, wait: float, poll: float = 0.25) -> None:
        """Hold :data:`BOT_PROCESS_KEY` until :meth:`close`: exclusively when this process is
        the database's only bot process (``sole``), else shared with the other bot processes.
        Waits up to ``wait`` seconds for a process that is stopping (a restart) to let go.

        Raises:
            DatabaseInUse: still held the other way after ``wait`` seconds.
        """
        pool = self._lock_pool
        if pool is None:
            raise RuntimeError("the repository is closed")
        how = "pg_try_advisory_lock" if sole else "pg_try_advisory_lock_shared"
        conn = await pool.acquire()
        try:
            deadline = time.monotonic() + wait
            while not await conn.fetchval(f"SELECT {how}($1, $2)", *BOT_PROCESS_KEY):
                if time.monotonic() >= deadline:
                    raise DatabaseInUse(
                        "another bot process uses this database; with several bot processes "
                        "set BOT_WORKERS to their number in every one"
                        if sole
                        else "a bot process that runs as the database's only one (BOT_WORKERS=1) "
                        "uses this database; set BOT_WORKERS in every process"
                    )
                await asyncio.sleep(poll)
        except BaseException:
            await pool.release(conn)
            raise
        self._claim = conn

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """See :meth:`Repository.game_lock`: a session advisory lock on a connection of the
        lock pool (apart from the pool the calls inside the block use, so holders never wait
        for their own connections). It is released when the connection goes back to the
        pool (its reset, :class:`_LockConnection`: ``pg_advisory_unlock_all``, one round
        trip); a process that dies loses its connections and with them its locks. Not
        counted in ``transactions``. Nothing to hold for the database's only bot process
        (``shared`` False)."""
        if not self.shared:
            yield
            return
        pool = self._lock_pool
        if pool is None:
            raise RuntimeError("the repository is closed")
        async with pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1)", game_id)
            yield  # released by the connection's reset on its way back to the pool

    async def load_games(
        self, db: Db, where: str, params: Params, *, with_actions: bool, order_by: str
    ) -> list[Game]:
        """See :meth:`storage.sql.Dialect.load_games`: one statement (the seats aggregated
        into arrays by a lateral subquery, the action log as an array when asked), so a read
        is one round trip and one consistent snapshot without a transaction."""
        extra = _ACTIONS if with_actions else ""
        rows = await db.all(
            f"SELECT g.*, seats.*{extra} FROM games AS g {_SEATS} "
            f"WHERE {where} ORDER BY {order_by}",
            params,
        )
        return [_game(r, with_actions=with_actions) for r in rows]

    async def load_readers(self, db: Db, game_id: int, also: Sequence[int]) -> GameReaders | None:
        """See :meth:`storage.sql.Dialect.load_readers`: one statement (the game as
        :meth:`load_games` reads it, its chat and readers as JSON beside it, :data:`_READERS`),
        so a view of the game costs one round trip."""
        row = await db.one(
            f"SELECT g.*, seats.*{_READERS} FROM games AS g {_SEATS} WHERE g.game_id = ?",
            (list(also), game_id),
        )
        return _readers(row) if row is not None else None

    def written(self, row: Any) -> GameReaders | None:
        """See :meth:`storage.sql.Dialect.written`: :data:`_APPEND` reads them back."""
        return _readers(row)

    async def load_histories(self, db: Db, after: int, limit: int) -> list[GameHistory]:
        """See :meth:`storage.sql.Dialect.load_histories` (one statement)."""
        rows = await db.all(
            f"SELECT g.*, seats.*{_ACTIONS}{_ACTION_TIMES} FROM games AS g {_SEATS} "
            "WHERE g.game_id > ? ORDER BY g.game_id LIMIT ?",
            (after, limit),
        )
        return [GameHistory(_game(r, with_actions=True), tuple(r["action_times"])) for r in rows]

    async def append_actions(
        self, db: Db, game_id: int, expected_version: int, values: Mapping[str, Any]
    ) -> Any | None:
        """See :meth:`storage.sql.Dialect.append_actions`: one statement (:data:`_APPEND`)."""
        assert isinstance(db, PostgresDb)
        counts: Mapping[int, int] = values["timeouts"]
        return await db.conn.fetchrow(
            _APPEND, game_id, expected_version, values["snapshot"], values["status"],
            values["deadline_at"], values["deadline_seat"], values["reminded"],
            values["actions"], values["now"], values["allowed_from"], sorted(counts),
            [counts[seat] for seat in sorted(counts)],
        )  # fmt: skip

    async def note_migration(self, db: Db, old_chat_id: int, new_chat_id: int, now: float) -> None:
        """See :meth:`storage.sql.Dialect.note_migration` (``seq`` is an identity)."""
        await db.run(
            "INSERT INTO chat_migrations (old_chat_id, new_chat_id, migrated_at) "
            "VALUES (?, ?, ?) ON CONFLICT (old_chat_id) DO NOTHING",
            (old_chat_id, new_chat_id, now),
        )

    async def insert_games(self, db: Db, plan: ImportPlan) -> None:
        """See :meth:`storage.sql.Dialect.insert_games`: ``COPY`` (asyncpg's binary copy, the
        fastest way in), then the ``game_id`` sequence moves past the imported ids."""
        assert isinstance(db, PostgresDb)
        conn = db.conn
        await conn.copy_records_to_table("games", records=plan.games, columns=GAME_COLUMNS)
        await conn.copy_records_to_table("game_seats", records=plan.seats, columns=SEAT_COLUMNS)
        if plan.actions:
            await conn.copy_records_to_table(
                "game_actions", records=plan.actions, columns=ACTION_COLUMNS
            )
        # games_game_id_seq: the identity sequence migration 1 made; never moved back.
        await conn.execute(
            "SELECT setval('games_game_id_seq', "
            "GREATEST(MAX(game_id), (SELECT last_value FROM games_game_id_seq))) FROM games"
        )


class PostgresRepository(SqlRepository):
    """:class:`~storage.repository.Repository` on a PostgreSQL database (asyncpg pool).

    Create with :meth:`open`; close with :meth:`close` or ``async with``. All methods are
    documented on the protocol (the standings' in :mod:`storage.stats_sql`).
    """

    def __init__(
        self,
        pool: asyncpg.Pool[asyncpg.Record],
        version: int,
        lock_pool: asyncpg.Pool[asyncpg.Record] | None = None,
        *,
        sole_writer: bool = False,
    ) -> None:
        """Wrap open pools on a migrated database (``lock_pool``: the connections that hold
        :meth:`game_lock`; ``pool`` when not given); use :meth:`open` instead."""
        self._pg = PostgresDialect(pool, lock_pool, shared=not sole_writer)
        super().__init__(self._pg, version)

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
        migrations: Sequence[Migration] = PG_MIGRATIONS,
        clock: Callable[[], float] = time.time,
        sole_writer: bool = False,
        claim: bool = False,
        claim_wait: float = 30.0,
    ) -> Self:
        """Connect a pool of ``min_size..max_size`` connections to ``url`` (libpq URL:
        ``postgresql://user:password@host:port/database``; the database must exist) and apply
        pending ``migrations`` (``clock`` only stamps ``schema_version.applied_at``).

        ``sole_writer``: this process is the database's only bot process (``BOT_WORKERS=1``;
        the admin tool only reads while the bot runs, as with SQLite). Then the repository is
        not ``shared``: it keeps users, chats and game rows in memory and serves the reads of
        a tap from there, and :meth:`game_lock` holds nothing, as on SQLite. Default: several
        processes may share the database, each call sees what the others committed.

        ``claim``: this is a bot process: hold the database as :meth:`PostgresDialect.claim`
        says (exclusively with ``sole_writer``, else shared), waiting up to ``claim_wait``
        seconds for a stopping process, so that a second process never runs beside the
        database's only one (its rows kept in memory would go stale). The admin tool does not
        claim.

        Raises:
            DatabaseUnavailable: the server cannot be reached within ``connect_timeout``
                seconds, or refuses the connection (password, unknown database...).
            DatabaseInUse: ``claim`` and another bot process holds the database the other
                way (a subclass of DatabaseUnavailable).
            SchemaError: the database schema is newer than ``migrations``.
            asyncpg.PostgresError: a migration failed (it was rolled back).
        """
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=min_size,
                max_size=max_size,
                timeout=connect_timeout,
                connection_class=_DataConnection,
            )
        except _CONNECT_ERRORS as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise DatabaseUnavailable(redact(reason)) from exc
        try:
            async with pool.acquire() as conn:
                version = await apply_migrations(conn, migrations, clock=clock)
            lock_pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=max(max_size, 4),
                timeout=connect_timeout,
                connection_class=_LockConnection,
            )
        except BaseException:
            await pool.close()
            raise
        repo = cls(pool, version, lock_pool, sole_writer=sole_writer)
        if claim:
            try:
                await repo._pg.claim(sole=sole_writer, wait=claim_wait)
            except BaseException:
                await repo.close()
                raise
        return repo
