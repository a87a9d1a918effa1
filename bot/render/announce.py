"""One line per engine event, for a log line under the table, a callback answer or a notice
(``engine.events``; ``rules.md`` §2–§6). Round and game ends have their own, longer texts:
:func:`bot.render.sheet.round_summary` and :func:`bot.render.messages.game_over`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Translator
from bot.render.cards import card_label, suit_label
from bot.render.common import Player, bold, player_html
from engine.events import (
    CardPlayed,
    Event,
    Passed,
    RoemClaimed,
    RoemLost,
    RoundDealt,
    SuitTurned,
    TrickWon,
    TrumpChosen,
)


def describe_event(tr: Translator, event: Event, players: Sequence[Player]) -> str | None:
    """A short HTML line for ``event``, or None for events that have a message of their own
    (``RoundScored``, ``GameOver``) or none.

    Examples (nl): "Ronde 3: Anna deelt.", "Bert past.", "Gedraaid: ♣ klaveren",
    "Dirk kiest ♥ harten als troef; Anna komt uit.", "Cas speelt B♥.",
    "Cas wint slag 3: 24 punten, 20 roem.", "Cas meldt 20 roem.",
    "De 20 roem van slag 3 is niet gemeld en vervalt."
    """
    if isinstance(event, RoundDealt):
        return tr.gettext("Round {number}: {name} deals.").format(
            number=event.number, name=player_html(tr, players, event.dealer)
        )
    if isinstance(event, Passed):
        return tr.gettext("{name} passes.").format(name=player_html(tr, players, event.seat))
    if isinstance(event, SuitTurned):
        return tr.gettext("Turned up: {suit}").format(suit=bold(suit_label(tr, event.suit)))
    if isinstance(event, TrumpChosen):
        return tr.gettext("{name} plays with {suit} as trump; {leader} leads.").format(
            name=player_html(tr, players, event.seat),
            suit=bold(suit_label(tr, event.suit)),
            leader=player_html(tr, players, event.leader),
        )
    if isinstance(event, CardPlayed):
        return tr.gettext("{name} plays {card}.").format(
            name=player_html(tr, players, event.seat), card=bold(card_label(tr, event.card))
        )
    if isinstance(event, TrickWon):
        points = tr.ngettext("{n} point", "{n} points", event.points).format(n=event.points)
        if event.roem:
            points += ", " + tr.gettext("{n} roem").format(n=event.roem)
        return tr.gettext("{name} wins trick {number}: {points}.").format(
            name=player_html(tr, players, event.winner), number=event.number, points=points
        )
    if isinstance(event, RoemClaimed):
        return tr.gettext("{name} claims {n} roem.").format(
            name=player_html(tr, players, event.seat), n=event.points
        )
    if isinstance(event, RoemLost):
        return tr.gettext("The {n} roem of trick {number} was not claimed and is lost.").format(
            n=event.points, number=event.number
        )
    return None
