"""Persistence for klaverjas-bot: the only package that writes SQL (``design.md`` §3).

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
