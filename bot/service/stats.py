"""Statistics and standings: every ended game is recorded once, then ``/stats``
and ``/top`` read the records (rules: :mod:`bot.standings`).

When a game finishes or is abandoned the service has just stored its last write; right after,
under the game's lock, :func:`record_ended` reads the stored game, replays it, and writes its
record, results and the group's new ratings in one transaction that does nothing when the
game is recorded already (the game id is the key). A crash between the two writes leaves the
game unrecorded, never half-recorded: :meth:`StatsService.record_missing` (at start-up) records
what is missing, and a second attempt cannot count a game twice. ``python -m bot.admin
rebuild-stats`` clears the derived rows and records every ended game again in the order they
ended, the same code path, so the numbers are the same.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass

from bot.daily import day_of, month_start, streaks
from bot.keyed import KeyedLocks
from bot.standings import (
    PlayerStats,
    Standing,
    game_record,
    is_rated,
    player_stats,
    rate_game,
    replay_ratings,
    standings,
)
from bot.tables import TableSettings
from bot.taps import Period
from engine.game import GameState
from engine.record import replay_actions
from storage import Repository
from storage.stats_rows import GameRecord, PlayerResult, Rating

log = logging.getLogger(__name__)


async def record_ended(
    repo: Repository,
    game_id: int,
    *,
    now: float,
    lock: AbstractAsyncContextManager[None] | None = None,
) -> bool:
    """Record the stored, ended game ``game_id`` in the statistics (module docstring); False
    when there is nothing to record (unknown, still open, or recorded already). ``lock``:
    held while the group's ratings are read and written (one game of a group at a time)."""
    row = await repo.get_game(game_id, with_actions=True)
    if row is None or row.status.is_open:
        return False
    state: GameState | None = None
    if row.snapshot not in (None, "{}"):
        try:
            settings = TableSettings.from_json(row.settings)
            state = replay_actions(settings.rules, row.seed, row.actions or ())
        except Exception:  # a game the engine cannot replay counts for nobody
            log.warning("game %s cannot be replayed; recorded without results", game_id)
            state = None
    record = game_record(row, state)
    if state is None:
        record = GameRecord(record.game_id, record.chat_id, record.status, record.ended_at)
    async with lock or nullcontext():
        current = await repo.ratings(row.chat_id) if is_rated(record.results) else {}
        return await repo.record_game(record, rate_game(record.results, current), now=now)


async def rebuild(repo: Repository, *, now: float) -> int:
    """Clear the derived statistics and record every ended game again, in the order they
    ended; returns the number of games recorded."""
    await repo.clear_stats()
    return await record_all(repo, now=now)


async def record_all(repo: Repository, *, now: float) -> int:
    """Record every ended game that is not recorded yet; returns how many were."""
    done = 0
    for game_id in await repo.unrecorded_games():
        done += await record_ended(repo, game_id, now=now)
    return done


@dataclass(frozen=True, slots=True)
class PersonStats:
    """What ``/stats`` shows of a person.

    Attributes:
        user_id, name: the person (name ``""`` when unknown).
        games: their totals over every recorded game.
        rating: their rating in the group asked from (None: private, or never rated there).
        daily_attempts: daily attempts started.
        daily_best: their best board result (points), None without one.
        streak, best_streak: consecutive days with a daily attempt (current, longest).
    """

    user_id: int
    name: str
    games: PlayerStats
    rating: Rating | None
    daily_attempts: int
    daily_best: int | None
    streak: int
    best_streak: int


def _month_standings(results: list[PlayerResult]) -> list[Standing]:
    """The standings of a month's ``results`` with ratings from those games alone (runs in a
    worker thread)."""
    return standings(results, replay_ratings(results))


class StatsService:
    """Recording ended games and reading statistics (module docstring).

    Args:
        repo: the storage repository.
        clock: UTC epoch seconds.
        timezone: where a month starts (the daily's zone).
    """

    def __init__(
        self, repo: Repository, *, clock: Callable[[], float], timezone: str = "Europe/Amsterdam"
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.timezone = timezone
        self.rating_locks: KeyedLocks[int] = KeyedLocks()

    def _ratings_lock(self, chat_id: int) -> AbstractAsyncContextManager[None]:
        """The lock of ``chat_id``'s ratings (dropped when nobody holds or awaits it)."""
        return self.rating_locks(chat_id)

    async def record_ended(self, game_id: int) -> None:
        """Record the game that just ended (module docstring; the tables' ``ended``
        callback, :class:`~bot.service.core.Tables`); a failure is logged and repaired at the
        next start (:meth:`record_missing`)."""
        try:
            row = await self.repo.get_game(game_id)
            if row is not None:
                lock = self._ratings_lock(row.chat_id)
                await record_ended(self.repo, game_id, now=self.clock(), lock=lock)
        except Exception:
            log.exception("recording the statistics of game %s failed", game_id)

    async def record_missing(self) -> int:
        """Record the ended games that are not recorded (a crash between a game's end and
        its record); at start-up. Returns how many were."""
        done = 0
        for game_id in await self.repo.unrecorded_games():
            row = await self.repo.get_game(game_id)
            if row is None:
                continue
            lock = self._ratings_lock(row.chat_id)
            done += await record_ended(self.repo, game_id, now=self.clock(), lock=lock)
        return done

    async def person_stats(self, user_id: int, chat_id: int | None = None) -> PersonStats:
        """``/stats`` of ``user_id`` (with their rating in the group ``chat_id``, if any). In a
        group, a person hidden from the boards shows no daily results (attempts, best,
        streaks: 0 / None)."""
        user = await self.repo.get_user(user_id)
        totals = player_stats(await self.repo.player_results(user_id=user_id))
        rating = None
        if chat_id is not None and chat_id < 0:
            rating = (await self.repo.ratings(chat_id)).get(user_id)
        entries = await self.repo.daily_entries(user_id=user_id)
        if chat_id is not None and chat_id < 0 and await self.repo.hidden_users([user_id]):
            entries = []  # "hide me on the boards": no daily results in a group
        best: int | None = None
        for day in sorted({e.day for e in entries if e.ranked}):
            for line in await self.repo.daily_results(day):
                if line.user_id == user_id:
                    best = line.points if best is None else max(best, line.points)
        today = day_of(self.clock(), self.timezone)
        current, longest = streaks((e.day for e in entries), today)
        name = user.display_name if user is not None else ""
        return PersonStats(user_id, name, totals, rating, len(entries), best, current, longest)

    async def group_standings(self, chat_id: int, period: Period) -> list[Standing]:
        """``/top``: the group's standings over ``period`` (:mod:`bot.standings`): all time
        with the stored ratings, this month with ratings from the month's games alone. The
        arithmetic (the month's ratings replayed game by game, the table sorted) runs in a
        worker thread, never on the event loop."""
        if period is Period.ALL:
            results = await self.repo.player_results(chat_id=chat_id)
            ratings = await self.repo.ratings(chat_id)
            return await asyncio.to_thread(standings, results, ratings)
        since = month_start(self.clock(), self.timezone)
        results = await self.repo.player_results(chat_id=chat_id, since=since)
        return await asyncio.to_thread(_month_standings, results)

    async def names(self, user_ids: list[int]) -> dict[int, str]:
        """Display names of the known users among ``user_ids`` (unknown: left out)."""
        return {u.user_id: u.display_name for u in (await self.repo.get_users(user_ids)).values()}
