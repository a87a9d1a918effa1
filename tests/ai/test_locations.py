"""The learned card-location model and the worlds drawn from it (
:mod:`engine.ai.locations`, ``ai-notes.md`` §4.1 item 2)."""

from __future__ import annotations

import logging
import math
import random
import struct
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai.knowledge import Knowledge, knowledge
from engine.ai.locations import (
    N_FEATURES,
    N_OUTPUTS,
    LocationModel,
    ModelSampler,
    card_order,
    features,
    model,
    supported,
)
from engine.ai.sampler import WorldSampler, enumerate_worlds
from engine.ai.strong import StrongPlayer
from engine.game import GameState
from engine.observe import Observation, observe
from engine.phase import Phase
from engine.settings import Settings
from tests.engine.helpers import random_game, swap_unseen_cards


def _play_obs(preset: str, seed: int, steps: int) -> Observation | None:
    """The observation of the seat to act after ``steps`` random actions, in the card play."""
    game: GameState = random_game(Settings.from_preset(preset), seed, steps)
    if game.is_over or game.to_act is None:
        return None
    obs = observe(game, game.to_act)
    return obs if obs.phase is Phase.PLAY and obs.trick is not None and obs.legal else None


def test_card_order_puts_the_trump_suit_first_and_is_a_permutation() -> None:
    for trump in range(4):
        order = card_order(trump)
        assert sorted(order) == list(range(32))
        assert [order[trump * 8 + r] for r in range(8)] == list(range(8))
        plain = [s for s in range(4) if s != trump]
        assert [order[plain[0] * 8 + r] for r in range(8)] == list(range(8, 16))


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["amsterdam", "rotterdam", "utrecht"]),
    st.integers(0, 2**32),
    st.integers(2, 34),
)
def test_features_are_sorted_distinct_and_in_range(preset: str, seed: int, steps: int) -> None:
    obs = _play_obs(preset, seed, steps)
    if obs is None:
        return
    f = features(obs, knowledge(obs))
    assert f == sorted(set(f))
    assert f[0] >= 0 and f[-1] < N_FEATURES
    # One flag per card the viewer holds or saw played, per card a seat cannot hold, four
    # scalars (maker, rule, tricks, cards in the trick) and one per other seat that passed.
    seen = len(obs.hand) + sum(len(t.cards) for t in obs.tricks) + len(obs.trick)
    cannot = sum(knowledge(obs).cannot[s].bit_count() for s in range(4))
    passes = len(f) - seen - cannot - 4
    assert 0 <= passes <= 3


def test_supported_tables() -> None:
    obs = {p: _first_play_obs(p) for p in ("amsterdam", "rotterdam", "utrecht", "klammern")}
    assert supported(obs["amsterdam"]) and supported(obs["rotterdam"])
    assert not supported(obs["utrecht"]) and not supported(obs["klammern"])


def _first_play_obs(preset: str) -> Observation:
    for seed in range(50):
        for steps in range(2, 12):
            obs = _play_obs(preset, seed, steps)
            if obs is not None:
                return obs
    raise AssertionError("no play-phase observation")


def test_the_packaged_model_weights_cards_by_seat() -> None:
    obs = _play_obs("amsterdam", 5, 12) or _first_play_obs("amsterdam")
    k = knowledge(obs)
    w = model().seat_weights(obs, k)
    assert set(w) == {c for c in range(32) if k.unknown >> c & 1}
    for c, ws in w.items():
        assert max(ws) > 0
        for j, s in enumerate(k.others()):
            assert (ws[j] == 0) == bool(k.cannot[s] >> c & 1)


def _blob(f: int, h: int, o: int, values: int | None = None) -> bytes:
    n = f * h + h + o * h + o if values is None else values
    return struct.pack("<3i", f, h, o) + struct.pack(f"<{n}f", *([0.0] * n))


def test_a_weights_file_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="shape"):
        LocationModel(_blob(N_FEATURES - 1, 4, N_OUTPUTS))
    with pytest.raises(ValueError, match="expected"):
        LocationModel(_blob(N_FEATURES, 4, N_OUTPUTS, values=10))  # too short
    with pytest.raises(ValueError, match="expected"):
        n = N_FEATURES * 4 + 4 + N_OUTPUTS * 4 + N_OUTPUTS
        LocationModel(_blob(N_FEATURES, 4, N_OUTPUTS, values=n + 1))  # too long
    with pytest.raises(ValueError, match="cut"):
        LocationModel(_blob(N_FEATURES, 4, N_OUTPUTS) + b"\x00")
    zero = LocationModel(_blob(N_FEATURES, 4, N_OUTPUTS))
    assert zero.logits([0, 5, N_FEATURES - 1]) == [0.0] * N_OUTPUTS


def _late_knowledge(seed: int) -> Knowledge | None:
    obs = _play_obs("amsterdam", seed, 4 + 16 + seed % 6)
    if obs is None:
        return None
    k = knowledge(obs)
    worlds = enumerate_worlds(WorldSampler(k), 400)
    if worlds is None or not 6 <= len(worlds) <= 60:
        return None
    return k


def test_the_sampler_draws_deals_in_proportion_to_their_weights() -> None:
    """Exact: each consistent deal is drawn with probability proportional to the product of
    its cards' weights raised to ``alpha`` (computed here from the raw weights, not from the
    sampler's tables): per-world and per-card frequencies within sampling error."""
    k = next(x for x in map(_late_knowledge, range(300)) if x is not None)
    rng = random.Random(7)
    weights = {
        c: (rng.random() + 0.05, rng.random() + 0.05, rng.random() + 0.05)
        for c in range(32)
        if k.unknown >> c & 1
    }
    alpha = 1.5
    ms = ModelSampler(k, weights, alpha=alpha)
    assert ms.ok
    worlds = enumerate_worlds(WorldSampler(k), 400)
    assert worlds is not None
    others = k.others()

    def product(h: tuple[int, int, int, int]) -> float:
        out = 1.0
        for c, ws in weights.items():
            j = next(j for j, s in enumerate(others) if h[s] >> c & 1)
            out *= ws[j] ** alpha
        return out

    raw = {h: product(h) for h in worlds}
    total = sum(raw.values())
    expected = {h: x / total for h, x in raw.items()}
    for h in worlds:  # log_weight agrees up to one constant
        ratio = ms.log_weight(h) - math.log(raw[h])
        assert ratio == pytest.approx(ms.log_weight(worlds[0]) - math.log(raw[worlds[0]]))
    n = 20_000
    draws = Counter(ms.sample(random.Random(11 + i)) for i in range(n))
    assert set(draws) <= set(expected)  # only consistent deals
    for h, p in expected.items():
        sd = math.sqrt(p * (1 - p) / n)
        assert abs(draws[h] / n - p) <= 4.5 * sd + 2 / n
    for c in weights:  # per card and seat
        for s in others:
            p = sum(q for h, q in expected.items() if h[s] >> c & 1)
            got = sum(m for h, m in draws.items() if h[s] >> c & 1) / n
            assert abs(got - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 2 / n
    # alpha = 0 is uniform over the consistent deals.
    flat = Counter(ModelSampler(k, weights, alpha=0.0).sample(random.Random(i)) for i in range(n))
    for h in worlds:
        p = 1 / len(worlds)
        assert abs(flat[h] / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 2 / n


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(4, 34))
def test_drawn_deals_fit_the_knowledge(seed: int, steps: int) -> None:
    obs = _play_obs("rotterdam", seed, steps)
    if obs is None:
        return
    k = knowledge(obs)
    ms = ModelSampler(k, model().seat_weights(obs, k), alpha=0.7)
    assert ms.ok
    rng = random.Random(seed)
    for _ in range(5):
        hands = ms.sample(rng)
        assert sum(hands) == (1 << 32) - 1 - k.played
        for s in range(4):
            assert hands[s].bit_count() == obs.hand_counts[s]
            assert not hands[s] & k.cannot[s]
            assert hands[s] & k.must[s] == k.must[s]


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["amsterdam", "rotterdam"]),
    st.integers(0, 2**32),
    st.integers(4, 36),
    st.data(),
)
def test_strong_with_the_model_plays_legal_cards_and_never_peeks(
    preset: str, seed: int, steps: int, data: st.DataObject
) -> None:
    """The model sees only the observation: swapping unseen cards between the other players
    changes neither the features nor the card chosen (no-peeking property)."""
    game = random_game(Settings.from_preset(preset), seed, steps)
    if game.is_over or game.to_act is None:
        return
    viewer = game.to_act
    state = game.current
    assert state is not None
    swapped = swap_unseen_cards(state, viewer, data)
    if swapped is None:
        return
    obs, obs2 = observe(game, viewer), observe(replace(game, current=swapped), viewer)
    assert obs == obs2
    player = StrongPlayer(
        max_worlds=6, node_budget=150_000, time_budget_ms=None, exact_limit=6, locations=True
    )
    first = player.choose(obs, random.Random(seed))
    assert first in obs.legal
    assert player.choose(obs2, random.Random(seed)) == first
    if obs.phase is Phase.PLAY and supported(obs):
        k = knowledge(obs)
        assert features(obs, k) == features(obs2, knowledge(obs2))


def _early_obs() -> Observation:
    """An amsterdam observation in the second trick: too many deals to enumerate."""
    for seed in range(100):
        obs = _play_obs("amsterdam", seed, 8)
        if obs is not None and len(obs.tricks) == 1 and len(obs.legal) > 1:
            return obs
    raise AssertionError("no early observation")


def test_strong_draws_its_worlds_from_the_model_only_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    obs = _early_obs()
    calls: list[int] = []
    real = ModelSampler.sample

    def counted(self: ModelSampler, rng: random.Random) -> tuple[int, int, int, int]:
        calls.append(1)
        return real(self, rng)

    monkeypatch.setattr(ModelSampler, "sample", counted)
    quick = {"max_worlds": 4, "node_budget": 200_000, "time_budget_ms": None}
    StrongPlayer(**quick, locations=False).choose(obs, random.Random(1))  # type: ignore[arg-type]
    assert not calls
    StrongPlayer(**quick).choose(obs, random.Random(1))  # type: ignore[arg-type]
    assert calls  # the default draws from the model


def test_a_broken_weights_file_falls_back_to_uniform_worlds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A weights file that cannot be loaded never stops a computer player: it plays with
    uniform worlds, as without the model, and says so once in the log."""
    obs = _early_obs()
    bad = tmp_path / "locations.bin"
    bad.write_bytes(b"\x00\x01")
    quick = {"max_worlds": 4, "node_budget": 200_000, "time_budget_ms": None}
    broken = StrongPlayer(**quick, location_file=str(bad))  # type: ignore[arg-type]
    plain = StrongPlayer(**quick, locations=False)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="engine.ai.strong"):
        for seed in range(3):
            assert broken.choose(obs, random.Random(seed)) == plain.choose(obs, random.Random(seed))
    assert sum("card-location model" in r.getMessage() for r in caplog.records) == 1
    with pytest.raises(ValueError, match="header"):
        LocationModel(b"\x00\x01")
