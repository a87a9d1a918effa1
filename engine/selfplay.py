"""``python -m engine.selfplay --games N --preset P --seed S [--json]``: four computer players
play N full games; prints the average score and the speed.

With ``--json`` prints one object: ``games``, ``rounds``, ``rounds_per_second``, ``mean_score``
(mean points a team scores per round), ``mean_totals`` (mean game total per team),
``nat_share`` (rounds the playing team went nat), ``seconds``.

Klammern (``--preset klammern``, ``rules.md`` §9): games last until a team has
``target_big_points`` big points, so ``rounds`` varies; ``mean_score`` is small points per team
per round, ``mean_totals`` big points per game, ``nat_share`` the rounds the playing team lost,
plus ``contra_share``, ``re_share`` and ``voided_deals``. ``--rounds`` is ignored for Klammern.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence

from engine.cards import Team
from engine.game import GameState
from engine.klammern import KlammernScore
from engine.observe import observe
from engine.players import Player, RandomPlayer
from engine.settings import PRESETS, Settings, Variant


def play_game(
    settings: Settings, seed: int, players: Sequence[Player], rng: random.Random
) -> GameState:
    """Play one whole game with ``players[seat]`` choosing for each seat."""
    game = GameState.new(settings, seed)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        action = players[seat].choose(observe(game, seat), rng)
        game, _ = game.apply(action)
    return game


def run(games: int, preset: str, seed: int, rounds: int | None = None) -> dict[str, object]:
    """Play ``games`` games of random players; return the summary dict described above."""
    overrides = {"rounds": rounds} if rounds else {}
    settings = Settings.from_preset(preset, **overrides)
    rng = random.Random(seed)
    players = [RandomPlayer() for _ in range(4)]
    totals = {Team.NS: 0, Team.EW: 0}
    n_rounds = nat = contra = re = voided = scored = 0
    start = time.perf_counter()
    for g in range(games):
        game = play_game(settings, seed * 1_000_003 + g, players, rng)
        for t, v in game.totals().items():
            totals[t] += v
        n_rounds += len(game.rounds)
        nat += sum(1 for r in game.rounds if r.result is not None and r.result.nat)
        for r in game.rounds:
            if r.result is not None:
                scored += sum(r.result.score.values())
            if isinstance(r.result, KlammernScore):
                contra += r.result.contra
                re += r.result.re
        voided += len(game.voided)
    seconds = time.perf_counter() - start
    extra: dict[str, object] = {}
    if settings.variant is Variant.KLAMMERN and n_rounds:
        extra = {
            "contra_share": round(contra / n_rounds, 4),
            "re_share": round(re / n_rounds, 4),
            "voided_deals": voided,
        }
    return {
        "games": games,
        "rounds": n_rounds,
        "seconds": round(seconds, 3),
        "rounds_per_second": round(n_rounds / seconds, 1) if seconds else 0.0,
        "games_per_second": round(games / seconds, 2) if seconds else 0.0,
        "mean_score": round(scored / (2 * n_rounds), 2) if n_rounds else 0.0,
        "mean_totals": {t.value: round(v / games, 1) for t, v in totals.items()} if games else {},
        "nat_share": round(nat / n_rounds, 4) if n_rounds else 0.0,
        **extra,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m engine.selfplay", description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--preset", default="amsterdam", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, choices=(8, 16), default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    summary = run(args.games, args.preset, args.seed, args.rounds)
    if args.json:
        print(json.dumps(summary))
    else:
        mt = summary["mean_totals"]
        assert isinstance(mt, dict)
        print(
            f"{summary['games']} games ({summary['rounds']} rounds) of {args.preset} in "
            f"{summary['seconds']} s: {summary['games_per_second']} games/s, "
            f"{summary['rounds_per_second']} rounds/s"
        )
        if "contra_share" in summary:
            print(
                f"average big points per game: NS {mt['NS']}, EW {mt['EW']}; small points per "
                f"team per round {summary['mean_score']}; playing team lost "
                f"{summary['nat_share']:.1%}; contra {summary['contra_share']:.1%}, "
                f"re {summary['re_share']:.1%}; voided deals {summary['voided_deals']}"
            )
        else:
            print(
                f"average score per game: NS {mt['NS']}, EW {mt['EW']}; "
                f"per team per round {summary['mean_score']}; nat {summary['nat_share']:.1%}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
