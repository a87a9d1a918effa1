"""Where card play gives away points against a player that sees every hand.

``python bench/bench_regret.py --a strong --b ismcts --deals 600 --seed 3031 --preset amsterdam``

Plays the games of :mod:`engine.ai.tournament` (duplicate: the same deals and seats through
:func:`engine.ai.tournament.duplicate_rows`) and, at every card decision with more than one
legal card, measures the decision's **regret**: the double-dummy value of the best card in the
true deal minus that of the card played, as the round score of the player's team. The values
are strong's own utility (:class:`engine.ai.strong.StrongPlayer` with the true deal as its one
world: the exact round score, ``rules.md`` §6, from 20 cards left on; before that the point
difference with the nat cliff, §6.3), so a decision's regret is 0 or more, in points.

Printed (and written to ``--out`` as JSON): per player (``a``, ``b``) the regret per round of a
team (summed over both tables of a deal, halved), split by trick (1–8), position in the trick
(0 = the lead … 3 = the fourth card) and role (``playing`` team or ``defenders``), with the
number of decisions of each kind; and the tournament's mean difference ``a − b`` per round.

What it is for, and its limit: it says *where* a player's card play departs from the
clairvoyant best (the leads carry most of it), not how many points a change would win. The
regret favours perfect-information play: the opening lead by PIMC over 24
worlds lowered this regret by about 10 points a lead offline, and lost 1.94 points a round in
play against the rule card (``docs/ai-history.md`` §8). Judge changes by duplicate games
(``bench/bench_paired.py``), not by this number.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # lab/ beside engine/

from engine.actions import Action, PlayCard
from engine.ai import level_arg, make_player
from engine.ai.basic import legal_cards
from engine.ai.knowledge import knowledge
from engine.ai.strong import StrongPlayer
from engine.ai.tournament import ci95, duplicate_rows
from engine.cards import Seat
from engine.observe import Observation
from engine.phase import Phase
from engine.players import Player
from engine.round import RoundState
from engine.settings import PRESETS, Settings
from lab.reveal import reveal

Row = tuple[str, str, int, int, float]
"""One decision: ``(player "a" or "b", role "playing" or "defenders", trick 1..8, position
0..3, regret in points)``."""

_ORACLE = StrongPlayer(max_worlds=1, node_budget=None, time_budget_ms=None, tie_margin=0.0)


def oracle_values(obs: Observation, hands: Sequence[int]) -> dict[int, float]:
    """The double-dummy value of every legal card of ``obs`` in the true deal ``hands``, as
    strong's utility for the viewer's team (module docstring), points: strong's evaluation with
    every other hand shown (:func:`lab.reveal.reveal`), so its one world is the deal."""
    assert obs.seat is not None
    me = int(obs.seat)
    shown = reveal(knowledge(obs), hands, [s for s in range(4) if s != me])
    ev = _ORACLE.evaluate(obs, shown, random.Random(0))
    return ev.values


class Recorder:
    """Wraps a player: plays its cards and notes each card decision's regret (the true state
    comes from :meth:`before`, the hook of :func:`engine.ai.tournament.play_table`)."""

    def __init__(self, name: str, inner: Player, rows: list[Row]) -> None:
        self.name = name
        self.inner = inner
        self.rows = rows
        self.state: RoundState | None = None

    def before(self, state: RoundState, seat: Seat) -> None:
        """Keep the table's true state for the decision that follows."""
        self.state = state

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """The wrapped player's action; its regret noted when it plays one of several cards."""
        action = self.inner.choose(obs, rng)
        if (
            obs.phase is Phase.PLAY
            and isinstance(action, PlayCard)
            and legal_cards(obs).bit_count() > 1
        ):
            assert self.state is not None and obs.seat is not None and obs.maker is not None
            values = oracle_values(obs, self.state.hands)
            regret = max(values.values()) - values[action.card.index]
            role = "playing" if obs.seat.team is obs.maker.team else "defenders"
            self.rows.append((self.name, role, len(obs.tricks) + 1, len(obs.trick), regret))
        return action


def play(args: tuple[str, str, str, int, int, int]) -> tuple[list[float], list[Row]]:
    """One worker's share: ``(a level, b level, preset, seed, lo, hi)`` → the deals' ``a − b``
    (as the tournament's) and every decision's :data:`Row`."""
    a_level, b_level, preset, seed, lo, hi = args
    rows: list[Row] = []
    a = Recorder("a", make_player(a_level), rows)
    b = Recorder("b", make_player(b_level), rows)

    def before(state: RoundState, seat: Seat) -> None:
        a.before(state, seat)
        b.before(state, seat)

    deals = duplicate_rows(Settings.from_preset(preset), a, b, seed, lo, hi, before)
    return [float(r["diff"]) for r in deals], rows  # type: ignore[arg-type]


def breakdown(rows: Sequence[Row], deals: int) -> dict[str, object]:
    """Regret per round of a team (the sums over ``deals`` deals of two tables, / (2 deals)),
    per player in total and by trick, position and role, with the decisions counted."""
    out: dict[str, object] = {}
    for player in ("a", "b"):
        mine = [r for r in rows if r[0] == player]
        per = 2 * deals
        by: dict[str, dict[str, float]] = {"trick": {}, "position": {}, "role": {}}
        count: dict[str, int] = defaultdict(int)
        for _, role, trick, pos, regret in mine:
            for kind, key in (("trick", str(trick)), ("position", str(pos)), ("role", role)):
                by[kind][key] = by[kind].get(key, 0.0) + regret / per
            count[f"{role} t{trick} p{pos}"] += 1
        out[player] = {
            "per_round": sum(r[4] for r in mine) / per,
            **{k: dict(sorted(v.items())) for k, v in by.items()},
            "decisions": dict(sorted(count.items())),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", default="strong", type=level_arg)
    p.add_argument("--b", default="ismcts", type=level_arg)
    p.add_argument("--deals", type=int, default=600)
    p.add_argument("--seed", type=int, default=3031)
    p.add_argument("--preset", default="amsterdam", choices=sorted(PRESETS))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", help="write the breakdown as JSON here too")
    args = p.parse_args(argv)
    if args.deals < 1 or args.workers < 1:
        p.error("--deals and --workers must be at least 1")
    t0 = time.perf_counter()
    w = min(args.workers, args.deals)
    cuts = [args.deals * k // w for k in range(w + 1)]
    jobs = [(args.a, args.b, args.preset, args.seed, cuts[k], cuts[k + 1]) for k in range(w)]
    with multiprocessing.get_context("spawn").Pool(w) as pool:
        parts = pool.map(play, jobs)
    diffs = [d for part, _ in parts for d in part]
    rows = [r for _, part in parts for r in part]
    mean, lo, hi = ci95(diffs)
    result = {
        "a": args.a,
        "b": args.b,
        "preset": args.preset,
        "seed": args.seed,
        "deals": len(diffs),
        "mean_diff": mean,
        "ci95_low": lo,
        "ci95_high": hi,
        "regret": breakdown(rows, len(diffs)),
        "seconds": time.perf_counter() - t0,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    print(f"{args.a} − {args.b}: {mean:+.2f} [{lo:+.2f}, {hi:+.2f}] a round, {len(diffs)} deals")
    reg: dict[str, dict[str, object]] = result["regret"]  # type: ignore[assignment]
    for kind in ("trick", "position", "role"):
        ra: dict[str, float] = reg["a"][kind]  # type: ignore[assignment]
        rb: dict[str, float] = reg["b"][kind]  # type: ignore[assignment]
        cells = ", ".join(f"{k} {ra.get(k, 0):.1f}/{rb.get(k, 0):.1f}" for k in sorted(ra | rb))
        print(f"regret a/b by {kind}: {cells}")
    print(f"regret a/b per round: {reg['a']['per_round']:.1f}/{reg['b']['per_round']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
