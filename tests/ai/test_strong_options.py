"""The strong player's experimental options (duplicate A/B tests; off by default):
the solver's ``nat_floor`` (prove nat, skip its margin, ``rules.md`` §6.3)."""

from __future__ import annotations

import random

from engine.actions import PlayCard
from engine.ai import dd
from engine.ai.knowledge import knowledge
from engine.ai.strong import StrongPlayer
from engine.observe import Observation, observe
from engine.round import Phase
from engine.settings import Settings
from tests.engine.helpers import random_game


def _play_obs(seed: int, max_cards: int) -> Observation:
    """A card decision with several legal cards and at most ``max_cards`` cards left."""
    table = Settings.from_preset("amsterdam")
    for s in range(seed, seed + 200):
        game = random_game(table, s, 0)
        rng = random.Random(s)
        while game.current is not None and game.current.number == 1:
            cur = game.current
            if cur.phase is Phase.PLAY and sum(h.bit_count() for h in cur.hands) <= max_cards:
                seat = game.to_act
                assert seat is not None
                obs = observe(game, seat)
                if sum(isinstance(a, PlayCard) for a in obs.legal) >= 3:
                    return obs
            legal = game.legal_actions()
            game, _ = game.apply(legal[rng.randrange(len(legal))])
    raise AssertionError("no position found")


def test_the_nat_floor_keeps_the_strong_players_card_values_on_the_made_side() -> None:
    """With ``nat_floor`` the strong player's evaluation is the same wherever no world is nat
    and otherwise differs only by the nat penalty's size (162 + known roem, not |margin|)."""
    obs = _play_obs(2, 26)
    k = knowledge(obs)

    def player(nat_floor: bool) -> StrongPlayer:
        return StrongPlayer(
            max_worlds=8, node_budget=None, time_budget_ms=None, exact_limit=0, nat_floor=nat_floor
        )

    plain = player(False).evaluate(obs, k, random.Random(5))
    floor = player(True).evaluate(obs, k, random.Random(5))
    assert set(plain.values) == set(floor.values) and plain.worlds == floor.worlds
    assert floor.nodes <= plain.nodes
    assert floor.win_share == plain.win_share
    for c, v in plain.values.items():
        assert abs(floor.values[c] - v) <= 60  # only the nat worlds' penalty size may differ


def test_the_nat_floor_proves_nat_and_keeps_every_made_value() -> None:
    """``nat_floor``: a card that leaves the playing team nat reads 0 (§6.3: its margin does
    not count), every other card keeps its exact point difference, for fewer nodes."""
    rng = random.Random(11)
    nodes = [0, 0]
    nat_seen = made_seen = 0
    for t in range(12):
        cards = list(range(32))
        rng.shuffle(cards)
        hands = [sum(1 << c for c in cards[3 * i : 3 * i + 3]) for i in range(4)]
        playing = t % 2
        opts: dd.Options = {
            "play_rule": "amsterdam",
            "playing_team": playing,
            "objective": "diff",
            "taken": (40, 30),
        }
        trump = rng.randrange(4)
        plain = dd.solve_moves(hands, trump, t % 4, (), **opts)
        floor = dd.solve_moves(hands, trump, t % 4, (), nat_floor=True, **opts)
        nodes[0] += plain.nodes
        nodes[1] += floor.nodes
        assert set(plain.values) == set(floor.values)
        for c, v in plain.values.items():
            made = v > 0 if playing == 0 else v < 0
            assert floor.values[c] == (v if made else 0)
            nat_seen += not made
            made_seen += made
    assert nat_seen and made_seen
    assert nodes[1] <= nodes[0]
