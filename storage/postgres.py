"""The PostgreSQL implementation of :class:`storage.repository.Repository`, on asyncpg.

A connection pool; every call takes a connection for its own work and gives it back. Writes
and reads are single statements where the contract allows (autocommit: one round trip, one
transaction, atomic): loading a game (seats and log in the same statement), appending
actions (the compare-and-set and the new log rows in one data-modifying ``WITH``), the
bookkeeping writes. Writes of several statements (``create_game``, ``set_seats``,
``migrate_chat``, imports) run in one READ COMMITTED transaction; compare-and-set is
``UPDATE ... WHERE version = $n RETURNING``, which makes a concurrent second writer, in this
process or another, wait for the first and then match nothing.

Nothing is kept in memory between calls (no rows cached): several bot processes may share one
database, and each call sees what the others committed.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Self

import asyncpg

from storage import postgres_bulk as bulk
from storage import postgres_games as games
from storage import postgres_surfaces as surfaces
from storage.alerts_sql import AlertStore
from storage.errors import ChatMoved, DatabaseUnavailable, NotFound
from storage.imports import CHAT_COLUMNS, USER_COLUMNS, chat_row, user_row
from storage.migrations import Migration
from storage.postgres_migrations import PG_MIGRATIONS, apply_migrations
from storage.postgres_rows import Conn, chat_from, load_games, load_histories, user_from
from storage.rows import (
    OPEN_STATUSES,
    Chat,
    ChatMigration,
    Game,
    GameHistory,
    GameStatus,
    MessageRef,
    Occupant,
    RowCounts,
    SeatKind,
    SurfaceShown,
    SurfaceState,
    TurnTimer,
    User,
    check_int64,
    check_json,
)
from storage.stats_rows import EXTRA_TABLES, DailyEntry
from storage.stats_sql import StatsDb, add_daily, numbered
from storage.urls import redact

_OPEN = sorted(s.value for s in OPEN_STATUSES)

_UPSERT_USER = """
WITH cur AS (SELECT * FROM users WHERE user_id = $1::bigint),
new AS (
    INSERT INTO users (user_id, display_name, telegram_language, updated_at)
    SELECT $1::bigint, $2::text, $3::text, $4::float8
    WHERE NOT EXISTS (
        SELECT 1 FROM cur WHERE display_name = $2 AND telegram_language IS NOT DISTINCT FROM $3
    )
    ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name,
        telegram_language = excluded.telegram_language, updated_at = excluded.updated_at
    RETURNING *
)
SELECT * FROM new UNION ALL SELECT * FROM cur WHERE NOT EXISTS (SELECT 1 FROM new)
"""
"""Insert or refresh a user in one statement; when the row already says so, the INSERT has
no row to insert, so nothing is written or locked (an ``ON CONFLICT ... WHERE`` that skips the
update would still lock the row, and a lock is a write that waits for the WAL flush)."""

_UPSERT_CHAT = """
WITH cur AS (SELECT * FROM chats WHERE chat_id = $1::bigint),
new AS (
    INSERT INTO chats (chat_id, chat_type, title, updated_at)
    SELECT $1::bigint, $2::text, $3::text, $4::float8
    WHERE NOT EXISTS (
        SELECT 1 FROM cur WHERE chat_type = $2 AND title IS NOT DISTINCT FROM $3
    ) AND NOT EXISTS (SELECT 1 FROM chat_migrations WHERE old_chat_id = $1::bigint)
    ON CONFLICT (chat_id) DO UPDATE SET chat_type = excluded.chat_type,
        title = excluded.title, updated_at = excluded.updated_at
    RETURNING *
)
SELECT * FROM new UNION ALL SELECT * FROM cur WHERE NOT EXISTS (SELECT 1 FROM new)
"""
""":data:`_UPSERT_USER` for chats; a chat that became another (``chat_migrations``) gets no
new row."""

_CONNECT_ERRORS = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)
"""What asyncpg raises when a server cannot be reached or refuses us."""


class _PostgresStatsDb:
    """:class:`~storage.stats_sql.StatsDb` over a pooled connection (``?`` numbered)."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    async def rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Every row of a query, as tuples."""
        return [tuple(r) for r in await self._conn.fetch(numbered(sql), *params)]

    async def run(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; rows changed (from the command tag, ``INSERT 0 1``)."""
        tag = await self._conn.execute(numbered(sql), *params)
        last = tag.rsplit(" ", 1)[-1]
        return int(last) if last.isdigit() else 0


class PostgresRepository(AlertStore):
    """:class:`~storage.repository.Repository` on a PostgreSQL database (asyncpg pool).

    Create with :meth:`open`; close with :meth:`close` or ``async with``. All methods are
    documented on the protocol (the standings' in :mod:`storage.stats_sql`).
    """

    shared = True
    """Several bot processes may share the database."""

    def __init__(
        self,
        pool: asyncpg.Pool[asyncpg.Record],
        version: int,
        lock_pool: asyncpg.Pool[asyncpg.Record] | None = None,
    ) -> None:
        """Wrap open pools on a migrated database (``lock_pool``: the connections that hold
        :meth:`game_lock`; ``pool`` when not given); use :meth:`open` instead."""
        self._pool: asyncpg.Pool[asyncpg.Record] | None = pool
        self._lock_pool: asyncpg.Pool[asyncpg.Record] | None = lock_pool or pool
        self._schema_version = version
        self.transactions = 0
        """Database transactions begun so far, for benchmarks: one per call (an autocommit
        statement or an explicit transaction); the second look-up that explains a refused
        write is not counted."""

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
    ) -> Self:
        """Connect a pool of ``min_size..max_size`` connections to ``url`` (libpq URL:
        ``postgresql://user:password@host:port/database``; the database must exist) and apply
        pending ``migrations`` (``clock`` only stamps ``schema_version.applied_at``).

        Raises:
            DatabaseUnavailable: the server cannot be reached within ``connect_timeout``
                seconds, or refuses the connection (password, unknown database...).
            SchemaError: the database schema is newer than ``migrations``.
            asyncpg.PostgresError: a migration failed (it was rolled back).
        """
        try:
            pool = await asyncpg.create_pool(
                url, min_size=min_size, max_size=max_size, timeout=connect_timeout
            )
        except _CONNECT_ERRORS as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise DatabaseUnavailable(redact(reason)) from exc
        try:
            async with pool.acquire() as conn:
                version = await apply_migrations(conn, migrations, clock=clock)
            lock_pool = await asyncpg.create_pool(
                url, min_size=1, max_size=max(max_size, 4), timeout=connect_timeout
            )
        except BaseException:
            await pool.close()
            raise
        return cls(pool, version, lock_pool)

    async def close(self) -> None:
        """Close the pool (waits for calls in progress to give their connection back).
        Idempotent."""
        pool, self._pool = self._pool, None
        locks, self._lock_pool = self._lock_pool, None
        if locks is not None and locks is not pool:
            await locks.close()
        if pool is not None:
            await pool.close()

    async def __aenter__(self) -> Self:
        """Return ``self``."""
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the repository."""
        await self.close()

    @property
    def schema_version(self) -> int:
        """The schema version the database was migrated to at :meth:`open`."""
        return self._schema_version

    # -- connections --------------------------------------------------------------------------

    @asynccontextmanager
    async def _conn(self) -> AsyncIterator[Conn]:
        """A pooled connection in autocommit mode (each statement its own transaction)."""
        pool = self._pool
        if pool is None:
            raise RuntimeError("the repository is closed")
        async with pool.acquire() as conn:
            self.transactions += 1
            yield conn

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Conn]:
        """A pooled connection inside one READ COMMITTED transaction (rolled back if the
        block raises)."""
        async with self._conn() as conn, conn.transaction():
            yield conn

    @asynccontextmanager
    async def _stats(self, *, write: bool) -> AsyncIterator[StatsDb]:
        """A transaction for :class:`~storage.stats_sql.StatsStore` (reads too: several
        statements see one snapshot only in REPEATABLE READ, which they do not need)."""
        async with self._tx() as conn:
            yield _PostgresStatsDb(conn)

    # -- users --------------------------------------------------------------------------------

    async def upsert_user(
        self, user_id: int, display_name: str, telegram_language: str | None, *, now: float
    ) -> User:
        """See :meth:`Repository.upsert_user`. Writes (and locks) nothing when the row
        already holds these facts (every update touches its user): then ``updated_at``
        stays."""
        check_int64(user_id, "user_id")
        async with self._conn() as conn:
            row = await conn.fetchrow(_UPSERT_USER, user_id, display_name, telegram_language, now)
            if row is None:  # inserted by another connection after this statement began
                row = await conn.fetchrow("SELECT * FROM users WHERE user_id = $1", user_id)
        assert row is not None
        return user_from(row)

    async def get_user(self, user_id: int) -> User | None:
        """See :meth:`Repository.get_user`."""
        async with self._conn() as conn:
            row = await conn.fetchrow("SELECT * FROM users WHERE user_id = $1", user_id)
        return user_from(row) if row is not None else None

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, User]:
        """See :meth:`Repository.get_users`."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        async with self._conn() as conn:
            rows = await conn.fetch("SELECT * FROM users WHERE user_id = ANY($1::bigint[])", ids)
        return {user.user_id: user for user in map(user_from, rows)}

    async def set_user_language(self, user_id: int, language: str | None, *, now: float) -> User:
        """See :meth:`Repository.set_user_language`."""
        return await self._update_user(user_id, "language", language, now)

    async def set_can_message(self, user_id: int, can_message: bool, *, now: float) -> User:
        """See :meth:`Repository.set_can_message`."""
        return await self._update_user(user_id, "can_message", bool(can_message), now)

    async def _update_user(self, user_id: int, column: str, value: object, now: float) -> User:
        async with self._conn() as conn:
            row = await conn.fetchrow(
                f"UPDATE users SET {column} = $2, updated_at = $3 WHERE user_id = $1 RETURNING *",
                user_id,
                value,
                now,
            )
        if row is None:
            raise NotFound("user", user_id)
        return user_from(row)

    # -- chats --------------------------------------------------------------------------------

    async def upsert_chat(
        self, chat_id: int, chat_type: str, title: str | None, *, now: float
    ) -> Chat:
        """See :meth:`Repository.upsert_chat` (writes nothing when the row already says so)."""
        check_int64(chat_id, "chat_id")
        async with self._conn() as conn:
            row = await conn.fetchrow(_UPSERT_CHAT, chat_id, chat_type, title, now)
            if row is None:  # inserted by another connection after this statement began
                row = await conn.fetchrow("SELECT * FROM chats WHERE chat_id = $1", chat_id)
            if row is None:  # or the chat became another
                moved = await games.successor(conn, chat_id)
                if moved is not None:
                    raise ChatMoved(chat_id, moved)
        if row is None:  # pragma: no cover - a row deleted between two statements
            raise NotFound("chat", chat_id)
        return chat_from(row)

    async def get_chat(self, chat_id: int) -> Chat | None:
        """See :meth:`Repository.get_chat`."""
        async with self._conn() as conn:
            row = await conn.fetchrow("SELECT * FROM chats WHERE chat_id = $1", chat_id)
        return chat_from(row) if row is not None else None

    async def set_chat_language(self, chat_id: int, language: str | None, *, now: float) -> Chat:
        """See :meth:`Repository.set_chat_language`."""
        return await self._update_chat(chat_id, "language", language, now)

    async def set_chat_defaults(
        self, chat_id: int, table_defaults: str | None, *, now: float
    ) -> Chat:
        """See :meth:`Repository.set_chat_defaults`."""
        check_json(table_defaults, "table_defaults")
        return await self._update_chat(chat_id, "table_defaults", table_defaults, now)

    async def _update_chat(self, chat_id: int, column: str, value: object, now: float) -> Chat:
        async with self._conn() as conn:
            row = await conn.fetchrow(
                f"UPDATE chats SET {column} = $2, updated_at = $3 WHERE chat_id = $1 RETURNING *",
                chat_id,
                value,
                now,
            )
        if row is None:
            raise NotFound("chat", chat_id)
        return chat_from(row)

    async def migrate_chat(
        self, old_chat_id: int, new_chat_id: int, *, now: float
    ) -> ChatMigration:
        """See :meth:`Repository.migrate_chat`."""
        async with self._tx() as conn:
            return await games.migrate_chat(conn, old_chat_id, new_chat_id, now=now)

    async def chat_successor(self, chat_id: int) -> int | None:
        """See :meth:`Repository.chat_successor`."""
        async with self._conn() as conn:
            return await games.successor(conn, chat_id)

    async def chat_migrations_after(self, seq: int) -> list[tuple[int, int, int]]:
        """See :meth:`Repository.chat_migrations_after`."""
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT seq, old_chat_id, new_chat_id FROM chat_migrations WHERE seq > $1 "
                "ORDER BY seq LIMIT 1000",
                seq,
            )
        return [(int(r[0]), int(r[1]), int(r[2])) for r in rows]

    # -- games: writes ------------------------------------------------------------------------

    async def create_game(
        self,
        chat_id: int,
        creator_id: int,
        settings: str,
        seed: int,
        *,
        now: float,
        seats: Sequence[Occupant] = (),
        language: str | None = None,
        thread_id: int | None = None,
    ) -> Game:
        """See :meth:`Repository.create_game`."""
        async with self._tx() as conn:
            return await games.create_game(
                conn,
                chat_id,
                creator_id,
                settings,
                seed,
                now=now,
                seats=seats,
                language=language,
                thread_id=thread_id,
            )

    async def create_daily_game(
        self,
        user_id: int,
        settings: str,
        seed: int,
        *,
        day: str,
        day_ends_at: float,
        now: float,
        seats: Sequence[Occupant],
    ) -> tuple[Game, DailyEntry]:
        """See :meth:`Repository.create_daily_game`."""
        async with self._tx() as conn:
            game = await games.create_game(
                conn, user_id, user_id, settings, seed, now=now, seats=seats, language=None,
                thread_id=None,
            )  # fmt: skip
            db = _PostgresStatsDb(conn)
            entry = await add_daily(db, game.game_id, day, user_id, day_ends_at, now)
        return game, entry

    async def set_seats(
        self,
        game_id: int,
        expected_version: int,
        seats: Mapping[int, Occupant],
        *,
        now: float,
    ) -> int:
        """See :meth:`Repository.set_seats`."""
        async with self._tx() as conn:
            return await games.set_seats(conn, game_id, expected_version, seats, now=now)

    async def set_settings(
        self, game_id: int, expected_version: int, settings: str, *, now: float
    ) -> int:
        """See :meth:`Repository.set_settings`."""
        async with self._conn() as conn:
            return await games.set_settings(conn, game_id, expected_version, settings, now=now)

    async def set_game_language(
        self, game_id: int, expected_version: int, language: str | None, *, now: float
    ) -> int:
        """See :meth:`Repository.set_game_language`."""
        async with self._conn() as conn:
            return await games.set_game_language(conn, game_id, expected_version, language, now=now)

    async def append_actions(
        self,
        game_id: int,
        expected_version: int,
        actions: Sequence[str],
        *,
        snapshot: str,
        status: GameStatus,
        timer: TurnTimer | None,
        now: float,
        timeouts: Mapping[int, int] | None = None,
    ) -> int:
        """See :meth:`Repository.append_actions` (one statement)."""
        async with self._conn() as conn:
            return await games.append_actions(
                conn,
                game_id,
                expected_version,
                actions,
                snapshot=snapshot,
                status=status,
                timer=timer,
                now=now,
                timeouts=timeouts,
            )

    async def set_table_message(
        self, game_id: int, message_id: int | None, *, expected_version: int | None
    ) -> None:
        """See :meth:`Repository.set_table_message`."""
        async with self._conn() as conn:
            await games.set_table_message(
                conn, game_id, message_id, expected_version=expected_version
            )

    async def set_hand_message(
        self,
        game_id: int,
        seat: int,
        message: MessageRef | None,
        *,
        expected_version: int | None,
    ) -> None:
        """See :meth:`Repository.set_hand_message`."""
        async with self._conn() as conn:
            await games.set_hand_message(
                conn, game_id, seat, message, expected_version=expected_version
            )

    async def mark_reminded(self, game_id: int, expected_version: int) -> None:
        """See :meth:`Repository.mark_reminded`."""
        async with self._conn() as conn:
            await games.mark_reminded(conn, game_id, expected_version)

    # -- several workers on one database ------------------------------------------

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """See :meth:`Repository.game_lock`: a session advisory lock on a connection of the
        lock pool (apart from the pool the calls inside the block use, so holders never wait
        for their own connections). A cancelled or failed unlock is undone by asyncpg's reset
        of the connection (``pg_advisory_unlock_all``); a process that dies loses its
        connections and with them its locks. Not counted in ``transactions``."""
        pool = self._lock_pool
        if pool is None:
            raise RuntimeError("the repository is closed")
        async with pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1)", game_id)
            try:
                yield
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", game_id)

    async def arm_timer(self, game_id: int, expected_version: int, wake_at: float) -> bool:
        """See :meth:`Repository.arm_timer`."""
        async with self._conn() as conn:
            return await games.arm_timer(conn, game_id, expected_version, wake_at)

    async def claim_due_timers(
        self, now: float, *, lease: float, limit: int = 50
    ) -> list[tuple[int, int]]:
        """See :meth:`Repository.claim_due_timers`."""
        async with self._conn() as conn:
            return await games.claim_due_timers(conn, now, lease=lease, limit=limit)

    async def release_timer(self, game_id: int, version: int) -> None:
        """See :meth:`Repository.release_timer`."""
        async with self._conn() as conn:
            await games.release_timer(conn, game_id, version)

    async def claim_surface(
        self, game_id: int, seat: int | None, *, token: str, now: float, lease: float
    ) -> SurfaceState | None:
        """See :meth:`Repository.claim_surface`."""
        async with self._conn() as conn:
            return await surfaces.claim_surface(
                conn, game_id, seat, token=token, now=now, lease=lease
            )

    async def release_surface(
        self, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
    ) -> bool:
        """See :meth:`Repository.release_surface`."""
        async with self._conn() as conn:
            return await surfaces.release_surface(conn, game_id, seat, token=token, shown=shown)

    # -- games: queries -----------------------------------------------------------------------

    async def _games(
        self,
        where: str,
        params: Sequence[object],
        *,
        with_actions: bool,
        order_by: str = "g.game_id",
    ) -> list[Game]:
        async with self._conn() as conn:
            return await load_games(
                conn, where, params, with_actions=with_actions, order_by=order_by
            )

    async def get_game(self, game_id: int, *, with_actions: bool = False) -> Game | None:
        """See :meth:`Repository.get_game` (one statement, never from memory)."""
        found = await self._games("g.game_id = $1", (game_id,), with_actions=with_actions)
        return found[0] if found else None

    async def get_actions(self, game_id: int, *, start: int = 0) -> tuple[str, ...]:
        """See :meth:`Repository.get_actions`."""
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT action FROM game_actions WHERE game_id = $1 AND seq >= $2 ORDER BY seq",
                game_id,
                start,
            )
        return tuple(r["action"] for r in rows)

    async def open_game_of_chat(self, chat_id: int, *, with_actions: bool = False) -> Game | None:
        """See :meth:`Repository.open_game_of_chat`."""
        found = await self._games(
            "g.chat_id = $1 AND g.status = ANY($2::text[])",
            (chat_id, _OPEN),
            with_actions=with_actions,
        )
        return found[0] if found else None

    async def latest_game_of_chat(self, chat_id: int) -> Game | None:
        """See :meth:`Repository.latest_game_of_chat`."""
        found = await self._games(
            "g.game_id = (SELECT MAX(game_id) FROM games WHERE chat_id = $1)",
            (chat_id,),
            with_actions=False,
        )
        return found[0] if found else None

    async def games_by_status(self, statuses: Collection[GameStatus]) -> list[Game]:
        """See :meth:`Repository.games_by_status`."""
        wanted = sorted({GameStatus(s).value for s in statuses})
        if not wanted:
            return []
        return await self._games("g.status = ANY($1::text[])", (wanted,), with_actions=False)

    async def games_of_user(
        self, user_id: int, statuses: Collection[GameStatus] = (GameStatus.ACTIVE,)
    ) -> list[Game]:
        """See :meth:`Repository.games_of_user`."""
        wanted = sorted({GameStatus(s).value for s in statuses})
        if not wanted:
            return []
        return await self._games(
            "g.status = ANY($1::text[]) AND g.game_id IN "
            "(SELECT game_id FROM game_seats WHERE user_id = $2)",
            (wanted, user_id),
            with_actions=False,
        )

    async def games_left_by(self, user_id: int) -> list[Game]:
        """See :meth:`Repository.games_left_by`."""
        return await self._games(
            "g.status = $1 AND g.game_id IN "
            "(SELECT game_id FROM game_seats WHERE former_user_id = $2 AND kind = $3)",
            (GameStatus.ACTIVE.value, user_id, SeatKind.COMPUTER.value),
            with_actions=False,
        )

    async def games_due(self, at: float) -> list[Game]:
        """See :meth:`Repository.games_due`."""
        return await self._games(
            "g.deadline_at <= $1 AND g.status = ANY($2::text[])",
            (at, _OPEN),
            with_actions=False,
            order_by="g.deadline_at, g.game_id",
        )

    async def export_games(self, *, chat_id: int | None = None) -> list[Game]:
        """See :meth:`Repository.export_games`."""
        if chat_id is None:
            return await self._games("TRUE", (), with_actions=True)
        return await self._games("g.chat_id = $1", (chat_id,), with_actions=True)

    # -- whole-database reads and verbatim imports (copies between databases) ----------------

    async def row_counts(self) -> RowCounts:
        """See :meth:`Repository.row_counts`."""
        async with self._conn() as conn:
            row = await conn.fetchrow(
                "SELECT (SELECT COUNT(*) FROM users) AS users, "
                "(SELECT COUNT(*) FROM chats) AS chats, (SELECT COUNT(*) FROM games) AS games, "
                "(SELECT COUNT(*) FROM game_seats) AS seats, "
                "(SELECT COUNT(*) FROM game_actions) AS actions, "
                + ", ".join(f"(SELECT COUNT(*) FROM {t}) AS {t}" for t in EXTRA_TABLES)
            )
        assert row is not None
        return RowCounts(**{key: int(value) for key, value in row.items()})

    async def all_users(self) -> list[User]:
        """See :meth:`Repository.all_users`."""
        async with self._conn() as conn:
            rows = await conn.fetch("SELECT * FROM users ORDER BY user_id")
        return [user_from(r) for r in rows]

    async def all_chats(self) -> list[Chat]:
        """See :meth:`Repository.all_chats`."""
        async with self._conn() as conn:
            rows = await conn.fetch("SELECT * FROM chats ORDER BY chat_id")
        return [chat_from(r) for r in rows]

    async def game_histories(self, *, after: int = 0, limit: int = 100) -> list[GameHistory]:
        """See :meth:`Repository.game_histories`."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        async with self._conn() as conn:
            return await load_histories(conn, after, limit)

    async def import_users(self, users: Sequence[User]) -> None:
        """See :meth:`Repository.import_users`."""
        rows = [user_row(u) for u in users]
        if not rows:
            return
        async with self._tx() as conn:
            await bulk.import_rows(conn, "users", USER_COLUMNS, rows)

    async def import_chats(self, chats: Sequence[Chat]) -> None:
        """See :meth:`Repository.import_chats`."""
        rows = [chat_row(c) for c in chats]
        if not rows:
            return
        async with self._tx() as conn:
            await bulk.import_rows(conn, "chats", CHAT_COLUMNS, rows)

    async def import_games(self, histories: Sequence[GameHistory]) -> None:
        """See :meth:`Repository.import_games` (:func:`storage.postgres_bulk.import_games`)."""
        if not histories:
            return
        async with self._tx() as conn:
            await bulk.import_games(conn, histories)
