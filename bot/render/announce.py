"""One line per engine event, for a log line under the table, a callback answer or a notice
(``engine.events``; ``rules.md`` §2–§6, Klammern §9). Round and game ends have their own,
longer texts: :func:`bot.render.sheet.round_summary` and :func:`bot.render.messages.game_over`.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Translator
from bot.render.bids import declaration_label
from bot.render.cards import card_label, suit_label
from bot.render.common import Player, bold, player_html, team_html
from engine.cards import Suit
from engine.events import (
    BellaAnnounced,
    BeterCalled,
    BigPointsWon,
    CardPlayed,
    CardProposed,
    ContraCalled,
    DealVoided,
    DeclarationsCompared,
    Declared,
    Event,
    KlammernRoundScored,
    KleintjeCalled,
    Passed,
    ReCalled,
    RoemClaimed,
    RoemLost,
    RoundDealt,
    SuitTurned,
    TrickWon,
    TrumpChosen,
)
from engine.klammern.scoring import BELLA_POINTS


def describe_event(tr: Translator, event: Event, players: Sequence[Player]) -> str | None:
    """A short HTML line for ``event``, or None for events that have a message of their own
    (``RoundScored``, ``GameOver``) or none. A Klammern ``Passed`` during play is a "no" to
    contra or re and reads like any pass.

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
    return _klammern_event(tr, event, players)


def _klammern_event(tr: Translator, event: Event, players: Sequence[Player]) -> str | None:
    """The Klammern events (``rules.md`` §9.2–9.9)."""
    if isinstance(event, CardProposed):
        return tr.gettext("{name} turns up {card}: proposed trump {suit}.").format(
            name=player_html(tr, players, event.seat),
            card=bold(card_label(tr, event.card)),
            suit=suit_label(tr, event.card.suit),
        )
    if isinstance(event, KleintjeCalled):
        return tr.gettext("{name} calls a kleintje in {suit}.").format(
            name=player_html(tr, players, event.seat), suit=bold(suit_label(tr, event.suit))
        )
    if isinstance(event, BeterCalled):
        return tr.gettext("{name} says beter: {suit} is trump.").format(
            name=player_html(tr, players, event.seat), suit=bold(suit_label(tr, Suit.CLUBS))
        )
    if isinstance(event, DealVoided):
        return tr.gettext("Nobody wanted to play: {name} deals again.").format(
            name=player_html(tr, players, event.dealer)
        )
    if isinstance(event, Declared):
        return tr.gettext("{name} declares {declaration} ({n}).").format(
            name=player_html(tr, players, event.seat),
            declaration=bold(declaration_label(tr, event.cards)),
            n=event.points,
        )
    if isinstance(event, DeclarationsCompared):
        if event.team is None:
            return tr.gettext("Nobody declared a sequence.")
        return tr.gettext("{team} have the best declaration and score {n}.").format(
            team=team_html(tr, players, event.team), n=event.points
        )
    if isinstance(event, BellaAnnounced):
        return tr.gettext("{name} announces bella with {card}: {n} points.").format(
            name=player_html(tr, players, event.seat),
            card=bold(card_label(tr, event.card)),
            n=BELLA_POINTS,
        )
    if isinstance(event, ContraCalled):
        return tr.gettext("{name} calls contra: the round counts double.").format(
            name=player_html(tr, players, event.seat)
        )
    if isinstance(event, ReCalled):
        return tr.gettext("{name} answers re: the round counts four times.").format(
            name=player_html(tr, players, event.seat)
        )
    if isinstance(event, KlammernRoundScored):
        won = event.small_points[event.winner.value]
        return tr.ngettext(
            "{team} win round {number}: {n} small point.",
            "{team} win round {number}: {n} small points.",
            won,
        ).format(team=team_html(tr, players, event.winner), number=event.number, n=won)
    if isinstance(event, BigPointsWon):
        return tr.ngettext(
            "{team} win {n} big point.", "{team} win {n} big points.", event.big_points
        ).format(team=bold(team_html(tr, players, event.team)), n=event.big_points)
    return None
