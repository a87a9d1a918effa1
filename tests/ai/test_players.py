"""The computer players: legal actions only, no peeking, determinism, bidding decisions, roem
claims, Klammern declarations (``rules.md`` §3–§9)."""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import (
    Accept,
    Action,
    Choose,
    ClaimRoem,
    Declare,
    Kleintje,
    Pass,
    PlayCard,
)
from engine.ai import make_player
from engine.ai.basic import BasicPlayer
from engine.ai.ismcts import IsmctsPlayer
from engine.ai.strong import StrongPlayer
from engine.cards import CARDS, SEATS, Seat, Suit
from engine.game import GameState
from engine.observe import Observation, observe
from engine.players import Player
from engine.round import Phase
from engine.settings import KLAVERJAS_PRESETS, Settings
from tests.engine.helpers import fixed_deal, random_game, round_from, swap_unseen_cards

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST

ALL_SETTINGS = [
    *(Settings.from_preset(p) for p in KLAVERJAS_PRESETS),
    Settings.from_preset("klammern"),
    Settings.from_preset("klammern", auto_declare=True),
]


def quick_strong() -> StrongPlayer:
    """A strong player with a small deterministic budget (no wall clock) for tests."""
    return StrongPlayer(max_worlds=6, node_budget=150_000, time_budget_ms=None, exact_limit=6)


def quick_ismcts() -> IsmctsPlayer:
    """An ISMCTS player with few iterations, the quick strong player for the rest."""
    return IsmctsPlayer(iterations=40, rollouts=2, fallback=quick_strong())


PLAYERS: list[Player] = [quick_strong(), BasicPlayer(), make_player("random"), quick_ismcts()]


def test_make_player_levels() -> None:
    assert isinstance(make_player("strong"), StrongPlayer)
    assert isinstance(make_player("basic"), BasicPlayer)
    assert make_player("random").__class__.__name__ == "RandomPlayer"
    assert isinstance(make_player("ismcts"), IsmctsPlayer)
    assert isinstance(make_player(), StrongPlayer)
    with pytest.raises(ValueError):
        make_player("grandmaster")


def test_players_pickle() -> None:
    for level in ("strong", "basic", "random", "ismcts"):
        p = pickle.loads(pickle.dumps(make_player(level)))
        assert hasattr(p, "choose")


@settings(max_examples=40)
@given(
    st.sampled_from(ALL_SETTINGS),
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=0, max_value=40),
)
def test_players_return_only_legal_actions(table: Settings, seed: int, steps: int) -> None:
    game = random_game(table, seed, steps)
    if game.is_over:
        return
    for seat in SEATS:
        obs = observe(game, seat)
        if not obs.legal:
            continue
        for player in PLAYERS:
            action = player.choose(obs, random.Random(seed))
            assert action in obs.legal, (player, action)


@pytest.mark.parametrize("table", ALL_SETTINGS, ids=lambda s: f"{s.preset}{int(s.auto_declare)}")
def test_a_whole_round_of_computer_players_is_legal(table: Settings) -> None:
    """One round per preset with strong and basic partners: every action accepted."""
    game = GameState.new(table, 11)
    players: list[Player] = [quick_strong(), BasicPlayer(), quick_strong(), BasicPlayer()]
    start = game.round_number
    game = play_round(game, players)
    assert game.round_number != start or game.is_over or game.redeals


def play_round(
    game: GameState,
    players: list[Player],
    check: Callable[[Seat, Observation, Action, int], None] | None = None,
) -> GameState:
    """The game after ``players`` (by seat) played its current round, every action checked
    to be legal (and by ``check(seat, obs, action, n)`` when given; ``n``: the action's
    number, its rng seed)."""
    start, n = game.round_number, 0
    while not game.is_over and game.round_number == start and n < 200:
        seat = game.to_act
        assert seat is not None
        obs = observe(game, seat)
        action = players[seat].choose(obs, random.Random(n))
        assert action in obs.legal
        if check is not None:
            check(seat, obs, action, n)
        game, _ = game.apply(action)
        n += 1
    return game


def _swap_unseen(game: GameState, viewer: Seat, data: st.DataObject) -> GameState | None:
    """The game with one unseen card swapped between two other players (Klammern: declared
    cards, the proposed card and the trump K/Q of a possible bella count as seen), or None
    when there is nothing to swap."""
    state = game.current
    assert state is not None
    public = state.deal.dealer_middle_card.bit if state.klammern is not None else 0
    if state.klammern is not None:
        for d in state.klammern.declarations:
            for c in d.cards:
                public |= c.bit
        if state.trump is not None:
            t = state.trump.ordinal
            public |= (1 << (8 * t + 5)) | (1 << (8 * t + 6))
    swapped = swap_unseen_cards(state, viewer, data, public)
    if swapped is None:
        return None
    return replace(game, current=swapped)


@settings(max_examples=30)
@given(
    st.sampled_from(ALL_SETTINGS),
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=0, max_value=36),
    st.data(),
)
def test_no_peeking_choice_ignores_unseen_cards(
    table: Settings, seed: int, steps: int, data: st.DataObject
) -> None:
    game = random_game(table, seed, steps)
    if game.is_over or game.to_act is None:
        return
    viewer = game.to_act
    swapped = _swap_unseen(game, viewer, data)
    if swapped is None:
        return
    obs, obs2 = observe(game, viewer), observe(swapped, viewer)
    assert obs == obs2
    for player in (quick_strong(), BasicPlayer(), quick_ismcts()):
        assert player.choose(obs, random.Random(seed)) == player.choose(obs2, random.Random(seed))


def test_strong_is_deterministic_for_a_seed() -> None:
    game = random_game(Settings.from_preset("amsterdam"), 3, 14)
    seat = game.to_act
    assert seat is not None
    obs = observe(game, seat)
    p = StrongPlayer(max_worlds=8, node_budget=400_000, time_budget_ms=None)
    first = p.choose(obs, random.Random(9))
    assert all(p.choose(obs, random.Random(9)) == first for _ in range(3))


@pytest.mark.parametrize("preset", ["amsterdam", "rotterdam"])
def test_ismcts_is_deterministic_for_a_seed_and_plays_whole_rounds(preset: str) -> None:
    """The same observation and seed give the same card; a round of ISMCTS seats
    against strong seats has only accepted actions."""
    players: list[Player] = [quick_ismcts(), quick_strong(), quick_ismcts(), quick_strong()]
    searched: list[Action] = []

    def again(seat: Seat, obs: Observation, action: Action, n: int) -> None:
        if seat in (N, S) and isinstance(action, PlayCard) and len(obs.legal) > 1:
            assert players[seat].choose(obs, random.Random(n)) == action
            searched.append(action)

    play_round(GameState.new(Settings.from_preset(preset), 21), players, again)
    assert len(searched) >= 4


# --- bidding -------------------------------------------------------------------------------

STRONG_HEARTS = "JH 9H AH 10H KH AS AD AC"
WEAK = "7S 8S 7H 8H 7D 8D 9C 8C"
FILLER = [
    "QH 8H 7H 10S 9S 10D 9D 10C",
    "JS QS KS JD QD KD JC QC",
    "7S 8S 7D 8D 7C 8C 9C KC",
]


def _bidding_obs(preset: str, north: str, **overrides: object):  # type: ignore[no-untyped-def]
    others = list(FILLER)
    used = set(north.split())
    pool = [str(c) for c in CARDS if str(c) not in used]
    hands = [north.split(), pool[0:8], pool[8:16], pool[16:24]]
    deal = fixed_deal(3, [" ".join(h) for h in hands])  # dealer West: North is forehand
    state = round_from(Settings.from_preset(preset, **overrides), deal)
    del others
    return observe(state, N)


@pytest.mark.parametrize("player", [quick_strong(), BasicPlayer()], ids=["strong", "basic"])
def test_bidding_strong_hand_names_its_suit(player: Player) -> None:
    for preset in ("amsterdam", "rotterdam", "utrecht"):
        obs = _bidding_obs(preset, STRONG_HEARTS)
        assert player.choose(obs, random.Random(1)) == Choose(N, Suit.HEARTS)


@pytest.mark.parametrize("player", [quick_strong(), BasicPlayer()], ids=["strong", "basic"])
def test_bidding_weak_forehand_passes_when_allowed_and_chooses_when_forced(
    player: Player,
) -> None:
    obs = _bidding_obs("amsterdam", WEAK)
    assert player.choose(obs, random.Random(1)) == Pass(N)
    forced = _bidding_obs("utrecht", WEAK)
    assert isinstance(player.choose(forced, random.Random(1)), Choose)


@pytest.mark.parametrize("player", [quick_strong(), BasicPlayer()], ids=["strong", "basic"])
def test_klammern_bidding_accepts_a_strong_proposed_suit_and_passes_a_weak_one(
    player: Player,
) -> None:
    # Dealer West: the proposed card is West's 7th card; build hands so that it is a heart.
    pool = [str(c) for c in CARDS if str(c) not in STRONG_HEARTS.split()]
    hearts_left = [c for c in pool if c.endswith("H")]
    rest = [c for c in pool if c not in hearts_left]
    west = [*rest[:6], hearts_left[0], rest[6]]
    others = list(rest[7:])
    hands = [STRONG_HEARTS, " ".join(others[0:8]), " ".join(others[8:16]), " ".join(west)]
    state = round_from(Settings.from_preset("klammern"), fixed_deal(3, hands))
    obs = observe(state, N)
    assert obs.shown == (Suit.HEARTS,)
    assert player.choose(obs, random.Random(1)) == Accept(N)
    weak = [WEAK, " ".join(others[0:8]), " ".join(others[8:16]), " ".join(west)]
    used = set(" ".join(weak).split())
    if len(used) == 32:
        state = round_from(Settings.from_preset("klammern"), fixed_deal(3, weak))
        assert player.choose(observe(state, N), random.Random(1)) == Pass(N)


def test_klammern_kleintje_round_offers_are_answered_legally() -> None:
    game = GameState.new(Settings.from_preset("klammern"), 5)
    for _ in range(4):
        seat = game.to_act
        assert seat is not None
        game, _ = game.apply(Pass(seat))
    seat = game.to_act
    assert seat is not None
    obs = observe(game, seat)
    assert any(isinstance(a, Kleintje) for a in obs.legal)
    for player in (quick_strong(), BasicPlayer()):
        assert player.choose(obs, random.Random(2)) in obs.legal


# --- claims and declarations --------------------------------------------------------------


def test_computer_claims_its_roem_in_claim_mode() -> None:
    found = 0
    rng = random.Random(8)
    game = GameState.new(Settings.from_preset("klassiek", rounds=8), 8)
    while not game.is_over and found < 6:
        seat = game.to_act
        assert seat is not None and game.current is not None
        legal = game.legal_actions()
        if game.current.phase is Phase.PLAY and any(isinstance(a, ClaimRoem) for a in legal):
            found += 1
            obs = observe(game, seat)
            for player in (BasicPlayer(), quick_strong()):
                assert isinstance(player.choose(obs, random.Random(0)), ClaimRoem)
        plain = [a for a in legal if not isinstance(a, ClaimRoem)]
        game, _ = game.apply(plain[rng.randrange(len(plain))])
    assert found


def test_computer_declares_every_klammern_sequence_before_its_first_card() -> None:
    found = 0
    rng = random.Random(4)
    for seed in range(40):
        game = GameState.new(Settings.from_preset("klammern"), seed)
        while not game.is_over and game.round_number == 1 and found < 8:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_actions()
            declares = [a for a in legal if isinstance(a, Declare)]
            if declares:
                found += 1
                obs = observe(game, seat)
                for player in (BasicPlayer(), quick_strong()):
                    assert player.choose(obs, random.Random(0)) in declares
            plain = [a for a in legal if not isinstance(a, Declare)]
            game, _ = game.apply(plain[rng.randrange(len(plain))])
            if game.current is not None and game.current.tricks:
                break
    assert found


def test_playing_team_that_is_nat_anyway_does_not_claim_the_last_roem() -> None:
    from engine.ai.view import should_claim

    game = random_game(Settings.from_preset("klassiek"), 1, 0)
    obs = observe(game, N)
    assert should_claim(obs)  # nothing decided yet: claim


def test_strong_plays_a_forced_card_without_search() -> None:
    hands = [
        "AS 9S JH 7D 8D 9D 7C 8C",
        "7H 8H QH 10D JD QD 9C 10C",
        "10S KS 9H AD KD 8S JC QC",
        "7S QS JS 10H KH AH KC AC",
    ]
    state = round_from(Settings.from_preset("amsterdam"), fixed_deal(3, hands))
    state, _ = state.apply(Choose(N, Suit.HEARTS))
    state, _ = state.apply(PlayCard(N, CARDS[8 * 2 + 0]))  # 7D led
    obs = observe(state, E)
    legal = [a for a in obs.legal if isinstance(a, PlayCard)]
    p = StrongPlayer(max_worlds=1, node_budget=1, time_budget_ms=None)
    assert p.choose(obs, random.Random(0)) in legal


def test_trump_model_coefficients_fit_the_current_hand_features() -> None:
    """engine/ai/bidcoef.py is generated by scripts/fit_bidding.py and stamps the feature
    names it was fitted on: a change of engine.ai.handeval.features needs a refit."""
    from engine.ai import bidcoef, handeval

    assert bidcoef.FEATURES == handeval.FEATURES
    for coefs in (bidcoef.AMSTERDAM, bidcoef.ROTTERDAM, bidcoef.KLAMMERN):
        assert len(coefs) == len(handeval.FEATURES)
    assert len(handeval.features(0xFF, 0, 0)) == len(handeval.FEATURES)
