"""Decision latency of a computer player over whole rounds, on one core.

Usage::

    python bench/bench_decisions.py [--level strong] [--deals 50] [--preset amsterdam]
                                    [--seed 1] [--opponent basic]

Plays the tournament deals (:func:`engine.ai.tournament.tournament_deal`) with ``--level`` in
all four seats (``--opponent`` set: in North–South only, the opponent in East–West) and times
every decision of ``--level``, bidding and roem claims included. Prints median / p95 / p99 /
max milliseconds overall and per phase of the round (bidding, cards left 29–32, 25–28, ...),
and for the strong player the worlds and solver nodes per searched decision. Never assert on
these numbers in tests.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import PlayCard
from engine.ai import make_player
from engine.ai.tournament import tournament_deal
from engine.observe import observe_round
from engine.round import Phase, RoundState
from engine.settings import Settings


def pct(xs: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(q * len(s) + 0.999999) - 1))]


def main() -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--level", default="strong")
    p.add_argument("--opponent", default=None)
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--preset", default="amsterdam")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    settings = Settings.from_preset(a.preset)
    player = make_player(a.level)
    other = make_player(a.opponent) if a.opponent else player
    by_phase: dict[str, list[float]] = {}
    all_ms: list[float] = []
    for i in range(a.deals):
        state, _ = RoundState.start(settings, 2, tournament_deal(settings, a.seed, i))
        n = 0
        while state.phase not in (Phase.SCORED, Phase.REDEAL):
            seat = state.to_act
            assert seat is not None
            obs = observe_round(state, seat)
            who = player if seat % 2 == 0 else other
            t0 = time.perf_counter()
            action = who.choose(obs, random.Random(a.seed * 7919 + 1000 * i + n))
            ms = (time.perf_counter() - t0) * 1000
            if who is player:
                all_ms.append(ms)
                if state.phase is Phase.BIDDING:
                    key = "bidding"
                elif isinstance(action, PlayCard):
                    left = sum(obs.hand_counts)
                    lo = (left - 1) // 4 * 4 + 1
                    key = f"cards {lo:2d}-{lo + 3:2d}"
                else:
                    key = "calls"
                by_phase.setdefault(key, []).append(ms)
            state, _ = state.apply(action)
            n += 1
    print(f"{a.level} on {a.preset}, {a.deals} deals, {len(all_ms)} decisions")

    def line(name: str, xs: list[float]) -> str:
        return (
            f"{name:14s} n={len(xs):5d}  median {statistics.median(xs):7.2f}  p95 "
            f"{pct(xs, 0.95):7.2f}  p99 {pct(xs, 0.99):7.2f}  max {max(xs):7.2f} ms"
        )

    print(line("all", all_ms))
    for key in sorted(by_phase, reverse=True):
        print(line(key, by_phase[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
