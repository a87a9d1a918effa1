"""Klammern declarations (``rules.md`` §9.5): sequences from the hand, their value and order.

A *sequence* is three or more cards of one suit in the natural order 7-8-9-10-J-Q-K-A (§1.5,
trump included, no wrap-around). A terz (three) is worth 20, a fifty (four or more) 50.

Project decision (§9.5 says "fifty (four or more in sequence) 50"): a sequence is declared
*whole*, as the maximal run the hand holds. A run of 4 to 8 cards is one fifty worth 50 (a run of
seven is not a fifty plus a terz), and a part of a longer run cannot be declared on its own.
So the declarable sequences of a hand are exactly :func:`runs` of it, and no card can be in two
declarations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.cards import CARDS, Card, Seat, Suit, Team
from engine.errors import NotationError

TERZ = 20
FIFTY = 50

# §9.5: with equal kind and top card, a trump sequence wins, then ♦ > ♥ > ♠ > ♣.
_SUIT_ORDER = {Suit.DIAMONDS: 3, Suit.HEARTS: 2, Suit.SPADES: 1, Suit.CLUBS: 0}


def _runs_of_bits(bits: int) -> tuple[tuple[int, int], ...]:
    """Maximal runs of three or more set bits of an 8-bit mask, as (low rank, length)."""
    out = []
    r = 0
    while r < 8:
        if bits >> r & 1:
            start = r
            while r < 8 and bits >> r & 1:
                r += 1
            if r - start >= 3:
                out.append((start, r - start))
        else:
            r += 1
    return tuple(out)


_RUNS = tuple(_runs_of_bits(b) for b in range(256))


def runs(hand: int) -> tuple[tuple[Card, ...], ...]:
    """The declarable sequences of a hand (§9.5): each maximal run of three or more cards of one
    suit in natural order, lowest card first; runs ordered by suit S, H, D, C then rank.

    Args:
        hand: the hand as a card mask (:mod:`engine.cards`).
    """
    out: list[tuple[Card, ...]] = []
    for s in range(4):
        for low, length in _RUNS[(hand >> (8 * s)) & 0xFF]:
            base = 8 * s + low
            out.append(CARDS[base : base + length])
    return tuple(out)


def sequence_value(cards: Sequence[Card]) -> int:
    """Points of one declared sequence: terz (3 in natural order, §1.5) 20, fifty (4+) 50.

    Raises:
        NotationError: when the cards are not one suit in unbroken natural order.
    """
    if len(cards) < 3 or len({c.suit for c in cards}) != 1:
        raise NotationError("a declaration is three or more cards of one suit")
    ranks = sorted(int(c.rank) for c in cards)
    if ranks != list(range(ranks[0], ranks[0] + len(ranks))):
        raise NotationError("a declaration must be a sequence")
    return FIFTY if len(cards) >= 4 else TERZ


def declaration_key(cards: Sequence[Card], trump: Suit) -> tuple[int, int, int, int]:
    """Sort key of a declaration (§9.5), higher is better: kind (fifty > terz), top card
    (natural order), trump suit, then the suit order ♦ > ♥ > ♠ > ♣.

    The length of a fifty does not count: two fifties compare by their top card (§9.5
    "equal kinds: the higher top card wins").

    Raises:
        NotationError: for cards that are not a sequence.
    """
    suit = cards[0].suit
    return (
        sequence_value(cards),
        max(int(c.rank) for c in cards),
        1 if suit is trump else 0,
        _SUIT_ORDER[suit],
    )


@dataclass(frozen=True, slots=True)
class Declaration:
    """A sequence declared in a round (public once made, §9.5).

    Attributes:
        seat: who declared it.
        cards: the sequence, lowest card first (natural order).
    """

    seat: Seat
    cards: tuple[Card, ...]

    @property
    def team(self) -> Team:
        """The declarer's team."""
        return self.seat.team

    @property
    def points(self) -> int:
        """20 for a terz, 50 for a fifty."""
        return FIFTY if len(self.cards) >= 4 else TERZ


def best_team(declarations: Mapping[Team, Sequence[Sequence[Card]]], trump: Suit) -> Team | None:
    """The team whose best single declaration beats the other's (§9.5); None when nobody
    declared.

    Raises:
        NotationError: for a declaration that is not a sequence.
    """
    best: dict[Team, tuple[int, int, int, int] | None] = {}
    for team in (Team.NS, Team.EW):
        keys = [declaration_key(seq, trump) for seq in declarations.get(team, ())]
        best[team] = max(keys) if keys else None
    ns, ew = best[Team.NS], best[Team.EW]
    if ns is None and ew is None:
        return None
    return Team.NS if ew is None or (ns is not None and ns > ew) else Team.EW


def declaration_points(
    declarations: Mapping[Team, Sequence[Sequence[Card]]], trump: Suit
) -> dict[Team, int]:
    """Points per team for the declared sequences (§9.5): only the team with the best single
    declaration scores, and then all of its declarations (20 per terz, 50 per fifty).

    Args:
        declarations: per team, the sequences its two players declared.
        trump: the trump suit.

    Raises:
        NotationError: for a declaration that is not a sequence.
    """
    out = {Team.NS: 0, Team.EW: 0}
    winner = best_team(declarations, trump)
    if winner is not None:
        out[winner] = sum(sequence_value(seq) for seq in declarations[winner])
    return out


def by_team(declarations: Sequence[Declaration]) -> dict[Team, tuple[tuple[Card, ...], ...]]:
    """The declared sequences grouped per team."""
    out: dict[Team, list[tuple[Card, ...]]] = {Team.NS: [], Team.EW: []}
    for d in declarations:
        out[d.team].append(d.cards)
    return {t: tuple(v) for t, v in out.items()}
