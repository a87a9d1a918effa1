"""Errors raised by every :class:`storage.Repository` implementation.

A write that raises one of these has changed nothing (its transaction was rolled back).
Invalid arguments (a seat outside ``0..3``, text that is not JSON, a seed beyond 64 bits) raise
:class:`ValueError` before anything is written.
"""

from __future__ import annotations

from storage.rows import GameStatus


class StorageError(Exception):
    """Base class of the storage errors."""


class SchemaError(StorageError):
    """The database cannot be used by this code: its schema is newer than the code knows
    (``found > supported``), or the SQLite library is too old.

    Attributes:
        found: the database's schema version (0 if not applicable).
        supported: the newest schema version this code knows.
    """

    def __init__(self, message: str, *, found: int = 0, supported: int = 0) -> None:
        super().__init__(message)
        self.found = found
        self.supported = supported


class DatabaseUnavailable(StorageError):
    """The database server cannot be reached or refuses the connection (PostgreSQL: host down,
    wrong password, no such database). ``str(error)`` says why, without the password."""


class DatabaseInUse(DatabaseUnavailable):
    """Another bot process holds the PostgreSQL database in a way this one cannot share: one
    of them runs as the database's only bot process (``BOT_WORKERS=1``) and the other one is
    a second bot process (see :meth:`storage.PostgresRepository.open`, ``claim``)."""


class AlreadyExists(StorageError):
    """An import would write a row whose id the database already holds.

    Attributes:
        kind: ``"game"``.
        key: the id.
    """

    def __init__(self, kind: str, key: int) -> None:
        super().__init__(f"{kind} {key} exists already")
        self.kind = kind
        self.key = key


class NotFound(StorageError, LookupError):
    """A row the write refers to does not exist.

    Attributes:
        kind: ``"game"``, ``"user"`` or ``"chat"``.
        key: the id that was looked up.
    """

    def __init__(self, kind: str, key: int) -> None:
        super().__init__(f"no {kind} with id {key}")
        self.kind = kind
        self.key = key


class StaleVersion(StorageError):
    """Compare-and-set failed: the game is no longer at ``expected`` (someone else wrote first).
    Reload the game and decide again; nothing was written.

    Attributes:
        game_id: the game.
        expected: the version the caller passed.
        actual: the version in storage.
    """

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id} is at version {actual}, not {expected}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class WrongStatus(StorageError):
    """The game's status does not allow this write (a write to a finished or abandoned game,
    a settings change outside the lobby, or a status change not in
    :data:`storage.rows.ALLOWED_TRANSITIONS`).

    Attributes:
        game_id: the game.
        status: its current status.
        requested: the status the write asked for, if it asked for one.
    """

    def __init__(
        self, game_id: int, status: GameStatus, requested: GameStatus | None = None
    ) -> None:
        target = f" to {requested.value}" if requested is not None else ""
        super().__init__(f"game {game_id} is {status.value}: cannot write{target}")
        self.game_id = game_id
        self.status = status
        self.requested = requested


class OpenGameExists(StorageError):
    """The chat already has an open (``lobby`` or ``active``) game.

    Attributes:
        chat_id: the chat.
        game_id: its open game.
    """

    def __init__(self, chat_id: int, game_id: int) -> None:
        super().__init__(f"chat {chat_id} already has open game {game_id}")
        self.chat_id = chat_id
        self.game_id = game_id


class SeatConflict(StorageError):
    """The write would seat one user in two seats of the same game.

    Attributes:
        game_id: the game.
        user_id: the user.
    """

    def __init__(self, game_id: int, user_id: int) -> None:
        super().__init__(f"user {user_id} would hold two seats in game {game_id}")
        self.game_id = game_id
        self.user_id = user_id


class UserSeated(StorageError):
    """The user holds a seat at an open (``lobby`` or ``active``) game, so cannot be forgotten
    yet (:meth:`storage.Repository.forget_user`).

    Attributes:
        user_id: the user.
        game_id: the open game.
    """

    def __init__(self, user_id: int, game_id: int) -> None:
        super().__init__(f"user {user_id} is seated at open game {game_id}")
        self.user_id = user_id
        self.game_id = game_id


class ChatMoved(NotFound):
    """The chat became another: a group that became a supergroup
    (:meth:`storage.Repository.migrate_chat`). Nothing can be written in the old id any more.

    Attributes:
        kind: ``"chat"``.
        key: the old chat id (as :class:`NotFound`).
        new_chat_id: where the group went.
    """

    def __init__(self, chat_id: int, new_chat_id: int) -> None:
        super().__init__("chat", chat_id)
        self.args = (f"chat {chat_id} became chat {new_chat_id}",)
        self.new_chat_id = new_chat_id
