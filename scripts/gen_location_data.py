"""Generate training games for the card-location model (:mod:`engine.ai.locations`).

``python scripts/gen_location_data.py --preset amsterdam --opponent ismcts --deals 2500
--seed 9001 --workers 2 --out scripts/data/locations_amsterdam_ismcts.jsonl.gz``

Each deal of :func:`engine.ai.tournament.tournament_deal` is played on two tables, ``strong``
as North–South and then as East–West against ``--opponent`` (the duplicate layout of the
tournament, other seeds than the measurements'). ``strong`` is the player as it is now: with
the packaged card-location model, and with its 200 ms clock, so a seed gives the same games
only where the node budget binds first. One JSON line per table: ``preset``,
``seed``, ``deal`` (its index), ``strong`` (the strong seats) and ``actions`` (the round's
actions in the notation of :mod:`engine.actions`). :func:`replay` turns a line back into
the observations of the strong seats with the true hands: the model's training samples
(``scripts/fit_locations.py``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import random
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.actions import parse_action
from engine.ai import make_player
from engine.ai.tournament import tournament_deal
from engine.cards import SEATS, Seat, Team
from engine.observe import Observation, observe_round
from engine.round import Phase, RoundState
from engine.settings import Settings


def _play(args: tuple[str, str, int, int, int]) -> list[dict[str, object]]:
    preset, opponent, seed, lo, hi = args
    settings = Settings.from_preset(preset)
    strong = make_player("strong")
    other = make_player(opponent)
    rows: list[dict[str, object]] = []
    for i in range(lo, hi):
        d = tournament_deal(settings, seed, i)
        for k, team in enumerate((Team.NS, Team.EW)):
            players = [strong if s.team is team else other for s in SEATS]
            state, _ = RoundState.start(settings, 2, d)
            actions = []
            n = 0
            while state.phase not in (Phase.SCORED, Phase.REDEAL):
                seat = state.to_act
                assert seat is not None
                obs = observe_round(state, seat)
                rng = random.Random((seed * 100_003 + 2 * i + k) * 1009 + n)
                action = players[seat].choose(obs, rng)
                actions.append(action.notation())
                state, _ = state.apply(action)
                n += 1
            rows.append(
                {
                    "preset": preset,
                    "seed": seed,
                    "deal": i,
                    "strong": [int(s) for s in SEATS if s.team is team],
                    "actions": actions,
                }
            )
    return rows


def replay(
    row: dict[str, object], every: bool = False
) -> Iterator[tuple[Observation, tuple[int, int, int, int]]]:
    """Every card decision of a strong seat in a generated round (with ``every``: every
    moment of the card play, for both strong seats): its observation and the true hands at
    that moment (masks, index = seat)."""
    settings = Settings.from_preset(str(row["preset"]))
    d = tournament_deal(settings, int(row["seed"]), int(row["deal"]))  # type: ignore[call-overload]
    strong = set(row["strong"])  # type: ignore[call-overload]
    state, _ = RoundState.start(settings, 2, d)
    for text in row["actions"]:  # type: ignore[attr-defined]
        if state.phase is Phase.PLAY:
            for seat in sorted(strong) if every else [state.to_act]:
                if seat is None or seat not in strong:
                    continue
                obs = observe_round(state, Seat(seat))
                if obs.hand:
                    h = state.hands
                    yield obs, (h[0], h[1], h[2], h[3])
        state, _ = state.apply(parse_action(text))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--preset", default="amsterdam")
    p.add_argument("--opponent", default="ismcts")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=9001)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    w = max(1, args.workers)
    chunks = 8 * w
    cuts = [args.deals * k // chunks for k in range(chunks + 1)]
    jobs = [
        (args.preset, args.opponent, args.seed, cuts[k], cuts[k + 1])
        for k in range(chunks)
        if cuts[k] < cuts[k + 1]
    ]
    with (
        gzip.open(args.out, "wt") as f,
        multiprocessing.get_context("spawn").Pool(w) as pool,
    ):
        for rows in pool.imap(_play, jobs):
            for r in rows:
                f.write(json.dumps(r) + "\n")
            f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
