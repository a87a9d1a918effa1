"""Users and chats: their Telegram facts, languages, a group that became a supergroup, and
which tables a reader's commands are about."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.i18n import reader_language, resolve_language
from bot.outcome import Outcome
from bot.service.core import Tables
from bot.tables import Table
from storage import (
    ChatMoved,
    GameStatus,
    OpenGameExists,
    Repository,
    StaleVersion,
    UserSeated,
    WrongStatus,
)
from storage.rows import new_anonymous_id

log = logging.getLogger(__name__)


class PeopleService:
    """Users, chats and their languages (module docstring).

    Args:
        tables: the tables (a lobby giving way to a migration, ``/score``'s tables).
        repo: the storage repository.
        clock: UTC epoch seconds.
        default_language: the bot's language when nothing else decides (``bot.i18n``).
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        *,
        clock: Callable[[], float],
        default_language: str,
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.clock = clock
        self.default_language = default_language

    async def set_hand_place(self, user_id: int, place: str | None) -> None:
        """Where ``user_id`` wants their hand at group tables from now on (``"group"``,
        ``"private"``, None: as the table says; :mod:`bot.presenter.ephemeral`)."""
        await self.repo.set_hand_place(user_id, place, now=self.clock())

    async def touch_user(self, user_id: int, name: str, language: str | None) -> None:
        """Record a user's Telegram facts (a no-op write when nothing changed)."""
        await self.repo.upsert_user(user_id, name, language, now=self.clock())

    async def user_started(self, user_id: int) -> None:
        """The user wrote to the bot in private: it may message them."""
        user = await self.repo.get_user(user_id)
        if user is None or not user.can_message:
            await self.repo.set_can_message(user_id, True, now=self.clock())

    async def user_unreachable(self, user_id: int) -> None:
        """Telegram refused a private message to the user (403)."""
        user = await self.repo.get_user(user_id)
        if user is not None and user.can_message:
            await self.repo.set_can_message(user_id, False, now=self.clock())

    async def forget_user(self, user_id: int) -> int | None:
        """``/forgetme`` confirmed: unlink the person from everything stored
        (:meth:`storage.Repository.forget_user`, a fresh anonymous id in their seats). Returns
        None when done, or the open game they sit at (then nothing changes: they finish or
        leave that table first)."""
        try:
            await self.repo.forget_user(user_id, new_anonymous_id(), now=self.clock())
        except UserSeated as exc:
            return exc.game_id
        return None

    async def can_message(self, user_id: int) -> bool:
        """Whether the user started the bot (and has not blocked it since)."""
        user = await self.repo.get_user(user_id)
        return user is not None and user.can_message

    async def reader_language(
        self,
        chat_id: int | None,
        user_id: int | None,
        telegram_language: str | None,
        *,
        private: bool,
    ) -> str:
        """The language to answer a reader in. Privately (a private chat, a callback alert,
        the daily's result) :func:`bot.i18n.reader_language`: the user's choice, else their
        Telegram language (``telegram_language``, else the one stored), else the chat's (a
        group's is its setting, else the default), else English. In a group the chat's
        choice, else ``telegram_language``, else the default."""
        chat = await self.repo.get_chat(chat_id) if chat_id is not None else None
        user = await self.repo.get_user(user_id) if user_id is not None else None
        if not private:
            return resolve_language(
                chat.language if chat else None,
                None,
                telegram_language,
                self.default_language,
                private=False,
            )
        chat_language = chat.language if chat else None
        if chat is not None and chat.chat_type != "private":
            chat_language = chat_language or self.default_language
        return reader_language(
            user.language if user else None,
            telegram_language or (user.telegram_language if user else None),
            chat_language,
        )

    async def set_chat_language(
        self, chat_id: int, chat_type: str, title: str | None, language: str
    ) -> list[Outcome]:
        """``/language`` in a group (by an admin): the chat's texts; its table is redrawn."""
        now = self.clock()
        try:
            await self.repo.upsert_chat(chat_id, chat_type, title, now=now)
        except ChatMoved:  # a late tap in a group that became a supergroup
            return []
        await self.repo.set_chat_language(chat_id, language, now=now)
        row = await self.repo.open_game_of_chat(chat_id)
        if row is None:
            return []
        return [Outcome(game_id=row.game_id, resync=True, lobby=row.status is GameStatus.LOBBY)]

    async def set_user_language(self, user_id: int, language: str) -> list[Outcome]:
        """``/language`` in private: the user's own texts; their hands are redrawn."""
        await self.repo.set_user_language(user_id, language, now=self.clock())
        rows = await self.repo.games_of_user(user_id)
        return [Outcome(game_id=row.game_id, resync=True) for row in rows]

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> list[Outcome]:
        """A group became a supergroup (new chat id), told by either service message or by
        Telegram's answer to a call: move its games (one transaction; every worker then reads
        where it went, :meth:`chat_moved`; storage forgets the table message, which stays in
        the old chat); the presenter draws the table anew. Idempotent: a second notice moves
        nothing.

        When both ids have an open table (somebody opened one in the supergroup before the
        bot heard of the move), a lobby gives way: the new chat's lobby, else the old one's
        (nothing was played at a lobby). Two running games stay where they are (the old one
        plays on, its messages shown in the new chat) and nothing moves."""
        outs: list[Outcome] = []
        before = await self.repo.open_game_of_chat(old_chat_id)
        try:
            moved = await self.repo.migrate_chat(old_chat_id, new_chat_id, now=self.clock())
        except OpenGameExists:
            outs += await self._make_room(old_chat_id, new_chat_id)
            before = await self.repo.open_game_of_chat(old_chat_id)
            try:
                moved = await self.repo.migrate_chat(old_chat_id, new_chat_id, now=self.clock())
            except OpenGameExists:
                log.info("chat %s has a running game on both sides of its migration", new_chat_id)
                return outs
        if before is None or not moved.chat_moved:  # nothing open, or moved already
            return outs
        lobby = before.status is GameStatus.LOBBY
        return [*outs, Outcome(game_id=before.game_id, resync=True, lobby=lobby)]

    async def _make_room(self, old_chat_id: int, new_chat_id: int) -> list[Outcome]:
        """Close the lobby that gives way when both chats of a migration have an open table
        (see :meth:`migrate_chat`)."""
        for chat_id in (new_chat_id, old_chat_id):
            row = await self.repo.open_game_of_chat(chat_id)
            if row is None or row.status is not GameStatus.LOBBY:
                continue
            async with self.tables.lock(row.game_id):
                table = await self.tables.load(row.game_id)
                if table is None or table.row.status is not GameStatus.LOBBY:
                    continue
                try:
                    return [await self.tables.abandon(table, None)]
                except (StaleVersion, WrongStatus):  # changed meanwhile: the retry decides
                    return []
        return []

    async def chat_moved(self, chat_id: int) -> int | None:
        """The chat a group became, if it became a supergroup (None otherwise)."""
        return await self.repo.chat_successor(chat_id)

    async def migrations_after(self, seq: int) -> list[tuple[int, int, int]]:
        """Migrations other workers recorded (see
        :meth:`storage.Repository.chat_migrations_after`)."""
        return await self.repo.chat_migrations_after(seq)

    async def score_tables(self, chat_id: int, user_id: int | None, private: bool) -> list[Table]:
        """The tables ``/score`` shows: the chat's running game; in a private chat without one
        the user's running games elsewhere; else the chat's most recent (finished) game."""
        row = await self.repo.open_game_of_chat(chat_id)
        if row is not None:
            return [await self.tables.table(row)]
        if private and user_id is not None:
            rows = await self.repo.games_of_user(user_id)
            if rows:
                return [await self.tables.table(r) for r in rows]
        latest = await self.repo.latest_game_of_chat(chat_id)
        return [await self.tables.table(latest)] if latest is not None else []
