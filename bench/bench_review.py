"""What a review of a whole game costs on one core (:mod:`engine.ai.review`).

``python bench/bench_review.py --preset amsterdam --seed 7 --games 1``

Plays a 16-round game (the reviewed seat South by the ``basic`` player, the others by
``basic`` too unless ``--others strong``), then reviews South with the tip's deterministic
strong player (no wall clock: the node budget alone), in this one process, as the bot's pool
does decision by decision. Prints per game: the decisions judged, the seconds of the judging
(cards, bids, claims apart), of the hindsight numbers, and the total (wall clock, and the CPU
time of this process: the cost on one core when the machine is shared); then the review as
text (``--show``, in English).

``--daily`` plays the game as a daily is played (``--rounds 8`` for the daily's default): the
three others as the daily's computers (``--others``, deterministic, seeded by the bot's
decision seeds), after the day's par game (all four seats that computer, every roem claimed);
then it also times the comparison with the par (the par's computer asked at South's decisions
of each round until it would have chosen otherwise) and prints where the game left the par.
``--picture PATH`` draws the review as the bot sends it (English) and prints its size and the
time it took.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from dataclasses import replace

from engine.actions import Action, ClaimRoem
from engine.ai import make_player
from engine.ai.review import (
    Kind,
    ParComparison,
    Parting,
    Point,
    Review,
    choices,
    compare_par,
    judge,
    par_without_computer,
    parting,
    points,
    summarize,
    with_hindsight,
)
from engine.ai.tip import tip_player
from engine.cards import SEATS, Seat, Team
from engine.game import GameState
from engine.observe import observe
from engine.players import Player
from engine.selfplay import play_game
from engine.settings import Settings


def computer_seed(game_seed: int, actions: int) -> int:
    """The bot's seed of a decision (:func:`bot.service.play.computer_seed`)."""
    return (game_seed * 1_000_003 + actions) & (2**62 - 1)


def daily_game(settings: Settings, seed: int, level: str, me: Player | None) -> GameState:
    """A game as the bot plays a daily: computers of ``level`` (deterministic, the bot's
    decision seeds) in every seat but South, played by ``me`` (None: the computer too, the
    par game, which claims every roem at once)."""
    computer = make_player(level, deterministic=True)
    state = GameState.new(settings, seed)
    rng = random.Random(seed)
    while not state.is_over:
        action: Action | None = next(
            (ClaimRoem(s) for s in SEATS if s != Seat.SOUTH or me is None
             if ClaimRoem(s) in state.legal_actions(s)),
            None,
        )  # fmt: skip
        if action is None:
            seat = state.to_act
            assert seat is not None
            obs = observe(state, seat)
            if seat == Seat.SOUTH and me is not None:
                action = me.choose(obs, rng)
            else:
                action = computer.choose(obs, random.Random(computer_seed(seed, len(state.log))))
        state, _ = state.apply(action)
    return state


def next_to_par(game: GameState, par: GameState, level: str) -> tuple[ParComparison, int]:
    """The comparison the bot makes (:meth:`bot.service.review.ReviewOps._next_to_par`), and
    the number of decisions put to the par's computer."""
    computer = make_player(level, deterministic=True)
    pars = [int(r.result.score[Team.NS]) for r in par.rounds if r.result is not None]
    scores = [
        (int(r.result.score[Team.NS]), p)
        for r, p in zip(game.rounds, pars, strict=False)
        if r.result is not None
    ]
    rounds: dict[int, list[Point]] = defaultdict(list)
    for p in choices(game, Seat.SOUTH):
        rounds[p.obs.number].append(p)
    found: list[Parting] = []
    asked = 0
    for ps in rounds.values():
        for p in ps:
            other = par_without_computer(p)
            if other is None:
                asked += 1
                other = computer.choose(p.obs, random.Random(computer_seed(game.seed, p.index)))
            if other != p.action:
                found.append(parting(p, other, *scores[p.obs.number - 1]))
                break
    return compare_par(found, scores), asked


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--preset", default="amsterdam")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--others", default="basic")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--daily", action="store_true")
    ap.add_argument("--picture", default=None)
    args = ap.parse_args()
    settings = Settings.from_preset(args.preset)
    if args.rounds:
        settings = replace(settings, rounds=args.rounds)
    strong = tip_player()
    for g in range(args.games):
        seed = args.seed + g
        others: Player = make_player(args.others, deterministic=True)
        me = make_player("basic")
        players = [others, others, me, others]
        t0 = time.perf_counter()
        par: GameState | None = None
        if args.daily:
            par = daily_game(settings, seed, args.others, None)
            t_par = time.perf_counter()
            print(f"the par game ({args.others}) played in {t_par - t0:.1f}s")
            t0 = t_par
            game = daily_game(settings, seed, args.others, me)
        else:
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
        hind = t4 - t3
        if par is not None:
            compared, asked = next_to_par(game, par, args.others)
            review = replace(review, par=compared)
            t5 = time.perf_counter()
            first = compared.first
            print(
                f"next to the par: {asked} decisions asked in {t5 - t4:.1f}s; yours "
                f"{compared.yours}, par {compared.par}; first parted in round "
                f"{first.round if first else '-'} (index {first.index if first else '-'}); "
                f"costliest {[p.cost for p in compared.worst]}"
            )
            t4 = t5
        cpu = time.process_time() - cpu
        kinds = ", ".join(f"{k.value} {v:.2f}s" for k, v in spent.items())
        print(
            f"game {seed} ({args.preset}, {len(game.rounds)} rounds, played in {t1 - t0:.1f}s): "
            f"{len(found)} decisions found in {t2 - t1:.2f}s; judged in {t3 - t2:.1f}s "
            f"({kinds}); hindsight {hind:.1f}s; review total {t4 - t1:.1f}s wall, "
            f"{cpu:.1f}s CPU; "
            f"cost {review.total} points, worst {[j.cost for j in review.worst]}"
        )
        if args.picture:
            draw(review, args.picture, f"game {seed}")
        if args.show:
            from bot.i18n import get_translator
            from bot.render.review import review_text

            print(review_text(get_translator("en"), review, title=f"game {seed}"))


def draw(review: Review, path: str, title: str) -> None:
    """Draw the review as the bot sends it (English) into ``path``; print size and time."""
    from bot.i18n import get_translator
    from bot.render.common import Player as Seated
    from bot.render.picture import render_review_png

    seated = (Seated("", True), Seated("", True), Seated("You"), Seated("", True))
    a = time.perf_counter()
    png = render_review_png(get_translator("en"), review, title=title, players=seated)
    spent = time.perf_counter() - a
    with open(path, "wb") as f:
        f.write(png)
    print(f"picture {path}: {len(png) / 1024:.0f} kB, drawn in {spent * 1000:.0f} ms")


if __name__ == "__main__":
    main()
