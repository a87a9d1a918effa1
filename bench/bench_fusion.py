"""How much strategy fusion at the root costs strong's PIMC (``docs/ai-history.md`` §9).

``python bench/bench_fusion.py --deals 40 --seed 4242 --preset amsterdam``

PIMC values a card in each world as if the player, at its next decision, chose its card
knowing that world. A player who cannot see the world must choose one card for all the
worlds that bring it to the same next decision (the same cards played by the others in
between): that is the information-set reasoning at the root that αμ and EPIMC add to PIMC
(``docs/design.md`` §7; EPIMC postpones the perfect-information solve by this one decision).

The bench plays the tournament's duplicate games (:func:`engine.ai.tournament.duplicate_rows`,
``strong`` searching by its node budget only, so the games are deterministic, against
``--b``) and, at every decision where strong searched, takes the very worlds it solved, with
their weights (:attr:`engine.ai.strong.Evaluation.weights`), and follows each legal card one
decision deep (:func:`lab.fusion.solve_next`: the others' double-dummy replies, then the
value of each of strong's next cards). Two aggregations of the same weighted worlds, in
strong's utility (the round score, ``rules.md`` §6, as :class:`engine.ai.strong.StrongPlayer`):

* **PIMC**: the weighted mean of the card's value (the best next card per world); this is
  strong's own evaluation, and the bench checks that it is;
* **information set**: worlds grouped by the replies (the player's hand is the same in
  every world, so the replies are what it sees); per group one next card, the best on the
  group's weighted sum; the card's value is the sum over groups / the weights' sum.

Each decision is then made twice by strong's own rule (the best value, or the rule card
within the tie margin): on the PIMC values (the card strong plays) and on the information
set's. Printed (and with ``--out`` written as JSON), means over the decisions: ``changed``,
the share where the two cards differ; ``loss``, PIMC's value of strong's card minus that
of the other card (points; negative where the tie rule chose a card PIMC values lower);
``gap``, how much fusion overestimates the card strong plays (PIMC − information set,
points, 0 or more) and ``gap_max``, the same for the card where it is largest;
``shared``, the share of (world, card) pairs whose next decision another world shares (how
much room the grouping has). Where replies tie, the solver's choice among them can split
worlds a player could not tell apart, so ``shared`` and the gaps are lower bounds. By cards
left: more than 23 (where the budget binds) and 23 or fewer. Klaverjassen presets only
(Klammern's utility has a win bonus; ``ValueError``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # lab/ beside engine/

from engine.ai import dd, level_arg, make_player
from engine.ai.knowledge import Knowledge
from engine.ai.strong import Evaluation, StrongPlayer, _utility
from engine.ai.tournament import duplicate_rows
from engine.cards import Team
from engine.observe import Observation
from engine.settings import PRESETS, RoemMode, Settings
from lab.fusion import NextPlay, solve_next

Row = dict[str, float]
"""One decision: ``cards_left``, ``worlds``, ``changed`` (0/1), ``loss``, ``gap``,
``gap_max`` (points) and ``shared`` (0..1), as the module docstring says."""


def aggregate(
    plays: Sequence[dict[int, NextPlay]],
    utility: Callable[[int], float],
    weights: Sequence[float] | None = None,
) -> tuple[dict[int, float], dict[int, float], float]:
    """The two aggregations of the module docstring over the worlds' :func:`lab.fusion.solve_next`
    plays, each world with its weight (``weights``, as :class:`Evaluation`'s; None: 1 each):
    ``(pimc, infoset, shared)``, card → weighted mean utility each (``utility(value)`` turns
    a solver value into the player's utility), and the share of (world, card) pairs in a group
    of two or more worlds. Raises ValueError on no worlds or a weight per world missing."""
    if not plays:
        raise ValueError("no worlds")
    ws = [1.0] * len(plays) if weights is None else list(weights)
    if len(ws) != len(plays):
        raise ValueError("one weight per world")
    pimc: dict[int, float] = defaultdict(float)
    alone: dict[int, float] = defaultdict(float)
    groups: dict[tuple[int, tuple[int, ...]], dict[int, float]] = {}
    sizes: dict[tuple[int, tuple[int, ...]], int] = defaultdict(int)
    for world, wt in zip(plays, ws, strict=True):
        for card, p in world.items():
            u = wt * utility(p.value)
            pimc[card] += u
            if not p.next_values:
                alone[card] += u
                continue
            key = (card, p.replies)
            sizes[key] += 1
            g = groups.setdefault(key, defaultdict(float))
            for b, v in p.next_values.items():
                g[b] += wt * utility(v)
    infoset = dict(alone)
    for (card, _), g in groups.items():
        infoset[card] = infoset.get(card, 0.0) + max(g.values())
    total = sum(ws)
    pairs = sum(len(w) for w in plays)
    shared = sum(s for s in sizes.values() if s > 1) / pairs
    return (
        {c: v / total for c, v in pimc.items()},
        {c: v / total for c, v in infoset.items()},
        shared,
    )


class Measured(StrongPlayer):
    """``strong`` (its node budget only) that, after each search, measures the decision
    (:data:`Row` appended to ``rows``); its choices are strong's own."""

    def __init__(self, rows: list[Row]) -> None:
        super().__init__(time_budget_ms=None)
        self.rows = rows

    def evaluate(self, obs: Observation, k: Knowledge, rng: random.Random) -> Evaluation:
        """Strong's evaluation; the worlds it solved are then followed one decision deep."""
        calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        solve_moves = dd.solve_moves

        def recording(*args: Any, **kwargs: Any) -> dd.MovesResult:
            calls.append((args, kwargs))
            return solve_moves(*args, **kwargs)

        dd.solve_moves = recording  # type: ignore[assignment]
        try:
            ev = super().evaluate(obs, k, rng)
        finally:
            dd.solve_moves = solve_moves  # type: ignore[assignment]
        calls = calls[: ev.worlds]  # a world abandoned part-way is not used
        if calls:
            self.rows.append(self._measure(obs, k, ev, calls))
        return ev

    def _measure(
        self,
        obs: Observation,
        k: Knowledge,
        ev: Evaluation,
        calls: list[tuple[tuple[Any, ...], dict[str, Any]]],
    ) -> Row:
        assert obs.seat is not None and obs.maker is not None
        me = int(obs.seat) % 2
        playing = int(obs.maker) % 2
        total_est = 162 + obs.roem[Team.NS] + obs.roem[Team.EW]
        plays = []
        objective = "diff"
        for args, kwargs in calls:
            opts = {k: v for k, v in kwargs.items() if k in dd.Options.__annotations__}
            objective = opts.get("objective", "diff")
            plays.append(solve_next(*args, **opts).plays)

        def utility(v: int) -> float:
            return _utility(v, objective, False, playing, me, total_est, 1)

        pimc, infoset, shared = aggregate(plays, utility, ev.weights)
        if any(abs(pimc[c] - v) > 1e-6 for c, v in ev.values.items()):
            raise AssertionError("the worlds recorded are not the worlds strong evaluated")
        card = self._pick(obs, k, ev)
        pick = self._pick(obs, k, replace(ev, values=infoset))
        return {
            "cards_left": float(sum(obs.hand_counts)),
            "worlds": float(len(plays)),
            "changed": float(card != pick),
            "loss": ev.values[card] - ev.values[pick],
            "gap": ev.values[card] - infoset[card],
            "gap_max": max(ev.values[c] - infoset[c] for c in ev.values),
            "shared": shared,
        }


def play(args: tuple[str, str, int, int, int]) -> tuple[list[float], list[Row]]:
    """One worker's share: ``(b level, preset, seed, lo, hi)`` → the deals' strong − b (as
    the tournament's with ``strong:time_budget_ms=None``) and every measured decision.
    Raises ValueError for a Klammern preset."""
    b_level, preset, seed, lo, hi = args
    settings = Settings.from_preset(preset)
    if settings.roem is RoemMode.DECLARATIONS:
        raise ValueError("Klaverjassen presets only")
    rows: list[Row] = []
    deals = duplicate_rows(settings, Measured(rows), make_player(b_level), seed, lo, hi)
    return [float(r["diff"]) for r in deals], rows  # type: ignore[arg-type]


def summary(rows: Sequence[Row]) -> dict[str, dict[str, float]]:
    """Means of the rows' measures, in total and by cards left (``>23``, ``<=23``)."""
    out: dict[str, dict[str, float]] = {}
    bands = {
        "all": list(rows),
        ">23": [r for r in rows if r["cards_left"] > 23],
        "<=23": [r for r in rows if r["cards_left"] <= 23],
    }
    for name, rs in bands.items():
        n = len(rs)
        out[name] = {
            "decisions": float(n),
            "changed": sum(r["changed"] for r in rs) / n if n else 0.0,
            "loss": sum(r["loss"] for r in rs) / n if n else 0.0,
            "gap": sum(r["gap"] for r in rs) / n if n else 0.0,
            "gap_max": sum(r["gap_max"] for r in rs) / n if n else 0.0,
            "shared": sum(r["shared"] for r in rs) / n if n else 0.0,
            "worlds": sum(r["worlds"] for r in rs) / n if n else 0.0,
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--b", default="ismcts", type=level_arg)
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--seed", type=int, default=4242)
    p.add_argument("--preset", default="amsterdam", choices=sorted(PRESETS))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", help="write the summary as JSON here too")
    args = p.parse_args(argv)
    if args.deals < 1 or args.workers < 1:
        p.error("--deals and --workers must be at least 1")
    if Settings.from_preset(args.preset).roem is RoemMode.DECLARATIONS:
        p.error("Klaverjassen presets only")
    t0 = time.perf_counter()
    w = min(args.workers, args.deals)
    cuts = [args.deals * k // w for k in range(w + 1)]
    jobs = [(args.b, args.preset, args.seed, cuts[k], cuts[k + 1]) for k in range(w)]
    with multiprocessing.get_context("spawn").Pool(w) as pool:
        rows = [r for _, part in pool.map(play, jobs) for r in part]
    result = {
        "b": args.b,
        "preset": args.preset,
        "seed": args.seed,
        "deals": args.deals,
        "summary": summary(rows),
        "seconds": time.perf_counter() - t0,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    for band, s in result["summary"].items():  # type: ignore[attr-defined]
        print(
            f"{band:>5}: {s['decisions']:.0f} decisions, {s['worlds']:.1f} worlds, changed "
            f"{100 * s['changed']:.1f} %, loss {s['loss']:.3f}, gap {s['gap']:.3f} "
            f"(max {s['gap_max']:.2f}) points, shared {100 * s['shared']:.1f} %"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
