"""Loading the repository's command-line scripts (``scripts/``, ``bench/``) as modules in
tests: they are files beside the packages, not installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

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
