"""What a review of a whole game costs on one core (:mod:`engine.ai.review`).

``python bench/bench_review.py --preset amsterdam --seed 7 --games 1``

Plays a 16-round game (the reviewed seat South by the ``basic`` player, the others by
``basic`` too unless ``--others strong``), then reviews South with the tip's deterministic
strong player (no wall clock: the node budget alone), in this one process, as the bot's pool
does decision by decision. Prints per game: the decisions judged, the seconds of the judging
(cards, bids, claims apart), of the hindsight numbers, and the total (wall clock, and the CPU
time of this process: the cost on one core when the machine is shared); then the review as
text (``--show``, in English).
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict

from engine.ai import make_player
from engine.ai.review import Kind, judge, points, summarize, with_hindsight
from engine.ai.tip import tip_player
from engine.cards import Seat
from engine.players import Player
from engine.selfplay import play_game
from engine.settings import Settings


def computer_seed(game_seed: int, actions: int) -> int:
    """The bot's seed of a decision (:func:`bot.service.play.computer_seed`)."""
    return (game_seed * 1_000_003 + actions) & (2**62 - 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--preset", default="amsterdam")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--others", default="basic")
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args()
    settings = Settings.from_preset(args.preset)
    strong = tip_player()
    for g in range(args.games):
        seed = args.seed + g
        others: Player = make_player(args.others, deterministic=True)
        me = make_player("basic")
        players = [others, others, me, others]
        t0 = time.perf_counter()
        game = play_game(settings, seed, players, random.Random(seed))
        t1 = time.perf_counter()
        cpu = time.process_time()
        found = points(game, Seat.SOUTH)
        t2 = time.perf_counter()
        spent: dict[Kind, float] = defaultdict(float)
        judged = []
        for p in found:
            a = time.perf_counter()
            j = judge(p, computer_seed(seed, p.index), strong)
            spent[p.kind] += time.perf_counter() - a
            if j is not None:
                judged.append(j)
        t3 = time.perf_counter()
        review = summarize(Seat.SOUTH, settings.variant, judged, len(game.rounds))
        review = with_hindsight(game, review)
        t4 = time.perf_counter()
        cpu = time.process_time() - cpu
        kinds = ", ".join(f"{k.value} {v:.2f}s" for k, v in spent.items())
        print(
            f"game {seed} ({args.preset}, {len(game.rounds)} rounds, played in {t1 - t0:.1f}s): "
            f"{len(found)} decisions found in {t2 - t1:.2f}s; judged in {t3 - t2:.1f}s "
            f"({kinds}); hindsight {t4 - t3:.1f}s; review total {t4 - t1:.1f}s wall, "
            f"{cpu:.1f}s CPU; "
            f"cost {review.total} points, worst {[j.cost for j in review.worst]}"
        )
        if args.show:
            from bot.i18n import get_translator
            from bot.render.review import review_text

            print(review_text(get_translator("en"), review, title=f"game {seed}"))


if __name__ == "__main__":
    main()
