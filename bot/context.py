"""The typed PTB context and the per-update translator (``docs/design.md`` §3, §8)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.ext import Application, CallbackContext, ExtBot

from bot.i18n import Translator, get_translator
from bot.membership import Membership

if TYPE_CHECKING:
    from bot.config import BotConfig
    from bot.driver import TableDriver
    from bot.presenter import Presenter
    from bot.service import GameService


@dataclass(slots=True)
class BotData:
    """What every handler needs, kept in ``application.bot_data["app"]``.

    ``answered`` remembers the latest answered callback query ids, so the error handler never
    answers one a second time."""

    config: BotConfig
    service: GameService
    presenter: Presenter
    driver: TableDriver
    answered: OrderedDict[str, None] = field(default_factory=OrderedDict)
    members: Membership = field(default_factory=Membership)
    """Group membership, asked of Telegram and cached briefly (:mod:`bot.membership`)."""
    migrations_seen: int = 0
    """The last group migration (storage's ``seq``) this worker applied to its outbox."""

    def mark_answered(self, query_id: str) -> None:
        """Record an answered callback query (keeps the latest 1,000)."""
        self.answered[query_id] = None
        while len(self.answered) > 1000:
            self.answered.popitem(last=False)


class Context(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """Our CallbackContext: typed access to :class:`BotData`."""

    @property
    def app_data(self) -> BotData:
        """The bot's services."""
        data = self.bot_data["app"]
        assert isinstance(data, BotData)
        return data


KlaverjasApp = Application[
    ExtBot[None], Context, dict[Any, Any], dict[Any, Any], dict[Any, Any], Any
]


async def translator_for(
    update: Update, context: Context, *, private: bool | None = None
) -> Translator:
    """The reader's language for this update: in a private chat (and for callback alerts) the
    user's choice, else their Telegram language, else the chat's; in a group the chat's
    choice, else the default."""
    chat = update.effective_chat
    user = update.effective_user
    if private is None:
        private = chat is None or chat.type == "private" or update.callback_query is not None
    lang = await context.app_data.service.people.reader_language(
        chat.id if chat is not None else None,
        user.id if user is not None else None,
        user.language_code if user is not None else None,
        private=private,
    )
    return get_translator(lang)
