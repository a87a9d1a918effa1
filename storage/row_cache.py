"""The rows a repository keeps in memory between calls, so that the reads of a tap cost no
database work when this process wrote or read the row last (``design.md`` §3).

Which rows may be kept depends on who else writes the database:

* one bot process per database (SQLite: ``shared=False``): users, chats (and that a chat has no
  row), game rows without their action log, and chat migrations. The bot is then the only
  writer of its rows (the admin tool only reads; a second writer's game change is noticed by
  the version check of the next write);
* several bot processes on one database (PostgreSQL: ``shared=True``): only what is written
  once for good (chat migrations, games' link tokens); every other row may change in another
  process at any time.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

from storage.rows import Chat, Game, User

ROW_CACHE = 10_000
"""Rows of each kind kept (the most recently used)."""

V = TypeVar("V")


class _Recent(Generic[V]):
    """Up to ``ROW_CACHE`` values by id, the least recently used dropped first."""

    def __init__(self) -> None:
        self.rows: OrderedDict[int, V] = OrderedDict()

    def put(self, key: int, value: V) -> V:
        self.rows[key] = value
        self.rows.move_to_end(key)
        while len(self.rows) > ROW_CACHE:
            self.rows.popitem(last=False)
        return value


class RowCache:
    """Rows kept in memory by :class:`storage.sql_repository.SqlRepository`.

    ``shared``: several processes write the database (see the module); then only chat
    migrations and link tokens are kept and every other look-up misses (the ``keep_*``
    calls keep nothing).
    """

    def __init__(self, *, shared: bool) -> None:
        self.shared = shared
        self._users: _Recent[User] = _Recent()
        self._chats: _Recent[Chat | None] = _Recent()
        self._games: _Recent[Game] = _Recent()
        self._moved: _Recent[int] = _Recent()
        self._tokens: _Recent[str] = _Recent()

    @property
    def keeps_games(self) -> bool:
        """Whether game rows are kept (then a game write reads the new row back)."""
        return not self.shared

    # users ---------------------------------------------------------------------------------

    def user(self, user_id: int) -> User | None:
        """The kept row of ``user_id``, or None."""
        return self._users.rows.get(user_id)

    def keep_user(self, user: User) -> User:
        """Keep ``user`` as this process last read or wrote it; return it."""
        return user if self.shared else self._users.put(user.user_id, user)

    def drop_user(self, user_id: int) -> None:
        """Forget the row of ``user_id``."""
        self._users.rows.pop(user_id, None)

    # chats ---------------------------------------------------------------------------------

    def knows_chat(self, chat_id: int) -> bool:
        """Whether the chat's row (or that it has none) is kept."""
        return chat_id in self._chats.rows

    def chat(self, chat_id: int) -> Chat | None:
        """The kept row of ``chat_id`` (None: no row, or not kept: see :meth:`knows_chat`)."""
        return self._chats.rows.get(chat_id)

    def keep_chat(self, chat_id: int, chat: Chat | None) -> Chat | None:
        """Keep the chat's row, or that it has none (``None``); return ``chat``."""
        return chat if self.shared else self._chats.put(chat_id, chat)

    def drop_chat(self, chat_id: int) -> None:
        """Forget the row of ``chat_id``."""
        self._chats.rows.pop(chat_id, None)

    # games ---------------------------------------------------------------------------------

    def game(self, game_id: int) -> Game | None:
        """The kept row of ``game_id`` (without actions), or None."""
        return self._games.rows.get(game_id)

    def keep_game(self, game: Game) -> Game:
        """Keep a game's row (its action log left out); return ``game``."""
        return game if self.shared else self._games.put(game.game_id, game)

    def drop_game(self, game_id: int) -> None:
        """Forget the row of ``game_id`` (a write to it is under way or failed)."""
        self._games.rows.pop(game_id, None)

    # chat migrations -----------------------------------------------------------------------

    def successor(self, chat_id: int) -> int | None:
        """Where ``chat_id`` is known to have gone, or None."""
        return self._moved.rows.get(chat_id)

    def keep_successor(self, chat_id: int, new_chat_id: int) -> None:
        """Keep that ``chat_id`` went to ``new_chat_id`` (for good)."""
        self._moved.put(chat_id, new_chat_id)

    # link tokens ---------------------------------------------------------------------------

    def token(self, game_id: int) -> str | None:
        """The known link token of ``game_id``, or None."""
        return self._tokens.rows.get(game_id)

    def keep_token(self, game_id: int, token: str) -> None:
        """Keep a game's link token (set once, for good)."""
        self._tokens.put(game_id, token)

    def migrating(self, old_chat_id: int, new_chat_id: int) -> None:
        """Forget what a chat migration changes: both chats, every game row (their chat ids)
        and the known migrations (a chain may lengthen)."""
        self._games.rows.clear()
        self._moved.rows.clear()
        self.drop_chat(old_chat_id)
        self.drop_chat(new_chat_id)

    def forgotten(self, user_id: int) -> None:
        """Forget the rows that named ``user_id`` (its user row, its private chat, and every
        game row: their seats may have named the person)."""
        self.drop_user(user_id)
        self.drop_chat(user_id)
        self._games.rows.clear()
