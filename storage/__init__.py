"""Persistence for klaverjas-bot: the only package that writes SQL (``design.md`` §3).

Use :func:`open_repository` and program against :class:`Repository`; rows and enums come from
:mod:`storage.rows`, errors from :mod:`storage.errors`.
"""

from __future__ import annotations

import os

from storage.errors import (
    NotFound,
    OpenGameExists,
    SchemaError,
    SeatConflict,
    StaleVersion,
    StorageError,
    WrongStatus,
)
from storage.repository import Repository
from storage.rows import (
    ALLOWED_TRANSITIONS,
    OPEN_STATUSES,
    SEAT_COUNT,
    Chat,
    ChatMigration,
    Game,
    GameStatus,
    MessageRef,
    Occupant,
    Seat,
    SeatKind,
    TurnTimer,
    User,
)
from storage.sqlite import SqliteRepository


async def open_repository(path: str | os.PathLike[str]) -> Repository:
    """Open the SQLite database at ``path`` (``":memory:"`` for a throw-away one), migrated to
    the current schema. Close it with ``await repo.close()`` or ``async with``.

    Raises:
        SchemaError: the database was written by a newer version of the bot.
        sqlite3.Error: the file cannot be opened.
    """
    return await SqliteRepository.open(path)


__all__ = [
    "ALLOWED_TRANSITIONS",
    "OPEN_STATUSES",
    "SEAT_COUNT",
    "Chat",
    "ChatMigration",
    "Game",
    "GameStatus",
    "MessageRef",
    "NotFound",
    "Occupant",
    "OpenGameExists",
    "Repository",
    "SchemaError",
    "Seat",
    "SeatConflict",
    "SeatKind",
    "SqliteRepository",
    "StaleVersion",
    "StorageError",
    "TurnTimer",
    "User",
    "WrongStatus",
    "open_repository",
]
