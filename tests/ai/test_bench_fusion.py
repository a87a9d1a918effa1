"""``bench/bench_fusion.py``: strategy fusion at the root, measured on strong's own
worlds. Choosing one next card per information set can only lower a card's value, never
raise it; the grouping is by the replies; strong's games are the tournament's."""

from __future__ import annotations

from types import ModuleType

import pytest

from engine.ai import dd
from tests.ai.scripts import load_script, tournament_diffs


def _script() -> ModuleType:
    return load_script("bench/bench_fusion.py")


def _play(value: int, replies: tuple[int, ...], nxt: dict[int, int]) -> dd.NextPlay:
    return dd.NextPlay(value, replies, nxt)


def test_aggregate_groups_worlds_by_the_replies() -> None:
    bench = _script()
    # card 1: two worlds reach the same next decision (replies (5, 6)); the best next card
    # differs (2 in one, 3 in the other), so one card for both gives 10 + 0, not 10 + 10.
    # card 4: the worlds differ in the replies, each keeps its own best.
    worlds = [
        {1: _play(10, (5, 6), {2: 10, 3: -10}), 4: _play(6, (7,), {2: 6})},
        {1: _play(10, (5, 6), {2: 0, 3: 10}), 4: _play(6, (8,), {2: 6})},
    ]
    pimc, infoset, shared = bench.aggregate(worlds, float)
    assert pimc == {1: 10.0, 4: 6.0}
    assert infoset == {1: 5.0, 4: 6.0}
    assert shared == 0.5
    # weighted as strong weighs its worlds: the heavier world's next card wins the group
    pimc, infoset, _ = bench.aggregate(worlds, float, [3.0, 1.0])
    assert pimc == {1: 10.0, 4: 6.0}
    assert infoset == {1: (3 * 10 + 1 * 0) / 4, 4: 6.0}
    with pytest.raises(ValueError):
        bench.aggregate(worlds, float, [1.0])
    # a card whose line ends the player's round has no next decision: kept as it is
    pimc, infoset, _ = bench.aggregate([{1: _play(3, (), {})}], float)
    assert pimc == infoset == {1: 3.0}
    with pytest.raises(ValueError):
        bench.aggregate([], float)


def test_measured_games_are_the_tournaments_and_fusion_never_adds() -> None:
    bench = _script()
    diffs, rows = bench.play(("basic", "amsterdam", 5, 0, 1))
    assert diffs == tournament_diffs("strong:time_budget_ms=None", "basic", "amsterdam", 5, 0, 1)
    assert rows
    # grouping can only lower a card's value; and the bench's PIMC is strong's own values
    # (checked inside the bench: it raises when the recorded worlds do not give them)
    assert all(r["gap_max"] >= r["gap"] >= -1e-9 for r in rows)
    assert all(0 <= r["shared"] <= 1 and r["worlds"] >= 1 for r in rows)
    assert any(r["shared"] > 0 for r in rows)
    s = bench.summary(rows)
    assert s["all"]["decisions"] == len(rows)
    assert s[">23"]["decisions"] + s["<=23"]["decisions"] == len(rows)


def test_klammern_is_refused() -> None:
    bench = _script()
    with pytest.raises(ValueError):
        bench.play(("basic", "klammern", 5, 0, 1))
