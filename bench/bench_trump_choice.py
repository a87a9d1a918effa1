"""Trump choice quality: when the forehand must choose (``rules.md`` §3.2), is the chosen trump
made (open-hand solve, §6.2)?

Usage::

    python bench/bench_trump_choice.py [--deals 1000] [--rule amsterdam|rotterdam]

The fixed corpus: deal ``i`` = ``engine.deal.deal(round_rng(4242, i + 1), dealer=i % 4)``
(a different seed from the training corpus of ``scripts/gen_bidding_data.py``). The forehand
must choose (``utrecht``-style mandatory choice, the table's play rule) and leads; the
chooser's team makes it when it ends with strictly more points than the defenders, roem
included, with all hands open (:func:`engine.ai.dd.made`). Prints the made-rate of the
``strong`` choice (goal ≥ 83 %, issue 5), of the ``basic`` choice, of a random suit, and of the
best suit in hindsight, with 95 % intervals, and the mean round score (chooser's team −
other, after nat) of the strong and basic choices.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
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


def main() -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--rule", default="amsterdam", choices=("amsterdam", "rotterdam"))
    a = p.parse_args()
    settings = Settings.from_preset("utrecht", play_rule=a.rule)
    strong, basic = StrongPlayer(), BasicPlayer()
    made = {"strong": 0, "basic": 0, "random": 0, "hindsight": 0}
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
