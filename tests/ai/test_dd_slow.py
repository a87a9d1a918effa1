"""Opt-in deep check (``DD_SLOW=1``, ~1.3 s per endgame): 5-trick endgames against the
memoized exact minimax of tests/ai/reference.py (exact-value cache, no pruning), so that the
equivalent-card rule, the bounds and the table are exercised on bigger positions than the
default corpus reaches. ``DD_SLOW_N`` sets the number of endgames (default 40)."""

from __future__ import annotations

import os
import random

import pytest

from engine.ai import dd
from tests.ai import reference as ref

pytestmark = pytest.mark.skipif(not os.environ.get("DD_SLOW"), reason="set DD_SLOW=1 to run")


def test_five_trick_endgames_equal_memoized_minimax() -> None:
    rng = random.Random(515)
    bad = []
    for i in range(int(os.environ.get("DD_SLOW_N", "40"))):
        eg = ref.random_endgame(rng, 5)
        playing = rng.randrange(2)
        objective = "diff" if eg.rule == "klammern" else rng.choice(["diff", "score"])
        values = ref.brute_force(eg, objective, playing, memo=True)[1]
        for backend in dd.available_backends():
            got = dd.solve_moves(
                eg.hands, eg.trump, eg.leader, eg.trick, play_rule=eg.rule, roem=eg.roem,
                four_low_cards=eg.four_low, taken=eg.taken, tricks_taken=eg.tricks_taken,
                objective=objective, playing_team=playing, backend=backend,
            )  # fmt: skip
            if got.values != values:
                bad.append((i, backend, eg, objective, values, got.values))
    assert not bad, f"{len(bad)} mismatches, first: {bad[0]}"
