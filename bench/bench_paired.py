"""Duplicate A/B with every deal's result kept, for paired comparisons (issue 14).

``python bench/bench_paired.py --a strong --b ismcts --deals 500 --seed 2026 --preset amsterdam
--out strong_ams.json [--against other.json]``

Plays the games of :mod:`engine.ai.tournament` (the same deals and seats through
:func:`engine.ai.tournament.duplicate_rows`, so ``mean_diff`` is the tournament's) and writes
one JSON object to ``--out``: ``a``, ``b``, ``preset``, ``seed``, ``deals``, ``mean_diff``,
``ci95_low`` / ``ci95_high`` (mean ± 1.96 standard errors over deals, points a round),
``diffs`` (every deal's a − b, keyed by its index), ``decision_ms_median`` / ``_p95`` /
``_max`` (a's card and bid decisions, one core each) and ``seconds``.

``--against FILE``: another run's output on the same deals (say strong as on main against the
same ``--b``); prints the paired difference, this run's deal results minus that run's, deal by
deal, with its 95 % interval. The same deals in both, so the interval is narrower than the two
runs' own: the way a change of ``strong`` was measured (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from collections.abc import Sequence

from engine.ai import make_player
from engine.ai.tournament import duplicate_rows
from engine.settings import Settings


def _job(args: tuple[str, str, str, int, int, int]) -> tuple[list[tuple[int, float]], list[float]]:
    a, b, preset, seed, lo, hi = args
    rows = duplicate_rows(
        Settings.from_preset(preset), make_player(a), make_player(b), seed, lo, hi
    )
    times = [float(t) for r in rows for t in r["times_a"]]  # type: ignore[attr-defined]
    return [(lo + i, float(r["diff"])) for i, r in enumerate(rows)], times  # type: ignore[arg-type]


def _interval(xs: Sequence[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return m, m - h, m + h


def paired(run: dict[str, object], other: dict[str, object]) -> tuple[int, float, float, float]:
    """The paired difference of two runs' ``diffs`` over their common deals: ``(n, mean,
    low, high)``, points a round with the 95 % interval. Raises ValueError with no deal in
    common."""
    da: dict[str, float] = run["diffs"]  # type: ignore[assignment]
    db: dict[str, float] = other["diffs"]  # type: ignore[assignment]
    keys = sorted(set(da) & set(db), key=int)
    if not keys:
        raise ValueError("the two runs have no deal in common")
    return (len(keys), *_interval([da[k] - db[k] for k in keys]))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--a", default="strong")
    p.add_argument("--b", default="ismcts")
    p.add_argument("--deals", type=int, default=500)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--preset", default="amsterdam")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", required=True)
    p.add_argument("--against")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    chunks = max(1, min(args.deals, 8 * args.workers))
    cuts = [args.deals * k // chunks for k in range(chunks + 1)]
    jobs = [
        (args.a, args.b, args.preset, args.seed, cuts[k], cuts[k + 1])
        for k in range(chunks)
        if cuts[k] < cuts[k + 1]
    ]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        parts = pool.map(_job, jobs)
    diffs = {str(i): d for part, _ in parts for i, d in part}
    times = sorted(t for _, ts in parts for t in ts)
    m, lo, hi = _interval([diffs[k] for k in sorted(diffs, key=int)])
    run: dict[str, object] = {
        "a": args.a,
        "b": args.b,
        "preset": args.preset,
        "seed": args.seed,
        "deals": len(diffs),
        "mean_diff": m,
        "ci95_low": lo,
        "ci95_high": hi,
        "diffs": diffs,
        "decision_ms_median": times[len(times) // 2] if times else None,
        "decision_ms_p95": times[int(0.95 * len(times))] if times else None,
        "decision_ms_max": times[-1] if times else None,
        "seconds": time.perf_counter() - t0,
    }
    with open(args.out, "w") as f:
        json.dump(run, f)
    print(
        f"{args.a} vs {args.b} ({args.preset}, {len(diffs)} deals): {m:+.2f} [{lo:+.2f}, {hi:+.2f}]"
    )
    if args.against:
        with open(args.against) as f:
            other = json.load(f)
        n, pm, plo, phi = paired(run, other)
        print(f"paired against {other['a']} ({n} deals): {pm:+.2f} [{plo:+.2f}, {phi:+.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
