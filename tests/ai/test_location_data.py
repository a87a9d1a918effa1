"""The card-location model's training games (``scripts/gen_location_data.py``): a
generated round replays to the strong seats' observations with the true hands."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from engine.actions import PlayCard
from engine.ai import make_player
from engine.cards import Seat
from tests.ai.scripts import load_script


def _script() -> ModuleType:
    return load_script("scripts/gen_location_data.py")


def test_a_generated_round_replays_to_the_strong_seats_views_with_the_true_hands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gen = _script()
    # strong by its node budget only: the same round on a loaded machine (the count of
    # moments below depends on who plays the last trick's cards)
    monkeypatch.setattr(gen, "make_player", lambda level: make_player(level, deterministic=True))
    rows = gen._play(("amsterdam", "random", 77, 3, 4))
    assert len(rows) == 2  # both tables of the deal
    assert [r["strong"] for r in rows] == [[0, 2], [1, 3]]
    for generated in rows:
        row = json.loads(json.dumps(generated))  # as stored
        decisions = list(gen.replay(row))
        assert len(decisions) == 16  # two strong seats, eight cards each
        for obs, hands in decisions:
            assert obs.seat is not None and int(obs.seat) in row["strong"]
            assert sum(c.bit for c in obs.hand) == hands[int(obs.seat)]
            assert any(isinstance(a, PlayCard) for a in obs.legal)
        every = list(gen.replay(row, every=True))
        assert len(every) == 2 * 32 - 2  # both seats before every card but their last
        seats = {int(o.seat) for o, _ in every if o.seat is not None}
        assert seats == set(row["strong"])
        assert all(o.seat in (Seat(s) for s in row["strong"]) for o, _ in every)
