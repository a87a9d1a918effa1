"""Engine speed: full random-legal rounds per second through the public API
(``legal_actions()`` + ``apply()``), and ``legal_actions()`` calls per second.

Run: ``python bench/bench_engine.py [--rounds N] [--preset P]``. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import time

from engine.cards import Seat
from engine.deal import deal, round_rng
from engine.round import Phase, RoundState
from engine.settings import KLAVERJAS_PRESETS, PRESETS, Settings, TrumpSelection


def play_rounds(settings: Settings, n: int, seed: int) -> tuple[int, int, float]:
    """Play ``n`` rounds with uniformly random legal actions; returns (rounds, calls, seconds)."""
    rng = random.Random(seed)
    calls = 0
    turned = settings.trump_selection is TrumpSelection.TURNED
    start = time.perf_counter()
    for i in range(n):
        state, _ = RoundState.start(
            settings, 2, deal(round_rng(seed, i), Seat(i % 4), with_turned=turned)
        )
        while state.phase is not Phase.SCORED and state.phase is not Phase.REDEAL:
            legal = state.legal_actions()
            calls += 1
            state, _ = state.apply(legal[rng.randrange(len(legal))])
    return n, calls, time.perf_counter() - start


def legal_actions_rate(settings: Settings, seconds: float = 1.0) -> float:
    """legal_actions() calls per second on a fixed set of mid-round states."""
    rng = random.Random(7)
    states = []
    turned = settings.trump_selection is TrumpSelection.TURNED
    for i in range(200):
        state, _ = RoundState.start(
            settings, 2, deal(round_rng(99, i), Seat(0), with_turned=turned)
        )
        for _ in range(rng.randrange(4, 30)):
            if state.phase is Phase.SCORED:
                break
            legal = state.legal_actions()
            state, _ = state.apply(legal[rng.randrange(len(legal))])
        if state.phase is not Phase.SCORED:
            states.append(state)
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for s in states:
            s.legal_actions()
        count += len(states)
    return count / (time.perf_counter() - start)


def main() -> None:
    """Print the numbers for each Klaverjassen preset, then Klammern (rounds that end in a
    voided deal, §9.3, count as rounds too)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument(
        "--preset", default=None, choices=sorted(PRESETS), help="only this preset (default: all)"
    )
    args = parser.parse_args()
    presets = [args.preset] if args.preset else [*KLAVERJAS_PRESETS, "klammern"]
    for p in presets:
        settings = Settings.from_preset(p)
        n, calls, secs = play_rounds(settings, args.rounds, 1)
        rate = legal_actions_rate(settings)
        print(
            f"{p:10s} {n / secs:8.0f} rounds/s  ({calls / secs:8.0f} apply/s)  "
            f"legal_actions {rate:9.0f}/s"
        )


if __name__ == "__main__":
    main()
