"""Duplicate A/B with every deal's result kept, for paired comparisons.

``python bench/bench_paired.py --a strong --b ismcts --deals 500 --seed 2026 --preset amsterdam
--out strong_ams.json [--against other.json]``

Plays the games of :mod:`engine.ai.tournament` (the same deals and seats through
:func:`engine.ai.tournament.duplicate_rows`, so ``mean_diff`` is the tournament's) and writes
one JSON object to ``--out``: ``a``, ``b``, ``preset``, ``seed``, ``deals``, ``mean_diff``,
``ci95_low`` / ``ci95_high`` (mean ± 1.96 standard errors over deals, points a round, as
the tournament's), ``diffs`` (every deal's a − b, keyed by its index), ``decision_ms_median``
/ ``_p95`` / ``_max`` (a's decisions, one core each, as the tournament computes them) and
``seconds``.
Bad options (an unknown level or preset, fewer than one deal or worker, an ``--against`` file
that cannot be read, is this run's ``--out`` or is of another preset or seed) end with a usage
error before any deal is played.

``--against FILE``: another run's output on the same deals (say strong as on main against the
same ``--b``); prints the paired difference, this run's deal results minus that run's, deal by
deal, with its 95 % interval. The same deals in both: when the two runs' results go together
deal by deal (as two versions of one player's do), the interval is narrower than the runs'
own. The way the changes of ``strong`` were measured (``docs/ai-history.md``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from engine.ai import level_arg
from engine.ai.tournament import ci95, deal_rows, percentile
from engine.settings import PRESETS


def _job(args: tuple[str, str, str, int, int, int]) -> tuple[list[tuple[int, float]], list[float]]:
    """One worker's share (the tournament's :func:`engine.ai.tournament.deal_rows`): every
    deal's ``(index, a − b)`` and a's decision times in ms."""
    rows = deal_rows(args)
    times = [float(t) for r in rows for t in r["times_a"]]  # type: ignore[attr-defined]
    lo = args[4]
    return [(lo + i, float(r["diff"])) for i, r in enumerate(rows)], times  # type: ignore[arg-type]


def check_same_deals(run: dict[str, object], other: dict[str, object]) -> None:
    """Raise ValueError when two runs are of different presets or seeds (their deal ``i`` is
    then not the same deal); a run without the key is not checked on it."""
    for key in ("preset", "seed"):
        if key in run and key in other and run[key] != other[key]:
            raise ValueError(f"the runs differ in {key} ({run[key]} and {other[key]}): other deals")


def paired(run: dict[str, object], other: dict[str, object]) -> tuple[int, float, float, float]:
    """The paired difference of two runs' ``diffs`` over their common deals: ``(n, mean,
    low, high)``, points a round with the 95 % interval (as the tournament's: 0 wide for one
    deal).

    Raises:
        ValueError: the runs are of different presets or seeds (their deal ``i`` is not the
            same deal), or they have no deal in common.
    """
    check_same_deals(run, other)
    da: dict[str, float] = run["diffs"]  # type: ignore[assignment]
    db: dict[str, float] = other["diffs"]  # type: ignore[assignment]
    keys = sorted(set(da) & set(db), key=int)
    if not keys:
        raise ValueError("the two runs have no deal in common")
    return (len(keys), *ci95([da[k] - db[k] for k in keys]))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument(
        "--a", default="strong", type=level_arg, help="level, with options: strong:tie_margin=3"
    )
    p.add_argument("--b", default="ismcts", type=level_arg)
    p.add_argument("--deals", type=int, default=500)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--preset", default="amsterdam", choices=sorted(PRESETS))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", required=True, help="this run's JSON")
    p.add_argument("--against", help="an earlier run's JSON (same deals) to pair with")
    args = p.parse_args(argv)
    if args.deals < 1 or args.workers < 1:
        p.error("--deals and --workers must be at least 1")
    other: dict[str, object] | None = None
    if args.against:
        # Read before hours of play, not after.
        try:
            with open(args.against) as f:
                other = json.load(f)
        except (OSError, ValueError) as e:
            p.error(f"--against {args.against}: {e}")
        if not isinstance(other, dict) or not isinstance(other.get("diffs"), dict):
            p.error(f"--against {args.against}: not a run of this bench (no diffs)")
        if other.get("b", args.b) != args.b:
            print(
                f"note: {args.against} was played against {other['b']}, this run against {args.b}"
            )
        if Path(args.against).resolve() == Path(args.out).resolve():
            p.error("--against and --out are the same file")
        try:
            check_same_deals({"preset": args.preset, "seed": args.seed}, other)
        except ValueError as e:
            p.error(str(e))
    t0 = time.perf_counter()
    workers = min(args.workers, args.deals)
    chunks = min(args.deals, 8 * workers)
    cuts = [args.deals * k // chunks for k in range(chunks + 1)]
    jobs = [
        (args.a, args.b, args.preset, args.seed, cuts[k], cuts[k + 1])
        for k in range(chunks)
        if cuts[k] < cuts[k + 1]
    ]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        parts = pool.map(_job, jobs)
    diffs = {str(i): d for part, _ in parts for i, d in part}
    times = [t for _, ts in parts for t in ts]
    m, lo, hi = ci95([diffs[k] for k in sorted(diffs, key=int)])
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
        "decision_ms_median": statistics.median(times) if times else 0.0,
        "decision_ms_p95": percentile(times, 0.95),
        "decision_ms_max": max(times, default=0.0),
        "seconds": time.perf_counter() - t0,
    }
    with open(args.out, "w") as f:
        json.dump(run, f)
    print(
        f"{args.a} vs {args.b} ({args.preset}, seed {args.seed}, {len(diffs)} deals): "
        f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]"
    )
    if other is not None:
        n, pm, plo, phi = paired(run, other)
        print(
            f"paired against {args.against} ({other.get('a')}, {n} deals): "
            f"{pm:+.2f} [{plo:+.2f}, {phi:+.2f}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
