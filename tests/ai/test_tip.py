"""The tip: strong's card and the expected round scores of the best cards; pure,
deterministic for a seed, legal, and blind to hidden cards (``design.md`` §2)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import PlayCard
from engine.ai.strong import StrongPlayer
from engine.ai.tip import Suggestion, tip, tip_player
from engine.cards import Seat
from engine.game import GameState
from engine.observe import Observation, observe
from engine.round import Phase
from engine.settings import KLAVERJAS_PRESETS, Settings
from tests.ai.test_players import _swap_unseen
from tests.engine.helpers import random_game


def quick() -> StrongPlayer:
    """A strong player with a small deterministic budget (no wall clock)."""
    return StrongPlayer(max_worlds=6, node_budget=150_000, time_budget_ms=None, exact_limit=6)


def card_position(preset: str, seed: int, cards_played: int) -> tuple[GameState, Observation]:
    """A game in card play (random legal actions) after about ``cards_played`` cards, and the
    observation of the seat to play."""
    rng = random.Random(seed)
    game = GameState.new(Settings.from_preset(preset), seed)
    played = 0
    while True:
        cur = game.current
        assert cur is not None
        if cur.phase is Phase.PLAY and played >= cards_played and game.to_act is not None:
            obs = observe(game, game.to_act)
            if any(isinstance(a, PlayCard) for a in obs.legal):
                return game, obs
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        played += isinstance(action, PlayCard)
        game, _ = game.apply(action)


@pytest.mark.parametrize(("preset", "seed", "cards"), [("amsterdam", 1, 9), ("rotterdam", 4, 14)])
def test_the_tip_is_strongs_card_deterministic_legal_with_ordered_scores(
    preset: str, seed: int, cards: int
) -> None:
    """rules.md §4.5: the suggested card is legal; it is what the deterministic strong player
    plays for the same observation and seed; scores best first, at most ``top``."""
    _, obs = card_position(preset, seed, cards)
    first = tip(obs, 7, player=quick())
    assert first == tip(obs, 7, player=quick())
    assert first.action in obs.legal
    assert first.action == quick().choose(obs, random.Random(7))
    assert 1 <= len(first.scores) <= 3 and first.worlds > 0
    scores = [s.score for s in first.scores]
    assert scores == sorted(scores, reverse=True)
    legal = {a.card for a in obs.legal if isinstance(a, PlayCard)}
    assert {s.card for s in first.scores} <= legal
    assert all(s.score >= 0 for s in first.scores)
    assert len(tip(obs, 7, top=1, player=quick()).scores) == 1


def test_the_default_tip_is_the_deterministic_strong_players_choice() -> None:
    _, obs = card_position("amsterdam", 2, 18)
    got = tip(obs, 11)
    assert got.action == StrongPlayer(time_budget_ms=None).choose(obs, random.Random(11))
    assert got == tip(obs, 11)
    assert isinstance(tip_player(), StrongPlayer) and tip_player().time_budget_ms is None


def test_a_forced_card_and_the_opening_lead_still_get_scores() -> None:
    _, obs = card_position("amsterdam", 3, 0)  # the opening lead: strong plays by rule
    got = tip(obs, 1, player=quick())
    assert got.action == quick().choose(obs, random.Random(1))
    assert isinstance(got, Suggestion) and got.card is not None


def test_bidding_tip_names_strongs_choice_without_scores() -> None:
    game = GameState.new(Settings.from_preset("amsterdam"), 5)
    seat = game.to_act
    assert seat is not None
    obs = observe(game, seat)
    got = tip(obs, 3, player=quick())
    assert got.action == quick().choose(obs, random.Random(3))
    assert got.scores == () and got.card is None


def test_klammern_tip_names_the_card_without_scores() -> None:
    _, obs = card_position("klammern", 6, 5)
    got = tip(obs, 2, player=quick())
    assert got.action in obs.legal and got.scores == ()


def test_no_tip_without_a_decision() -> None:
    game, obs = card_position("amsterdam", 1, 9)
    waiting = next(s for s in Seat if s != game.to_act)
    with pytest.raises(ValueError, match="to act"):
        tip(observe(game, waiting), 1)
    with pytest.raises(ValueError, match="top"):
        tip(obs, 1, top=0)


@settings(max_examples=15, deadline=None)
@given(
    st.sampled_from(KLAVERJAS_PRESETS),
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=4, max_value=36),
    st.data(),
)
def test_no_peeking_the_tip_ignores_unseen_cards(
    preset: str, seed: int, steps: int, data: st.DataObject
) -> None:
    """Swapping unseen cards between the other hands gives the same tip."""
    game = random_game(Settings.from_preset(preset), seed, steps)
    if game.is_over or game.to_act is None:
        return
    viewer = game.to_act
    swapped = _swap_unseen(game, viewer, data)
    if swapped is None:
        return
    obs, obs2 = observe(game, viewer), observe(swapped, viewer)
    assert tip(obs, seed, player=quick()) == tip(obs2, seed, player=quick())
