"""Every worked rule case of ``shared/cases/rules.jsonl`` through the oracle (the engine's
public functions). The repository keeps a copy; a newer file beside the project is used too."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.oracle import answer, main

ROOT = Path(__file__).resolve().parents[2]
CASE_FILES = [
    ROOT / "tests" / "data" / "rules.jsonl",
    ROOT.parent / "shared" / "cases" / "rules.jsonl",
]


def _load() -> list[dict[str, Any]]:
    cases: dict[str, dict[str, Any]] = {}
    for path in CASE_FILES:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    case = json.loads(line)
                    cases[case["id"]] = case
    return list(cases.values())


CASES = _load()


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, list) and isinstance(actual, list):
        return sorted(map(str, expected)) == sorted(map(str, actual))
    return bool(expected == actual)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_worked_case(case: dict[str, Any]) -> None:
    result = answer(case)
    assert "actual" in result, result
    for key, value in case["expected"].items():
        assert _same(value, result["actual"].get(key)), (key, value, result["actual"])


def test_cases_were_found() -> None:
    assert len(CASES) >= 88


def test_oracle_answers_each_line_in_order_and_errors_without_crashing() -> None:
    lines = [
        json.dumps(CASES[0]),
        "this is not json",
        json.dumps({"id": "x1", "kind": "roem", "input": {"trump": "Z", "cards": []}}),
        json.dumps({"id": "x2", "kind": "nonsense", "input": {}}),
        json.dumps(
            {"id": "x3", "kind": "legal_moves", "settings": {"play_rule": "nope"}, "input": {}}
        ),
        json.dumps(
            {
                "id": "x4",
                "kind": "legal_moves",
                "input": {"trump": "H", "trick": [], "seat": 0, "hand": ["AH", "AH"]},
            }
        ),
    ]
    out = io.StringIO()
    assert main(io.StringIO("\n".join(lines) + "\n"), out) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert answers[0]["id"] == CASES[0]["id"] and "actual" in answers[0]
    assert [("error" in a) for a in answers[1:]] == [True] * 5
    assert [a["id"] for a in answers[2:]] == ["x1", "x2", "x3", "x4"]


def test_oracle_runs_as_a_module() -> None:
    line = json.dumps({"id": "m", "kind": "roem", "input": {"trump": "S", "cards": ["KS", "QS"]}})
    proc = subprocess.run(
        [sys.executable, "-m", "engine.oracle"],
        input=line + "\n",
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert json.loads(proc.stdout) == {"id": "m", "actual": {"roem": 20}}
