"""Loading the repository's command-line scripts (``scripts/``, ``bench/``) as modules in
tests (they are files beside the packages, not installed), and the tournament's results that
a bench playing its games must reproduce."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from engine.ai import make_player
from engine.ai.tournament import duplicate_rows
from engine.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def load_script(relative: str) -> ModuleType:
    """The module of the script at ``relative`` (a path from the repository's root, e.g.
    ``"bench/bench_paired.py"``), registered under its file name in ``sys.modules`` (so that
    the pickling of its functions for worker processes finds it). Raises FileNotFoundError
    when there is no such file."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(path.stem, mod)
    spec.loader.exec_module(mod)
    return mod


def tournament_diffs(a: str, b: str, preset: str, seed: int, lo: int, hi: int) -> list[float]:
    """The tournament's ``a − b`` of deals ``lo..hi-1`` of ``seed`` (points a round,
    :func:`engine.ai.tournament.duplicate_rows` with the players of levels ``a`` and ``b``):
    what a bench that plays the tournament's games must reproduce."""
    rows = duplicate_rows(
        Settings.from_preset(preset), make_player(a), make_player(b), seed, lo, hi
    )
    return [float(r["diff"]) for r in rows]  # type: ignore[arg-type]
