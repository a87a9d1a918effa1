"""``bench/bench_paired.py`` (A/B measurements): its games are the tournament's, and
the paired difference is taken deal by deal."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.ai.scripts import load_script, tournament_diffs


def _script() -> ModuleType:
    return load_script("bench/bench_paired.py")


def test_the_deals_and_results_are_the_tournaments() -> None:
    bench = _script()
    got, times = bench._job(("basic", "random", "amsterdam", 5, 2, 5))
    ref = tournament_diffs("basic", "random", "amsterdam", 5, 2, 5)
    assert got == [(2 + i, d) for i, d in enumerate(ref)]
    assert len(times) > 0 and all(t >= 0 for t in times)


def test_the_paired_difference_is_taken_deal_by_deal_over_the_common_deals() -> None:
    bench = _script()
    run = {"a": "x", "diffs": {"0": 10.0, "1": -4.0, "2": 7.0, "3": 1.0}}
    other = {"a": "y", "diffs": {"1": -6.0, "2": 5.0, "3": -1.0, "9": 100.0}}
    n, mean, low, high = bench.paired(run, other)
    assert n == 3  # deal 0 and deal 9 are not in both
    assert mean == pytest.approx(2.0)
    assert low == pytest.approx(2.0) and high == pytest.approx(2.0)  # the same gain on each deal
    assert bench.paired(run, run)[1] == 0.0
    with pytest.raises(ValueError, match="no deal in common"):
        bench.paired(run, {"a": "z", "diffs": {"7": 1.0}})
    with pytest.raises(ValueError, match="differ in seed"):  # deal 1 of another seed
        bench.paired({**run, "seed": 7}, {**other, "seed": 2026})


def test_bad_options_end_before_any_deal_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _script()
    out = tmp_path / "run.json"
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"a": "strong", "seed": 1, "preset": "amsterdam", "diffs": {}}))
    for argv, said in [
        (["--deals", "0"], "at least 1"),
        (["--a", "nope"], "unknown computer level"),
        (["--preset", "bridge"], "invalid choice"),
        (["--against", str(tmp_path / "missing.json")], "No such file"),
        (["--against", str(earlier)], "differ in seed"),
    ]:
        with pytest.raises(SystemExit):
            bench.main([*argv, "--out", str(out)])
        assert said in capsys.readouterr().err
    assert not out.exists()  # nothing was played
