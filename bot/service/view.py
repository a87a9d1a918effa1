"""What the presenter gets from the service to show a game (the presenter does not
read storage): the table and, loaded once, the languages, names and title around it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.i18n import Translator, get_translator
from bot.tables import Table


@dataclass(frozen=True, slots=True)
class TableView:
    """A table as the presenter shows it.

    Attributes:
        table: the stored game and its engine state.
        group_language: the language of the table's chat (``bot.i18n.resolve_language``:
            the table's or chat's choice, else the creator's Telegram language, else the
            default).
        languages: user id → the language of that user's private messages (their choice,
            else their Telegram language, else ``group_language``), for every player, former
            player and the creator.
        names: user id → display name, for the same users.
        title: the group's title ("" for a private table): it labels the player's hand.
        tips: the players' hands get the tip button (💡) on their turn to play a card
            (:meth:`~bot.service.core.Tables.tips_on`).
        link: the game's random deep-link token (:func:`bot.taps.new_link_token`; "" for a
            private table, which has no links).
        hand_places: user id → where that player chose to see their hand at group tables
            (``"group"`` or ``"private"``; absent: as the table says), for the players whose
            hand message is not recorded yet (the recorded message's chat decides after).
    """

    table: Table
    group_language: str
    languages: Mapping[int, str]
    names: Mapping[int, str]
    title: str
    tips: bool = False
    link: str = ""
    hand_places: Mapping[int, str] = field(default_factory=dict)

    @property
    def game_id(self) -> int:
        """The game id."""
        return self.table.game_id

    def group_tr(self) -> Translator:
        """The translator of the group's messages."""
        return get_translator(self.group_language)

    def user_tr(self, user_id: int) -> Translator:
        """The translator of ``user_id``'s private messages (the group's for a stranger)."""
        return get_translator(self.languages.get(user_id, self.group_language))

    def name(self, user_id: int | None) -> str:
        """A user's display name ("" when unknown or None)."""
        return self.names.get(user_id, "") if user_id is not None else ""
