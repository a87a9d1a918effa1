"""The engine against a plain list-based engine in the same run (engine speed).

Run: ``python bench/bench_plain.py [--games 40] [--repeat 5] [--presets amsterdam,klammern]``.
Prints, per preset, the best rounds per second of ``engine.selfplay.run`` (four random players,
``observe`` for every decision, then ``apply``), of a loop of ``game.legal_actions()`` and
``apply`` (no observation), and of :mod:`bench.plain_engine` (a straightforward list-based
amsterdam engine, random players), each measured in turn within every repetition, and the
ratios to the plain engine: on a shared machine whose speed varies from minute to minute
the ratio is the steadier figure. Asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import plain_engine
from engine.game import GameState
from engine.selfplay import run
from engine.settings import Settings


def plain_rate(games: int, seed: int) -> float:
    """Rounds per second of the plain engine over ``games`` 16-round games."""
    start = time.perf_counter()
    for g in range(games):
        plain_engine.play_game(seed * 1_000_003 + g)
    return 16 * games / (time.perf_counter() - start)


def loop_rate(games: int, preset: str, seed: int) -> float:
    """Rounds per second of ``legal_actions()`` + ``apply`` (random draws, no observation)."""
    settings = Settings.from_preset(preset)
    rng = random.Random(seed)
    rounds = 0
    start = time.perf_counter()
    for g in range(games):
        game = GameState.new(settings, seed * 1_000_003 + g)
        while not game.is_over:
            game, _ = game.apply(rng.choice(game.legal_actions()))
        rounds += len(game.rounds)
    return rounds / (time.perf_counter() - start)


def main() -> None:
    """Parse the arguments, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", default="amsterdam,rotterdam,utrecht,klassiek,klammern")
    args = parser.parse_args()
    presets = args.presets.split(",")
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for preset in presets:
            r = run(args.games, preset, args.seed)
            rate = float(r["rounds_per_second"])  # type: ignore[arg-type]
            best[preset] = max(best.get(preset, 0.0), rate)
            loop = loop_rate(args.games, preset, args.seed)
            best[preset + " (no observe)"] = max(best.get(preset + " (no observe)", 0.0), loop)
            plain = plain_rate(args.games, args.seed)
            best["plain"] = max(best.get("plain", 0.0), plain)
    plain = best["plain"]
    print(f"plain list-based engine (amsterdam): {plain:,.0f} rounds/s")
    for preset in presets:
        for key in (preset, preset + " (no observe)"):
            print(f"{key:28s} {best[key]:8,.0f} rounds/s  {best[key] / plain:5.2f}x plain")


if __name__ == "__main__":
    main()
