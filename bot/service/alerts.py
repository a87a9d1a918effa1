"""A fourth wanted: members of a group who asked for it (``/notify`` or the lobby's 🔔) get
one private message with a join button when a table there waits for players. At most one such
message a person per :data:`ALERT_EVERY` seconds (claimed in storage: once across workers),
never to the lobby's own players, never to somebody the bot cannot write to; the caller checks
that they are still members of the group. No Telegram calls and no text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.i18n import reader_language
from bot.service.core import Tables
from storage import GameStatus, Repository, SeatKind

ALERT_EVERY = 3600.0
"""Seconds between two "a fourth wanted" messages to one person (at most one an hour)."""


@dataclass(frozen=True, slots=True)
class LobbyCall:
    """A lobby that needs players, and who may hear of it.

    Attributes:
        game_id: the lobby.
        chat_id: its group.
        title: the group's title.
        free: its empty seats (0–3), at least one.
        link: the game's deep-link token (the join button: ``j<token>_<seat>``).
        people: ``(user_id, language)`` of those who asked to hear of it: not seated there,
            reachable in private (the caller checks membership and claims each message).
    """

    game_id: int
    chat_id: int
    title: str
    free: tuple[int, ...]
    link: str
    people: tuple[tuple[int, str], ...]


class AlertService:
    """Who wants to hear of a table that needs a player (module docstring).

    Args:
        tables: the tables (loading, link tokens).
        repo: the storage repository (the wishes, the hourly claims).
        clock: UTC epoch seconds.
    """

    def __init__(self, tables: Tables, repo: Repository, *, clock: Callable[[], float]) -> None:
        self.tables = tables
        self.repo = repo
        self.clock = clock

    async def toggle_table_alert(
        self, chat_id: int, user_id: int, chat: tuple[str, str | None] | None = None
    ) -> bool:
        """Switch ``user_id``'s wish to hear of tables in ``chat_id``; returns it (True: on).
        ``chat``: the group's ``(type, title)``, recorded first (a group the bot has not
        stored yet: ``/notify`` before any table)."""
        if chat is not None:
            await self.repo.upsert_chat(chat_id, chat[0], chat[1], now=self.clock())
        wanted = user_id not in await self.repo.table_alert_users(chat_id)
        await self.repo.set_table_alert(chat_id, user_id, wanted, now=self.clock())
        return wanted

    async def set_table_alert(self, chat_id: int, user_id: int, on: bool) -> bool:
        """Set ``user_id``'s wish for ``chat_id``; True when it changed."""
        return await self.repo.set_table_alert(chat_id, user_id, on, now=self.clock())

    async def lobby_call(self, game_id: int) -> LobbyCall | None:
        """The group lobby ``game_id`` as it waits for players, with those who asked to hear
        of it; None when it is no group lobby, has no empty seat or nobody to tell."""
        table = await self.tables.load(game_id)
        if table is None or table.is_private or table.row.status is not GameStatus.LOBBY:
            return None
        free = tuple(s.index for s in table.row.seats if s.kind is SeatKind.EMPTY)
        if not free:
            return None
        row = table.row
        seated = {s.user_id for s in row.seats if s.user_id is not None} | {row.creator_id}
        wanted = [u for u in await self.repo.table_alert_users(row.chat_id) if u not in seated]
        if not wanted:
            return None
        chat = await self.repo.get_chat(row.chat_id)
        users = await self.repo.get_users(wanted)
        group = chat.language if chat is not None else None
        people = tuple(
            (uid, reader_language(u.language, u.telegram_language, group))
            for uid, u in users.items()
            if u.can_message
        )
        if not people:
            return None
        title = (chat.title or "") if chat is not None else ""
        return LobbyCall(
            game_id, row.chat_id, title, free, await self.tables.link_token(game_id), people
        )

    async def claim_alert(self, user_id: int) -> bool:
        """Claim the one message an hour ``user_id`` may get (True: send it now)."""
        return await self.repo.claim_alert_send(user_id, now=self.clock(), every=ALERT_EVERY)
