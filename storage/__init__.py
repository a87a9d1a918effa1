"""Persistence for klaverjas-bot: the only package that writes SQL (``docs/design.md`` §5), on
SQLite (the default: one embedded file) or PostgreSQL.

Use :func:`open_repository` and program against :class:`Repository`; rows and enums come from
:mod:`storage.rows`, errors from :mod:`storage.errors`. The flow of one move::

    game = await repo.get_game(game_id)            # Game with seats, version, snapshot
    if game is None or game.version != claimed_version:
        ...                                        # stale button
    state = engine_load(game.snapshot)             # or replay settings + seed + actions
    ...                                            # apply the move, let computers move
    try:
        version = await repo.append_actions(
            game.game_id, game.version, new_actions,
            snapshot=new_snapshot, status=GameStatus.ACTIVE,
            timer=TurnTimer(deadline_at=now + 60, seat=next_seat), now=now,
        )
    except StaleVersion:
        ...                                        # someone else moved first: reload
    # only now talk to Telegram; then record message ids (bookkeeping, no version bump):
    await repo.set_table_message(game.game_id, message_id, expected_version=None)
"""

from __future__ import annotations

import os
import sqlite3

import asyncpg

from storage.errors import (
    AlreadyExists,
    ChatMoved,
    DatabaseInUse,
    DatabaseUnavailable,
    NotFound,
    OpenGameExists,
    SchemaError,
    SeatConflict,
    StaleVersion,
    StorageError,
    UserSeated,
    WrongStatus,
)
from storage.postgres import PostgresRepository
from storage.repository import Repository
from storage.rows import (
    ALLOWED_TRANSITIONS,
    ANONYMOUS_MAX,
    OPEN_STATUSES,
    SEAT_COUNT,
    Chat,
    ChatMigration,
    Game,
    GameHistory,
    GameReaders,
    GameStatus,
    MessageRef,
    Occupant,
    RowCounts,
    Seat,
    SeatKind,
    SurfaceShown,
    SurfaceState,
    TurnTimer,
    User,
)
from storage.sqlite import SqliteRepository
from storage.urls import Backend, DatabaseUrl, parse_database_url, redact

DATABASE_ERRORS: tuple[type[Exception], ...] = (
    StorageError,
    sqlite3.Error,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
)
"""What opening or reading a database raises when the database (not the code) is the
problem: catch these to report one line (``bot/__main__.py``, ``bot/admin.py``)."""


async def open_repository(
    url_or_path: str | os.PathLike[str] | DatabaseUrl,
    *,
    sole_writer: bool = False,
    claim: bool = False,
) -> Repository:
    """Open the database ``url_or_path`` names (or a parsed :class:`DatabaseUrl`), migrated
    to the current schema: a plain path or ``sqlite:///path`` (an SQLite file, created if
    missing; ``":memory:"`` or ``sqlite:///:memory:`` for a throw-away one) or a
    ``postgresql://`` / ``postgres://`` URL (the database must exist). See
    :mod:`storage.urls`. Close the repository with ``await repo.close()`` or ``async with``.
    ``sole_writer``: this process is the only bot process on a PostgreSQL database (see
    :meth:`PostgresRepository.open`; an SQLite file always has one); ``claim``: this is a bot
    process, which holds a PostgreSQL database so that no second process runs beside its only
    one (:meth:`PostgresRepository.open`).

    Raises:
        ValueError: ``url_or_path`` is not a database setting (unknown scheme...).
        SchemaError: the database was written by a newer version of the bot.
        DatabaseUnavailable: the PostgreSQL server cannot be reached or refuses us.
        DatabaseInUse: ``claim`` and another bot process holds the database the other way.
        sqlite3.Error: the SQLite file cannot be opened.
        asyncpg.PostgresError: a PostgreSQL migration failed.
    """
    url = url_or_path if isinstance(url_or_path, DatabaseUrl) else parse_database_url(url_or_path)
    if url.backend is Backend.POSTGRESQL:
        return await PostgresRepository.open(url.target, sole_writer=sole_writer, claim=claim)
    return await SqliteRepository.open(url.target)


__all__ = [
    "ALLOWED_TRANSITIONS",
    "ANONYMOUS_MAX",
    "DATABASE_ERRORS",
    "OPEN_STATUSES",
    "SEAT_COUNT",
    "AlreadyExists",
    "Backend",
    "Chat",
    "ChatMigration",
    "ChatMoved",
    "DatabaseInUse",
    "DatabaseUnavailable",
    "DatabaseUrl",
    "Game",
    "GameHistory",
    "GameReaders",
    "GameStatus",
    "MessageRef",
    "NotFound",
    "Occupant",
    "OpenGameExists",
    "PostgresRepository",
    "Repository",
    "RowCounts",
    "SchemaError",
    "Seat",
    "SeatConflict",
    "SeatKind",
    "SqliteRepository",
    "StaleVersion",
    "StorageError",
    "SurfaceShown",
    "SurfaceState",
    "TurnTimer",
    "User",
    "UserSeated",
    "WrongStatus",
    "open_repository",
    "parse_database_url",
    "redact",
]
