"""The bidding in words and the labels of action buttons (``rules.md`` §3, §5.5, §9.3–9.7).

Action buttons carry a :class:`bot.taps.Move`: the engine's notation without the seat
(``Action.notation(False)``): ``"choose:H"``, ``"pass"``, ``"accept"``, ``"kleintje:D"``,
``"beter"``, ``"roem"``, ``"contra"``, ``"re"``, ``"declare:8H-9H-10H"``, ``"bella:KH"``,
``"play:JH"``, and the bot's own :data:`bot.taps.DECLARE_ALL`, which the service expands into
every declaration the player may make.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Translator
from bot.render.cards import (
    TRUMP_MARK,
    card_button_label,
    card_label,
    rank_letter,
    suit_colour,
    suit_label,
    suit_symbol,
)
from bot.render.common import Button, Player, labelled, mention_html, player_html
from bot.taps import DECLARE_ALL, Move
from engine.actions import (
    Accept,
    Action,
    Bella,
    Beter,
    Choose,
    ClaimRoem,
    Contra,
    Declare,
    Kleintje,
    Pass,
    PlayCard,
    Re,
)
from engine.cards import SUITS, Card, Seat, Suit
from engine.observe import Observation
from engine.round import Phase
from engine.settings import TrumpSelection


def bid_text(tr: Translator, action: Action, *, klammern: bool = False) -> str:
    """What a bid was, for the bidding history: "pas", "♥", "ik speel", Klammern "gaat erin",
    "kleintje ♦", "beter". Plain."""
    if isinstance(action, Pass):
        return tr.pgettext("bid history", "pass")
    if isinstance(action, Choose):
        return suit_label(tr, action.suit)
    if isinstance(action, Accept) and klammern:
        return tr.pgettext("bid history", "is in")
    if isinstance(action, Accept):
        return tr.pgettext("bid history", "plays")
    if isinstance(action, Kleintje):
        return tr.gettext("kleintje {suit}").format(suit=suit_symbol(action.suit))
    if isinstance(action, Beter):
        return tr.pgettext("bid history", "beter")
    return action.notation(with_seat=False)


def declaration_label(tr: Translator, cards: Sequence[Card], *, trump: Suit | None = None) -> str:
    """A Klammern declaration (``rules.md`` §9.5): "Terz ♥8–10", "Fuffzig ♠10–A"; a sequence
    of the ``trump`` suit (given for buttons) marked "Terz ★♥8–10". Plain."""
    ordered = sorted(cards, key=lambda c: c.rank)
    kind = (
        tr.pgettext("declaration", "Terz")
        if len(ordered) == 3
        else tr.pgettext("declaration", "Fifty")
    )
    first, last = ordered[0], ordered[-1]
    mark = TRUMP_MARK if first.suit is trump else ""
    return (
        f"{kind} {mark}{suit_symbol(first.suit)}{rank_letter(tr, first.rank)}"
        f"–{rank_letter(tr, last.rank)}"
    )


def action_button(tr: Translator, action: Action, obs: Observation) -> Button:
    """The button of one legal non-card action, labelled in the reader's language.

    ``obs`` gives the context: the turned/proposed suit for "Ik speel ♣" / "Ik ga erin", the
    claim window, where passing means letting roem go (``rules.md`` §5.5), and the trump suit
    (marked ★ on cards and sequences). A button about one suit (a trump choice, a card, a
    sequence) has the suit's colour.
    """
    token = action.notation(with_seat=False)
    label: str
    suit: Suit | None = None
    if isinstance(action, Choose):
        label = suit_label(tr, action.suit)
        suit = action.suit
    elif isinstance(action, Pass) and obs.phase is Phase.PLAY:
        re = any(isinstance(a, Re) for a in obs.legal)
        label = tr.gettext("No re") if re else tr.gettext("No contra")
    elif isinstance(action, Pass):
        label = tr.gettext("No roem") if obs.phase is Phase.CLAIM else tr.pgettext("button", "Pass")
    elif isinstance(action, Accept):
        symbol = suit_symbol(obs.shown[-1]) if obs.shown else ""
        suit = obs.shown[-1] if obs.shown else None
        if obs.settings.trump_selection is TrumpSelection.KLAMMERN:
            label = tr.gettext("I'm in {suit}").format(suit=symbol)
        else:
            label = tr.gettext("I'll play {suit}").format(suit=symbol)
    elif isinstance(action, Kleintje):
        label = tr.gettext("Kleintje {suit}").format(suit=suit_symbol(action.suit))
        suit = action.suit
    elif isinstance(action, Beter):
        label = tr.gettext("Beter {suit}").format(suit=suit_symbol(Suit.CLUBS))
    elif isinstance(action, ClaimRoem):
        label = tr.gettext("Roem!")
    elif isinstance(action, Contra):
        label = tr.pgettext("button", "Contra")
    elif isinstance(action, Re):
        label = tr.pgettext("button", "Re")
    elif isinstance(action, Declare):
        label = "📣 " + declaration_label(tr, action.cards, trump=obs.trump)
        suit = action.cards[0].suit
    elif isinstance(action, Bella):
        card = card_button_label(tr, action.card, obs.trump)
        label = "👑 " + tr.gettext("Bella with {card}").format(card=card)
        suit = action.card.suit
    elif isinstance(action, PlayCard):
        label = card_button_label(tr, action.card, obs.trump)
        suit = action.card.suit
    else:
        label = token
    colour = suit_colour(suit) if suit is not None else None
    return Button(label, Move(token), colour=colour)


def declare_all_button(tr: Translator) -> Button:
    """ "Alles melden" → ``declare:all`` (Klammern, §9.5: every sequence at once)."""
    return Button("📣 " + tr.gettext("Declare all"), Move(DECLARE_ALL))


def bid_history_html(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    """The bids so far in one line: "Bert: pas · Cas: pas" (empty before the first bid)."""
    klammern = obs.settings.trump_selection is TrumpSelection.KLAMMERN
    parts = [
        labelled(tr, player_html(tr, players, bid.seat), bid_text(tr, bid, klammern=klammern))
        for bid in obs.bids
    ]
    return " · ".join(parts)


def _remaining_suits(obs: Observation) -> tuple[Suit, ...]:
    return tuple(s for s in SUITS if s not in obs.shown)


def bidding_prompt_html(
    tr: Translator, obs: Observation, players: Sequence[Player], viewer: Seat | None
) -> str:
    """Who decides what now in the bidding (``rules.md`` §3.1–3.3, §9.3), for the group
    (``viewer`` None: names the player, with a mention) or for the player to act ("you").
    Empty when the bidding is over."""
    seat = obs.to_act
    if obs.phase is not Phase.BIDDING or seat is None:
        return ""
    mode = obs.settings.trump_selection
    n = len(obs.bids)
    you = viewer is not None and viewer == seat
    name = mention_html(tr, players, seat)
    if mode is TrumpSelection.FREE and n < 4:
        if you:
            return tr.gettext("Choose a trump suit or pass.")
        return tr.gettext("{name} chooses trump or passes.").format(name=name)
    if mode in (TrumpSelection.FREE, TrumpSelection.MANDATORY):
        if you:
            return tr.gettext("You must choose a trump suit.")
        return tr.gettext("{name} must choose trump.").format(name=name)
    if mode is TrumpSelection.TURNED and n >= 8:
        suits = " / ".join(suit_label(tr, s) for s in _remaining_suits(obs))
        if you:
            return tr.gettext("Both suits were passed: choose trump ({suits}).").format(suits=suits)
        return tr.gettext("Both suits were passed: {name} chooses trump ({suits}).").format(
            name=name, suits=suits
        )
    if mode is TrumpSelection.TURNED or n < 4:
        suit = suit_label(tr, obs.shown[-1])
        if you:
            return tr.gettext("Play {suit} as trump, or pass?").format(suit=suit)
        return tr.gettext("{name}: play {suit} as trump, or pass?").format(name=name, suit=suit)
    if not any(isinstance(b, Kleintje) for b in obs.bids):
        if you:
            return tr.gettext("Call a kleintje (any trump suit) or pass.")
        return tr.gettext("{name}: kleintje or pass?").format(name=name)
    if you:
        return tr.gettext("Say beter (clubs is trump and you play) or pass.")
    return tr.gettext("{name}: beter or pass?").format(name=name)


def shown_html(tr: Translator, obs: Observation) -> str:
    """The turned-up suit (``rules.md`` §3.3) or Klammern's proposed card (§9.2), or empty."""
    if obs.proposed_card is not None:
        return tr.gettext("Face-up card of the dealer: {card}").format(
            card=f"<b>{card_label(tr, obs.proposed_card)}</b>"
        )
    if obs.settings.trump_selection is TrumpSelection.KLAMMERN and obs.shown:
        return tr.gettext("Proposed trump: {suit}").format(suit=suit_label(tr, obs.shown[0]))
    if obs.settings.trump_selection is TrumpSelection.TURNED and obs.shown:
        suit = f"<b>{suit_label(tr, obs.shown[-1])}</b>"
        return tr.gettext("Turned up: {suit}").format(suit=suit)
    return ""
