"""What one seat may see (``docs/design.md`` §2): its own hand, the public bidding and play, the
last trick, card counts; Klammern: the proposed card, declarations, bella, contra and re and the
small/big points. Computer players and hand renderers get only this.

A property test swaps unseen cards between the other players and checks the view is equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action
from engine.cards import SEATS, Card, Seat, Suit, Team, cards_of
from engine.fastinit import fast_init, fast_new
from engine.game import GameState
from engine.klammern import play as kplay
from engine.klammern.play import KlammernState
from engine.round import Phase, RoundState, Trick
from engine.settings import RoemMode, Settings, TrumpSelection

# Enum members read on every card, as module constants: a global is far cheaper than
# ``Phase.PLAY`` (an enum class attribute, ~100 ns in CPython 3.11).
_EW, _NS, _PLAY, _ROEM_CLAIM = Team.EW, Team.NS, Phase.PLAY, RoemMode.CLAIM
_TS_FREE, _TS_KLAMMERN = TrumpSelection.FREE, TrumpSelection.KLAMMERN
_TS_MANDATORY = TrumpSelection.MANDATORY


@fast_init
@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a round (and of the game's sheet, when built from a game).

    Attributes:
        seat: the viewer; None for the public view (the group's table: no hand, no actions).
        settings: the table's rules.
        number: round number, 1-based.
        dealer, forehand: as in the round.
        phase: the round's phase.
        hand: the viewer's cards, in index order.
        hand_counts: cards in hand per seat (index = seat).
        bids: the public bidding.
        shown: suits turned up / proposed so far (§3.3, §9.2).
        proposed_card: Klammern: the dealer's face-up card while the dealer still holds it.
        trump, maker: once chosen.
        leader: who leads the current trick; ``trick``: its cards in play order.
        tricks: completed tricks (public: everybody saw them played).
        to_act: who acts now.
        legal: the viewer's legal actions now (possibly empty).
        card_points, roem, tricks_won: per team so far (roem as counted, §5.5).
        claimable_roem: roem the last trick's winners may still claim (claim mode).
        totals: the game's totals per team before this round (0 without a game); Klammern:
            big points (§9.9).
        klammern: Klammern: declarations made, bella announced, contra and re (all public,
            §9.5–9.7); None for Klaverjassen.
        declaration_points: Klammern: declaration points per team as they count, decided
            after the first trick (0 and 0 before, §9.5).
        small_points: Klammern: small points per team before this round (§9.9; 0 without a
            game).
    """

    seat: Seat | None
    settings: Settings
    number: int
    dealer: Seat
    forehand: Seat
    phase: Phase
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    bids: tuple[Action, ...]
    shown: tuple[Suit, ...]
    proposed_card: Card | None
    trump: Suit | None
    maker: Seat | None
    leader: Seat
    trick: tuple[Card, ...]
    tricks: tuple[Trick, ...]
    to_act: Seat | None
    legal: tuple[Action, ...]
    card_points: dict[Team, int]
    roem: dict[Team, int]
    tricks_won: dict[Team, int]
    claimable_roem: int
    totals: dict[Team, int]
    klammern: KlammernState | None = None
    declaration_points: dict[Team, int] | None = None
    small_points: dict[Team, int] | None = None

    @property
    def last_trick(self) -> Trick | None:
        """The most recent completed trick (§4.8)."""
        return self.tricks[-1] if self.tricks else None

    @property
    def trick_seats(self) -> tuple[Seat, ...]:
        """Seats of the current trick's cards, in play order."""
        return tuple(Seat((self.leader + i) % 4) for i in range(len(self.trick)))


_new_observation = fast_new(Observation)  # one per decision (engine.fastinit.fast_new)


def observe_round(
    state: RoundState,
    seat: Seat | None,
    totals: dict[Team, int] | None = None,
    small_points: dict[Team, int] | None = None,
) -> Observation:
    """The view of ``seat`` (None: the public view) on a round, with the game ``totals`` (and,
    Klammern, the game's ``small_points``)."""
    return _observe_round(
        state,
        seat,
        dict(totals) if totals else None,
        dict(small_points) if small_points else None,
    )


def _observe_round(
    state: RoundState,
    seat: Seat | None,
    totals: dict[Team, int] | None,
    small_points: dict[Team, int] | None,
) -> Observation:
    """:func:`observe_round` with ``totals`` and ``small_points`` the observation may keep."""
    proposed: Card | None = None
    settings = state.settings
    # The round carries Klammern's state (kplay.klammern_state without the call's cost):
    klammern: KlammernState | None = state.klammern  # type: ignore[assignment]
    mode = settings.trump_selection
    deal = state.deal
    dealer = deal.dealer
    if mode is _TS_KLAMMERN:
        middle = deal.hands[dealer][6]  # deal.dealer_middle_card, §9.2
        if state.hands[dealer] & middle.bit:
            proposed = middle
        shown: tuple[Suit, ...] = (middle.suit,)  # bid_status().shown: the proposed suit, §9.3
    elif mode is _TS_FREE or mode is _TS_MANDATORY:
        shown = ()
    else:
        shown = state.bid_status().shown
    hands = state.hands
    h0, h1, h2, h3 = hands
    sums = state._team_sums()
    phase = state.phase
    leader = state.leader
    trick = state.trick
    if phase is _PLAY:
        to_act: Seat | None = SEATS[(leader + len(trick)) & 3]
    else:
        to_act = state.to_act
    return _new_observation(
        seat,
        settings,
        state.number,
        dealer,
        SEATS[(dealer + 1) & 3],
        phase,
        cards_of(hands[seat]) if seat is not None else (),
        (h0.bit_count(), h1.bit_count(), h2.bit_count(), h3.bit_count()),
        state.bids,
        shown,
        proposed,
        state.trump,
        state.maker,
        leader,
        trick,
        state.tricks,
        to_act,
        state.legal_actions(seat) if seat is not None else (),
        {_NS: sums[0], _EW: sums[1]},
        {_NS: sums[2], _EW: sums[3]},
        {_NS: sums[4], _EW: sums[5]},
        state.claimable_roem() if settings.roem is _ROEM_CLAIM and not trick else 0,
        totals if totals else {_NS: 0, _EW: 0},
        klammern,
        kplay.declaration_points(state) if klammern is not None else None,
        (small_points if small_points else {_NS: 0, _EW: 0}) if klammern is not None else None,
    )


def observe(state: GameState | RoundState, seat: Seat | None) -> Observation:
    """What ``seat`` may see now; ``seat=None`` gives the public view (what everybody sees).

    Raises:
        ValueError: for a game that is over (there is no round to see).
    """
    if isinstance(state, RoundState):
        return observe_round(state, seat)
    current = state.current
    if current is None:
        raise ValueError("the game is over")
    if current.klammern is not None:
        tally = state.tally()  # Klammern: the totals are big points, with the small points
        # Copies the observation keeps (``{**m}`` is a dict copy without a call of ``dict``).
        return _observe_round(current, seat, {**tally.big}, {**tally.small})
    return _observe_round(current, seat, state.totals(), None)
