"""Hand evaluation for choosing trump: a rule-of-thumb strength score (the ``basic`` player) and
hand features for the fitted model of the ``strong`` player (:mod:`engine.ai.bidding`).

Cards are indices ``suit * 8 + rank`` (natural ranks 7 8 9 10 J Q K A = 0..7), hands 32-bit
masks, suits 0..3 = S H D C (:mod:`engine.cards`).
"""

from __future__ import annotations

from engine.klammern.sequences import runs

R7, R8, R9, R10, RJ, RQ, RK, RA = range(8)


def suit_bits(hand: int, suit: int) -> int:
    """The 8-bit rank mask of ``hand`` in ``suit``."""
    return (hand >> (8 * suit)) & 0xFF


def rule_strength(hand: int, trump: int) -> float:
    """Rule-of-thumb strength of ``hand`` with ``trump`` as trump, in rough card points the hand
    is worth to its team (``rules.md`` §1): trump J 20, 9 14, A 11, 10 10, K/Q 5, small trumps 4,
    every trump from the fourth on 6 more; side aces 11, a ten with its ace 9, a ten with one
    guard 4, a void or singleton 5 when the hand has three trumps or more."""
    t = suit_bits(hand, trump)
    n = t.bit_count()
    score = 0.0
    score += 20 * (t >> RJ & 1) + 14 * (t >> R9 & 1) + 11 * (t >> RA & 1) + 10 * (t >> R10 & 1)
    score += 5 * ((t >> RK & 1) + (t >> RQ & 1)) + 4 * ((t >> R7 & 1) + (t >> R8 & 1))
    score += 6 * max(0, n - 3)
    for s in range(4):
        if s == trump:
            continue
        b = suit_bits(hand, s)
        if b >> RA & 1:
            score += 11
            if b >> R10 & 1:
                score += 9
        elif b >> R10 & 1 and b.bit_count() >= 2:
            score += 4
        if n >= 3 and b.bit_count() <= 1:
            score += 5
    return score


FEATURES: tuple[str, ...] = (
    "bias",
    "tJ",
    "t9",
    "tA",
    "t10",
    "tKQ",
    "tlow",
    "ntr",
    "ntr2",
    "tJ9",
    "tJ_ntr",
    "aces",
    "a10",
    "guard10",
    "bare10",
    "kings",
    "voids",
    "singles",
    "side_pts",
    "lead",
    "partner_leads",
    "lead_ntr",
    "terz",
    "fifty",
    "bella",
)
"""Names of :func:`features`, in order."""


def features(hand: int, trump: int, rel: int, klammern: bool = False) -> list[float]:
    """Hand features for the trump-choice model (:data:`FEATURES`).

    Args:
        hand: the 8-card hand (mask).
        trump: the candidate trump suit 0..3.
        rel: where the chooser sits relative to the leader of the first trick: 0 = leads,
            1 = plays second, 2 = the partner leads, 3 = plays last.
        klammern: add the Klammern declarations and bella of the hand (§9.5, §9.6).
    """
    t = suit_bits(hand, trump)
    n = t.bit_count()
    aces = a10 = guard10 = bare10 = kings = voids = singles = 0
    side_pts = 0
    for s in range(4):
        if s == trump:
            continue
        b = suit_bits(hand, s)
        c = b.bit_count()
        voids += c == 0
        singles += c == 1
        if b >> RA & 1:
            aces += 1
            if b >> R10 & 1:
                a10 += 1
                kings += b >> RK & 1
        elif b >> R10 & 1:
            if c >= 2:
                guard10 += 1
            else:
                bare10 += 1
        side_pts += 11 * (b >> RA & 1) + 10 * (b >> R10 & 1) + 4 * (b >> RK & 1)
        side_pts += 3 * (b >> RQ & 1) + 2 * (b >> RJ & 1)
    terz = fifty = bella = 0
    if klammern:
        for run in runs(hand):
            if len(run) >= 4:
                fifty += 1
            else:
                terz += 1
        bella = int(t >> RK & 1 and t >> RQ & 1)
    tj = t >> RJ & 1
    return [
        1.0,
        tj,
        t >> R9 & 1,
        t >> RA & 1,
        t >> R10 & 1,
        (t >> RK & 1) + (t >> RQ & 1),
        (t >> R7 & 1) + (t >> R8 & 1),
        n,
        n * n / 8.0,
        tj * (t >> R9 & 1),
        tj * n,
        aces,
        a10,
        guard10,
        bare10,
        kings,
        voids,
        singles,
        side_pts / 10.0,
        int(rel == 0),
        int(rel == 2),
        n * int(rel == 0),
        terz,
        fifty,
        bella,
    ]
