"""Speed benchmark of the double-dummy solver on a fixed, seeded corpus of deals.

Usage::

    python bench/bench_solver.py [--backend c|python] [--deals N] [--rule amsterdam] [--no-roem]

Rows (all with the chosen play rule, roem on unless ``--no-roem``, pit on, trump = deal's):

* ``full exact``    – :func:`engine.ai.dd.solve` of the 32-card deal, point difference;
* ``full null``     – :func:`engine.ai.dd.made` (one null-window search, NS plays);
* ``full score``    – ``solve(objective="score")``: round score incl. nat (NS plays);
* ``moves@24/20/16``– :func:`engine.ai.dd.solve_moves` after 2/3/4 tricks (mover leads);
* ``moves@mid20``   – mover holds 5 cards with 0..3 cards already in the trick;
* ``score@24/20``   – per-card values with ``objective="score"`` (NS plays), after 2/3 tricks.

The corpus: deal ``i`` uses ``random.Random(1000 + i)``: shuffled deck, trump ``i % 4``,
forehand North; positions further in the deal are reached by seeded random legal play.
Reports median / mean / p95 / max milliseconds, median / mean nodes and nodes per second.
Never assert on these numbers in tests.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai import dd
from engine.ai.bitrules import (
    legal_mask,
    trick_points,
    trick_roem,
    trick_winner,
)

Position = tuple[tuple[int, int, int, int], int, int, tuple[tuple[int, int], ...]]


def deal(i: int) -> tuple[tuple[int, int, int, int], int]:
    """Four 8-card hands and trump of corpus deal ``i``."""
    rng = random.Random(1000 + i)
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[8 * s : 8 * s + 8]) for s in range(4)]
    return (hands[0], hands[1], hands[2], hands[3]), i % 4


def advance(
    i: int, cards_played: int, rule: str
) -> tuple[Position, tuple[int, int], tuple[int, int]]:
    """Corpus deal ``i`` after ``cards_played`` random legal cards; returns the position,
    the points taken (NS, EW) and tricks taken, computed with the solver's own play logic."""
    hands_t, trump = deal(i)
    hands = list(hands_t)
    rng = random.Random(5000 + i)
    leader = 0
    trick: list[tuple[int, int]] = []
    taken = [0, 0]
    tricks = [0, 0]
    for _ in range(cards_played):
        seat = (leader + len(trick)) % 4
        legal = legal_mask(
            hands[seat], [c for _, c in trick], [s for s, _ in trick], seat, trump, rule
        )
        options = [c for c in range(32) if legal >> c & 1]
        c = rng.choice(options)
        hands[seat] &= ~(1 << c)
        trick.append((seat, c))
        if len(trick) == 4:
            w = trick_winner([x for _, x in trick], [s for s, _ in trick], trump)
            m = sum(1 << x for _, x in trick)
            taken[w % 2] += trick_points(m, trump) + trick_roem(m, trump)
            tricks[w % 2] += 1
            leader = w
            trick = []
    pos = ((hands[0], hands[1], hands[2], hands[3]), trump, leader, tuple(trick))
    return pos, (taken[0], taken[1]), (tricks[0], tricks[1])


def measure(name: str, runs: list[Callable[[], int]]) -> None:
    times: list[float] = []
    nodes: list[int] = []
    for run in runs:
        t = time.perf_counter()
        n = run()
        times.append((time.perf_counter() - t) * 1000)
        nodes.append(n)
    times_sorted = sorted(times)
    p95 = times_sorted[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    nps = sum(nodes) / (sum(times) / 1000) if sum(times) else 0.0
    print(
        f"{name:14s} n={len(times):3d}  median {statistics.median(times):8.2f} ms  "
        f"mean {statistics.mean(times):8.2f}  p95 {p95:8.2f}  max {max(times):8.2f}  "
        f"nodes median {statistics.median(nodes):9.0f} mean {statistics.mean(nodes):9.0f}  "
        f"{nps / 1e6:5.2f} M nodes/s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default=dd.DEFAULT_BACKEND, choices=dd.available_backends())
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--rule", default="amsterdam")
    ap.add_argument("--no-roem", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated row names to run")
    args = ap.parse_args()
    kw: dict[str, object] = {
        "play_rule": args.rule,
        "roem": not args.no_roem,
        "backend": args.backend,
    }
    print(f"backend={args.backend} deals={args.deals} rule={args.rule} roem={not args.no_roem}")
    rows: dict[str, list[Callable[[], int]]] = {}

    def full(i: int, fn: str) -> Callable[[], int]:
        hands, trump = deal(i)

        def run() -> int:
            if fn == "exact":
                return dd.solve(hands, trump, 0, **kw).nodes  # type: ignore[arg-type]
            if fn == "score":
                return dd.solve(hands, trump, 0, objective="score", playing_team=0, **kw).nodes  # type: ignore[arg-type]
            return dd.null_window(hands, trump, 0, threshold=0, playing_team=0, **kw).nodes  # type: ignore[arg-type]

        return run

    def moves(i: int, played: int, objective: str = "diff") -> Callable[[], int]:
        (hands, trump, leader, trick), taken, tricks = advance(i, played, args.rule)

        def run() -> int:
            return dd.solve_moves(
                hands, trump, leader, trick, taken=taken, tricks_taken=tricks,
                objective=objective, playing_team=0, **kw,
            ).nodes  # fmt: skip  # type: ignore[arg-type]

        return run

    n = args.deals
    rows["full exact"] = [full(i, "exact") for i in range(n)]
    rows["full null"] = [full(i, "null") for i in range(n)]
    rows["full score"] = [full(i, "score") for i in range(n)]
    rows["moves@24"] = [moves(i, 8) for i in range(n)]
    rows["moves@20"] = [moves(i, 12) for i in range(n)]
    rows["moves@16"] = [moves(i, 16) for i in range(n)]
    rows["moves@mid20"] = [moves(i, 12 + i % 4) for i in range(n)]
    rows["score@24"] = [moves(i, 8, "score") for i in range(n)]
    rows["score@20"] = [moves(i, 12, "score") for i in range(n)]
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    for name, runs in rows.items():
        if not only or name in only:
            measure(name, runs)


if __name__ == "__main__":
    main()
