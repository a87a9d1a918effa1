"""Duplicate matches between computer players.

``python -m engine.ai.tournament --a strong --b basic --deals N --seed S --preset P [--json]``

A level may carry constructor options, for a duplicate A/B test of one setting:
``--a strong:tie_margin=3 --b strong`` (:func:`engine.ai.parse_level`).

Every deal (one round, ``rules.md`` §2.2: deal ``i`` comes from ``round_rng(S, i + 1)`` with
dealer ``i % 4``) is played twice, bidding included: once with player ``a`` in North–South and
``b`` in East–West, once with the seats swapped, the same four hands in the same seats. The
deal's result is the mean over the two tables of ``a``'s round score minus ``b``'s.

Printed: the mean score difference per round (``a`` − ``b``) with a 95 % confidence interval
(mean ± 1.96 standard errors over deals), the share of rounds the playing team made, the nat
share, and ``a``'s time per decision (median, p95, max; one process per core). With
``--json`` one JSON object with ``deals``, ``mean_diff``, ``ci95_low``, ``ci95_high``,
``made_share``, ``nat_share``, ``decision_ms_median``, ``decision_ms_p95`` and more keys
(``decision_ms_max``, ``decisions``, ``made_share_a``/``_b`` = made share when that player's team
plays, ``plays_share_a``, the same times for ``b``, ``seconds``, ``preset``, ``a``, ``b``).

Score per round:

* Klaverjassen: the round score of §6 (points + roem after nat and pit), as on the sheet.
* Klammern (§9.8): the sheet's score is small points (1, 2 after contra, 4 after re, for the
  round's winner), so ``mean_diff`` is the small-point difference per round. Also reported:
  ``points_diff`` with ``points_ci95_low``/``_high`` (card points + declarations + bella,
  §9.8's "points", ``a`` − ``b``), ``contra_share`` and ``re_share``. A deal that everybody
  passes (§9.3, redeal) counts as a round with 0 for both teams and is left out of the made
  and nat shares (``voided`` counts them).

``--workers W`` splits the deals over W processes (one per core); the decision times are still
single-core times of one decision.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.ai import LEVELS, level_arg, make_player, parse_level
from engine.cards import SEATS, Seat, Team
from engine.deal import Deal, deal, round_rng
from engine.klammern import KlammernScore
from engine.observe import observe_round
from engine.players import Player
from engine.round import Phase, RoundState
from engine.settings import PRESETS, Settings, TrumpSelection


def tournament_deal(settings: Settings, seed: int, i: int) -> Deal:
    """Deal ``i`` (0-based) of the tournament with ``seed``: dealer ``i % 4``."""
    turned = settings.trump_selection is TrumpSelection.TURNED
    return deal(round_rng(seed, i + 1), SEATS[i % 4], False, with_turned=turned)


@dataclass
class TableResult:
    """One table of a deal: ``a``'s seats, the scored round and the decision times (ms)."""

    a_team: Team
    state: RoundState
    times_a: list[float] = field(default_factory=list)
    times_b: list[float] = field(default_factory=list)


def play_table(
    settings: Settings,
    d: Deal,
    players: Sequence[Player],
    a_team: Team,
    seed: int,
    before: Callable[[RoundState, Seat], None] | None = None,
) -> TableResult:
    """Play one round of deal ``d`` with ``players[seat]``; ``a_team`` says which seats are
    ``a``'s (for the timing). Decision ``n`` gets ``random.Random(seed * 1009 + n)``.
    ``before(state, seat)``, when given, is called before each decision (``bench/``'s
    ceiling measurements look at the true state there; the players see only ``obs``)."""
    state, _ = RoundState.start(settings, 2, d)
    out = TableResult(a_team, state)
    n = 0
    while state.phase not in (Phase.SCORED, Phase.REDEAL):
        seat = state.to_act
        assert seat is not None
        obs = observe_round(state, seat)
        if before is not None:
            before(state, seat)
        t0 = time.perf_counter()
        action = players[seat].choose(obs, random.Random(seed * 1009 + n))
        ms = (time.perf_counter() - t0) * 1000
        (out.times_a if seat.team is a_team else out.times_b).append(ms)
        state, _ = state.apply(action)
        n += 1
    out.state = state
    return out


def deal_rows(args: tuple[str, str, str, int, int, int]) -> list[dict[str, object]]:
    """Play deals ``lo..hi-1`` on both tables (one worker's share): ``args`` is ``(a level,
    b level, preset, seed, lo, hi)``, the rows as :func:`duplicate_rows`'s."""
    a_level, b_level, preset, seed, lo, hi = args
    settings = Settings.from_preset(preset)
    return duplicate_rows(settings, make_player(a_level), make_player(b_level), seed, lo, hi)


def duplicate_rows(
    settings: Settings,
    a: Player,
    b: Player,
    seed: int,
    lo: int,
    hi: int,
    before: Callable[[RoundState, Seat], None] | None = None,
) -> list[dict[str, object]]:
    """Deals ``lo..hi-1`` of ``seed``, each on two tables (``a`` as NS, then as EW), one
    summary row per deal (its ``diff``: a − b per round); ``before`` as in
    :func:`play_table`."""
    rows = []
    for i in range(lo, hi):
        d = tournament_deal(settings, seed, i)
        tables = []
        for k, a_team in enumerate((Team.NS, Team.EW)):
            players = [a if s.team is a_team else b for s in SEATS]
            tseed = seed * 100_003 + 2 * i + k
            tables.append(play_table(settings, d, players, a_team, tseed, before))
        rows.append(_summarise(tables))
    return rows


def _summarise(tables: list[TableResult]) -> dict[str, object]:
    diffs: list[int] = []
    pdiffs: list[int] = []
    rounds: list[dict[str, bool] | None] = []
    for t in tables:
        st = t.state
        a, b = t.a_team, t.a_team.other
        if st.phase is Phase.REDEAL or st.result is None:
            diffs.append(0)
            pdiffs.append(0)
            rounds.append(None)
            continue
        res = st.result
        diffs.append(res.score[a] - res.score[b])
        if isinstance(res, KlammernScore):
            pdiffs.append(res.points[a] - res.points[b])
        assert st.maker is not None
        rounds.append(
            {
                "a_plays": st.maker.team is a,
                "nat": bool(res.nat),
                "contra": bool(getattr(res, "contra", False)),
                "re": bool(getattr(res, "re", False)),
            }
        )
    return {
        "diff": sum(diffs) / 2,
        "pdiff": sum(pdiffs) / 2 if pdiffs else 0.0,
        "rounds": rounds,
        "times_a": [x for t in tables for x in t.times_a],
        "times_b": [x for t in tables for x in t.times_b],
    }


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (0 < q ≤ 1), nearest rank; 0.0 for no values."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, math.ceil(q * len(s)) - 1)]


def ci95(xs: list[float]) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``xs``: the mean ± 1.96 standard errors (0 wide for one value).

    Raises:
        statistics.StatisticsError: for no values.
    """
    m = statistics.fmean(xs)
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, m - 1.96 * se, m + 1.96 * se


def run(a: str, b: str, deals: int, seed: int, preset: str, workers: int = 1) -> dict[str, object]:
    """Play the duplicate match and return the summary dict (module docstring).

    Raises:
        ValueError: unknown level or preset, or ``deals < 1``.
    """
    parse_level(a)
    parse_level(b)
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    if deals < 1:
        raise ValueError("need at least one deal")
    start = time.perf_counter()
    workers = max(1, min(workers, deals))
    cuts = [deals * k // workers for k in range(workers + 1)]
    jobs = [(a, b, preset, seed, cuts[k], cuts[k + 1]) for k in range(workers)]
    if workers == 1:
        parts = [deal_rows(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(deal_rows, jobs)
    rows = [r for part in parts for r in part]
    diffs = [float(r["diff"]) for r in rows]  # type: ignore[arg-type]
    mean, lo, hi = ci95(diffs)
    played = [x for r in rows for x in r["rounds"] if x is not None]  # type: ignore[attr-defined]
    made = [not x["nat"] for x in played]
    a_rounds = [x for x in played if x["a_plays"]]
    b_rounds = [x for x in played if not x["a_plays"]]
    ta = [t for r in rows for t in r["times_a"]]  # type: ignore[attr-defined]
    tb = [t for r in rows for t in r["times_b"]]  # type: ignore[attr-defined]

    def share(xs: list[dict[str, bool]], key: str, want: bool = True) -> float:
        return round(sum(1 for x in xs if x[key] == want) / len(xs), 4) if xs else 0.0

    out: dict[str, object] = {
        "a": a,
        "b": b,
        "preset": preset,
        "seed": seed,
        "deals": deals,
        "mean_diff": round(mean, 2),
        "ci95_low": round(lo, 2),
        "ci95_high": round(hi, 2),
        "made_share": round(sum(made) / len(made), 4) if made else 0.0,
        "nat_share": round(1 - sum(made) / len(made), 4) if made else 0.0,
        "made_share_a": share(a_rounds, "nat", False),
        "made_share_b": share(b_rounds, "nat", False),
        "plays_share_a": round(len(a_rounds) / len(played), 4) if played else 0.0,
        "decision_ms_median": round(statistics.median(ta), 2) if ta else 0.0,
        "decision_ms_p95": round(percentile(ta, 0.95), 2),
        "decision_ms_max": round(max(ta), 2) if ta else 0.0,
        "decisions": len(ta),
        "b_decision_ms_median": round(statistics.median(tb), 2) if tb else 0.0,
        "b_decision_ms_p95": round(percentile(tb, 0.95), 2),
        "b_decision_ms_max": round(max(tb), 2) if tb else 0.0,
        "seconds": round(time.perf_counter() - start, 1),
    }
    if Settings.from_preset(preset).trump_selection is TrumpSelection.KLAMMERN:
        pm, plo, phi = ci95([float(r["pdiff"]) for r in rows])  # type: ignore[arg-type]
        out.update(
            points_diff=round(pm, 2),
            points_ci95_low=round(plo, 2),
            points_ci95_high=round(phi, 2),
            contra_share=share(played, "contra"),
            re_share=share(played, "re"),
            voided=2 * len(rows) - len(played),
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(prog="python -m engine.ai.tournament", description=__doc__)
    levels = ", ".join(LEVELS)
    p.add_argument(
        "--a", default="strong", type=level_arg, help=f"level ({levels}); e.g. strong:tie_margin=3"
    )
    p.add_argument("--b", default="basic", type=level_arg, help="level, as --a")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--preset", default="amsterdam", choices=sorted(PRESETS))
    p.add_argument("--workers", type=int, default=1, help="processes (one per core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.deals < 1:
        p.error("--deals must be at least 1")
    r = run(args.a, args.b, args.deals, args.seed, args.preset, args.workers)
    if args.json:
        print(json.dumps(r))
        return 0
    unit = "small points" if "points_diff" in r else "points"
    print(
        f"{r['a']} vs {r['b']}, {r['preset']}, {r['deals']} duplicate deals (seed {r['seed']}): "
        f"{r['mean_diff']:+.2f} {unit}/round, 95% CI [{r['ci95_low']:+.2f}, "
        f"{r['ci95_high']:+.2f}]"
    )
    if "points_diff" in r:
        print(
            f"points (cards + declarations + bella): {r['points_diff']:+.2f}/round, 95% CI "
            f"[{r['points_ci95_low']:+.2f}, {r['points_ci95_high']:+.2f}]; contra "
            f"{r['contra_share']:.1%}, re {r['re_share']:.1%}, voided {r['voided']}"
        )
    print(
        f"made {r['made_share']:.1%} (when {r['a']} plays {r['made_share_a']:.1%}, "
        f"{r['b']} {r['made_share_b']:.1%}), nat {r['nat_share']:.1%}; "
        f"{r['a']} plays {r['plays_share_a']:.1%} of the rounds"
    )
    print(
        f"{r['a']} decision time: median {r['decision_ms_median']} ms, p95 "
        f"{r['decision_ms_p95']} ms, max {r['decision_ms_max']} ms over {r['decisions']} "
        f"decisions; {r['seconds']} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
