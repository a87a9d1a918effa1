"""What one seat may see (``design.md`` §2): its own hand, the public bidding and play, the
last trick, card counts; Klammern: the proposed card, declarations, bella, contra and re and the
small/big points. Computer players and hand renderers get only this.

A property test swaps unseen cards between the other players and checks the view is equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action
from engine.cards import Card, Seat, Suit, Team, cards_of
from engine.game import GameState
from engine.klammern import play as kplay
from engine.klammern.play import KlammernState
from engine.round import Phase, RoundState, Trick
from engine.settings import Settings, TrumpSelection


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


def observe_round(
    state: RoundState,
    seat: Seat | None,
    totals: dict[Team, int] | None = None,
    small_points: dict[Team, int] | None = None,
) -> Observation:
    """The view of ``seat`` (None: the public view) on a round, with the game ``totals`` (and,
    Klammern, the game's ``small_points``)."""
    proposed: Card | None = None
    if state.settings.trump_selection is TrumpSelection.KLAMMERN:
        middle = state.deal.dealer_middle_card
        if state.hands[state.dealer] & middle.bit:
            proposed = middle
    status = state.bid_status()
    return Observation(
        seat=seat,
        settings=state.settings,
        number=state.number,
        dealer=state.dealer,
        forehand=state.forehand,
        phase=state.phase,
        hand=cards_of(state.hands[seat]) if seat is not None else (),
        hand_counts=tuple(h.bit_count() for h in state.hands),
        bids=state.bids,
        shown=status.shown,
        proposed_card=proposed,
        trump=state.trump,
        maker=state.maker,
        leader=state.leader,
        trick=state.trick,
        tricks=state.tricks,
        to_act=state.to_act,
        legal=state.legal_actions(seat) if seat is not None else (),
        card_points=state.team_card_points(),
        roem=state.team_roem(),
        tricks_won=state.team_tricks(),
        claimable_roem=state.claimable_roem(),
        totals=dict(totals) if totals else {Team.NS: 0, Team.EW: 0},
        klammern=state.klammern,
        declaration_points=kplay.declaration_points(state) if state.klammern is not None else None,
        small_points=(dict(small_points) if small_points else {Team.NS: 0, Team.EW: 0})
        if state.klammern is not None
        else None,
    )


def observe(state: GameState | RoundState, seat: Seat | None) -> Observation:
    """What ``seat`` may see now; ``seat=None`` gives the public view (what everybody sees).

    Raises:
        ValueError: for a game that is over (there is no round to see).
    """
    if isinstance(state, RoundState):
        return observe_round(state, seat)
    if state.current is None:
        raise ValueError("the game is over")
    return observe_round(state.current, seat, state.totals(), state.small_points())
