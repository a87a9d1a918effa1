"""Klammern scoring pieces (``rules.md`` §9.5, §9.9): declarations and big points."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.cards import Card, Suit, Team
from engine.errors import NotationError

SMALL_POINTS_PER_BIG = 5

# §9.5: with equal kind and top card, a trump sequence wins, then ♦ > ♥ > ♠ > ♣.
_SUIT_ORDER = {Suit.DIAMONDS: 3, Suit.HEARTS: 2, Suit.SPADES: 1, Suit.CLUBS: 0}


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
    return 50 if len(cards) >= 4 else 20


def declaration_key(cards: Sequence[Card], trump: Suit) -> tuple[int, int, int, int]:
    """Sort key of a declaration (§9.5): kind, top card, trump suit, suit order."""
    suit = cards[0].suit
    return (
        sequence_value(cards),
        max(int(c.rank) for c in cards),
        1 if suit is trump else 0,
        _SUIT_ORDER[suit],
    )


def declaration_points(
    declarations: Mapping[Team, Sequence[Sequence[Card]]], trump: Suit
) -> dict[Team, int]:
    """Points per team for the declared sequences (§9.5): only the team with the best single
    declaration scores, and then all of its declarations.

    Raises:
        NotationError: for a declaration that is not a sequence.
    """
    best: dict[Team, tuple[int, int, int, int] | None] = {}
    for team in (Team.NS, Team.EW):
        keys = [declaration_key(seq, trump) for seq in declarations.get(team, ())]
        best[team] = max(keys) if keys else None
    out = {Team.NS: 0, Team.EW: 0}
    ns, ew = best[Team.NS], best[Team.EW]
    if ns is None and ew is None:
        return out
    winner = Team.NS if ew is None or (ns is not None and ns > ew) else Team.EW
    out[winner] = sum(sequence_value(seq) for seq in declarations[winner])
    return out


def big_points(small: Mapping[Team, int]) -> dict[Team, int]:
    """Big points earned at these small points (§9.9): a team with 5 or more gets 1, or 2
    when the other team has 0 small points."""
    out = {Team.NS: 0, Team.EW: 0}
    for team in (Team.NS, Team.EW):
        if small[team] >= SMALL_POINTS_PER_BIG:
            out[team] = 2 if small[team.other] == 0 else 1
    return out
