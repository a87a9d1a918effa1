"""One round (deal) of Klaverjassen or Klammern as an explicit, immutable state machine.

Phases (:class:`Phase`): ``bidding`` (§3, §9.3) → ``play`` (§4–5, §9.4–9.7) → [``claim``: the
last trick's roem window in claim mode, §5.5] → ``scored`` (§6, §9.8); Klammern: ``redeal``
when everybody passed (§9.3). ``legal_actions()`` and ``apply()`` share one legality path;
``apply`` returns ``(new_state, events)`` or raises :class:`~engine.errors.IllegalAction` and
leaves the state as it was.

Klammern is the same machine with ``klammern`` set (the variant's public state, None for
Klaverjassen): declarations, bella, contra and re are hooks of a :class:`RoundVariant`, an
interface this module owns and a variant implements and registers
(:func:`register_variant`; :mod:`engine.klammern` registers Klammern for
``RoemMode.DECLARATIONS`` when it is imported, which :mod:`engine` does). The round imports no
variant (``docs/design.md`` §2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol, TypeAlias

from engine.actions import (
    PLAY,
    Action,
    Beter,
    ClaimRoem,
    Contra,
    Declare,
    Kleintje,
    Pass,
    PlayCard,
    Re,
)
from engine.bidding import BidStatus, bid_status, check_bid
from engine.cards import CARDS, SEATS, Card, Seat, Suit, Team, cards_of, mask_of
from engine.deal import Deal
from engine.errors import IllegalAction, Reason
from engine.events import (
    BeterCalled,
    CardPlayed,
    CardProposed,
    DealVoided,
    Event,
    KleintjeCalled,
    Passed,
    RoemClaimed,
    RoemLost,
    SuitTurned,
    TrickWon,
    TrumpChosen,
)
from engine.fastinit import fast_init, fast_new
from engine.phase import Phase
from engine.rules import (
    _POINTS_BY_TRUMP,
    _SUIT_ORDINAL,
    LAST_TRICK_BONUS,
    Duty,
    RoundScore,
    _mask_roem,
    _winning_position,
    legal_mask,
    score_round,
    winning_position,
)
from engine.settings import FirstLead, RoemMode, Settings, TrumpSelection

__all__ = [
    "Phase",
    "RoundResult",
    "RoundState",
    "RoundVariant",
    "Trick",
    "VariantResult",
    "VariantState",
    "register_variant",
]


class VariantResult(Protocol):
    """A variant's scored round (Klammern: :class:`~engine.klammern.KlammernScore`, §9.8)."""

    @property
    def playing_team(self) -> Team:
        """The maker's team."""
        ...

    @property
    def score(self) -> Mapping[Team, int]:
        """What the sheet writes per team (Klammern: small points)."""
        ...

    @property
    def nat(self) -> bool:
        """The playing team failed / lost the round."""
        ...

    def to_dict(self) -> dict[str, object]:
        """JSON-able form with team keys ``"NS"``/``"EW"``."""
        ...


class VariantState(Protocol):
    """A variant's public part of a round in play (Klammern:
    :class:`~engine.klammern.KlammernState`): a frozen value the round carries along in
    ``RoundState.klammern`` and never reads."""

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        ...


class RoundVariant(Protocol):
    """The hooks by which a variant adds moves to the play of a round (Klammern's
    declarations, bella, contra and re, ``rules.md`` §9.5–9.7). The round calls them only
    while ``state.klammern`` is not None; each gets the round state and returns new states
    and events as :meth:`RoundState.apply` does."""

    def new_state(self) -> VariantState:
        """The variant's part of a new round."""
        ...

    def call_actions(self, state: RoundState, seat: Seat) -> list[Action]:
        """Calls ``seat`` may make now, in or out of turn (Klammern: contra, re, a pass
        that declines them)."""
        ...

    def declare_actions(self, state: RoundState, seat: Seat) -> list[Action]:
        """Announcements the seat to play may make before its card (declarations)."""
        ...

    def bella_actions(self, state: RoundState, seat: Seat, legal: int) -> list[Action]:
        """Card plays with an announcement, ``legal`` the seat's legal card mask (bella)."""
        ...

    def apply_call(self, state: RoundState, action: Action) -> tuple[RoundState, list[Event]]:
        """Apply a call or declaration (not a card).

        Raises:
            IllegalAction: when it is not allowed now.
        """
        ...

    def before_card(
        self, state: RoundState, action: PlayCard, seat: Seat
    ) -> tuple[RoundState, list[Event]]:
        """What comes with a legal card (announcements); the state to play it from.

        Raises:
            IllegalAction: for an announcement that is not allowed.
        """
        ...

    def after_card(self, before: RoundState, after: RoundState, events: list[Event]) -> list[Event]:
        """``events`` plus what follows the card (the comparison of declarations)."""
        ...

    def round_result(self, state: RoundState) -> VariantResult:
        """Score the finished round."""
        ...


_VARIANTS: dict[RoemMode, RoundVariant] = {}
"""The registered variants by the roem mode that selects them (:func:`register_variant`)."""


def register_variant(roem: RoemMode, variant: RoundVariant) -> None:
    """Play rounds whose settings have ``roem`` with ``variant``'s hooks (the last
    registration wins)."""
    _VARIANTS[roem] = variant


def _variant(roem: RoemMode) -> RoundVariant:
    try:
        return _VARIANTS[roem]
    except KeyError:
        raise LookupError(f"no round variant registered for roem mode {roem.value!r}") from None


RoundResult: TypeAlias = RoundScore | VariantResult
"""A scored round: :class:`~engine.rules.RoundScore` (Klaverjassen, §6) or a variant's
(:class:`~engine.klammern.KlammernScore`, Klammern, §9.8). Both have ``score`` (what the sheet
writes per team: points, or small points), ``nat`` (the playing team failed / lost) and
``to_dict()``."""

# Enum members read on every card, as module constants: a global is far cheaper than
# ``Phase.PLAY`` (an enum class attribute, ~100 ns in CPython 3.11).
_BIDDING, _CLAIM, _EW, _NS, _PLAY, _REDEAL, _ROEM_CLAIM, _ROEM_DECLARATIONS, _SCORED = (
    Phase.BIDDING,
    Phase.CLAIM,
    Team.EW,
    Team.NS,
    Phase.PLAY,
    Phase.REDEAL,
    RoemMode.CLAIM,
    RoemMode.DECLARATIONS,
    Phase.SCORED,
)


@fast_init
@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick.

    Attributes:
        leader: who led it.
        cards: the four cards in play order.
        winner: who won it (§4.6).
        points: card points in it, last-trick 10 included (§1.4).
        roem: roem in it (§5), counted for the winner's team in auto mode.
    """

    leader: Seat
    cards: tuple[Card, ...]
    winner: Seat
    points: int
    roem: int

    @property
    def seats(self) -> tuple[Seat, ...]:
        """The seats in play order."""
        return tuple(Seat((self.leader + i) % 4) for i in range(len(self.cards)))

    def played(self) -> tuple[tuple[Seat, Card], ...]:
        """``(seat, card)`` pairs in play order."""
        return tuple(zip(self.seats, self.cards, strict=True))


@fast_init
@dataclass(frozen=True, slots=True)
class RoundState:
    """The full (omniscient) state of one round. Build with :meth:`start`.

    Attributes:
        settings: the table's rules.
        number: round number in the game, 1-based.
        deal: the deal (hands as dealt, suits to turn).
        phase: see :class:`Phase`.
        bids: the bidding so far.
        trump: trump suit once chosen.
        maker: the seat that chose or accepted trump.
        hands: cards in hand per seat, as masks.
        leader: who leads the current trick.
        trick: cards of the current trick in play order.
        tricks: completed tricks.
        claimed: claim mode: per completed trick, whether its roem was claimed.
        result: the score once the round is scored.
        klammern: Klammern: declarations, bella, contra and re so far (public); None for
            Klaverjassen.
    """

    settings: Settings
    number: int
    deal: Deal
    phase: Phase
    bids: tuple[Action, ...]
    trump: Suit | None
    maker: Seat | None
    hands: tuple[int, ...]
    leader: Seat
    trick: tuple[Card, ...]
    tricks: tuple[Trick, ...]
    claimed: tuple[bool, ...]
    result: RoundResult | None
    klammern: VariantState | None

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def start(cls, settings: Settings, number: int, deal: Deal) -> tuple[RoundState, list[Event]]:
        """A new round in the bidding phase, with the events that open it."""
        state = cls(
            settings=settings,
            number=number,
            deal=deal,
            phase=_BIDDING,
            bids=(),
            trump=None,
            maker=None,
            hands=tuple(mask_of(h) for h in deal.hands),
            leader=deal.dealer.left,
            trick=(),
            tricks=(),
            claimed=(),
            result=None,
            klammern=(
                _variant(settings.roem).new_state() if settings.roem is _ROEM_DECLARATIONS else None
            ),
        )
        events: list[Event] = []
        if settings.trump_selection is TrumpSelection.KLAMMERN:
            events.append(CardProposed(deal.dealer, deal.dealer_middle_card))
            return state, events
        status = state.bid_status()
        if status.shown:
            events.append(SuitTurned(status.shown[0]))
        return state, events

    # --- queries ---------------------------------------------------------------------------

    @property
    def dealer(self) -> Seat:
        """The dealer of this round."""
        return self.deal.dealer

    @property
    def forehand(self) -> Seat:
        """The player left of the dealer (§2.2)."""
        return self.deal.dealer.left

    @property
    def playing_team(self) -> Team | None:
        """The maker's team, once trump is chosen."""
        return self.maker.team if self.maker is not None else None

    def bid_status(self) -> BidStatus:
        """The auction as it stands (also valid after it finished)."""
        mode, deal, bids = self.settings.trump_selection, self.deal, self.bids
        memo = _BID_MEMO[0]
        if memo[2] is bids and memo[1] is deal and memo[0] is mode:
            return memo[3]
        status = bid_status(mode, self.forehand, bids, self._bid_suits())
        _BID_MEMO[0] = (mode, deal, bids, status)
        return status

    def _bid_suits(self) -> tuple[Suit, ...]:
        if self.settings.trump_selection is TrumpSelection.KLAMMERN:
            return (self.deal.dealer_middle_card.suit,)
        return self.deal.turned

    @property
    def to_act(self) -> Seat | None:
        """Who must act now (None when the round is over)."""
        if self.phase is _PLAY:
            return SEATS[(self.leader + len(self.trick)) & 3]
        if self.phase is _BIDDING:
            return self.bid_status().to_act
        if self.phase is _CLAIM:
            return self.tricks[-1].winner
        return None

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The cards ``seat`` holds now, in index order."""
        return cards_of(self.hands[seat])

    def legal_cards_mask(self, seat: Seat | None = None) -> int:
        """Mask of the cards ``seat`` (default: the player to act) may play now; 0 when it is
        not that seat's turn to play."""
        if self.phase is not _PLAY:
            return 0
        if seat is not None and seat != SEATS[(self.leader + len(self.trick)) & 3]:
            return 0
        return self._duty().legal

    def _duty(self) -> Duty:
        """The §4.5 duty of the player to play (phase play), remembered for the last state
        asked: ``legal_actions`` and then ``apply`` on the same state compute it once."""
        memo = _DUTY_MEMO[0]
        if memo[0] is self:
            return memo[1]
        trump = self.trump
        assert trump is not None
        leader = self.leader
        trick = self.trick
        seat = SEATS[(leader + len(trick)) & 3]
        duty = legal_mask(self.hands[seat], trick, seat, leader, trump, self.settings.play_rule)
        _DUTY_MEMO[0] = (self, duty)
        return duty

    def claimable_roem(self) -> int:
        """Claim mode: roem of the last completed trick that may still be claimed, else 0."""
        if self.settings.roem is not _ROEM_CLAIM or not self.tricks:
            return 0
        if self.phase is _PLAY and self.trick:
            return 0
        if self.phase not in (_PLAY, _CLAIM) or self.claimed[-1]:
            return 0
        return self.tricks[-1].roem

    def legal_actions(self, seat: Seat | None = None) -> tuple[Action, ...]:
        """What the player to act (or, with ``seat``, that seat) may do now.

        A seat that is not to act may still have actions: claiming roem for its team (§5.5);
        Klammern: contra or re, or a pass that declines it (§9.7). In button order: calls
        (roem claim, contra, re, pass), then
        Klammern declarations (§9.5), then the legal cards, then Klammern bella plays (§9.6).
        """
        phase = self.phase
        km = self.klammern
        if (
            phase is _PLAY
            and km is None
            # A trick on the table: no roem to claim (claimable_roem() is 0, §5.5).
            and (self.settings.roem is not _ROEM_CLAIM or self.trick or not self.claimable_roem())
        ):
            # The hot path (Klaverjassen card play, no roem to claim): only the cards.
            to_play = SEATS[(self.leader + len(self.trick)) & 3]
            if seat is not None and seat != to_play:
                return ()
            t = _PLAYS_BY_BYTE[to_play]
            memo = _DUTY_MEMO[0]
            m = (memo[1] if memo[0] is self else self._duty()).legal
            return t[0][m & 0xFF] + t[1][m >> 8 & 0xFF] + t[2][m >> 16 & 0xFF] + t[3][m >> 24]
        if phase is _PLAY and km is not None:
            # Klammern card play: calls, then declarations, the cards, bella plays (as below).
            to_play = SEATS[(self.leader + len(self.trick)) & 3]
            if seat is None:
                seat = to_play
            variant = _VARIANTS[_ROEM_DECLARATIONS]
            calls = variant.call_actions(self, seat)
            if seat != to_play:
                return tuple(calls)
            if not self.tricks:
                calls.extend(variant.declare_actions(self, seat))
            t = _PLAYS_BY_BYTE[seat]
            memo = _DUTY_MEMO[0]
            m = (memo[1] if memo[0] is self else self._duty()).legal
            plays = t[0][m & 0xFF] + t[1][m >> 8 & 0xFF] + t[2][m >> 16 & 0xFF] + t[3][m >> 24]
            bella = variant.bella_actions(self, seat, m)
            if bella:
                return (*calls, *plays, *bella)
            if not calls:
                return plays
            return (*calls, *plays)
        to_act = self.to_act
        if seat is None:
            if to_act is None:
                return ()
            seat = to_act
        out: list[Action] = []
        if self.claimable_roem() and self.tricks[-1].winner.team is seat.team:
            out.append(ClaimRoem(seat))
        if km is not None and self.phase is _PLAY:
            out.extend(_VARIANTS[_ROEM_DECLARATIONS].call_actions(self, seat))
        if seat != to_act:
            return tuple(out)
        if self.phase is _BIDDING:
            return self.bid_status().legal
        if self.phase is _CLAIM:
            out.append(Pass(seat))
            return tuple(out)
        legal = self.legal_cards_mask()
        if km is not None:
            out.extend(_VARIANTS[_ROEM_DECLARATIONS].declare_actions(self, seat))
        plays = PLAY[seat]
        m = legal
        while m:
            low = m & -m
            out.append(plays[low.bit_length() - 1])
            m ^= low
        if km is not None:
            out.extend(_VARIANTS[_ROEM_DECLARATIONS].bella_actions(self, seat, legal))
        return tuple(out)

    def team_card_points(self) -> dict[Team, int]:
        """Card points won so far per team (last-trick 10 included once taken)."""
        sums = self._team_sums()
        return {_NS: sums[0], _EW: sums[1]}

    def team_roem(self) -> dict[Team, int]:
        """Roem counted so far per team (in claim mode: claimed roem only)."""
        sums = self._team_sums()
        return {_NS: sums[2], _EW: sums[3]}

    def team_tricks(self) -> dict[Team, int]:
        """Tricks won so far per team."""
        sums = self._team_sums()
        return {_NS: sums[4], _EW: sums[5]}

    def _team_sums(self) -> tuple[int, int, int, int, int, int]:
        """Card points, roem (as counted) and tricks of NS and EW, remembered for the last
        ``tricks`` and ``claimed`` asked about (they change once a trick)."""
        tricks, claimed, claim = self.tricks, self.claimed, self.settings.roem is _ROEM_CLAIM
        memo = _SUMS_MEMO[0]
        if memo[0] is tricks and memo[1] is claimed and memo[2] is claim:
            return memo[3]
        n = len(tricks)
        if (
            n
            and memo[2] is claim
            and len(memo[0]) == n - 1
            and memo[0] == tricks[:-1]
            and memo[1] == claimed[:-1]
        ):
            # One trick more than the sums remembered (the common case, once a trick).
            sums = list(memo[3])
            start = n - 1
        else:
            sums = [0, 0, 0, 0, 0, 0]
            start = 0
        for i in range(start, n):
            t = tricks[i]
            team = t.winner & 1
            sums[team] += t.points
            if not claim or claimed[i]:
                sums[2 + team] += t.roem
            sums[4 + team] += 1
        out = (sums[0], sums[1], sums[2], sums[3], sums[4], sums[5])
        _SUMS_MEMO[0] = (tricks, claimed, claim, out)
        return out

    @property
    def last_trick(self) -> Trick | None:
        """The most recent completed trick (§4.8)."""
        return self.tricks[-1] if self.tricks else None

    # --- transitions -----------------------------------------------------------------------

    def apply(self, action: Action) -> tuple[RoundState, list[Event]]:
        """Apply one action.

        Returns:
            The new state and the events it caused.

        Raises:
            IllegalAction: with the reason code; the state is unchanged.
        """
        if type(action) is PlayCard and self.phase is _PLAY:
            return self._play(action)  # the hot path
        if isinstance(action, ClaimRoem):
            return self._claim(action)
        if self.phase is _PLAY and isinstance(action, PlayCard):
            return self._play(action)
        if isinstance(action, Declare | Contra | Re):
            if self.klammern is None:
                raise IllegalAction(Reason.NOT_ALLOWED, action=action.kind)
            return _VARIANTS[_ROEM_DECLARATIONS].apply_call(self, action)
        if isinstance(action, Pass) and self.phase is _PLAY and self.klammern is not None:
            return _VARIANTS[_ROEM_DECLARATIONS].apply_call(
                self, action
            )  # declining contra or re (§9.7)
        if self.phase is _PLAY:
            raise IllegalAction(Reason.WRONG_PHASE, phase=self.phase.value)
        if self.phase is _BIDDING:
            return self._bid(action)
        if self.phase is _CLAIM and isinstance(action, Pass):
            if action.seat != self.to_act:
                raise IllegalAction(Reason.NOT_YOUR_TURN, to_act=int(self.tricks[-1].winner))
            events: list[Event] = [RoemLost(len(self.tricks), self.tricks[-1].roem)]
            return self._score(events)
        raise IllegalAction(Reason.WRONG_PHASE, phase=self.phase.value)

    def _bid(self, action: Action) -> tuple[RoundState, list[Event]]:
        if isinstance(action, PlayCard):
            raise IllegalAction(Reason.WRONG_PHASE, phase=self.phase.value)
        status = self.bid_status()
        check_bid(status, action)
        bids = (*self.bids, action)
        after = bid_status(self.settings.trump_selection, self.forehand, bids, self._bid_suits())
        events: list[Event] = []
        if isinstance(action, Pass):
            events.append(Passed(action.seat))
        elif isinstance(action, Kleintje):
            events.append(KleintjeCalled(action.seat, action.suit))
        elif isinstance(action, Beter):
            events.append(BeterCalled(action.seat))
        if len(after.shown) > len(status.shown) and after.maker is None:
            events.append(SuitTurned(after.shown[-1]))
        if after.redeal:
            events.append(DealVoided(self.number, self.dealer))
            return replace(self, bids=bids, phase=_REDEAL), events
        maker = after.maker
        if maker is None:
            phase, trump, leader = self.phase, self.trump, self.leader
        else:
            assert after.trump is not None
            phase, trump = _PLAY, after.trump
            leader = maker if self.settings.first_lead is FirstLead.MAKER else self.forehand
            events.append(TrumpChosen(maker, trump, leader))
        state = _new_state(
            self.settings,
            self.number,
            self.deal,
            phase,
            bids,
            trump,
            maker,
            self.hands,
            leader,
            self.trick,
            self.tricks,
            self.claimed,
            self.result,
            self.klammern,
        )
        return state, events

    def _play(self, action: PlayCard) -> tuple[RoundState, list[Event]]:
        seat = SEATS[(self.leader + len(self.trick)) & 3]
        if action.seat != seat:
            raise IllegalAction(Reason.NOT_YOUR_TURN, to_act=int(seat))
        card = action.card
        hand = self.hands[seat]
        if not hand & card.bit:
            raise IllegalAction(Reason.NOT_IN_HAND, card=str(card))
        memo = _DUTY_MEMO[0]
        duty = memo[1] if memo[0] is self else self._duty()
        if not duty.legal & card.bit:
            raise IllegalAction(duty.reason, **self._duty_details(duty.legal, card))
        if self.klammern is not None:
            variant = _VARIANTS[_ROEM_DECLARATIONS]
            if type(action) is PlayCard and not self.settings.auto_declare:
                # A plain card, nothing announced with it (§9.5, §9.6): the common case.
                after, events = self._advance(seat, card, [])
                return after, variant.after_card(self, after, events)
            state, events = variant.before_card(self, action, seat)
            after, events = state._advance(seat, card, events)
            return after, variant.after_card(self, after, events)
        if type(action) is not PlayCard:
            raise IllegalAction(Reason.NOT_ALLOWED, action=action.kind)
        return self._advance(seat, card, [])

    def _advance(
        self, seat: Seat, card: Card, events: list[Event]
    ) -> tuple[RoundState, list[Event]]:
        """Play a checked card: the trick, its winner, the score after the last trick."""
        trump = self.trump
        assert trump is not None
        settings = self.settings
        if settings.roem is _ROEM_CLAIM and not self.trick and self.claimable_roem():
            events.append(RoemLost(len(self.tricks), self.tricks[-1].roem))
        events.append(_CARD_PLAYED[seat][card.index])
        h0, h1, h2, h3 = self.hands
        keep = ~card.bit
        if seat == 0:
            hands = (h0 & keep, h1, h2, h3)
        elif seat == 1:
            hands = (h0, h1 & keep, h2, h3)
        elif seat == 2:
            hands = (h0, h1, h2 & keep, h3)
        else:
            hands = (h0, h1, h2, h3 & keep)
        trick = (*self.trick, card)
        if len(trick) < 4:
            state = _new_state(
                settings,
                self.number,
                self.deal,
                _PLAY,
                self.bids,
                trump,
                self.maker,
                hands,
                self.leader,
                trick,
                self.tricks,
                self.claimed,
                None,
                self.klammern,
            )
            return state, events
        t = _SUIT_ORDINAL[trump]
        win_pos = _winning_position(trick, t)
        winner = SEATS[(self.leader + win_pos) & 3]
        last = len(self.tricks) == 7
        pts = _POINTS_BY_TRUMP[t]
        c0, c1, c2, c3 = trick
        points = pts[c0.index] + pts[c1.index] + pts[c2.index] + pts[c3.index]
        if last:
            points += LAST_TRICK_BONUS
        trick_roem = 0
        if settings.roem is not _ROEM_DECLARATIONS:
            trick_roem = _mask_roem(c0.bit | c1.bit | c2.bit | c3.bit, t, settings.four_low_cards)
        done = _new_trick(self.leader, trick, winner, points, trick_roem)
        events.append(_new_trick_won(len(self.tricks) + 1, winner, points, trick_roem))
        state = self._next(hands, winner, (), (*self.tricks, done), (*self.claimed, False))
        if not last:
            return state, events
        if settings.roem is _ROEM_CLAIM and trick_roem:
            return replace(state, phase=_CLAIM), events
        return state._score(events)

    def _next(
        self,
        hands: tuple[int, ...],
        leader: Seat,
        trick: tuple[Card, ...],
        tricks: tuple[Trick, ...],
        claimed: tuple[bool, ...],
    ) -> RoundState:
        """The state after a card in the play phase (the hot path: no ``replace``)."""
        return _new_state(
            self.settings,
            self.number,
            self.deal,
            _PLAY,
            self.bids,
            self.trump,
            self.maker,
            hands,
            leader,
            trick,
            tricks,
            claimed,
            None,
            self.klammern,
        )

    def with_klammern(self, klammern: VariantState) -> RoundState:
        """This state with the variant's part ``klammern`` (``replace`` without its cost)."""
        return self._with(self.phase, self.result, klammern)

    def _duty_details(self, legal: int, card: Card) -> dict[str, object]:
        assert self.trump is not None
        details: dict[str, object] = {
            "card": str(card),
            "trump": self.trump.value,
            "legal": [str(c) for c in cards_of(legal)],
        }
        if self.trick:
            details["led"] = self.trick[0].suit.value
            details["winning"] = str(self.trick[winning_position(self.trick, self.trump)])
        return details

    def _claim(self, action: ClaimRoem) -> tuple[RoundState, list[Event]]:
        if self.settings.roem is not _ROEM_CLAIM:
            raise IllegalAction(Reason.NOT_ALLOWED, action="roem")
        points = self.claimable_roem()
        if not points:
            raise IllegalAction(Reason.NO_ROEM_TO_CLAIM)
        if self.tricks[-1].winner.team is not action.seat.team:
            raise IllegalAction(Reason.NOT_YOUR_ROEM)
        claimed = (*self.claimed[:-1], True)
        events: list[Event] = [RoemClaimed(action.seat, len(self.tricks), points)]
        state = replace(self, claimed=claimed)
        if self.phase is _CLAIM:
            return state._score(events)
        return state, events

    def _score(self, events: list[Event]) -> tuple[RoundState, list[Event]]:
        assert self.maker is not None
        if self.klammern is not None:
            return self._scored(_VARIANTS[_ROEM_DECLARATIONS].round_result(self)), events
        result = score_round(
            self.maker.team,
            self.team_card_points(),
            self.team_roem(),
            self.team_tricks(),
            self.settings.defender_pit,
        )
        return self._scored(result), events

    def _scored(self, result: RoundResult) -> RoundState:
        """This state, scored (once a round)."""
        return self._with(_SCORED, result, self.klammern)

    def _with(
        self, phase: Phase, result: RoundResult | None, klammern: VariantState | None
    ) -> RoundState:
        """This state with ``phase``, ``result`` and ``klammern`` (``replace`` without its
        cost: it looks up the fields by name)."""
        return _new_state(
            self.settings,
            self.number,
            self.deal,
            phase,
            self.bids,
            self.trump,
            self.maker,
            self.hands,
            self.leader,
            self.trick,
            self.tricks,
            self.claimed,
            result,
            klammern,
        )


# The makers (engine.fastinit.fast_new) of what is built on every card or trick.
_new_state = fast_new(RoundState)
_new_trick = fast_new(Trick)
_new_trick_won = fast_new(TrickWon)

_PLAYS_BY_BYTE: tuple[tuple[tuple[tuple[Action, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(tuple(PLAY[seat][8 * suit + r] for r in range(8) if b >> r & 1) for b in range(256))
        for suit in range(4)
    )
    for seat in SEATS
)
"""``[seat][suit][byte]``: the interned plays of the cards of one suit's 8-bit block of a mask,
in card order (the legal cards as actions without a loop over the bits)."""

_CARD_PLAYED: tuple[tuple[CardPlayed, ...], ...] = tuple(
    tuple(CardPlayed(seat, c) for c in CARDS) for seat in SEATS
)
"""Interned :class:`CardPlayed` events: ``[seat][card index]`` (events are frozen values)."""

# One-entry memos keyed by the identity of immutable inputs (each holds its key alive, so an
# identity match is never a recycled id). A state's derived facts are asked for several times
# in a row (observe, legal_actions, apply); each memo is one tuple in a one-element list,
# replaced atomically (safe with threads).
_DUTY_MEMO: list[tuple[object, Duty]] = [(None, Duty(0, Reason.NOT_ALLOWED))]
_BID_MEMO: list[tuple[object, object, object, BidStatus]] = [
    (None, None, None, BidStatus(None, ()))
]
_SUMS_MEMO: list[
    tuple[tuple[Trick, ...], tuple[bool, ...], object, tuple[int, int, int, int, int, int]]
] = [((), (), None, (0, 0, 0, 0, 0, 0))]
