"""Trump choice quality: when the forehand must choose (``rules.md`` §3.2), is the chosen trump
made (open-hand solve, §6.2)?

Usage::

    python bench/bench_trump_choice.py [--deals 1000] [--rule amsterdam|rotterdam]

The fixed corpus: deal ``i`` = ``engine.deal.deal(round_rng(4242, i + 1), dealer=i % 4)``
(a different seed from the training corpus of ``scripts/gen_bidding_data.py``). The forehand
must choose (``utrecht``-style mandatory choice, the table's play rule) and leads; the
chooser's team makes it when it ends with strictly more points than the defenders, roem
included, with all hands open (:func:`engine.ai.dd.made`). Prints the made-rate of the
``strong`` choice (goal ≥ 83 %), of the ``basic`` choice, of a random suit, and of the
best suit in hindsight, with 95 % intervals, and the mean round score (chooser's team −
other, after nat) of the strong and basic choices.

``--ceiling K`` also measures the best any chooser can do that sees only its own hand: for
each deal, K worlds are dealt uniformly from the 24 unseen cards (the forehand's choice comes
before any bidding, so nothing else is known), each suit is solved open-hand in every world
(the same worlds for all four suits), and the suit made in most worlds is chosen and scored
on the real deal. As K grows this is the Bayes-optimal own-hand chooser for the made-rate;
``--workers`` spreads the deals over processes.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import Choose
from engine.ai import dd
from engine.ai.basic import BasicPlayer
from engine.ai.strong import StrongPlayer
from engine.cards import SEATS, mask_of
from engine.deal import deal, round_rng
from engine.observe import observe_round
from engine.round import RoundState
from engine.settings import Settings

CORPUS_SEED = 4242


def _ceiling_pick(args: tuple[int, str, int]) -> tuple[int, list[int]]:
    """Deal ``i``: the own-hand Monte Carlo choice (suit, worlds made per suit)."""
    i, rule, k = args
    d = deal(round_rng(CORPUS_SEED, i + 1), SEATS[i % 4])
    f = int(d.dealer.left)
    own = mask_of(d.hands[f])
    unseen = [c for c in range(32) if not own >> c & 1]
    rng = random.Random(1_000_003 * (i + 1))
    counts = [0, 0, 0, 0]
    for _ in range(k):
        rng.shuffle(unseen)
        hands = [0, 0, 0, 0]
        hands[f] = own
        others = [(f + j) % 4 for j in (1, 2, 3)]
        for j, seat in enumerate(others):
            for c in unseen[8 * j : 8 * j + 8]:
                hands[seat] |= 1 << c
        for s in range(4):
            counts[s] += dd.made(tuple(hands), s, f, play_rule=rule, playing_team=f % 2)
    best = max(range(4), key=lambda s: (counts[s], -s))
    return best, counts


def main() -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--rule", default="amsterdam", choices=("amsterdam", "rotterdam"))
    p.add_argument("--ceiling", type=int, default=0, metavar="K", help="own-hand ceiling worlds")
    p.add_argument("--workers", type=int, default=1)
    a = p.parse_args()
    ceiling: list[int] = []
    if a.ceiling:
        jobs = [(i, a.rule, a.ceiling) for i in range(a.deals)]
        if a.workers > 1:
            with ProcessPoolExecutor(a.workers) as pool:
                ceiling = [b for b, _ in pool.map(_ceiling_pick, jobs, chunksize=4)]
        else:
            ceiling = [_ceiling_pick(j)[0] for j in jobs]
    settings = Settings.from_preset("utrecht", play_rule=a.rule)
    strong, basic = StrongPlayer(), BasicPlayer()
    made = {"strong": 0, "basic": 0, "random": 0, "hindsight": 0}
    if a.ceiling:
        made[f"own-hand ceiling ({a.ceiling} worlds)"] = 0
    score = {"strong": 0, "basic": 0}
    rng = random.Random(1)
    t0 = time.perf_counter()
    for i in range(a.deals):
        d = deal(round_rng(CORPUS_SEED, i + 1), SEATS[i % 4])
        state, _ = RoundState.start(settings, 2, d)
        f = int(d.dealer.left)
        obs = observe_round(state, d.dealer.left)
        hands = tuple(mask_of(h) for h in d.hands)
        team = f % 2
        ok = []
        for s in range(4):
            ok.append(dd.made(hands, s, f, play_rule=a.rule, playing_team=team))
        picks = {}
        for name, player in (("strong", strong), ("basic", basic)):
            act = player.choose(obs, random.Random(i))
            assert isinstance(act, Choose)
            picks[name] = act.suit.ordinal
        picks["random"] = rng.randrange(4)
        if a.ceiling:
            picks[f"own-hand ceiling ({a.ceiling} worlds)"] = ceiling[i]
        for name, s in picks.items():
            made[name] += ok[s]
        made["hindsight"] += any(ok)
        for name in ("strong", "basic"):
            v = dd.solve(
                hands, picks[name], f, play_rule=a.rule, playing_team=team, objective="score"
            ).value
            score[name] += v if team == 0 else -v
    n = a.deals
    print(f"trump choice, forehand must choose, {a.rule} play rule, {n} deals (corpus seed "
          f"{CORPUS_SEED}), {time.perf_counter() - t0:.0f} s")  # fmt: skip
    for name, k in made.items():
        rate = k / n
        half = 1.96 * math.sqrt(rate * (1 - rate) / n)
        extra = f", mean round score {score[name] / n:+.1f}" if name in score else ""
        print(f"{name:10s} made {rate:6.1%} ± {half:.1%}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
