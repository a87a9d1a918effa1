"""``bench/bench_regret.py``: a decision's regret is what its card gives away against
the best card of the true deal, so the clairvoyant choice has none and no card has less."""

from __future__ import annotations

import random
from types import ModuleType

import pytest

from engine.actions import Action, PlayCard
from engine.ai import make_player
from engine.ai.tournament import duplicate_rows
from engine.observe import Observation
from engine.round import RoundState
from engine.settings import Settings
from tests.ai.scripts import load_script, tournament_diffs


def _script() -> ModuleType:
    return load_script("bench/bench_regret.py")


def test_the_games_are_the_tournaments_and_every_regret_is_a_loss_or_nothing() -> None:
    bench = _script()
    diffs, rows = bench.play(("basic", "random", "amsterdam", 11, 0, 1))
    assert diffs == tournament_diffs("basic", "random", "amsterdam", 11, 0, 1)
    assert {r[0] for r in rows} == {"a", "b"}
    assert all(r[4] >= 0 for r in rows)
    assert all(1 <= r[2] <= 8 and 0 <= r[3] <= 3 for r in rows)
    assert {r[1] for r in rows} <= {"playing", "defenders"}
    # random gives away more than the rules of thumb on the same deal, both tables
    per = bench.breakdown(rows, 1)
    assert per["b"]["per_round"] > per["a"]["per_round"]


def test_the_clairvoyant_card_has_no_regret() -> None:
    bench = _script()
    rows: list[tuple[str, str, int, int, float]] = []

    class Clairvoyant:
        """Plays the best card of the true deal (the bench's own values)."""

        def __init__(self) -> None:
            self.state: RoundState | None = None

        def choose(self, obs: Observation, rng: random.Random) -> Action:
            plays = [a for a in obs.legal if isinstance(a, PlayCard)]
            if not plays or len(plays) == 1:
                return make_player("basic").choose(obs, rng)
            assert self.state is not None
            values = bench.oracle_values(obs, self.state.hands)
            best = max(values, key=lambda c: values[c])
            return next(a for a in plays if a.card.index == best)

    seer = Clairvoyant()
    a = bench.Recorder("a", seer, rows)
    b = bench.Recorder("b", make_player("basic"), rows)

    def before(state: RoundState, seat: object) -> None:
        seer.state = state
        a.before(state, seat)
        b.before(state, seat)

    duplicate_rows(Settings.from_preset("rotterdam"), a, b, 3, 0, 1, before)
    mine = [r for r in rows if r[0] == "a"]
    assert len(mine) >= 8
    assert all(r[4] == 0 for r in mine)
    assert any(r[4] > 0 for r in rows if r[0] == "b")  # basic is not clairvoyant


def test_the_breakdown_is_per_round_of_a_team_and_adds_up() -> None:
    bench = _script()
    rows = [
        ("a", "playing", 1, 0, 20.0),
        ("a", "defenders", 2, 1, 6.0),
        ("a", "playing", 2, 0, 10.0),
        ("b", "defenders", 8, 3, 4.0),
    ]
    out = bench.breakdown(rows, 2)  # 2 deals: 4 rounds a team
    a = out["a"]
    assert a["per_round"] == pytest.approx(9.0)
    assert a["trick"] == {"1": pytest.approx(5.0), "2": pytest.approx(4.0)}
    assert a["position"] == {"0": pytest.approx(7.5), "1": pytest.approx(1.5)}
    assert a["role"] == {"defenders": pytest.approx(1.5), "playing": pytest.approx(7.5)}
    assert a["decisions"] == {"defenders t2 p1": 1, "playing t1 p0": 1, "playing t2 p0": 1}
    assert out["b"]["per_round"] == pytest.approx(1.0)


def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _script()
    for argv, said in [
        (["--deals", "0"], "at least 1"),
        (["--a", "nope"], "unknown computer level"),
        (["--preset", "bridge"], "invalid choice"),
    ]:
        with pytest.raises(SystemExit):
            bench.main(argv)
        assert said in capsys.readouterr().err
