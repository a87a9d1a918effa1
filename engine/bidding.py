"""Choosing trump (``rules.md`` §3; Klammern §9.3) as a pure function of the bids so far.

:func:`bid_status` tells who acts next, what they may do, and, once the auction is over, who
plays with which trump. The round state machine (:mod:`engine.round`) keeps only the bids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Accept, Action, Beter, Choose, Kleintje, Pass
from engine.cards import SUITS, Seat, Suit
from engine.errors import IllegalAction, Reason
from engine.fastinit import fast_init
from engine.settings import TrumpSelection


@fast_init
@dataclass(frozen=True, slots=True)
class BidStatus:
    """The state of an auction.

    Attributes:
        to_act: who bids next (None when the auction is over).
        legal: the legal bids of ``to_act``, in button order.
        maker: who plays (None while open, or after a Klammern all-pass).
        trump: the trump suit once decided.
        shown: suits turned up or proposed so far (public).
        redeal: Klammern: nobody played, the same dealer deals again (§9.3).
    """

    to_act: Seat | None
    legal: tuple[Action, ...]
    maker: Seat | None = None
    trump: Suit | None = None
    shown: tuple[Suit, ...] = ()
    redeal: bool = False

    @property
    def finished(self) -> bool:
        """True when trump is decided or the deal is void."""
        return self.to_act is None


def _choices(seat: Seat, suits: Sequence[Suit] = SUITS) -> tuple[Action, ...]:
    if suits is SUITS:
        return _CHOOSE_ANY[seat]
    return tuple(Choose(seat, s) for s in suits)


# Interned bids (frozen values, built once; an auction is evaluated on every bid and card).
_SEATS = tuple(Seat(i) for i in range(4))
_CHOOSE_ANY: tuple[tuple[Action, ...], ...] = tuple(
    tuple(Choose(seat, s) for s in SUITS) for seat in _SEATS
)
_FREE_BIDS: tuple[tuple[Action, ...], ...] = tuple((*_CHOOSE_ANY[s], Pass(s)) for s in _SEATS)
_ACCEPT_OR_PASS: tuple[tuple[Action, ...], ...] = tuple((Accept(s), Pass(s)) for s in _SEATS)
_KLEINTJE_BIDS: tuple[tuple[Action, ...], ...] = tuple(
    (*(Kleintje(seat, su) for su in SUITS), Pass(seat)) for seat in _SEATS
)
_BETER_OR_PASS: tuple[tuple[Action, ...], ...] = tuple((Beter(s), Pass(s)) for s in _SEATS)


def bid_status(
    mode: TrumpSelection, forehand: Seat, bids: Sequence[Action], turned: Sequence[Suit] = ()
) -> BidStatus:
    """Evaluate an auction.

    Args:
        mode: the table's ``trump_selection``.
        forehand: the player left of the dealer, who speaks first (§2.2).
        bids: the bids so far, all legal.
        turned: ``turned`` mode: the first and second suit to turn up (§3.3); Klammern: the
            proposed suit (§9.2).
    """
    n = len(bids)
    last = bids[-1] if bids else None
    if mode is TrumpSelection.FREE or mode is TrumpSelection.MANDATORY:
        if isinstance(last, Choose):
            return BidStatus(None, (), last.seat, last.suit)
        if mode is TrumpSelection.FREE and n < 4:
            seat = _SEATS[(forehand + n) % 4]
            return BidStatus(seat, _FREE_BIDS[seat])
        return BidStatus(forehand, _choices(forehand))
    if mode is TrumpSelection.TURNED:
        first, second = turned[0], turned[1]
        if isinstance(last, Choose):
            return BidStatus(None, (), last.seat, last.suit, (first, second))
        if isinstance(last, Accept):
            suit = first if n <= 4 else second
            return BidStatus(None, (), last.seat, suit, (first,) if n <= 4 else (first, second))
        if n < 8:
            seat = _SEATS[(forehand + n) % 4]
            shown = (first,) if n < 4 else (first, second)
            return BidStatus(seat, _ACCEPT_OR_PASS[seat], shown=shown)
        rest = [s for s in SUITS if s not in (first, second)]
        return BidStatus(forehand, _choices(forehand, rest), shown=(first, second))
    return _klammern_status(forehand, bids, turned[0])


def _klammern_status(forehand: Seat, bids: Sequence[Action], proposed: Suit) -> BidStatus:
    """Klammern (§9.3): accept/pass round on the proposed suit, then a kleintje/pass round,
    after a kleintje the others in turn may say beter (clubs, the caller plays)."""
    shown = (proposed,)
    n = len(bids)
    last = bids[-1] if bids else None
    if isinstance(last, Accept):
        return BidStatus(None, (), last.seat, proposed, shown)
    if isinstance(last, Beter):
        return BidStatus(None, (), last.seat, Suit.CLUBS, shown)
    if n < 4:
        seat = _SEATS[(forehand + n) % 4]
        return BidStatus(seat, _ACCEPT_OR_PASS[seat], shown=shown)
    kleintje = next((b for b in bids[4:] if isinstance(b, Kleintje)), None)
    if kleintje is None:
        if n < 8:
            seat = _SEATS[(forehand + n - 4) % 4]
            return BidStatus(seat, _KLEINTJE_BIDS[seat], shown=shown)
        return BidStatus(None, (), shown=shown, redeal=True)
    after = len(bids) - 1 - bids.index(kleintje)
    if after < 3:
        seat = _SEATS[(kleintje.seat + 1 + after) % 4]
        return BidStatus(seat, _BETER_OR_PASS[seat], shown=shown)
    return BidStatus(None, (), kleintje.seat, kleintje.suit, shown)


def check_bid(status: BidStatus, action: Action) -> None:
    """Raise :class:`IllegalAction` unless ``action`` is legal in ``status``.

    Reasons: ``NOT_YOUR_TURN`` (another seat is to bid), ``MUST_CHOOSE`` (passing is not
    allowed now, §3.1–3.2), ``SUIT_NOT_ALLOWED`` (a suit already shown, §3.3), ``NOT_ALLOWED``.
    """
    if action in status.legal:
        return
    if status.to_act is None:
        raise IllegalAction(Reason.WRONG_PHASE)
    if action.seat != status.to_act:
        raise IllegalAction(Reason.NOT_YOUR_TURN, to_act=int(status.to_act))
    kinds = {type(a) for a in status.legal}
    if isinstance(action, Pass) and kinds == {Choose}:
        raise IllegalAction(Reason.MUST_CHOOSE)
    if isinstance(action, Choose) and Choose in kinds:
        raise IllegalAction(
            Reason.SUIT_NOT_ALLOWED,
            suit=action.suit.value,
            allowed=[a.suit.value for a in status.legal if isinstance(a, Choose)],
        )
    raise IllegalAction(Reason.NOT_ALLOWED, action=action.notation(with_seat=False))
