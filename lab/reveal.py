"""Knowledge with hidden hands shown, for measurements only (``bench/bench_oracle.py``,
``bench/bench_regret.py``): what a seat's cards are worth, the ceiling of a player that sees
every hand, the regret against the true deal. No player of the engine or the bot uses it.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.knowledge import FULL, Knowledge


def reveal(k: Knowledge, hands: Sequence[int], seats: Sequence[int]) -> Knowledge:
    """``k`` with the true hands of ``seats`` shown as sure cards: for measurements only
    (``bench/``: what a seat's cards are worth, the ceiling of a player that sees every hand,
    the regret against the true deal). No player in the engine or the bot is ever given this.

    Args:
        k: the viewer's knowledge.
        hands: the true remaining hands, masks of seats 0..3.
        seats: other seats whose hands are shown (the viewer's own is ignored).

    Returns:
        The knowledge in which each shown seat holds exactly its hand and the seats not shown
        hold none of those cards; with all three others shown one deal is consistent with it.
    """
    must, cannot = list(k.must), list(k.cannot)
    shown = 0
    for s in seats:
        if s == k.seat:
            continue
        must[s] = hands[s]
        cannot[s] = FULL & ~hands[s]
        shown |= hands[s]
    for s in range(4):
        if s != k.seat and s not in seats:
            cannot[s] |= shown
    return Knowledge(
        k.seat,
        k.hand,
        k.played,
        k.counts,
        (cannot[0], cannot[1], cannot[2], cannot[3]),
        (must[0], must[1], must[2], must[3]),
        k.unknown & ~shown,
    )
