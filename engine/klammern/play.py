"""Klammern's extra moves during play, as hooks of the one round state machine
(:class:`engine.round.RoundState`): declarations (``rules.md`` §9.5), bella (§9.6), contra and re
(§9.7). This module is the round's :class:`engine.round.RoundVariant` (its functions
:func:`new_state`, :func:`call_actions`, :func:`declare_actions`, :func:`bella_actions`,
:func:`apply_call`, :func:`before_card`, :func:`after_card`, :func:`round_result`), registered
by :mod:`engine.klammern`; the round calls them only when ``state.klammern`` is not None.

Windows (project decisions where §9 is silent, documented in the report and tests):

- Declarations: a seat declares while it is its turn in the first trick, before its first card
  (``Declare`` actions, any number, each a whole run of the hand, :func:`runs`). After its
  first card it is too late. With ``auto_declare`` the engine declares every run of the hand
  when the seat plays its first card, and ``Declare`` is refused (``NOT_ALLOWED``).
- Bella: announced with the first of K/Q of trump by playing it as :class:`Bella` instead of
  :class:`PlayCard`; a plain play forgets it (lost, no event: that would tell the table where
  the other card is). With ``auto_declare`` the engine announces it.
- Contra: either defender, in or out of turn, from the start of play while the first trick is
  on the table: until the first card of the second trick is played (so the defenders have seen
  every declaration of the first trick, also the last player's). At most once per round.
- Re: either player of the playing team after contra, until the first card of the third trick
  is played (the second trick is complete and on the table). At most once.
- Saying no: a seat that may call contra or re while another seat is to play may also decline
  it with :class:`~engine.actions.Pass` (notation ``pass``, event :class:`Passed`); it cannot
  call that any more in the round. The seat to play declines by playing its card. This lets a
  table (the bot) wait for a human's answer before the card that would close the window.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.actions import Action, Bella, Contra, Declare, Pass, PlayCard, Re
from engine.cards import CARDS, SEATS, Card, Rank, Seat, Suit, Team, iter_bits, mask_of
from engine.errors import IllegalAction, Reason
from engine.events import (
    BellaAnnounced,
    ContraCalled,
    DeclarationsCompared,
    Declared,
    Event,
    Passed,
    ReCalled,
)
from engine.fastinit import fast_init
from engine.klammern.scoring import KlammernScore, score_klammern_round
from engine.klammern.sequences import Declaration, best_team, by_team, runs
from engine.phase import Phase
from engine.round import RoundState

CONTRA_UNTIL_CARDS = 4
"""Contra may be called while at most this many cards have been played (§9.7)."""
RE_UNTIL_CARDS = 8
"""Re may be called while at most this many cards have been played (§9.7)."""

_NS, _EW, _PLAY = Team.NS, Team.EW, Phase.PLAY
_CONTRA = tuple(Contra(seat) for seat in SEATS)
_RE = tuple(Re(seat) for seat in SEATS)
_PASS = tuple(Pass(seat) for seat in SEATS)
_QK = (1 << Rank.QUEEN) | (1 << Rank.KING)
KQ_BY_TRUMP: dict[Suit, int] = {suit: _QK << (8 * suit.ordinal) for suit in Suit}
"""The mask of the K and Q of each trump suit (bella, §9.6)."""


@fast_init
@dataclass(frozen=True, slots=True)
class KlammernState:
    """What Klammern adds to a round in play; all of it is public (§9.5–9.7).

    Attributes:
        declarations: the declarations made, in order.
        bella: the seat that announced bella, or None.
        contra: the defender who called contra, or None.
        re: the player of the playing team who called re, or None.
        declined: the seats that said no to contra or re (a defender to contra, a player of
            the playing team to re), in order.
    """

    declarations: tuple[Declaration, ...] = ()
    bella: Seat | None = None
    contra: Seat | None = None
    re: Seat | None = None
    declined: tuple[Seat, ...] = ()

    def declared_by(self, seat: Seat) -> tuple[tuple[Card, ...], ...]:
        """The sequences ``seat`` declared."""
        return tuple(d.cards for d in self.declarations if d.seat == seat)

    def to_dict(self) -> dict[str, object]:
        """JSON-able form: seats as ints, cards in notation."""
        return {
            "declarations": [
                {"seat": int(d.seat), "cards": [str(c) for c in d.cards], "points": d.points}
                for d in self.declarations
            ],
            "bella": None if self.bella is None else int(self.bella),
            "contra": None if self.contra is None else int(self.contra),
            "re": None if self.re is None else int(self.re),
            "declined": [int(s) for s in self.declined],
        }


_DECLARES_BY_BYTE: tuple[tuple[tuple[tuple[Declare, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(tuple(Declare(seat, run) for run in runs(b << (8 * suit))) for b in range(256))
        for suit in range(4)
    )
    for seat in SEATS
)
"""``[seat][suit][byte]``: the declarations of the runs (:func:`runs`) in one suit's 8-bit
block of a hand, interned (the runs of a hand in order, without building them on every card)."""


def _km(state: RoundState) -> KlammernState:
    km: KlammernState | None = state.klammern  # type: ignore[assignment]  # new_state()'s
    assert km is not None
    return km


def klammern_state(state: RoundState) -> KlammernState | None:
    """``state.klammern`` as the Klammern state it is (None for Klaverjassen).

    Raises:
        TypeError: when the round carries another variant's state.
    """
    km = state.klammern
    if km is None or isinstance(km, KlammernState):
        return km
    raise TypeError(f"not a Klammern round: {type(km).__name__}")


def cards_played(state: RoundState) -> int:
    """Cards played so far in the round."""
    return 4 * len(state.tricks) + len(state.trick)


def has_played_first_card(state: RoundState, seat: Seat) -> bool:
    """True once ``seat`` has played a card in this round."""
    return bool(state.tricks) or (seat - state.leader) & 3 < len(state.trick)


def _kq_of_trump(state: RoundState) -> int:
    trump = state.trump
    assert trump is not None
    return KQ_BY_TRUMP[trump]


# --- what may be done ----------------------------------------------------------------------


def call_actions(state: RoundState, seat: Seat) -> list[Action]:
    """Contra or re that ``seat`` may call now, in or out of turn (§9.7); out of turn also
    :class:`Pass` to decline it (a seat that declined has no call left)."""
    km: KlammernState | None = state.klammern  # type: ignore[assignment]
    assert km is not None
    contra = km.contra
    n = 4 * len(state.tricks) + len(state.trick)
    if n > RE_UNTIL_CARDS or (n > CONTRA_UNTIL_CARDS and contra is None):
        return []  # the common case: both windows closed (checked first: on every card)
    maker = state.maker
    if state.phase is not _PLAY or maker is None or seat in km.declined:
        return []
    if (seat ^ maker) & 1:  # a defender: contra while the first trick is on the table
        if contra is not None:
            return []
        out: list[Action] = [_CONTRA[seat]]
    elif contra is not None and km.re is None:  # the playing team, after contra: re
        out = [_RE[seat]]
    else:
        return []
    if seat != SEATS[(state.leader + len(state.trick)) & 3]:
        out.append(_PASS[seat])
    return out


def declare_actions(state: RoundState, seat: Seat) -> list[Action]:
    """The sequences ``seat`` (the player to act) may still declare (§9.5): every run of its
    hand not declared yet, while it has not played its first card; none with auto_declare."""
    if state.settings.auto_declare or state.tricks or state.phase is not _PLAY:
        return []
    hand = state.hands[seat]
    t = _DECLARES_BY_BYTE[seat]
    found = t[0][hand & 0xFF] + t[1][hand >> 8 & 0xFF] + t[2][hand >> 16 & 0xFF] + t[3][hand >> 24]
    if not found:
        return []
    km: KlammernState | None = state.klammern  # type: ignore[assignment]
    assert km is not None
    if not km.declarations:
        return list(found)
    done = km.declared_by(seat)
    return [d for d in found if d.cards not in done]


def bella_actions(state: RoundState, seat: Seat, legal: int) -> list[Action]:
    """Bella plays open to ``seat`` (the player to act) with ``legal`` its legal cards: the K
    or Q of trump among them while it holds both (§9.6); none with auto_declare."""
    kq = KQ_BY_TRUMP[state.trump]  # type: ignore[index]  # in play: trump is chosen
    if state.hands[seat] & kq != kq or state.settings.auto_declare:
        return []
    return [Bella(seat, CARDS[i]) for i in iter_bits(legal & kq)]


# --- applying Declare / Contra / Re ----------------------------------------------------------


def apply_call(state: RoundState, action: Action) -> tuple[RoundState, list[Event]]:
    """Apply a :class:`Declare`, :class:`Contra`, :class:`Re`, or a :class:`Pass` that
    declines contra or re.

    Raises:
        IllegalAction: see :func:`check_declare`, :func:`check_contra`, :func:`check_re`;
            ``WRONG_PHASE`` for a pass with no call to decline (the seat to play, or no open
            call) and for any other action that is not a card.
    """
    km = _km(state)
    decls, bella, contra, re, declined = km.declarations, km.bella, km.contra, km.re, km.declined
    seat = action.seat
    if isinstance(action, Pass):
        if action not in call_actions(state, seat):
            raise IllegalAction(Reason.WRONG_PHASE, phase=state.phase.value)
        new = KlammernState(decls, bella, contra, re, (*declined, seat))
        return state.with_klammern(new), [Passed(seat)]
    if isinstance(action, Declare):
        run = check_declare(state, action)
        decl = Declaration(seat, run)
        new = KlammernState((*decls, decl), bella, contra, re, declined)
        return state.with_klammern(new), [Declared(seat, run, decl.points)]
    if isinstance(action, Contra):
        check_contra(state, action)
        new = KlammernState(decls, bella, seat, re, declined)
        return state.with_klammern(new), [ContraCalled(seat)]
    if isinstance(action, Re):
        check_re(state, action)
        new = KlammernState(decls, bella, contra, seat, declined)
        return state.with_klammern(new), [ReCalled(seat)]
    raise IllegalAction(Reason.WRONG_PHASE, phase=state.phase.value)


def check_declare(state: RoundState, action: Declare) -> tuple[Card, ...]:
    """Check a declaration (§9.5) and return the declared run (lowest card first).

    Raises:
        IllegalAction: ``NOT_ALLOWED`` (auto_declare table), ``WRONG_PHASE`` (not in play),
            ``TOO_LATE`` (the seat has played its first card), ``NOT_YOUR_TURN`` (another
            seat is to play in the first trick), ``ALREADY_DECLARED``, ``NO_SUCH_DECLARATION``
            (not a whole run of three or more of the hand; details ``cards``, ``declarable``).
    """
    seat = action.seat
    if state.settings.auto_declare:
        raise IllegalAction(Reason.NOT_ALLOWED, action="declare", auto_declare=True)
    if state.phase is not Phase.PLAY:
        raise IllegalAction(Reason.WRONG_PHASE, phase=state.phase.value)
    if has_played_first_card(state, seat):
        raise IllegalAction(Reason.TOO_LATE, action="declare")
    to_act = state.to_act
    if seat != to_act:
        raise IllegalAction(
            Reason.NOT_YOUR_TURN, to_act=int(to_act) if to_act is not None else None
        )
    wanted = mask_of(action.cards)
    available = runs(state.hands[seat])
    for run in available:
        if mask_of(run) == wanted and len(run) == len(action.cards):
            if run in _km(state).declared_by(seat):
                raise IllegalAction(Reason.ALREADY_DECLARED, cards=[str(c) for c in run])
            return run
    raise IllegalAction(
        Reason.NO_SUCH_DECLARATION,
        cards=[str(c) for c in action.cards],
        declarable=["-".join(str(c) for c in run) for run in available],
    )


def check_contra(state: RoundState, action: Contra) -> None:
    """Check a contra (§9.7).

    Raises:
        IllegalAction: ``WRONG_PHASE`` (not in play), ``WRONG_TEAM`` (the playing team),
            ``ALREADY_CALLED`` (details ``by``, or ``declined`` when this seat said no),
            ``TOO_LATE`` (the second trick has begun).
    """
    km = _km(state)
    if state.phase is not Phase.PLAY or state.maker is None:
        raise IllegalAction(Reason.WRONG_PHASE, phase=state.phase.value)
    playing = state.maker.team
    if action.seat.team is playing:
        raise IllegalAction(
            Reason.WRONG_TEAM,
            call="contra",
            team=action.seat.team.value,
            playing_team=playing.value,
        )
    if km.contra is not None:
        raise IllegalAction(Reason.ALREADY_CALLED, call="contra", by=int(km.contra))
    if action.seat in km.declined:
        raise IllegalAction(Reason.ALREADY_CALLED, call="contra", declined=True)
    if cards_played(state) > CONTRA_UNTIL_CARDS:
        raise IllegalAction(Reason.TOO_LATE, action="contra", window="first_trick")


def check_re(state: RoundState, action: Re) -> None:
    """Check a re (§9.7).

    Raises:
        IllegalAction: ``WRONG_PHASE`` (not in play), ``WRONG_TEAM`` (a defender),
            ``ALREADY_CALLED`` (details ``by``, or ``declined`` when this seat said no),
            ``TOO_LATE`` (the third trick has begun), ``NO_CONTRA``.
    """
    km = _km(state)
    if state.phase is not Phase.PLAY or state.maker is None:
        raise IllegalAction(Reason.WRONG_PHASE, phase=state.phase.value)
    playing = state.maker.team
    if action.seat.team is not playing:
        raise IllegalAction(
            Reason.WRONG_TEAM, call="re", team=action.seat.team.value, playing_team=playing.value
        )
    if km.re is not None:
        raise IllegalAction(Reason.ALREADY_CALLED, call="re", by=int(km.re))
    if action.seat in km.declined:
        raise IllegalAction(Reason.ALREADY_CALLED, call="re", declined=True)
    if cards_played(state) > RE_UNTIL_CARDS:
        raise IllegalAction(Reason.TOO_LATE, action="re", window="second_trick")
    if km.contra is None:
        raise IllegalAction(Reason.NO_CONTRA)


# --- hooks around a card play ---------------------------------------------------------------


def before_card(state: RoundState, action: PlayCard, seat: Seat) -> tuple[RoundState, list[Event]]:
    """Bella and auto-declarations that come with a (legal) card play; returns the state to
    play the card from and the events so far.

    Raises:
        IllegalAction: for a :class:`Bella`: ``NOT_ALLOWED`` (auto_declare table), ``NO_BELLA``
            (not K or Q of trump, or the seat does not hold both).
    """
    km = _km(state)
    events: list[Event] = []
    auto = state.settings.auto_declare
    kq = _kq_of_trump(state)
    holds_both = state.hands[seat] & kq == kq
    if isinstance(action, Bella):
        if auto:
            raise IllegalAction(Reason.NOT_ALLOWED, action="bella", auto_declare=True)
        if not (holds_both and action.card.bit & kq):
            raise IllegalAction(Reason.NO_BELLA, card=str(action.card))
    new = km
    if auto and not state.tricks:
        decls = tuple(Declaration(seat, run) for run in runs(state.hands[seat]))
        if decls:
            new = replace(new, declarations=(*new.declarations, *decls))
            events.extend(Declared(seat, d.cards, d.points) for d in decls)
    if holds_both and action.card.bit & kq and (auto or isinstance(action, Bella)):
        new = replace(new, bella=seat)
        events.append(BellaAnnounced(seat, action.card))
    if new is km:
        return state, events
    return state.with_klammern(new), events


def after_card(before: RoundState, after: RoundState, events: list[Event]) -> list[Event]:
    """Events that follow a card: the comparison of declarations once the first trick is
    complete (§9.5)."""
    if not before.tricks and after.tricks:
        team = declarations_winner(after)
        points = declaration_points(after)
        events.append(DeclarationsCompared(team, points[team] if team is not None else 0))
    return events


# --- results ---------------------------------------------------------------------------------


def declarations_winner(state: RoundState) -> Team | None:
    """The team whose declarations score (§9.5), decided once the first trick is complete;
    None before that or when nobody declared."""
    if not state.tricks or state.trump is None:
        return None
    km: KlammernState | None = state.klammern  # type: ignore[assignment]
    assert km is not None
    declarations, trump = km.declarations, state.trump
    memo = _WINNER_MEMO[0]
    if memo[0] is declarations and memo[1] is trump:
        return memo[2]
    team = best_team(by_team(declarations), trump)
    _WINNER_MEMO[0] = (declarations, trump, team)
    return team


def declaration_points(state: RoundState) -> dict[Team, int]:
    """Declaration points per team as they count (0 and 0 until the first trick is complete)."""
    trump = state.trump
    if not state.tricks or trump is None:
        return {_NS: 0, _EW: 0}
    km: KlammernState | None = state.klammern  # type: ignore[assignment]
    assert km is not None
    memo = _POINTS_MEMO[0]
    if memo[0] is km and memo[1] is trump:
        return {_NS: memo[2], _EW: memo[3]}
    team = declarations_winner(state)
    out = {_NS: 0, _EW: 0}
    if team is not None:
        out[team] = sum(d.points for d in km.declarations if d.team is team)
    _POINTS_MEMO[0] = (km, trump, out[_NS], out[_EW])
    return out


def round_result(state: RoundState) -> KlammernScore:
    """Score a finished Klammern round (§9.8)."""
    km = _km(state)
    assert state.maker is not None and state.trump is not None
    return score_klammern_round(
        state.maker.team,
        state.team_card_points(),
        by_team(km.declarations),
        state.trump,
        bella=km.bella.team if km.bella is not None else None,
        contra=km.contra is not None,
        re=km.re is not None,
        tricks=state.team_tricks(),
    )


_WINNER_MEMO: list[tuple[object, object, Team | None]] = [(None, None, None)]
"""The last :func:`declarations_winner` computed, keyed by the identity of the declarations
tuple and the trump (one entry; it holds its key alive). Asked on every card after the first
trick, while the declarations no longer change."""
_POINTS_MEMO: list[tuple[object, object, int, int]] = [(None, None, 0, 0)]
"""The last :func:`declaration_points` computed (NS, EW), keyed by the identity of the
Klammern state (its declarations) and the trump (one entry, as :data:`_WINNER_MEMO`)."""


def new_state() -> KlammernState:
    """The Klammern part of a new round: nothing declared, called or announced yet."""
    return KlammernState()
