"""The strong player's search: exact averaging over every consistent world near the end, the
round-score utility with the nat rule (``rules.md`` §6), and Klammern declarations (§9.5)."""

from __future__ import annotations

import math
import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai import dd
from engine.ai.knowledge import Knowledge, knowledge
from engine.ai.locations import ModelSampler, model, supported
from engine.ai.strong import StrongPlayer, _utility
from engine.cards import Team, iter_bits
from engine.observe import observe
from engine.round import Phase
from engine.settings import Settings
from tests.engine.helpers import random_game


def _brute_worlds(k: Knowledge) -> list[tuple[int, ...]]:
    """Every consistent deal, by brute force over the unknown cards."""
    others = k.others()
    cards = list(iter_bits(k.unknown))
    need = [k.counts[s] - k.must[s].bit_count() for s in others]
    out = []
    for first in combinations(cards, need[0]):
        rest = [c for c in cards if c not in first]
        for second in combinations(rest, need[1]):
            third = [c for c in rest if c not in second]
            hands = list(k.must)
            for s, part in zip(others, (first, second, third), strict=True):
                for c in part:
                    hands[s] |= 1 << c
            if all(hands[s] & k.cannot[s] == 0 for s in others):
                out.append(tuple(hands))
    return out


@settings(max_examples=15)
@given(
    st.sampled_from(["amsterdam", "rotterdam"]),
    st.integers(0, 2**31),
    st.integers(0, 3),
    st.booleans(),
)
def test_endgame_values_are_the_exact_average_over_all_worlds(
    preset: str, seed: int, extra: int, located: bool
) -> None:
    """Few worlds left: all are solved, each weighted by the card-location model (``located``)
    or alike, and the values are exactly their weighted average (PIMC, §4.1)."""
    table = Settings.from_preset(preset)
    # Advance a random game to 6..9 cards left in the round.
    game = random_game(table, seed, 0)
    rng = random.Random(seed)
    while True:
        cur = game.current
        assert cur is not None
        if cur.phase is Phase.PLAY and sum(h.bit_count() for h in cur.hands) <= 6 + extra:
            break
        legal = game.legal_actions()
        game, _ = game.apply(legal[rng.randrange(len(legal))])
        if game.current is None or game.current.number != 1:
            return
    seat = game.to_act
    assert seat is not None
    obs = observe(game, seat)
    if not any(a.kind == "play" for a in obs.legal):
        return
    k = knowledge(obs)
    player = StrongPlayer(max_worlds=10_000, node_budget=None, time_budget_ms=None,
                          exact_limit=10_000, bid_inference=False, play_beta=0,
                          locations=located)  # fmt: skip
    ev = player.evaluate(obs, k, random.Random(0))
    worlds = _brute_worlds(k)
    assert ev.worlds == len(worlds)
    weight = dict.fromkeys(worlds, 1.0)
    if located and len(worlds) > 1 and supported(obs):
        # Enumerated worlds weigh as the card-location model says.
        ms = ModelSampler(k, model().seat_weights(obs, k))
        weight = {h: math.exp(ms.log_weight((h[0], h[1], h[2], h[3]))) for h in worlds}
    assert obs.trump is not None and obs.maker is not None
    me = 0 if seat.team is Team.NS else 1
    playing = 0 if obs.maker.team is Team.NS else 1
    leader = int(obs.leader)
    trick = tuple(((leader + i) % 4, c.index) for i, c in enumerate(obs.trick))
    taken = (
        obs.card_points[Team.NS] + obs.roem[Team.NS],
        obs.card_points[Team.EW] + obs.roem[Team.EW],
    )
    sums: dict[int, float] = {}
    for hands in worlds:
        res = dd.solve_moves(
            hands, obs.trump.ordinal, leader, trick, play_rule=table.play_rule.value,
            taken=taken, tricks_taken=(obs.tricks_won[Team.NS], obs.tricks_won[Team.EW]),
            playing_team=playing, objective="score",
        )  # fmt: skip
        for c, v in res.values.items():
            sums[c] = sums.get(c, 0.0) + weight[hands] * (v if me == 0 else -v)
    expected = {c: s / sum(weight.values()) for c, s in sums.items()}
    # the weights it reports are the worlds' (relative: the largest is 1), one per world
    assert len(ev.weights) == ev.worlds
    top = max(weight.values())
    assert sorted(ev.weights) == pytest.approx(sorted(w / top for w in weight.values()))
    assert set(expected) == set(ev.values)
    for c, value in expected.items():
        assert abs(value - ev.values[c]) < 1e-6


def test_utility_applies_the_nat_cliff() -> None:
    # NS plays; a point difference of -10 is nat: NS scores 0, EW all 162 (§6.3).
    assert _utility(-10, "diff", False, 0, 0, 162, 1) == -162
    assert _utility(-10, "diff", False, 0, 1, 162, 1) == 162
    # Made: the round-score difference is the point difference (§6.2).
    assert _utility(30, "diff", False, 0, 0, 162, 1) == 30
    # EW plays and makes it with NS - EW = -40.
    assert _utility(-40, "diff", False, 1, 1, 162, 1) == 40
    # The exact score objective is taken as it is.
    assert _utility(-162, "score", False, 0, 0, 162, 1) == -162
    # Klammern: winning counts 60 per small point plus the margin; a tie goes to the defenders.
    assert _utility(0, "diff", True, 0, 0, 162, 1) == -60
    assert _utility(0, "diff", True, 0, 1, 162, 2) == 120
