"""The daily's computers are fair: decided by a fixed search budget (solver nodes)
and the seed, never by the clock, so the same observation and seed give the same move on any
machine under any load, through the bot's computer pool like every computer seat."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from bot.computer import ComputerPlayers
from engine.actions import Action, PlayCard
from engine.ai import make_player, strong
from engine.ai.basic import BasicPlayer
from engine.ai.knowledge import knowledge
from engine.ai.strong import StrongPlayer
from engine.game import GameState
from engine.observe import Observation, observe
from engine.settings import Settings


class _SlowClock:
    """``time`` as a machine under heavy load sees it: every look at the clock finds a whole
    second gone (an artificially slowed worker, without waiting and without timed asserts)."""

    def __init__(self) -> None:
        self.now = time.perf_counter()
        self.looks = 0

    def perf_counter(self) -> float:
        self.looks += 1
        self.now += 1.0
        return self.now


def _searched_position(seed: int = 11) -> tuple[Observation, int]:
    """A card decision the strong player searches (several legal cards, mid-round: sampled
    worlds, not a forced move) in a game the basic player plays; and a decision seed."""
    state = GameState.new(Settings(), seed)
    basic = BasicPlayer()
    rng = random.Random(seed)
    while state.current is not None:
        seat = state.to_act
        assert seat is not None
        obs = observe(state, seat)
        cards = [a for a in obs.legal if isinstance(a, PlayCard)]
        if len(cards) >= 3 and 16 <= sum(obs.hand_counts) <= 24:
            return obs, (seed * 1_000_003 + len(state.log)) & (2**62 - 1)
        state, _ = state.apply(basic.choose(obs, rng))
    raise AssertionError("no searched position in this game")


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch) -> Iterator[_SlowClock]:
    clock = _SlowClock()
    monkeypatch.setattr(strong, "time", clock)
    yield clock


async def _choose(
    players: ComputerPlayers, obs: Observation, seed: int, *, deterministic: bool
) -> Action:
    return await players.choose(obs, seed, level="strong", deterministic=deterministic)


def test_the_slowed_clock_does_cut_a_clocked_search(slow: _SlowClock) -> None:
    # The control: under this clock the ordinary strong player (200 ms budget) stops after
    # one world, the daily's player searches as many as its node budget allows.
    obs, seed = _searched_position()
    k = knowledge(obs)
    clocked = StrongPlayer().evaluate(obs, k, random.Random(seed))
    fixed = StrongPlayer(time_budget_ms=None).evaluate(obs, k, random.Random(seed))
    assert clocked.worlds == 1
    assert fixed.worlds > 4
    assert slow.looks > 0


async def test_same_observation_and_seed_give_the_same_move_under_any_load() -> None:
    obs, seed = _searched_position()
    pool = ComputerPlayers("random", workers=0)  # the daily names its own level
    try:
        normal = await _choose(pool, obs, seed, deterministic=True)
        with pytest.MonkeyPatch.context() as patch:
            clock = _SlowClock()
            patch.setattr(strong, "time", clock)
            slowed = await _choose(pool, obs, seed, deterministic=True)
        assert clock.looks > 0  # the search did look at the (slowed) clock
        again = await _choose(pool, obs, seed, deterministic=True)
    finally:
        pool.shutdown()
    assert normal == slowed == again
    assert normal in obs.legal
    direct = make_player("strong", deterministic=True).choose(obs, random.Random(seed))
    assert direct == normal


async def test_the_level_and_the_flag_travel_to_a_worker_process() -> None:
    obs, seed = _searched_position()
    here = make_player("strong", deterministic=True).choose(obs, random.Random(seed))
    pool = ComputerPlayers("random", workers=1)
    try:
        there = await _choose(pool, obs, seed, deterministic=True)
    finally:
        pool.shutdown()
    assert there == here


def test_the_daily_player_has_no_clock_and_a_node_budget() -> None:
    player = make_player("strong", deterministic=True)
    assert isinstance(player, StrongPlayer)
    assert player.time_budget_ms is None
    assert player.node_budget is not None and player.node_budget > 0
    ordinary = make_player("strong")
    assert isinstance(ordinary, StrongPlayer) and ordinary.time_budget_ms is not None
