"""The card-play likelihood of the strong player's worlds (``docs/design.md`` §7,
card-location inference; :class:`lab.likelihoods.PlayLikelihood`)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai.knowledge import knowledge
from engine.ai.sampler import WorldSampler
from engine.cards import Seat, Suit, card
from engine.observe import observe, observe_round
from engine.round import Phase, RoundState
from engine.settings import Settings
from lab.likelihoods import IMPOSSIBLE, PlayLikelihood
from tests.engine.helpers import chosen_and_played, random_game

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST

# Dealer West: North is forehand and leads. East has no spades. Hearts are trump.
HANDS = [
    "AS 9S JH 7D 8D 9D 7C 8C",  # North
    "7H 8H QH 10D JD QD 9C 10C",  # East: void in spades
    "10S KS 8S AD KD 9H JC QC",  # South
    "7S QS JS 10H KH AH KC AC",  # West
]


def _after(moves: list[str]) -> RoundState:
    return chosen_and_played("amsterdam", HANDS, Suit.HEARTS, moves)


def _hands(state: RoundState) -> tuple[int, int, int, int]:
    h = state.hands
    return (h[0], h[1], h[2], h[3])


def _swap(
    hands: tuple[int, int, int, int], a: int, b: int, cards: list[str], back: list[str]
) -> tuple[int, int, int, int]:
    out = list(hands)
    for x, y in zip(cards, back, strict=True):
        bx, by = card(x).bit, card(y).bit
        assert out[a] & bx and out[b] & by
        out[a] ^= bx | by
        out[b] ^= bx | by
    return (out[0], out[1], out[2], out[3])


def test_a_ten_given_to_the_opponents_trick_makes_its_spare_low_cards_unlikely() -> None:
    # North leads AS, East (void) must trump (§4.4), South gives the 10S to East's trick.
    state = _after(["AS", "7H", "10S"])
    lik = PlayLikelihood(observe_round(state, N))
    assert lik.informative
    real = _hands(state)  # South still holds KS 8S: it chose the 10 over them
    forced = _swap(real, 2, 0, ["KS", "8S"], ["7D", "8D"])  # South had no other spade
    # East's ruff weighs the same in both worlds; South's forced 10 says nothing.
    assert lik.log_weight(forced) - lik.log_weight(real) > math.log(4)


def test_a_low_card_is_the_likely_one_and_the_viewer_itself_is_not_modelled() -> None:
    state = _after(["AS", "7H", "8S"])  # South gives its lowest spade
    real = _hands(state)  # South kept 10S and KS: the low card was the natural choice
    bare = _swap(real, 2, 0, ["10S", "KS"], ["7D", "8D"])  # or it had no other spade
    # From East's view only South's card is modelled (East's own ruff and the lead are not).
    east = PlayLikelihood(observe_round(state, E))
    assert east.log_weight(bare) == 0.0
    assert math.log(1 / 2) < east.log_weight(real) < 0.0
    # North's view adds East's choice among its trumps, the same in both worlds.
    north = PlayLikelihood(observe_round(state, N))
    ruff = north.log_weight(bare)
    assert ruff < 0.0
    assert north.log_weight(real) - ruff == pytest.approx(east.log_weight(real))


def test_a_world_against_the_rules_is_all_but_excluded() -> None:
    state = _after(["AS", "7H", "8S"])
    lik = PlayLikelihood(observe_round(state, N))
    # East holding a spade would have had to follow suit with it.
    wrong = _swap(_hands(state), 1, 0, ["8H"], ["9S"])
    assert lik.log_weight(wrong) <= IMPOSSIBLE


@settings(max_examples=40)
@given(
    st.sampled_from(["amsterdam", "rotterdam", "klammern"]),
    st.integers(0, 2**31),
    st.integers(8, 60),
)
def test_sampled_worlds_have_a_finite_weight_no_higher_than_certainty(
    preset: str, seed: int, steps: int
) -> None:
    game = random_game(Settings.from_preset(preset), seed, steps)
    cur = game.current
    if cur is None or cur.phase is not Phase.PLAY or game.to_act is None:
        return
    obs = observe(game, game.to_act)
    lik = PlayLikelihood(obs)
    truth = _hands(cur)
    assert IMPOSSIBLE < lik.log_weight(truth) <= 0.0
    sampler = WorldSampler(knowledge(obs))
    rng = random.Random(seed)
    for _ in range(5):
        w = lik.log_weight(sampler.sample(rng))
        assert IMPOSSIBLE < w <= 0.0
