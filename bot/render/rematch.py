"""The rematch's texts and buttons (:mod:`bot.service.rematch`): the "again" button of a
finished group game, the session's running total next to the sheet, the rematch lobby that
waits for its players' "I'm in", and the alerts and toasts of those taps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bot.i18n import Translator
from bot.outcome import Refusal, Toast
from bot.render.common import (
    Button,
    Keyboard,
    Player,
    Rendered,
    bold,
    mention_html,
    team_html,
)
from bot.render.lobby import Lobby, lobby_keyboard, lobby_text
from bot.taps import Again, Cancel, Leave, Ready
from engine.cards import Seat, Team

if TYPE_CHECKING:  # bot.tables imports the renderers
    from bot.tables import Session


def again_button(tr: Translator) -> Button:
    """ "🔁 Nog een potje" → the rematch (:class:`~bot.taps.Again`)."""
    return Button("🔁 " + tr.pgettext("rematch button", "Play again"), Again())


def final_keyboard(tr: Translator) -> Keyboard:
    """The buttons of a finished group game's final message: "again"."""
    return ((again_button(tr),),)


def session_line(
    tr: Translator, session: Session, totals: Mapping[Team, int], players: Sequence[Player]
) -> str:
    """The session's running total after a game of it (HTML, one line): the earlier games'
    totals in ``session`` plus this game's ``totals``, per team (partners by name)."""
    games = session.games + 1
    ns = session.ns + totals.get(Team.NS, 0)
    ew = session.ew + totals.get(Team.EW, 0)
    head = tr.ngettext("This session, {n} game:", "This session, {n} games:", games).format(n=games)
    return "🔁 " + head + " " + _score(tr, players, ns, ew)


def _score(tr: Translator, players: Sequence[Player], ns: int, ew: int) -> str:
    """ "Anna & Cas 3120 – 2870 Bob & Dirk" (HTML)."""
    north_south, east_west = team_html(tr, players, Team.NS), team_html(tr, players, Team.EW)
    return f"{north_south} {bold(str(ns))} – {bold(str(ew))} {east_west}"


def rematch_lobby(
    tr: Translator,
    lobby: Lobby,
    players: Sequence[Player],
    session: Session,
    waiting: Sequence[int],
    seconds: int,
    *,
    private_chat_url: str | None = None,
) -> Rendered:
    """The lobby of a rematch: what it is (game ``session.games + 1`` of the session, the
    same players and rules), the lobby's usual text, and who is still to confirm with
    "I'm in" within ``seconds`` (their seats then go to computer players). Buttons: "I'm
    in", leave, cancel; once nobody is waited for (a player left), the usual lobby's."""
    lines = [
        "🔁 "
        + bold(
            tr.gettext("Rematch: game {n} of this session, same seats and rules.").format(
                n=session.games + 1
            )
        )
    ]
    if session.games:
        lines.append(
            tr.gettext("So far: {score}").format(score=_score(tr, players, session.ns, session.ew))
        )
    lines += ["", lobby_text(tr, lobby)]
    if not waiting:
        keyboard = lobby_keyboard(tr, lobby, private_chat_url=private_chat_url)
        return Rendered("\n".join(lines), keyboard)
    names = ", ".join(mention_html(tr, players, Seat(s)) for s in waiting)
    lines.append(
        "⏳ "
        + tr.ngettext(
            "Waiting for {names}: tap “I'm in” within {n} second; seats not confirmed go "
            "to computer players.",
            "Waiting for {names}: tap “I'm in” within {n} seconds; seats not confirmed go "
            "to computer players.",
            seconds,
        ).format(names=names, n=seconds)
    )
    rows: list[tuple[Button, ...]] = [
        (Button("✅ " + tr.pgettext("rematch button", "I'm in"), Ready()),),
        (
            Button("🚪 " + tr.gettext("Leave seat"), Leave()),
            Button("✖️ " + tr.gettext("Cancel"), Cancel()),
        ),
    ]
    if private_chat_url:
        rows.append((Button("💬 " + tr.gettext("Open my private chat"), url=private_chat_url),))
    return Rendered("\n".join(lines), tuple(rows))


def refusal_texts(tr: Translator) -> dict[Refusal, str]:
    """The alerts of the rematch's own refusals (plain text)."""
    return {
        Refusal.REMATCH_PLAYERS_ONLY: tr.gettext(
            "Only the players of this game or a group admin can start a rematch."
        ),
        Refusal.REMATCH_TOO_LATE: tr.gettext(
            "A newer table was opened here since this game: start one with /klaverjas."
        ),
        Refusal.REMATCH_SAME_RULES: tr.gettext("A rematch is played with the same rules."),
        Refusal.REMATCH_WAITING: tr.gettext(
            "The rematch starts by itself once everybody has tapped “I'm in”."
        ),
    }


TOASTS = frozenset(
    {Toast.REMATCH_OPENED, Toast.REMATCH_EXISTS, Toast.REMATCH_READY, Toast.REMATCH_ALREADY_READY}
)
"""The toasts :func:`toast_text` words."""


def toast_text(tr: Translator, toast: Toast) -> str:
    """The callback answer of a rematch tap that worked (plain; one of :data:`TOASTS`)."""
    texts = {
        Toast.REMATCH_OPENED: tr.gettext("Rematch! The players confirm on the new table."),
        Toast.REMATCH_EXISTS: tr.gettext("The rematch of this game has been started already."),
        Toast.REMATCH_READY: tr.gettext("You're in."),
        Toast.REMATCH_ALREADY_READY: tr.gettext("You have confirmed already."),
    }
    return texts[toast]
