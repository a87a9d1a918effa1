"""The daily's par, ``/top`` and ``/stats`` with many stored games.

Three measurements, on an SQLite file in a temporary folder (as the bot opens it):

* **par**: the time to compute one day's par (``GameService.daily_par``'s loop: every seat
  played by the daily's deterministic computer, node budget only, on the day's deals), for
  ``--par-rounds`` rounds with ``--par-level`` (default ``strong``, as the bot), run in this
  process on one core;
* **store + rebuild**: ``--games`` finished 16-round games of random play (distinct seeds, spread
  over ``--groups`` groups and ``--people`` people, four humans a table) stored through the
  repository, then the statistics rebuilt from them (:func:`bot.service.stats.rebuild`: every
  game replayed and rated in the order they ended), as ``python -m bot.admin rebuild-stats``;
* **answers**: ``/top`` (all time and this month: :meth:`StatsOps.group_standings` plus the text
  the bot sends) and ``/stats`` (:meth:`StatsOps.person_stats`) of random groups and people,
  ``--asks`` times each; p50 / p95 / max in milliseconds of the awaited calls. The picture
  drawing of ``/top`` is measured apart in ``bench_picture.py``.

Asserts nothing. Run: ``python bench/bench_stats.py [--games 10000] [--asks 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.i18n import get_translator
from bot.render.standings import stats_text, top_text
from bot.service.play import computer_seed
from bot.service.stats import StatsOps, rebuild
from bot.tables import TableSettings
from bot.taps import Period
from engine.actions import Action, ClaimRoem
from engine.ai import make_player
from engine.cards import SEATS
from engine.game import GameState
from engine.observe import observe
from engine.settings import Settings
from storage import GameStatus, Occupant, SqliteRepository

T0 = 1_780_000_000.0


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"p50 {statistics.median(ordered):.1f} ms, p95 {p95:.1f} ms, max {ordered[-1]:.1f} ms"


def random_game(settings: Settings, seed: int) -> list[str]:
    """The notation of a whole game of random legal play (roem claimed when it can be)."""
    rng = random.Random(seed)
    state = GameState.new(settings, seed)
    log: list[str] = []
    while not state.is_over:
        claim = next((ClaimRoem(s) for s in SEATS if ClaimRoem(s) in state.legal_actions(s)), None)
        action: Action
        if claim is not None:
            action = claim
        else:
            seat = state.to_act
            assert seat is not None
            action = rng.choice(list(state.legal_actions(seat)))
        state, _ = state.apply(action)
        log.append(action.notation())
    return log


def par_seconds(level: str, rounds: int, seed: int) -> float:
    """Wall-clock seconds for one day's par of ``rounds`` rounds (every seat ``level``)."""
    settings = Settings.from_preset("amsterdam", rounds=rounds)
    player = make_player(level, deterministic=True)
    state = GameState.new(settings, seed)
    started = time.perf_counter()
    while not state.is_over:
        claim = next((ClaimRoem(s) for s in SEATS if ClaimRoem(s) in state.legal_actions(s)), None)
        if claim is not None:
            state, _ = state.apply(claim)
            continue
        seat = state.to_act
        assert seat is not None
        rng = random.Random(computer_seed(seed, len(state.log)))
        action = player.choose(observe(state, seat), rng)
        state, _ = state.apply(action)
    return time.perf_counter() - started


class Stats(StatsOps):
    """Only what ``/top`` and ``/stats`` read: the repository and a clock."""

    def __init__(self, repo: SqliteRepository, now: float) -> None:
        self.repo = repo
        self.clock = lambda: now


async def main(args: argparse.Namespace) -> None:
    print(f"par: {args.par_rounds} rounds, level {args.par_level} ...", flush=True)
    par = par_seconds(args.par_level, args.par_rounds, 20261202)
    print(f"par of a day: {par:.1f} s ({par / args.par_rounds:.2f} s a round)", flush=True)

    settings = TableSettings.from_json(json.dumps({"rules": {"preset": "amsterdam"}}))
    logs = [random_game(settings.rules, 1_000 + k) for k in range(args.distinct)]
    rng = random.Random(7)
    people = [10**9 + n for n in range(args.people)]
    groups = [-(10**12) - n for n in range(args.groups)]
    with tempfile.TemporaryDirectory() as folder:
        repo = await SqliteRepository.open(str(Path(folder) / "bench.sqlite3"))
        try:
            for user in people:
                await repo.upsert_user(user, f"Speler {user % 1000}", "nl", now=T0)
            for chat in groups:
                await repo.upsert_chat(chat, "supergroup", f"Club {chat}", now=T0)
            started = time.perf_counter()
            for k in range(args.games):
                chat = groups[k % len(groups)]
                members = rng.sample(people[: max(8, len(people) // len(groups) * 2)], 4)
                members = rng.sample(people, 4) if k % 3 == 0 else members
                now = T0 + k * 600
                seats = [Occupant.human(u, f"Speler {u % 1000}") for u in members]
                log = logs[k % len(logs)]
                seed = 1_000 + k % len(logs)
                game = await repo.create_game(
                    chat, members[0], settings.to_json(), seed, now=now, seats=seats
                )
                version = await repo.append_actions(
                    game.game_id,
                    game.version,
                    [],
                    snapshot='{"format": 1}',
                    status=GameStatus.ACTIVE,
                    timer=None,
                    now=now,
                )
                await repo.append_actions(
                    game.game_id,
                    version,
                    log,
                    snapshot='{"format": 1}',
                    status=GameStatus.FINISHED,
                    timer=None,
                    now=now + 1,
                )
            stored = time.perf_counter() - started
            print(f"stored {args.games} games in {stored:.1f} s", flush=True)
            started = time.perf_counter()
            recorded = await rebuild(repo, now=T0 + args.games * 600)
            print(
                f"rebuilt the statistics of {recorded} games in "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
            service = Stats(repo, T0 + args.games * 600)
            tr = get_translator("nl")
            top_all: list[float] = []
            top_month: list[float] = []
            stats: list[float] = []
            for _ in range(args.asks):
                chat = rng.choice(groups)
                for period, samples in ((Period.ALL, top_all), (Period.MONTH, top_month)):
                    t = time.perf_counter()
                    lines = await service.stats.group_standings(chat, period)
                    names = await service.stats.names([s.user_id for s in lines])
                    top_text(tr, "Club", period, lines, names)
                    samples.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                stats_text(
                    tr, await service.stats.person_stats(rng.choice(people), rng.choice(groups))
                )
                stats.append((time.perf_counter() - t) * 1000)
            print(f"/top all time ({args.games // len(groups)} games a group): {_ms(top_all)}")
            print(f"/top this month: {_ms(top_month)}")
            print(f"/stats ({args.games * 4 // len(people)} games a person): {_ms(stats)}")
        finally:
            await repo.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=50, help="distinct game logs")
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--people", type=int, default=400)
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--par-rounds", type=int, default=8, choices=(8, 16))
    parser.add_argument("--par-level", default="strong")
    asyncio.run(main(parser.parse_args()))
