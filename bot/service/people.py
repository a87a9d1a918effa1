"""Users and chats: their Telegram facts, languages, a group that became a supergroup, and
which tables a reader's commands are about."""

from __future__ import annotations

from bot.i18n import reader_language, resolve_language
from bot.outcome import Outcome
from bot.service.core import ServiceCore
from bot.tables import Table
from storage import GameStatus


class PeopleOps(ServiceCore):
    """Users, chats and their languages (see :class:`bot.service.GameService`)."""

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
        await self.repo.upsert_chat(chat_id, chat_type, title, now=now)
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

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> Outcome:
        """A group became a supergroup (new chat id): move its games (one UPDATE) and forget
        the table message, which lives in the old chat; the presenter draws it anew."""
        moved = await self.repo.migrate_chat(old_chat_id, new_chat_id, now=self.clock())
        row = await self.repo.open_game_of_chat(new_chat_id)
        if row is None or not moved.games_moved:  # nothing here, or moved already
            return Outcome()
        await self.repo.set_table_message(row.game_id, None, expected_version=None)
        return Outcome(game_id=row.game_id, resync=True, lobby=row.status is GameStatus.LOBBY)

    async def score_tables(self, chat_id: int, user_id: int | None, private: bool) -> list[Table]:
        """The tables ``/score`` shows: the chat's running game; in a private chat without one
        the user's running games elsewhere; else the chat's most recent (finished) game."""
        row = await self.repo.open_game_of_chat(chat_id)
        if row is not None:
            return [await self._table(row)]
        if private and user_id is not None:
            rows = await self.repo.games_of_user(user_id)
            if rows:
                return [await self._table(r) for r in rows]
        latest = await self.repo.latest_game_of_chat(chat_id)
        return [await self._table(latest)] if latest is not None else []

    async def games_of(self, user_id: int) -> list[int]:
        """The running games where ``user_id`` plays a seat, or may take one back from the
        computer (``/start`` sends them their hands and offers again)."""
        playing = await self.repo.games_of_user(user_id)
        left = await self.repo.games_left_by(user_id)
        return sorted({g.game_id for g in (*playing, *left)})
