"""Label a fixed corpus of deals with open-hand (double-dummy) outcomes for the trump-choice model.

Usage::

    python scripts/gen_bidding_data.py --rule amsterdam --deals 3000 [--start 0] --out FILE

For each deal ``i`` (``engine.deal.deal(round_rng(SEED, i + 1), dealer=i % 4)``) and each
playing team (NS, EW) and trump suit, one exact solve with the forehand leading (``rules.md``
§3.4):

* Klaverjassen rules (``amsterdam``, ``rotterdam``): the round score difference NS − EW after
  the nat rule (``objective="score"``, §6.2–6.4), roem on;
* ``klammern``: the point difference NS − EW (cards, last trick, declarations of every run of
  every hand compared by §9.5, bella for a hand with trump K and Q, §9.6); the round is won by
  the playing team when its points are strictly higher (§9.8).

One JSON object per line: ``i``, ``dealer``, ``hands`` (four 32-bit masks, index = seat) and
``v`` = ``[[NS plays: value per suit S H D C], [EW plays: ...]]`` (NS − EW). Deterministic: the
same arguments give the same file. Runs on one core; split ``--start``/``--deals`` over several
processes for speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai import dd
from engine.ai.klammern_eval import fixed_points
from engine.cards import SEATS, mask_of
from engine.deal import deal, round_rng

SEED = 20240505


def corpus_hands(i: int) -> tuple[int, tuple[int, int, int, int]]:
    """Dealer and the four hands (masks) of corpus deal ``i``."""
    d = deal(round_rng(SEED, i + 1), SEATS[i % 4])
    h = tuple(mask_of(x) for x in d.hands)
    return int(d.dealer), (h[0], h[1], h[2], h[3])


def label(rule: str, dealer: int, hands: tuple[int, int, int, int]) -> list[list[int]]:
    """``[team][suit]`` exact NS − EW value with ``team`` playing and suit as trump."""
    leader = (dealer + 1) % 4
    if rule == "klammern":  # no nat, no pit: the point difference does not depend on the team
        row = []
        for suit in range(4):
            ns, ew = fixed_points(hands, suit)
            v = dd.solve(
                hands, suit, leader, play_rule="klammern", roem=False, pit=False, taken=(ns, ew)
            ).value
            row.append(v)
        return [row, list(row)]
    out = []
    for team in (0, 1):
        row = []
        for suit in range(4):
            v = dd.solve(
                hands, suit, leader, play_rule=rule, playing_team=team, objective="score"
            ).value
            row.append(v)
        out.append(row)
    return out


def main() -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rule", choices=("amsterdam", "rotterdam", "klammern"), required=True)
    p.add_argument("--deals", type=int, default=1000)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    t0 = time.perf_counter()
    with open(a.out, "w", encoding="utf-8") as f:
        for i in range(a.start, a.start + a.deals):
            dealer, hands = corpus_hands(i)
            v = label(a.rule, dealer, hands)
            f.write(json.dumps({"i": i, "dealer": dealer, "hands": hands, "v": v}) + "\n")
            if (i - a.start) % 200 == 199:
                f.flush()
                print(f"{i - a.start + 1} deals, {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
