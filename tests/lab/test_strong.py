"""``lab.strong.LabStrongPlayer`` without options plays exactly as the product's ``strong``
(its hooks, :meth:`~engine.ai.strong.StrongPlayer._likelihoods` and ``_pick``, add nothing
then), and its play likelihood changes the worlds' weights."""

from __future__ import annotations

import random

from engine.actions import Action
from engine.ai.strong import StrongPlayer
from engine.game import GameState
from engine.observe import observe
from engine.settings import Settings
from lab.strong import LabStrongPlayer

QUICK = {"max_worlds": 8, "node_budget": 300_000, "time_budget_ms": None}


def _decisions(preset: str, seed: int, n: int) -> list[tuple[Action, Action]]:
    """``(lab card, strong card)`` for the first ``n`` decisions of a game both play."""
    game = GameState.new(Settings.from_preset(preset), seed)
    lab = LabStrongPlayer(**QUICK)  # type: ignore[arg-type]
    strong = StrongPlayer(**QUICK)  # type: ignore[arg-type]
    out = []
    for i in range(n):
        seat = game.to_act
        if seat is None:
            break
        obs = observe(game, seat)
        a = lab.choose(obs, random.Random(i))
        b = strong.choose(obs, random.Random(i))
        out.append((a, b))
        game, _ = game.apply(b)
    return out


def test_without_options_it_plays_as_strong() -> None:
    for preset in ("amsterdam", "klammern"):
        pairs = _decisions(preset, 11, 40)
        assert len(pairs) == 40
        assert all(a == b for a, b in pairs)


def test_the_options_add_their_likelihoods_after_the_products() -> None:
    game = GameState.new(Settings.from_preset("amsterdam"), 5)
    while game.current is not None and len(game.current.tricks) < 2:
        seat = game.to_act
        assert seat is not None
        game, _ = game.apply(StrongPlayer(**QUICK).choose(observe(game, seat), random.Random(0)))  # type: ignore[arg-type]
    seat = game.to_act
    assert seat is not None
    obs = observe(game, seat)
    plain = LabStrongPlayer(**QUICK)._likelihoods(obs)  # type: ignore[arg-type]
    more = LabStrongPlayer(play_beta=0.15, signals=True, **QUICK)._likelihoods(obs)  # type: ignore[arg-type]
    assert [type(x).__name__ for x in more] == [
        *(type(x).__name__ for x in plain),
        "PlayLikelihood",
        "SignalLikelihood",
    ]
