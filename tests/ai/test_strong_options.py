"""The strong player's experimental options (issue 14's duplicate A/B tests; all off by
default): card pruning, the standard-error tie rule, the defenders' tie margin, the ISMCTS
first tricks, and the solver's card mask."""

from __future__ import annotations

import random
from typing import Any

from engine.actions import PlayCard
from engine.ai import dd
from engine.ai.knowledge import knowledge
from engine.ai.strong import Evaluation, StrongPlayer
from engine.cards import iter_bits
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


def _quick(**options: Any) -> StrongPlayer:
    return StrongPlayer(
        max_worlds=12, node_budget=None, time_budget_ms=None, exact_limit=0, **options
    )


def test_the_solver_solves_only_the_masked_cards() -> None:
    obs = _play_obs(1, 16)
    assert obs.trump is not None
    hands = [0, 0, 0, 0]
    hands[int(obs.seat)] = sum(c.bit for c in obs.hand)  # type: ignore[arg-type]
    k = knowledge(obs)
    from engine.ai.sampler import WorldSampler

    world = WorldSampler(k).sample(random.Random(3))
    leader = int(obs.leader)
    trick = tuple(((leader + i) % 4, c.index) for i, c in enumerate(obs.trick))
    full = dd.solve_moves(world, obs.trump.ordinal, leader, trick)
    some = sorted(full.values)[:2]
    mask = sum(1 << c for c in some)
    part = dd.solve_moves(world, obs.trump.ordinal, leader, trick, cards=mask)
    assert sorted(part.values) == some
    assert all(part.values[c] == full.values[c] for c in some)


def test_pruning_with_a_huge_margin_changes_nothing_and_a_small_one_keeps_the_best() -> None:
    obs = _play_obs(2, 16)
    k = knowledge(obs)
    plain = _quick().evaluate(obs, k, random.Random(5))
    wide = _quick(prune_after=2, prune_margin=1e9).evaluate(obs, k, random.Random(5))
    assert wide.values == plain.values and wide.worlds == plain.worlds
    narrow = _quick(prune_after=2, prune_margin=0.0).evaluate(obs, k, random.Random(5))
    assert set(narrow.values) == set(plain.values)  # every legal card keeps a value
    best = max(narrow.values.values())
    # The leader at the end was solved in every world: its value is the plain mean.
    assert any(v == best and plain.values[c] == best for c, v in narrow.values.items())
    assert all(v <= best for v in narrow.values.values())
    # A card in the keep mask is solved in every world, however far behind it is.
    worst = min(plain.values, key=lambda c: plain.values[c])
    kept = _quick(prune_after=2, prune_margin=0.0).evaluate(
        obs, k, random.Random(5), keep=1 << worst
    )
    assert kept.values[worst] == plain.values[worst]


def test_the_standard_error_rule_keeps_the_rule_card_while_the_lead_is_noise() -> None:
    obs = _play_obs(3, 20)
    cards = list(iter_bits(sum(c.bit for c in obs.hand)))[:2]
    best, rule = cards
    noisy = tuple((1.0, {best: x, rule: 0.0}) for x in (40.0, -30.0, 35.0, -25.0))  # mean 5
    steady = tuple((1.0, {best: x, rule: 0.0}) for x in (9.0, 11.0, 10.0, 10.0))  # mean 10
    for samples, want_rule in ((noisy, True), (steady, False)):
        lead = sum(u[best] for _, u in samples) / len(samples)
        ev = Evaluation({best: lead, rule: 0.0}, len(samples), 1, 0.5, samples)
        player = StrongPlayer(tie_margin=1.0, tie_z=2.0)
        assert player._pick(obs, ev, rule) == (rule if want_rule else best)
        assert StrongPlayer(tie_margin=1.0)._pick(obs, ev, rule) == best  # rule off


def test_the_defenders_tie_margin_applies_to_the_defenders_only() -> None:
    obs = _play_obs(4, 20)
    assert obs.maker is not None and obs.seat is not None
    cards = list(iter_bits(sum(c.bit for c in obs.hand)))[:2]
    best, rule = cards
    ev = Evaluation({best: 10.0, rule: 0.0}, 10, 1, 0.5)
    player = StrongPlayer(tie_margin=1.0, defence_tie_margin=20.0)
    defending = obs.maker.team is not obs.seat.team
    assert player._pick(obs, ev, rule) == (rule if defending else best)


def test_ismcts_first_tricks_play_a_legal_card_without_an_evaluation() -> None:
    obs = _play_obs(5, 32)
    player = _quick(early_ismcts=sum(obs.hand_counts))
    action, ev = player.decide(obs, random.Random(1))
    assert action in obs.legal and ev is None


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
