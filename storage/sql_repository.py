"""The one implementation of :class:`storage.repository.Repository`, over a
:class:`storage.sql.Dialect` (SQLite: :mod:`storage.sqlite`; PostgreSQL:
:mod:`storage.postgres`) and a :class:`storage.row_cache.RowCache`.

Each read and write is spelled once here (or in :mod:`storage.sql_games` /
:mod:`storage.stats_sql`); the dialect gives the transactions and the few statements the two
databases write differently. Reads go through the row cache first; a write on a game keeps
the game's new row (read back in the same transaction) when the cache keeps games.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any, Self

from storage import sql_games as games
from storage.alerts_sql import AlertStore
from storage.errors import ChatMoved, NotFound
from storage.imports import CHAT_COLUMNS, USER_COLUMNS, chat_row, plan_import, user_row
from storage.row_cache import RowCache
from storage.rows import (
    Chat,
    ChatMigration,
    Game,
    GameHistory,
    GameReaders,
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
    reader_ids,
)
from storage.sql import Db, Dialect, Params, placeholders
from storage.sql_games import IN_OPEN, OPEN
from storage.sql_rows import chat_from, user_from
from storage.stats_rows import EXTRA_TABLES, DailyEntry
from storage.stats_sql import StatsDb, add_daily


def upsert_sql(
    table: str, columns: Sequence[tuple[str, str]], *, unless: str = "", skip_same: bool
) -> str:
    """``INSERT`` of ``columns`` (``(name, SQL type)``; the first is the key; one ``?`` each)
    that overwrites an existing row and returns it; parameters from :func:`upsert_params`.
    ``unless``: a condition on the key (one ``?``) under which nothing is written (and no row
    returned). ``skip_same`` (PostgreSQL): write nothing when the stored row already holds the
    values but the last (the time stamp), and return it as it is: an ``ON CONFLICT ...
    WHERE`` that skips the update would still lock the row, and a lock is a write that waits
    for the WAL flush."""
    names = [name for name, _ in columns]
    key, rest = names[0], names[1:]
    values = ", ".join(f"CAST(? AS {kind})" for _, kind in columns)
    guard = unless or "TRUE"
    updates = ", ".join(f"{c} = excluded.{c}" for c in rest)
    insert = f"INSERT INTO {table} ({', '.join(names)}) SELECT {values} "
    conflict = f"ON CONFLICT ({key}) DO UPDATE SET {updates} RETURNING *"
    if not skip_same:
        return f"{insert}WHERE {guard} {conflict}"
    same = " AND ".join(f"{c} IS NOT DISTINCT FROM ?" for c in rest[:-1])
    return (
        f"WITH cur AS (SELECT * FROM {table} WHERE {key} = ?), "
        f"new AS ({insert}WHERE NOT EXISTS (SELECT 1 FROM cur WHERE {same}) AND {guard} "
        f"{conflict}) "
        "SELECT * FROM new UNION ALL SELECT * FROM cur WHERE NOT EXISTS (SELECT 1 FROM new)"
    )


def upsert_params(values: Sequence[object], *, skip_same: bool, unless: bool) -> list[object]:
    """The parameters of :func:`upsert_sql` for ``values`` (in the order of its columns;
    ``unless``: it was given a condition)."""
    key, rest = values[0], values[1:]
    tail = [key] if unless else []
    if not skip_same:
        return [*values, *tail]
    return [key, *values, *rest[:-1], *tail]


USER_UPSERT = (
    ("user_id", "BIGINT"),
    ("display_name", "TEXT"),
    ("telegram_language", "TEXT"),
    ("updated_at", "DOUBLE PRECISION"),
)
CHAT_UPSERT = (
    ("chat_id", "BIGINT"),
    ("chat_type", "TEXT"),
    ("title", "TEXT"),
    ("updated_at", "DOUBLE PRECISION"),
)


class SqlRepository(AlertStore):
    """:class:`~storage.repository.Repository` over a dialect; create with the backend's
    ``open`` (:meth:`storage.SqliteRepository.open`, :meth:`storage.PostgresRepository.open`).
    All methods are documented on the protocol (the standings' in :mod:`storage.stats_sql`)."""

    def __init__(self, dialect: Dialect, version: int) -> None:
        """Wrap an open, migrated database; use the backend's ``open`` instead."""
        self._d = dialect
        self._schema_version = version
        self._cache = RowCache(shared=dialect.shared)
        self.shared = dialect.shared
        """Several bot processes may share the database."""
        self._held: dict[int, GameReaders | None] = {}
        """Games whose lock this process holds (:meth:`game_lock`) → the row its last write
        read back with its readers (None: none, or another write since). While the lock is
        held nobody else writes the game's state, so these are served again without a read
        where the cache keeps no games (several processes)."""

    @property
    def transactions(self) -> int:
        """Database transactions begun so far (an autocommit statement counts as one), for
        benchmarks."""
        return self._d.transactions

    async def close(self) -> None:
        """Close the connections (waits for work in progress). Idempotent."""
        await self._d.close()

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
        """The schema version the database was migrated to at ``open``."""
        return self._schema_version

    # -- transactions -------------------------------------------------------------------------

    def _stats(self, *, write: bool) -> AbstractAsyncContextManager[StatsDb]:
        """A transaction for :class:`~storage.stats_sql.StatsStore`."""
        return self._d.write() if write else self._d.read()

    def _forgotten(self, user_id: int) -> None:
        """Forget the rows in memory that named ``user_id``."""
        self._cache.forgotten(user_id)
        self._drop_held()

    def _drop_held(self) -> None:
        """Forget every row kept under a game's lock (a write that may touch any game: a
        chat's migration, a person forgotten)."""
        for game_id in self._held:
            self._held[game_id] = None

    @asynccontextmanager
    async def _write_game(self, game_id: int, *, single: bool = True) -> AsyncIterator[Db]:
        """A write on one game (``single``: of one statement, else in a transaction) that
        keeps the game's new row, read right after on the same connection (SQLite: in the same
        transaction), when the cache keeps games, so the next :meth:`get_game` costs nothing.
        A failed write forgets the row."""
        self._cache.drop_game(game_id)
        if game_id in self._held:
            self._held[game_id] = None
        found: list[Game] = []
        async with self._d.single() if single else self._d.write() as db:
            yield db
            if self._cache.keeps_games:
                found = await self._load(db, "g.game_id = ?", (game_id,), with_actions=False)
        if found:  # committed
            self._cache.keep_game(found[0])

    async def _load(
        self,
        db: Db,
        where: str,
        params: Params,
        *,
        with_actions: bool,
        order_by: str = "g.game_id",
    ) -> list[Game]:
        return await self._d.load_games(
            db, where, params, with_actions=with_actions, order_by=order_by
        )

    async def link_token(self, game_id: int, candidate: str) -> str | None:
        """See :meth:`Repository.link_token` (a game's token is set once: kept in memory)."""
        token = self._cache.token(game_id)
        if token is None:
            token = await super().link_token(game_id, candidate)
            if token is not None:
                self._cache.keep_token(game_id, token)
        return token

    # -- users --------------------------------------------------------------------------------

    async def upsert_user(
        self, user_id: int, display_name: str, telegram_language: str | None, *, now: float
    ) -> User:
        """See :meth:`Repository.upsert_user`. Writes nothing when the kept row already says
        so (every update touches its user), or on PostgreSQL when the stored row does."""
        check_int64(user_id, "user_id")
        known = self._cache.user(user_id)
        if (
            known is not None
            and known.display_name == display_name
            and known.telegram_language == telegram_language
        ):
            return known
        skip = self._d.shared
        values = (user_id, display_name, telegram_language, now)
        async with self._d.single() as db:
            row = await db.one(
                upsert_sql("users", USER_UPSERT, skip_same=skip),
                upsert_params(values, skip_same=skip, unless=False),
            )
            if row is None:  # inserted by another connection after this statement began
                row = await db.one("SELECT * FROM users WHERE user_id = ?", (user_id,))
        assert row is not None
        return self._cache.keep_user(user_from(row))

    async def get_user(self, user_id: int) -> User | None:
        """See :meth:`Repository.get_user` (served from memory once read, unshared)."""
        known = self._cache.user(user_id)
        if known is not None:
            return known
        async with self._d.read() as db:
            row = await db.one("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return self._cache.keep_user(user_from(row)) if row is not None else None

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, User]:
        """See :meth:`Repository.get_users`."""
        wanted = set(user_ids)
        found = {uid: u for uid in wanted if (u := self._cache.user(uid)) is not None}
        ids = sorted(wanted - found.keys())
        if not ids:
            return found
        async with self._d.read() as db:
            rows = await db.all(
                f"SELECT * FROM users WHERE user_id IN ({placeholders(len(ids))})", ids
            )
        for user in map(user_from, rows):
            found[user.user_id] = self._cache.keep_user(user)
        return found

    async def set_user_language(self, user_id: int, language: str | None, *, now: float) -> User:
        """See :meth:`Repository.set_user_language`."""
        return await self._update_user(user_id, "language", language, now)

    async def set_can_message(self, user_id: int, can_message: bool, *, now: float) -> User:
        """See :meth:`Repository.set_can_message`."""
        return await self._update_user(user_id, "can_message", bool(can_message), now)

    async def _update_user(self, user_id: int, column: str, value: object, now: float) -> User:
        async with self._d.single() as db:
            row = await db.one(
                f"UPDATE users SET {column} = ?, updated_at = ? WHERE user_id = ? RETURNING *",
                (value, now, user_id),
            )
        if row is None:
            raise NotFound("user", user_id)
        return self._cache.keep_user(user_from(row))

    # -- chats --------------------------------------------------------------------------------

    async def upsert_chat(
        self, chat_id: int, chat_type: str, title: str | None, *, now: float
    ) -> Chat:
        """See :meth:`Repository.upsert_chat` (writes nothing when the row already says so).
        A chat that became another (``chat_migrations``) gets no new row."""
        check_int64(chat_id, "chat_id")
        known = self._cache.chat(chat_id)
        if known is not None and known.chat_type == chat_type and known.title == title:
            return known
        skip = self._d.shared
        unless = "NOT EXISTS (SELECT 1 FROM chat_migrations WHERE old_chat_id = ?)"
        values = (chat_id, chat_type, title, now)
        async with self._d.single() as db:
            row = await db.one(
                upsert_sql("chats", CHAT_UPSERT, unless=unless, skip_same=skip),
                upsert_params(values, skip_same=skip, unless=True),
            )
            if row is None:  # inserted by another connection after this statement began
                row = await db.one("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
            if row is None:  # or the chat became another
                moved = await games.successor(db, chat_id)
                if moved is not None:
                    raise ChatMoved(chat_id, moved)
        if row is None:  # pragma: no cover - a row deleted between two statements
            raise NotFound("chat", chat_id)
        chat = chat_from(row)
        self._cache.keep_chat(chat_id, chat)
        return chat

    async def get_chat(self, chat_id: int) -> Chat | None:
        """See :meth:`Repository.get_chat` (served from memory once read, unshared)."""
        if self._cache.knows_chat(chat_id):
            return self._cache.chat(chat_id)
        async with self._d.read() as db:
            row = await db.one("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        return self._cache.keep_chat(chat_id, chat_from(row) if row is not None else None)

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
        async with self._d.single() as db:
            row = await db.one(
                f"UPDATE chats SET {column} = ?, updated_at = ? WHERE chat_id = ? RETURNING *",
                (value, now, chat_id),
            )
        if row is None:
            raise NotFound("chat", chat_id)
        chat = chat_from(row)
        self._cache.keep_chat(chat_id, chat)
        return chat

    async def migrate_chat(
        self, old_chat_id: int, new_chat_id: int, *, now: float
    ) -> ChatMigration:
        """See :meth:`Repository.migrate_chat`."""
        self._cache.migrating(old_chat_id, new_chat_id)
        self._drop_held()
        try:
            async with self._d.write() as db:
                return await games.migrate_chat(db, self._d, old_chat_id, new_chat_id, now=now)
        finally:
            self._cache.drop_chat(old_chat_id)
            self._cache.drop_chat(new_chat_id)
            self._drop_held()

    async def chat_successor(self, chat_id: int) -> int | None:
        """See :meth:`Repository.chat_successor` (a migration is for good: once found, kept
        in memory)."""
        known = self._cache.successor(chat_id)
        if known is not None:
            return known
        async with self._d.read() as db:
            found = await games.successor(db, chat_id)
        if found is not None:
            self._cache.keep_successor(chat_id, found)
        return found

    async def chat_migrations_after(self, seq: int) -> list[tuple[int, int, int]]:
        """See :meth:`Repository.chat_migrations_after`."""
        async with self._d.read() as db:
            rows = await db.all(
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
        async with self._d.write() as db:
            return await games.create_game(
                db, self._d, chat_id, creator_id, settings, seed, now=now, seats=seats,
                language=language, thread_id=thread_id,
            )  # fmt: skip

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
        async with self._d.write() as db:
            game = await games.create_game(
                db, self._d, user_id, user_id, settings, seed, now=now, seats=seats,
                language=None, thread_id=None,
            )  # fmt: skip
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
        async with self._write_game(game_id, single=False) as db:
            return await games.set_seats(db, self._d, game_id, expected_version, seats, now=now)

    async def set_settings(
        self, game_id: int, expected_version: int, settings: str, *, now: float
    ) -> int:
        """See :meth:`Repository.set_settings`."""
        async with self._write_game(game_id) as db:
            return await games.set_settings(db, game_id, expected_version, settings, now=now)

    async def set_game_language(
        self, game_id: int, expected_version: int, language: str | None, *, now: float
    ) -> int:
        """See :meth:`Repository.set_game_language`."""
        async with self._write_game(game_id) as db:
            return await games.set_game_language(db, game_id, expected_version, language, now=now)

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
        """See :meth:`Repository.append_actions`. Where the statement reads the new row back
        (PostgreSQL), it is kept (in the cache, or while this process holds the game's
        lock) instead of read again."""
        self._cache.drop_game(game_id)
        if game_id in self._held:
            self._held[game_id] = None
        again: list[Game] = []
        async with self._d.single() as db:
            version, written = await games.append_actions(
                db, self._d, game_id, expected_version, actions, snapshot=snapshot,
                status=status, timer=timer, now=now, timeouts=timeouts,
            )  # fmt: skip
            if written is None and self._cache.keeps_games:
                again = await self._load(db, "g.game_id = ?", (game_id,), with_actions=False)
        if written is not None:
            self._cache.keep_game(written.game)
            if game_id in self._held:
                self._held[game_id] = written
        elif again:
            self._cache.keep_game(again[0])
        return version

    async def set_table_message(
        self, game_id: int, message_id: int | None, *, expected_version: int | None
    ) -> None:
        """See :meth:`Repository.set_table_message`."""
        async with self._write_game(game_id) as db:
            await games.set_table_message(
                db, game_id, message_id, expected_version=expected_version
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
        async with self._write_game(game_id) as db:
            await games.set_hand_message(
                db, self._d, game_id, seat, message, expected_version=expected_version
            )

    async def mark_reminded(self, game_id: int, expected_version: int) -> None:
        """See :meth:`Repository.mark_reminded`."""
        async with self._write_game(game_id) as db:
            await games.mark_reminded(db, game_id, expected_version)

    # -- several workers on one database ------------------------------------------------------

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """See :meth:`Repository.game_lock` (the dialect's: nothing to hold on SQLite, one
        bot process per file; an advisory lock on PostgreSQL). While it is held, the row a
        write reads back is served again (:attr:`_held`)."""
        async with self._d.game_lock(game_id):
            self._held[game_id] = None
            try:
                yield
            finally:
                self._held.pop(game_id, None)

    def _held_readers(self, game_id: int, also: Iterable[int] = ()) -> GameReaders | None:
        """The rows kept while the game's lock is held (None: none kept, or ``also`` names a
        user they may lack)."""
        held = self._held.get(game_id)
        if held is None or not set(also) <= reader_ids(held.game):
            return None
        return held

    async def arm_timer(self, game_id: int, expected_version: int, wake_at: float) -> bool:
        """See :meth:`Repository.arm_timer`."""
        async with self._d.single() as db:
            return await games.arm_timer(db, game_id, expected_version, wake_at)

    async def claim_due_timers(
        self, now: float, *, lease: float, limit: int = 50
    ) -> list[tuple[int, int]]:
        """See :meth:`Repository.claim_due_timers`."""
        async with self._d.single() as db:
            return await games.claim_due_timers(db, self._d, now, lease=lease, limit=limit)

    async def release_timer(self, game_id: int, version: int) -> None:
        """See :meth:`Repository.release_timer`."""
        async with self._d.single() as db:
            await games.release_timer(db, game_id, version)

    async def claim_surface(
        self, game_id: int, seat: int | None, *, token: str, now: float, lease: float
    ) -> SurfaceState | None:
        """See :meth:`Repository.claim_surface`."""
        async with self._d.single() as db:
            return await games.claim_surface(db, game_id, seat, token=token, now=now, lease=lease)

    async def release_surface(
        self, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
    ) -> bool:
        """See :meth:`Repository.release_surface`."""
        async with self._write_game(game_id) as db:
            return await games.release_surface(db, game_id, seat, token=token, shown=shown)

    # -- games: queries -----------------------------------------------------------------------

    async def _games(
        self,
        where: str,
        params: Params,
        *,
        with_actions: bool,
        order_by: str = "g.game_id",
    ) -> list[Game]:
        async with self._d.read() as db:
            return await self._load(db, where, params, with_actions=with_actions, order_by=order_by)

    async def get_game(self, game_id: int, *, with_actions: bool = False) -> Game | None:
        """See :meth:`Repository.get_game`. Without actions, a row this process read or
        wrote before is served from memory where the cache keeps games (the bot is then the
        only writer of its games; a second writer's change is noticed by the version check of
        the next write)."""
        if not with_actions:
            known = self._cache.game(game_id)
            if known is not None:
                return known
            held = self._held_readers(game_id)
            if held is not None:
                return held.game
        found = await self._games("g.game_id = ?", (game_id,), with_actions=with_actions)
        if found and not with_actions:
            self._cache.keep_game(found[0])
        return found[0] if found else None

    async def game_readers(self, game_id: int, also: Iterable[int] = ()) -> GameReaders | None:
        """See :meth:`Repository.game_readers`: from memory where the cache keeps the rows
        (each read only on a miss), else the dialect's one read."""
        if not self._cache.keeps_games:
            held = self._held_readers(game_id, also)
            if held is not None:
                return held
            async with self._d.read() as db:
                return await self._d.load_readers(db, game_id, sorted(set(also)))
        game = await self.get_game(game_id)
        if game is None:
            return None
        chat = await self.get_chat(game.chat_id)
        return GameReaders(game, chat, await self.get_users(reader_ids(game, also)))

    async def get_actions(self, game_id: int, *, start: int = 0) -> tuple[str, ...]:
        """See :meth:`Repository.get_actions`."""
        async with self._d.read() as db:
            rows = await db.all(
                "SELECT action FROM game_actions WHERE game_id = ? AND seq >= ? ORDER BY seq",
                (game_id, start),
            )
        return tuple(str(r["action"]) for r in rows)

    async def open_game_of_chat(self, chat_id: int, *, with_actions: bool = False) -> Game | None:
        """See :meth:`Repository.open_game_of_chat`."""
        found = await self._games(
            f"g.chat_id = ? AND g.{IN_OPEN}", (chat_id, *OPEN), with_actions=with_actions
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
        wanted = sorted({GameStatus(s).value for s in statuses})
        if not wanted:
            return []
        return await self._games(
            f"g.status IN ({placeholders(len(wanted))})", wanted, with_actions=False
        )

    async def games_of_user(
        self, user_id: int, statuses: Collection[GameStatus] = (GameStatus.ACTIVE,)
    ) -> list[Game]:
        """See :meth:`Repository.games_of_user`."""
        wanted = sorted({GameStatus(s).value for s in statuses})
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
        return await self._games(
            f"g.deadline_at <= ? AND g.{IN_OPEN}",
            (at, *OPEN),
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
        tables = ("users", "chats", "games", "game_seats", "game_actions", *EXTRA_TABLES)
        async with self._d.read() as db:
            row = await db.one("SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {t})" for t in tables))
        assert row is not None
        return RowCounts(*(int(v) for v in row))

    async def all_users(self) -> list[User]:
        """See :meth:`Repository.all_users`."""
        async with self._d.read() as db:
            rows = await db.all("SELECT * FROM users ORDER BY user_id")
        return [user_from(r) for r in rows]

    async def all_chats(self) -> list[Chat]:
        """See :meth:`Repository.all_chats`."""
        async with self._d.read() as db:
            rows = await db.all("SELECT * FROM chats ORDER BY chat_id")
        return [chat_from(r) for r in rows]

    async def game_histories(self, *, after: int = 0, limit: int = 100) -> list[GameHistory]:
        """See :meth:`Repository.game_histories`."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        async with self._d.read() as db:
            return await self._d.load_histories(db, after, limit)

    async def import_users(self, users: Sequence[User]) -> None:
        """See :meth:`Repository.import_users` (the rows in memory follow)."""
        rows = [user_row(u) for u in users]
        if not rows:
            return
        for user in users:
            self._cache.drop_user(user.user_id)
        async with self._d.write() as db:
            await db.many(_overwrite("users", USER_COLUMNS), rows)

    async def import_chats(self, chats: Sequence[Chat]) -> None:
        """See :meth:`Repository.import_chats` (the rows in memory follow)."""
        rows = [chat_row(c) for c in chats]
        if not rows:
            return
        for chat in chats:
            self._cache.drop_chat(chat.chat_id)
        async with self._d.write() as db:
            await db.many(_overwrite("chats", CHAT_COLUMNS), rows)

    async def import_games(self, histories: Sequence[GameHistory]) -> None:
        """See :meth:`Repository.import_games` (the dialect inserts the rows and moves what
        numbers new games past the imported ids)."""
        if not histories:
            return
        plan = plan_import(histories)
        if not plan.game_ids:
            return
        async with self._d.write() as db:
            open_rows = await _chunked(
                db, f"SELECT chat_id, game_id FROM games WHERE chat_id IN ({{}}) AND {IN_OPEN}",
                sorted(plan.open_games), OPEN,
            )  # fmt: skip
            plan.check(
                existing=[int(r[0]) for r in await _chunked(
                    db, "SELECT game_id FROM games WHERE game_id IN ({})", plan.game_ids
                )],
                chats=[int(r[0]) for r in await _chunked(
                    db, "SELECT chat_id FROM chats WHERE chat_id IN ({})" + self._d.key_share,
                    sorted(plan.chat_ids),
                )],
                users=[int(r[0]) for r in await _chunked(
                    db, "SELECT user_id FROM users WHERE user_id IN ({})" + self._d.key_share,
                    sorted(plan.user_ids),
                )],
                open_in_target={int(r[0]): int(r[1]) for r in open_rows},
            )  # fmt: skip
            await self._d.insert_games(db, plan)


def _overwrite(table: str, columns: Sequence[str]) -> str:
    """``INSERT`` of every column that overwrites an existing row (the first column is the
    key): users and chats are last-writer-wins."""
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))}) "
        f"ON CONFLICT ({columns[0]}) DO UPDATE SET {updates}"
    )


async def _chunked(db: Db, sql: str, ids: Sequence[int], tail: Sequence[object] = ()) -> list[Any]:
    """The rows of ``sql`` (with ``{}`` for the IN list, then ``tail``'s parameters) over
    ``ids``, in chunks that stay below SQLite's parameter limit."""
    found: list[Any] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        found.extend(await db.all(sql.format(placeholders(len(chunk))), (*chunk, *tail)))
    return found
