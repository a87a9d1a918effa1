"""The review of a game (:mod:`engine.ai.review`): blind to hidden cards (``design.md`` §2),
its card numbers the tip's for the same position and seed, deterministic, sums that add up,
roem claims judged in claim mode (``rules.md`` §5.5)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action, ClaimRoem, Pass, PlayCard
from engine.ai import make_player
from engine.ai.review import (
    Kind,
    Why,
    hindsight,
    judge,
    point_at,
    points,
    review_game,
    summarize,
)
from engine.ai.strong import StrongPlayer
from engine.ai.tip import tip
from engine.cards import Seat
from engine.game import GameState
from engine.observe import Observation
from engine.players import Player
from engine.selfplay import play_game
from engine.settings import PRESETS, RoemMode, Settings
from tests.ai.test_players import _swap_unseen
from tests.ai.test_tip import card_position
from tests.engine.helpers import random_game

SEAT = Seat.SOUTH


def quick() -> StrongPlayer:
    """A strong player with a small deterministic budget (no wall clock)."""
    return StrongPlayer(max_worlds=6, node_budget=150_000, time_budget_ms=None, exact_limit=6)


def seed_of(index: int) -> int:
    return 1_000 + index


def _game(
    preset: str, seed: int, rounds: int = 8, players: list[Player] | None = None
) -> GameState:
    """A whole game of ``rounds`` rounds played by basic players (or ``players``)."""
    table = replace(Settings.from_preset(preset), rounds=rounds)
    basic = make_player("basic")
    return play_game(table, seed, players or [basic] * 4, random.Random(seed))


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(sorted(PRESETS)),
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=0, max_value=40),
    st.data(),
)
def test_no_peeking_a_judgement_ignores_unseen_cards(
    preset: str, seed: int, steps: int, data: st.DataObject
) -> None:
    """Swapping unseen cards between the other hands changes no judgement of a decision
    (the players' no-peeking property, for the review)."""
    game = random_game(Settings.from_preset(preset), seed, steps)
    if game.is_over or game.to_act is None:
        return
    viewer = game.to_act
    swapped = _swap_unseen(game, viewer, data)
    if swapped is None:
        return
    legal = game.legal_actions(viewer)
    action = data.draw(st.sampled_from(legal))
    point, point2 = point_at(game, action), point_at(swapped, action)
    if point is None:
        assert point2 is None
        return
    assert point2 is not None and point.obs == point2.obs
    assert judge(point, seed, quick()) == judge(point2, seed, quick())


@pytest.mark.parametrize(("preset", "seed", "cards"), [("amsterdam", 1, 9), ("rotterdam", 4, 13)])
def test_card_numbers_are_the_tips(preset: str, seed: int, cards: int) -> None:
    """For the same position and seed the review's numbers are the tip's: strong's card is
    the tip's card, and the expected round score of every card the tip scores is the same."""
    game, obs = card_position(preset, seed, cards)
    suggestion = tip(obs, 7, player=quick())
    for action in obs.legal:
        assert isinstance(action, PlayCard)
        point = point_at(game, action)
        assert point is not None and point.kind is Kind.CARD
        j = judge(point, 7, quick())
        assert j is not None
        assert j.its == suggestion.action
        scores = {s.card: round(s.score, 1) for s in suggestion.scores}
        assert suggestion.card is not None and scores[suggestion.card] == j.its_value
        if action.card in scores:
            assert scores[action.card] == j.your_value
        assert j.cost == pytest.approx(max(0.0, j.its_value - j.your_value), abs=0.11)
        if action == suggestion.action:
            assert j.cost == 0


def test_a_whole_review_adds_up_and_is_deterministic() -> None:
    game = _game("amsterdam", 5)
    review = review_game(game, SEAT, seed_of, quick())
    assert review == review_game(game, SEAT, seed_of, quick())
    assert [r.number for r in review.rounds] == list(range(1, 9))
    assert review.decisions == sum(r.decisions for r in review.rounds) > 8 * 4
    assert review.total == pytest.approx(sum(r.cost for r in review.rounds), abs=0.5)
    costs = [j.cost for j in review.worst]
    assert 0 < len(costs) <= 5 and all(c > 0 for c in costs)
    assert costs == sorted(costs, reverse=True)
    assert all(j.seat == SEAT and j.yours.seat == SEAT for j in review.worst)
    kinds = {p.kind for p in points(game, SEAT)}
    assert Kind.CARD in kinds and Kind.BID in kinds
    # The hindsight number is added to shown card decisions only, and is the solver's.
    for j in review.worst:
        if j.kind is not Kind.CARD:
            assert j.hindsight is None


def test_the_judgement_of_a_decision_is_the_same_alone_and_in_the_review() -> None:
    game = _game("rotterdam", 9)
    found = points(game, SEAT)
    judged = [j for p in found if (j := judge(p, seed_of(p.index), quick())) is not None]
    review = summarize(SEAT, game.settings.variant, judged, len(game.rounds))
    full = review_game(game, SEAT, seed_of, quick(), with_hind=False)
    assert full == review


def test_hindsight_is_zero_for_the_same_card() -> None:
    game, obs = card_position("amsterdam", 2, 10)
    action = next(a for a in obs.legal if isinstance(a, PlayCard))
    point = point_at(game, action)
    assert point is not None
    j = judge(point, 3, quick())
    assert j is not None
    assert hindsight(game, replace(j, its=j.yours)) == 0


class NeverClaims:
    """The basic player, who never claims roem (passes the last trick's window)."""

    def __init__(self) -> None:
        self.inner = make_player("basic")

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        action = self.inner.choose(obs, rng)
        if isinstance(action, ClaimRoem):
            others = [a for a in obs.legal if not isinstance(a, ClaimRoem)]
            return next((a for a in others if isinstance(a, Pass)), others[0])
        return action


def test_unclaimed_roem_is_judged_in_claim_mode() -> None:
    """``rules.md`` §5.5: roem of the team's trick that nobody claimed costs the roem when
    the computer would have claimed it; the reason says so."""
    preset = next(p for p in sorted(PRESETS) if PRESETS[p].get("roem") is RoemMode.CLAIM)
    basic = make_player("basic")
    never: Player = NeverClaims()
    for seed in range(1, 30):
        game = _game(preset, seed, 16, [never, basic, never, basic])
        claims = [p for p in points(game, SEAT) if p.kind is Kind.CLAIM]
        if claims:
            break
    else:
        pytest.fail("no roem in 29 games")
    costly = 0
    for p in claims:
        assert isinstance(p.action, Pass) and p.roem > 0
        j = judge(p, 0)
        assert j is not None and j.trick >= 1
        if j.cost:
            costly += 1
            assert j.cost == p.roem and j.why is Why.ROEM_NOT_CLAIMED
            assert isinstance(j.its, ClaimRoem)
    assert costly


def test_bids_are_judged_by_the_bidding_model() -> None:
    """A bid the bidding model makes costs nothing; the other option costs what the model
    says (half the difference of the predicted margins)."""
    game = _game("amsterdam", 3)
    bids = [p for p in points(game, SEAT) if p.kind in (Kind.BID, Kind.TRUMP)]
    assert bids
    for p in bids:
        j = judge(p, 0)
        assert j is not None
        if j.yours == j.its:
            assert j.cost == 0
        else:
            assert j.why in (Why.STRONG_ENOUGH, Why.TOO_WEAK, Why.OTHER_SUIT) or j.cost == 0


@pytest.mark.parametrize("preset", ["amsterdam", "klammern"])
def test_every_variant_reviews(preset: str) -> None:
    table = Settings.from_preset(preset)
    rounds = 2 if table.rounds else 0
    game = (
        _game(preset, 4, rounds)
        if rounds
        else play_game(table, 4, [make_player("basic")] * 4, random.Random(4))
    )
    review = review_game(game, SEAT, seed_of, quick(), top=3)
    assert len(review.rounds) == len(game.rounds) and len(review.worst) <= 3
