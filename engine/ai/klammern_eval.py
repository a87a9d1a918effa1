"""Klammern points that the hands fix before play (``rules.md`` §9.5, §9.6), for the search.

Declarations and bella do not depend on the card play once the hands are known: a computer
player declares every sequence (:func:`engine.klammern.runs`) and announces bella, and the
search assumes the other players do the same. These helpers give the points per team that the
double-dummy solver takes as ``taken`` (points already counted) for Klammern.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import SUITS, Card, Team
from engine.klammern.sequences import declaration_points, runs

_QK = (1 << 5) | (1 << 6)  # natural ranks Q = 5, K = 6


def declared_points(seqs: Sequence[tuple[int, tuple[Card, ...]]], trump: int) -> tuple[int, int]:
    """Declaration points ``(NS, EW)`` for sequences ``(seat, cards)`` compared by §9.5."""
    decl: dict[Team, list[tuple[Card, ...]]] = {Team.NS: [], Team.EW: []}
    for seat, cards in seqs:
        decl[Team.NS if seat % 2 == 0 else Team.EW].append(cards)
    pts = declaration_points(decl, SUITS[trump])
    return pts[Team.NS], pts[Team.EW]


def fixed_points(hands: Sequence[int], trump: int) -> tuple[int, int]:
    """Declaration and bella points ``(NS, EW)`` of a fresh deal when every player declares
    every sequence of its hand (§9.5) and the holder of trump K and Q announces bella (§9.6).

    Args:
        hands: four 8-card hands as masks (index = seat).
        trump: trump suit 0..3.
    """
    seqs = [(seat, run) for seat in range(4) for run in runs(hands[seat])]
    ns, ew = declared_points(seqs, trump)
    bn, be = bella_points(hands, trump)
    return ns + bn, ew + be


def bella_points(hands: Sequence[int], trump: int) -> tuple[int, int]:
    """Bella points ``(NS, EW)`` (§9.6): 20 for the team whose player holds trump K and Q.

    Args:
        hands: four hands as masks (index = seat).
        trump: trump suit 0..3.
    """
    kq = _QK << (8 * trump)
    for seat in range(4):
        if hands[seat] & kq == kq:
            return (20, 0) if seat % 2 == 0 else (0, 20)
    return 0, 0
