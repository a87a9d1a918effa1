"""The duplicate tournament tool: CLI, JSON keys, duplicate seating."""

from __future__ import annotations

import argparse
import json

import pytest

from engine.ai import level_arg, tournament
from engine.ai.strong import StrongPlayer
from engine.players import Player, RandomPlayer
from engine.round import RoundState
from engine.settings import Settings

KEYS = {
    "deals",
    "mean_diff",
    "ci95_low",
    "ci95_high",
    "made_share",
    "nat_share",
    "decision_ms_median",
    "decision_ms_p95",
}


def _quick(level: str) -> Player:
    if level == "strong":
        return StrongPlayer(max_worlds=4, node_budget=100_000, time_budget_ms=None)
    from engine.ai import make_player

    return make_player(level)


def test_cli_json_has_the_issue_keys(capsys: pytest.CaptureFixture[str]) -> None:
    rc = tournament.main(
        ["--a", "basic", "--b", "random", "--deals", "6", "--seed", "3", "--preset", "amsterdam",
         "--json"]
    )  # fmt: skip
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= KEYS
    assert out["deals"] == 6
    assert out["ci95_low"] <= out["mean_diff"] <= out["ci95_high"]
    assert 0 <= out["made_share"] <= 1 and abs(out["made_share"] + out["nat_share"] - 1) < 1e-9


def test_cli_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert tournament.main(["--a", "random", "--b", "basic", "--deals", "2"]) == 0
    text = capsys.readouterr().out
    assert "random vs basic" in text and "95% CI" in text and "decision time" in text


def test_same_player_on_both_sides_scores_zero_exactly() -> None:
    """Duplicate: with the same deterministic player everywhere both tables mirror each other."""
    r = tournament.run("basic", "basic", 8, 5, "rotterdam")
    assert r["mean_diff"] == 0


@pytest.mark.parametrize("preset", ["amsterdam", "klassiek", "klammern"])
def test_strong_plays_a_few_duplicate_deals(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tournament, "make_player", _quick)
    r = tournament.run("strong", "basic", 2, 1, preset)
    assert set(r) >= KEYS
    assert isinstance(r["decisions"], int) and r["decisions"] > 0
    if preset == "klammern":
        assert {"points_diff", "contra_share", "re_share", "voided"} <= set(r)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        tournament.run("strong", "nobody", 1, 1, "amsterdam")
    with pytest.raises(ValueError):
        tournament.run("basic", "basic", 0, 1, "amsterdam")
    with pytest.raises(ValueError):
        tournament.run("basic", "basic", 1, 1, "bridge")


def test_level_options_reach_the_player() -> None:
    """``level:key=value`` specs (A/B tests of one setting)."""
    from engine.ai import make_player, parse_level

    assert parse_level("strong:play_beta=0, max_worlds=32") == (
        "strong",
        {"play_beta": 0, "max_worlds": 32},
    )
    p = make_player("strong:play_beta=0,play_leads=True")
    assert isinstance(p, StrongPlayer) and p.play_beta == 0 and p.play_leads is True
    q = make_player("strong:max_worlds=7", deterministic=True)
    assert isinstance(q, StrongPlayer) and q.time_budget_ms is None and q.max_worlds == 7
    for bad in ("basic:x=1", "strong:play_beta", "strong:play_beta=zero", "nobody:x=1"):
        with pytest.raises(ValueError):
            parse_level(bad)
    with pytest.raises(TypeError):
        make_player("strong:no_such_option=1")


def test_cli_rejects_a_bad_level_spec(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tournament.main(["--a", "strong:play_beta", "--deals", "1"])
    assert "not key=value" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tournament.main(["--b", "nobody", "--deals", "1"])
    assert "argument --b: unknown computer level 'nobody'" in capsys.readouterr().err


def test_level_arg_passes_a_good_spec_and_gives_parse_levels_message() -> None:
    assert level_arg("strong:tie_margin=3") == "strong:tie_margin=3"
    with pytest.raises(argparse.ArgumentTypeError, match="takes no options"):
        level_arg("basic:x=1")


def test_options_play_a_duplicate_match() -> None:
    r = tournament.run("ismcts:iterations=8,rollouts=1", "basic", 1, 2, "amsterdam")
    assert r["a"] == "ismcts:iterations=8,rollouts=1"
    assert isinstance(r["decisions"], int) and r["decisions"] > 0


def test_the_before_hook_sees_every_decision_of_both_tables() -> None:
    """``duplicate_rows``' hook (bench/bench_oracle.py's ceiling): called before each decision
    with the true state and the seat to act; the rows are those of a match without it."""
    settings = Settings.from_preset("amsterdam")
    seen: list[tuple[RoundState, int]] = []
    rows = tournament.duplicate_rows(
        settings,
        RandomPlayer(),
        RandomPlayer(),
        7,
        0,
        2,
        lambda state, seat: seen.append((state, int(seat))),
    )
    assert all(state.to_act == seat for state, seat in seen)
    starts = [s for s, _ in seen if not s.bids]
    assert len(starts) == 4  # two deals, two tables each
    plain = tournament.duplicate_rows(settings, RandomPlayer(), RandomPlayer(), 7, 0, 2)
    assert [r["diff"] for r in rows] == [r["diff"] for r in plain]
