"""The lobby message: a table being set up in a group (``rules.md`` §2.1, §7).

Keyboard action tokens: ``"sit:0"`` … ``"sit:3"`` (seats N, E, S, W), ``"leave"``,
``"bot:add"``, ``"bot:remove"``, ``"preset:next"``, ``"rounds:toggle"`` (Klaverjassen: 16 or 8
rounds; Klammern: the big points to win, ``rules.md`` §9.9), ``"auto_declare:toggle"``
(Klammern: declarations by hand or automatic, §9.5), ``"timeout:next"``, ``"tips:toggle"``
(the tip button 💡 in the players' hands), ``"start"``,
``"cancel"``; plus an optional URL button into the private
chat (deep link) for players who never started the bot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.i18n import Translator
from bot.render.common import (
    Button,
    Keyboard,
    Player,
    Rendered,
    bold,
    esc,
    labelled,
    player_html,
    player_name,
    seat_name,
    shorten,
)
from bot.render.presets import (
    declaring_text,
    game_name,
    preset_name,
    rounds_text,
    settings_summary,
    timeout_text,
)
from bot.taps import Cancel, ComputerSeat, Leave, NextSetting, Setting, Sit, Start
from engine.cards import Seat
from engine.settings import Settings, Variant

SEAT_LABEL_LIMIT = 12
_SEAT_ROWS = ((Seat.NORTH, Seat.SOUTH), (Seat.EAST, Seat.WEST))
"""Partners side by side: North–South on one row, East–West on the next (§2.1)."""


@dataclass(frozen=True, slots=True)
class Lobby:
    """What the lobby shows.

    Attributes:
        settings: the table's settings (preset and overrides).
        seats: four entries, index = seat: the player sitting there, or None for empty.
        turn_timeout: seconds per turn; None or 0 for no limit.
        creator: the raw name of the user who opened the table.
        tips: the tip button (💡) is on for this table.
        hands_in_group: the players' hands are shown in the group by default.
    """

    settings: Settings
    seats: Sequence[Player | None]
    turn_timeout: int | None
    creator: str
    tips: bool = False
    hands_in_group: bool = False

    @property
    def filled(self) -> int:
        """How many seats are taken."""
        return sum(1 for p in self.seats if p is not None)


def _players(lobby: Lobby) -> list[Player]:
    return [p if p is not None else Player("") for p in lobby.seats]


def _seat_line(tr: Translator, lobby: Lobby, seat: Seat) -> str:
    occupant = lobby.seats[seat]
    who = (
        player_html(tr, _players(lobby), seat)
        if occupant is not None
        else "<i>" + tr.pgettext("empty seat", "free") + "</i>"
    )
    return labelled(tr, bold(seat_name(tr, seat)), who)


def lobby_text(tr: Translator, lobby: Lobby) -> str:
    """The lobby's HTML text: game and rules, length and turn time, the four seats with the
    teams (partners opposite), and what is missing before the start."""
    s = lobby.settings
    lines = [
        "🃏 "
        + tr.gettext("{game}: a new table by {name}").format(
            game=bold(game_name(tr, s)), name=esc(shorten(lobby.creator))
        ),
        tr.gettext("Rules: {preset} ({summary})").format(
            preset=bold(preset_name(tr, s.preset)), summary=settings_summary(tr, s)
        ),
        tr.gettext("Length: {rounds} · turn time: {timeout}").format(
            rounds=rounds_text(tr, s), timeout=timeout_text(tr, lobby.turn_timeout)
        ),
        "",
    ]
    for pair in _SEAT_ROWS:
        lines += [_seat_line(tr, lobby, seat) for seat in pair]
    lines.append("")
    lines.append(tr.gettext("Partners sit opposite: North and South play against East and West."))
    missing = 4 - lobby.filled
    if missing:
        lines.append(
            "👉 "
            + tr.ngettext(
                "Take a seat: {n} seat is still free.",
                "Take a seat: {n} seats are still free.",
                missing,
            ).format(n=missing)
        )
    else:
        lines.append("👉 " + tr.gettext("The table is full: tap Start."))
    return "\n".join(lines)


def seat_button(tr: Translator, lobby: Lobby, seat: Seat) -> Button:
    """ "Noord: Anna" or "Zuid: vrij" → ``sit:<seat>``."""
    occupant = lobby.seats[seat]
    if occupant is None:
        who = "➕ " + tr.pgettext("empty seat", "free")
    else:
        who = shorten(player_name(tr, _players(lobby), seat), SEAT_LABEL_LIMIT)
        if occupant.computer:
            who = "🤖"
    return Button(labelled(tr, seat_name(tr, seat), who), Sit(int(seat)))


def tips_button(tr: Translator, on: bool) -> Button:
    """ "💡 Tips: uit" → ``tips:toggle``: whether the players get the tip button."""
    label = tr.gettext("Tips: on") if on else tr.gettext("Tips: off")
    return Button("💡 " + label, NextSetting(Setting.TIPS))


def hands_button(tr: Translator, in_group: bool) -> Button:
    """ "🂠 Hands: in the group" → ``hands:toggle``: where the players' hands are shown."""
    label = tr.gettext("Hands: in the group") if in_group else tr.gettext("Hands: in private")
    return Button("🂠 " + label, NextSetting(Setting.HANDS))


def lobby_keyboard(
    tr: Translator, lobby: Lobby, *, private_chat_url: str | None = None
) -> Keyboard:
    """The lobby's buttons: seats (partners on one row), computer players and leaving,
    settings (preset, rounds, turn time; Klammern's declaring, tips), start / cancel, and
    optionally a link into the private chat."""
    s = lobby.settings
    rows: list[tuple[Button, ...]] = [
        tuple(seat_button(tr, lobby, seat) for seat in pair) for pair in _SEAT_ROWS
    ]
    rows.append(
        (
            Button("🤖 " + tr.gettext("Add computer"), ComputerSeat(True)),
            Button("🤖 " + tr.gettext("Remove computer"), ComputerSeat(False)),
        )
    )
    rows.append((Button("🚪 " + tr.gettext("Leave seat"), Leave()),))
    settings_row = [Button("⚙️ " + preset_name(tr, s.preset), NextSetting(Setting.PRESET))]
    if s.variant is Variant.KLAVERJASSEN:
        settings_row.append(
            Button(
                tr.ngettext("{n} round", "{n} rounds", s.rounds).format(n=s.rounds),
                NextSetting(Setting.ROUNDS),
            )
        )
    else:
        settings_row.append(Button("🎯 " + rounds_text(tr, s), NextSetting(Setting.ROUNDS)))
    timeout = timeout_text(tr, lobby.turn_timeout)
    settings_row.append(Button("⏱ " + timeout, NextSetting(Setting.TIMEOUT)))
    rows.append(tuple(settings_row))
    more = [tips_button(tr, lobby.tips), hands_button(tr, lobby.hands_in_group)]
    if s.variant is Variant.KLAMMERN:
        more.insert(0, Button("📣 " + declaring_text(tr, s), NextSetting(Setting.AUTO_DECLARE)))
    rows.append(tuple(more))
    rows.append(
        (
            Button("▶️ " + tr.gettext("Start"), Start()),
            Button("✖️ " + tr.gettext("Cancel"), Cancel()),
        )
    )
    if private_chat_url:
        rows.append((Button("💬 " + tr.gettext("Open my private chat"), url=private_chat_url),))
    return tuple(rows)


def render_lobby(lobby: Lobby, tr: Translator, *, private_chat_url: str | None = None) -> Rendered:
    """The lobby message and keyboard (one lobby message with seat buttons; the
    creator or an admin chooses preset and rounds and starts once four seats are filled).

    Args:
        lobby: what to show.
        tr: the group's translator.
        private_chat_url: ``t.me/<bot>?start=...``; adds a link button for players who never
            started the bot.
    """
    return Rendered(
        lobby_text(tr, lobby), lobby_keyboard(tr, lobby, private_chat_url=private_chat_url)
    )


def deep_link_keyboard(tr: Translator, url: str) -> Keyboard:
    """One link button that opens the private chat with the bot (deep link ``url``)."""
    return ((Button("💬 " + tr.gettext("Start the private chat"), url=url),),)
