"""The SQLite implementation of :class:`storage.repository.Repository`, on aiosqlite.

One connection per repository, in autocommit mode with explicit transactions: writes run in
``BEGIN IMMEDIATE`` (the write lock is taken up front, so a second process waits up to
``busy_timeout`` instead of failing half-way), reads in ``BEGIN`` (one consistent snapshot for
their several queries). An :class:`asyncio.Lock` keeps coroutines from interleaving inside a
transaction on the shared connection. Compare-and-set uses ``UPDATE ... RETURNING`` (SQLite ≥
3.35), so a second process writing the same file is also refused cleanly.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import aiosqlite

from storage import sqlite_bulk as bulk
from storage import sqlite_games as games
from storage import sqlite_surfaces as surfaces
from storage.alerts_sql import AlertStore
from storage.errors import ChatMoved, NotFound, SchemaError
from storage.migrations import MIGRATIONS, Migration, apply_migrations
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
from storage.sqlite_rows import (
    Tx,
    chat_from,
    load_games,
    placeholders,
    user_from,
)
from storage.stats_rows import DailyEntry
from storage.stats_sql import StatsDb, add_daily

MIN_SQLITE = (3, 35, 0)
"""``RETURNING`` needs SQLite 3.35."""


ROW_CACHE = 10_000
"""Users and chats whose rows the repository keeps in memory (the most recently used)."""


class _SqliteStatsDb:
    """:class:`~storage.stats_sql.StatsDb` over an open SQLite transaction."""

    def __init__(self, tx: Tx) -> None:
        self._tx = tx

    async def rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Every row of a query, as tuples."""
        return [tuple(r) for r in await self._tx.all(sql, params)]

    async def run(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; rows changed."""
        return await self._tx.run(sql, params)


class SqliteRepository(AlertStore):
    """:class:`~storage.repository.Repository` on one SQLite database file (or ``":memory:"``).

    Create with :meth:`open`; close with :meth:`close` or ``async with``. All methods are
    documented on the protocol (the standings' in :mod:`storage.stats_sql`).
    """

    shared = False
    """One bot process per file: nothing to share with."""

    def __init__(self, conn: aiosqlite.Connection, version: int) -> None:
        """Wrap an open, migrated connection; use :meth:`open` instead."""
        self._conn: aiosqlite.Connection | None = conn
        self._lock = asyncio.Lock()
        self._schema_version = version
        self.transactions = 0
        """Transactions begun so far (read and write), for benchmarks."""
        self._users: OrderedDict[int, User] = OrderedDict()
        self._game_rows: OrderedDict[int, Game] = OrderedDict()
        """Game rows (without actions) as this process last read or wrote them."""
        self._chats: OrderedDict[int, Chat | None] = OrderedDict()
        """Known chat rows; None: the chat has no row (a private chat never configured)."""
        self._moved: dict[int, int] = {}
        """Chats known to have become another (a migration is for good)."""

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

    async def close(self) -> None:
        """Close the connection (waits for a running transaction). Idempotent."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()

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

    async def pragmas(self) -> dict[str, object]:
        """Diagnostics: the connection's ``journal_mode``, ``synchronous`` (1 = NORMAL),
        ``foreign_keys``, ``busy_timeout`` (ms) and the stored ``schema_version``."""
        result: dict[str, object] = {}
        async with self._read() as tx:
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout"):
                row = await tx.one(f"PRAGMA {name}")
                result[name] = row[0] if row is not None else None
            row = await tx.one("SELECT MAX(version) FROM schema_version")
            result["schema_version"] = row[0] if row is not None else None
        return result

    # -- transactions -------------------------------------------------------------------------

    @asynccontextmanager
    async def _transaction(self, begin: str) -> AsyncIterator[Tx]:
        async with self._lock:
            conn = self._conn
            if conn is None:
                raise RuntimeError("the repository is closed")
            try:
                self.transactions += 1
                await conn.execute(begin)
                yield Tx(conn)
                await conn.commit()
            except BaseException:
                # rollback() is a no-op without an open transaction, and aiosqlite runs calls
                # in order, so this is right even if BEGIN/COMMIT is still queued after a
                # cancellation; shield it so a second cancellation cannot skip it.
                await asyncio.shield(conn.rollback())
                raise

    def _read(self) -> AbstractAsyncContextManager[Tx]:
        return self._transaction("BEGIN")

    def _write(self) -> AbstractAsyncContextManager[Tx]:
        return self._transaction("BEGIN IMMEDIATE")

    @asynccontextmanager
    async def _stats(self, *, write: bool) -> AsyncIterator[StatsDb]:
        """A transaction for :class:`~storage.stats_sql.StatsStore`."""
        async with self._write() if write else self._read() as tx:
            yield _SqliteStatsDb(tx)

    def _forgotten(self, user_id: int) -> None:
        """Forget the rows in memory that named ``user_id`` (its user row, its private chat,
        and every game row: their seats may have named the person)."""
        self._users.pop(user_id, None)
        self._chats.pop(user_id, None)
        self._game_rows.clear()

    @asynccontextmanager
    async def _write_game(self, game_id: int) -> AsyncIterator[Tx]:
        """A write transaction on one game that leaves the game's new row in memory (read in
        the same transaction), so the next :meth:`get_game` costs no transaction. A failed
        write (e.g. ``StaleVersion``: another process wrote first) forgets the row."""
        self._game_rows.pop(game_id, None)
        async with self._write() as tx:
            yield tx
            found = await load_games(tx, "g.game_id = ?", (game_id,), with_actions=False)
        if found:
            self._known_game(found[0])

    def _known_game(self, game: Game) -> Game:
        """Remember a game's row (without actions)."""
        self._game_rows[game.game_id] = game
        self._game_rows.move_to_end(game.game_id)
        while len(self._game_rows) > ROW_CACHE:
            self._game_rows.popitem(last=False)
        return game

    # -- users --------------------------------------------------------------------------------

    async def upsert_user(
        self, user_id: int, display_name: str, telegram_language: str | None, *, now: float
    ) -> User:
        """See :meth:`Repository.upsert_user`. Writes nothing when the user's row already
        says so (every update touches its user: few transactions per tap)."""
        check_int64(user_id, "user_id")
        known = self._users.get(user_id)
        if (
            known is not None
            and known.display_name == display_name
            and known.telegram_language == telegram_language
        ):
            return known
        async with self._write() as tx:
            row = await tx.one(
                "INSERT INTO users (user_id, display_name, telegram_language, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "display_name = excluded.display_name, "
                "telegram_language = excluded.telegram_language, "
                "updated_at = excluded.updated_at RETURNING *",
                (user_id, display_name, telegram_language, now),
            )
        assert row is not None
        return self._known_user(user_from(row))

    def _known_user(self, user: User) -> User:
        """Remember a user's row as this process last read or wrote it. Users and chats are
        written by this process only (the admin tool only reads), so the copy stays true."""
        self._users[user.user_id] = user
        self._users.move_to_end(user.user_id)
        while len(self._users) > ROW_CACHE:
            self._users.popitem(last=False)
        return user

    def _known_chat(self, chat_id: int, chat: Chat | None) -> Chat | None:
        """Remember a chat's row, or that it has none (see :meth:`_known_user`)."""
        self._chats[chat_id] = chat
        self._chats.move_to_end(chat_id)
        while len(self._chats) > ROW_CACHE:
            self._chats.popitem(last=False)
        return chat

    async def get_user(self, user_id: int) -> User | None:
        """See :meth:`Repository.get_user` (served from memory once read)."""
        known = self._users.get(user_id)
        if known is not None:
            return known
        async with self._read() as tx:
            row = await tx.one("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return self._known_user(user_from(row)) if row is not None else None

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, User]:
        """See :meth:`Repository.get_users`."""
        wanted = set(user_ids)
        found = {uid: self._users[uid] for uid in wanted if uid in self._users}
        ids = sorted(wanted - found.keys())
        if not ids:
            return found
        async with self._read() as tx:
            rows = await tx.all(
                f"SELECT * FROM users WHERE user_id IN ({placeholders(len(ids))})", ids
            )
        for user in map(user_from, rows):
            found[user.user_id] = self._known_user(user)
        return found

    async def set_user_language(self, user_id: int, language: str | None, *, now: float) -> User:
        """See :meth:`Repository.set_user_language`."""
        return await self._update_user(user_id, "language = ?", (language, now))

    async def set_can_message(self, user_id: int, can_message: bool, *, now: float) -> User:
        """See :meth:`Repository.set_can_message`."""
        return await self._update_user(user_id, "can_message = ?", (int(can_message), now))

    async def _update_user(self, user_id: int, assignment: str, params: Sequence[object]) -> User:
        async with self._write() as tx:
            row = await tx.one(
                f"UPDATE users SET {assignment}, updated_at = ? WHERE user_id = ? RETURNING *",
                (*params, user_id),
            )
        if row is None:
            raise NotFound("user", user_id)
        return self._known_user(user_from(row))

    # -- chats --------------------------------------------------------------------------------

    async def upsert_chat(
        self, chat_id: int, chat_type: str, title: str | None, *, now: float
    ) -> Chat:
        """See :meth:`Repository.upsert_chat` (writes nothing when the row already says so)."""
        check_int64(chat_id, "chat_id")
        known = self._chats.get(chat_id)
        if known is not None and known.chat_type == chat_type and known.title == title:
            return known
        async with self._write() as tx:
            moved = await games.successor(tx, chat_id)
            if moved is not None:
                raise ChatMoved(chat_id, moved)
            row = await tx.one(
                "INSERT INTO chats (chat_id, chat_type, title, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (chat_id) DO UPDATE SET chat_type = excluded.chat_type, "
                "title = excluded.title, updated_at = excluded.updated_at RETURNING *",
                (chat_id, chat_type, title, now),
            )
        assert row is not None
        chat = chat_from(row)
        self._known_chat(chat_id, chat)
        return chat

    async def get_chat(self, chat_id: int) -> Chat | None:
        """See :meth:`Repository.get_chat` (served from memory once read)."""
        if chat_id in self._chats:
            return self._chats[chat_id]
        async with self._read() as tx:
            row = await tx.one("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        return self._known_chat(chat_id, chat_from(row) if row is not None else None)

    async def set_chat_language(self, chat_id: int, language: str | None, *, now: float) -> Chat:
        """See :meth:`Repository.set_chat_language`."""
        return await self._update_chat(chat_id, "language = ?", (language, now))

    async def set_chat_defaults(
        self, chat_id: int, table_defaults: str | None, *, now: float
    ) -> Chat:
        """See :meth:`Repository.set_chat_defaults`."""
        check_json(table_defaults, "table_defaults")
        return await self._update_chat(chat_id, "table_defaults = ?", (table_defaults, now))

    async def _update_chat(self, chat_id: int, assignment: str, params: Sequence[object]) -> Chat:
        async with self._write() as tx:
            row = await tx.one(
                f"UPDATE chats SET {assignment}, updated_at = ? WHERE chat_id = ? RETURNING *",
                (*params, chat_id),
            )
        if row is None:
            raise NotFound("chat", chat_id)
        chat = chat_from(row)
        self._known_chat(chat_id, chat)
        return chat

    async def migrate_chat(
        self, old_chat_id: int, new_chat_id: int, *, now: float
    ) -> ChatMigration:
        """See :meth:`Repository.migrate_chat`."""
        self._game_rows.clear()
        self._moved.clear()
        self._chats.pop(old_chat_id, None)
        self._chats.pop(new_chat_id, None)
        try:
            async with self._write() as tx:
                return await games.migrate_chat(tx, old_chat_id, new_chat_id, now=now)
        finally:
            self._chats.pop(old_chat_id, None)
            self._chats.pop(new_chat_id, None)

    async def chat_successor(self, chat_id: int) -> int | None:
        """See :meth:`Repository.chat_successor` (a migration is for good: once found, kept
        in memory)."""
        known = self._moved.get(chat_id)
        if known is not None:
            return known
        async with self._read() as tx:
            found = await games.successor(tx, chat_id)
        if found is not None:
            self._moved[chat_id] = found
            while len(self._moved) > ROW_CACHE:
                self._moved.pop(next(iter(self._moved)))
        return found

    async def chat_migrations_after(self, seq: int) -> list[tuple[int, int, int]]:
        """See :meth:`Repository.chat_migrations_after`."""
        async with self._read() as tx:
            rows = await tx.all(
                "SELECT seq, old_chat_id, new_chat_id FROM chat_migrations WHERE seq > ? "
                "ORDER BY seq LIMIT 1000",
                (seq,),
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
        async with self._write() as tx:
            return await games.create_game(
                tx,
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
        async with self._write() as tx:
            game = await games.create_game(
                tx, user_id, user_id, settings, seed, now=now, seats=seats, language=None,
                thread_id=None,
            )  # fmt: skip
            db = _SqliteStatsDb(tx)
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
        async with self._write_game(game_id) as tx:
            return await games.set_seats(tx, game_id, expected_version, seats, now=now)

    async def set_settings(
        self, game_id: int, expected_version: int, settings: str, *, now: float
    ) -> int:
        """See :meth:`Repository.set_settings`."""
        async with self._write_game(game_id) as tx:
            return await games.set_settings(tx, game_id, expected_version, settings, now=now)

    async def set_game_language(
        self, game_id: int, expected_version: int, language: str | None, *, now: float
    ) -> int:
        """See :meth:`Repository.set_game_language`."""
        async with self._write_game(game_id) as tx:
            return await games.set_game_language(tx, game_id, expected_version, language, now=now)

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
        """See :meth:`Repository.append_actions`."""
        async with self._write_game(game_id) as tx:
            return await games.append_actions(
                tx,
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
        async with self._write_game(game_id) as tx:
            await games.set_table_message(
                tx, game_id, message_id, expected_version=expected_version
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
        async with self._write_game(game_id) as tx:
            await games.set_hand_message(
                tx, game_id, seat, message, expected_version=expected_version
            )

    async def mark_reminded(self, game_id: int, expected_version: int) -> None:
        """See :meth:`Repository.mark_reminded`."""
        async with self._write_game(game_id) as tx:
            await games.mark_reminded(tx, game_id, expected_version)

    # -- several workers: one process per SQLite file ----------------------------

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """See :meth:`Repository.game_lock`: nothing to hold (one bot process per file; the
        service's own lock serializes the process)."""
        yield

    async def arm_timer(self, game_id: int, expected_version: int, wake_at: float) -> bool:
        """See :meth:`Repository.arm_timer`."""
        async with self._write() as tx:
            return await games.arm_timer(tx, game_id, expected_version, wake_at)

    async def claim_due_timers(
        self, now: float, *, lease: float, limit: int = 50
    ) -> list[tuple[int, int]]:
        """See :meth:`Repository.claim_due_timers`."""
        async with self._write() as tx:
            return await games.claim_due_timers(tx, now, lease=lease, limit=limit)

    async def release_timer(self, game_id: int, version: int) -> None:
        """See :meth:`Repository.release_timer`."""
        async with self._write() as tx:
            await games.release_timer(tx, game_id, version)

    async def claim_surface(
        self, game_id: int, seat: int | None, *, token: str, now: float, lease: float
    ) -> SurfaceState | None:
        """See :meth:`Repository.claim_surface`."""
        async with self._write() as tx:
            return await surfaces.claim_surface(
                tx, game_id, seat, token=token, now=now, lease=lease
            )

    async def release_surface(
        self, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
    ) -> bool:
        """See :meth:`Repository.release_surface`."""
        async with self._write_game(game_id) as tx:
            return await surfaces.release_surface(tx, game_id, seat, token=token, shown=shown)

    # -- games: queries -----------------------------------------------------------------------

    async def _games(
        self,
        where: str,
        params: Sequence[object],
        *,
        with_actions: bool,
        order_by: str = "g.game_id",
    ) -> list[Game]:
        async with self._read() as tx:
            return await load_games(tx, where, params, with_actions=with_actions, order_by=order_by)

    async def get_game(self, game_id: int, *, with_actions: bool = False) -> Game | None:
        """See :meth:`Repository.get_game`. Without actions, a row this process read or
        wrote before is served from memory: the bot is the only writer of its games (a
        second writer's change is noticed by the version check of the next write)."""
        if not with_actions and game_id in self._game_rows:
            return self._game_rows[game_id]
        found = await self._games("g.game_id = ?", (game_id,), with_actions=with_actions)
        if found and not with_actions:
            self._known_game(found[0])
        return found[0] if found else None

    async def get_actions(self, game_id: int, *, start: int = 0) -> tuple[str, ...]:
        """See :meth:`Repository.get_actions`."""
        async with self._read() as tx:
            rows = await tx.all(
                "SELECT action FROM game_actions WHERE game_id = ? AND seq >= ? ORDER BY seq",
                (game_id, start),
            )
        return tuple(str(r["action"]) for r in rows)

    async def open_game_of_chat(self, chat_id: int, *, with_actions: bool = False) -> Game | None:
        """See :meth:`Repository.open_game_of_chat`."""
        statuses = sorted(OPEN_STATUSES)
        found = await self._games(
            f"g.chat_id = ? AND g.status IN ({placeholders(len(statuses))})",
            (chat_id, *statuses),
            with_actions=with_actions,
        )
        return found[0] if found else None

    async def latest_game_of_chat(self, chat_id: int) -> Game | None:
        """See :meth:`Repository.latest_game_of_chat`."""
        found = await self._games(
            "g.game_id = (SELECT MAX(game_id) FROM games WHERE chat_id = ?)",
            (chat_id,),
            with_actions=False,
        )
        return found[0] if found else None

    async def games_by_status(self, statuses: Collection[GameStatus]) -> list[Game]:
        """See :meth:`Repository.games_by_status`."""
        wanted = sorted({GameStatus(s) for s in statuses})
        if not wanted:
            return []
        return await self._games(
            f"g.status IN ({placeholders(len(wanted))})", wanted, with_actions=False
        )

    async def games_of_user(
        self, user_id: int, statuses: Collection[GameStatus] = (GameStatus.ACTIVE,)
    ) -> list[Game]:
        """See :meth:`Repository.games_of_user`."""
        wanted = sorted({GameStatus(s) for s in statuses})
        if not wanted:
            return []
        return await self._games(
            f"g.status IN ({placeholders(len(wanted))}) AND g.game_id IN "
            "(SELECT game_id FROM game_seats WHERE user_id = ?)",
            (*wanted, user_id),
            with_actions=False,
        )

    async def games_left_by(self, user_id: int) -> list[Game]:
        """See :meth:`Repository.games_left_by`."""
        return await self._games(
            "g.status = ? AND g.game_id IN "
            "(SELECT game_id FROM game_seats WHERE former_user_id = ? AND kind = ?)",
            (GameStatus.ACTIVE.value, user_id, SeatKind.COMPUTER.value),
            with_actions=False,
        )

    async def games_due(self, at: float) -> list[Game]:
        """See :meth:`Repository.games_due`."""
        statuses = sorted(OPEN_STATUSES)
        return await self._games(
            f"g.deadline_at <= ? AND g.status IN ({placeholders(len(statuses))})",
            (at, *statuses),
            with_actions=False,
            order_by="g.deadline_at, g.game_id",
        )

    async def export_games(self, *, chat_id: int | None = None) -> list[Game]:
        """See :meth:`Repository.export_games`."""
        if chat_id is None:
            return await self._games("1 = 1", (), with_actions=True)
        return await self._games("g.chat_id = ?", (chat_id,), with_actions=True)

    # -- whole-database reads and verbatim imports (copies between databases) ----------------

    async def row_counts(self) -> RowCounts:
        """See :meth:`Repository.row_counts`."""
        async with self._read() as tx:
            return await bulk.row_counts(tx)

    async def all_users(self) -> list[User]:
        """See :meth:`Repository.all_users`."""
        async with self._read() as tx:
            rows = await tx.all("SELECT * FROM users ORDER BY user_id")
        return [user_from(r) for r in rows]

    async def all_chats(self) -> list[Chat]:
        """See :meth:`Repository.all_chats`."""
        async with self._read() as tx:
            rows = await tx.all("SELECT * FROM chats ORDER BY chat_id")
        return [chat_from(r) for r in rows]

    async def game_histories(self, *, after: int = 0, limit: int = 100) -> list[GameHistory]:
        """See :meth:`Repository.game_histories`."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        async with self._read() as tx:
            return await bulk.load_histories(tx, after, limit)

    async def import_users(self, users: Sequence[User]) -> None:
        """See :meth:`Repository.import_users` (the rows in memory follow)."""
        if not users:
            return
        for user in users:
            self._users.pop(user.user_id, None)
        async with self._write() as tx:
            await bulk.import_users(tx, users)

    async def import_chats(self, chats: Sequence[Chat]) -> None:
        """See :meth:`Repository.import_chats` (the rows in memory follow)."""
        if not chats:
            return
        for chat in chats:
            self._chats.pop(chat.chat_id, None)
        async with self._write() as tx:
            await bulk.import_chats(tx, chats)

    async def import_games(self, histories: Sequence[GameHistory]) -> None:
        """See :meth:`Repository.import_games`."""
        if not histories:
            return
        async with self._write() as tx:
            await bulk.import_games(tx, histories)


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
