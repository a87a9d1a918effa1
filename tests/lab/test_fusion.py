"""``lab.fusion.solve_next``, the measure of strategy fusion at the root
(``bench/bench_fusion.py``), against the solver it follows (``tests/ai/test_dd.py``'s
helpers)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai import dd
from lab.fusion import solve_next
from tests.ai import reference as ref
from tests.ai.test_dd import BACKENDS, child, kwargs, moves


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    tricks_left=st.integers(2, 4),
    objective=st.sampled_from(["diff", "score"]),
    playing=st.integers(0, 1),
    backend=st.sampled_from(BACKENDS),
)
def test_solve_next_keeps_the_value_along_its_line(
    seed: int, tricks_left: int, objective: str, playing: int, backend: str
) -> None:
    """``solve_next`` (bench_fusion's measure): each card's value is solve_moves's; the replies
    are legal, each is a best card of its seat (its child keeps the value), they are the
    other seats' until the same player is to move again; and the player's best next card
    is worth the card's value (§4.5 duties and §6 scoring, as the solver's)."""
    eg = ref.random_endgame(random.Random(seed), tricks_left)
    if eg.rule == "klammern":
        objective = "diff"
    extra: dd.Options = {"objective": objective, "playing_team": playing, "backend": backend}
    nxt = solve_next(eg.hands, eg.trump, eg.leader, eg.trick, **kwargs(eg, **extra))
    mv = moves(eg, **extra)
    me = (eg.leader + len(eg.trick)) % 4
    assert nxt.seat == me
    assert {c: p.value for c, p in nxt.plays.items()} == mv.values
    for card, play in nxt.plays.items():
        pos = child(eg, card)
        for reply in play.replies:
            seat = (pos.leader + len(pos.trick)) % 4
            assert seat != me
            assert moves(pos, **extra).values[reply] == play.value
            pos = child(pos, reply)
        if pos.hands[me]:
            assert (pos.leader + len(pos.trick)) % 4 == me
            assert play.next_values == moves(pos, **extra).values
            pick = max if me % 2 == 0 else min
            assert pick(play.next_values.values()) == play.value
        else:
            assert play.next_values == {}
