"""The game service (``docs/design.md`` §3): every state change of a table goes through here, under
that game's lock, as load → engine → one compare-and-set write. No Telegram calls and no text:
callers get an :class:`~bot.outcome.Outcome` and hand it to the table driver.

A core and separate services, each given what it needs in its constructor (no inheritance
between them); :class:`GameService` builds them all, once, from every setting:

* ``tables`` (:class:`~bot.service.core.Tables`): the per-game lock, loading (the cache of open
  games), the writes of play with their turn timers (a move, the deal, the end of a table), the
  presenter's :class:`~bot.service.view.TableView`, the message ids and whether tips are on;
* ``people`` (:mod:`~bot.service.people`): users, chats, languages, supergroup migration;
* ``play`` (:mod:`~bot.service.play`): a human's move, the computers' moves (the table
  driver runs them);
* ``seats`` (:mod:`~bot.service.seats`): hand-over, take-back, a member leaving, ``/stop``;
* ``rematch`` (:mod:`~bot.service.rematch`): a finished group game's "again", the session;
* ``lobby`` (:mod:`~bot.service.lobby`): opening a table, the lobby, the start;
* ``timers`` (:mod:`~bot.service.timers`): turn timers, idle lobbies, the restart;
* ``stats`` (:mod:`~bot.service.stats`): recording ended games, statistics and standings;
* ``daily`` (:mod:`~bot.service.daily`): the daily deal, its par and its boards;
* ``tips`` (:mod:`~bot.service.tips`): the tip button;
* ``review`` (:mod:`~bot.service.review`): the review of a player's finished game;
* ``alerts`` (:mod:`~bot.service.alerts`): a fourth wanted.

Callers name the service: ``services.play.act(...)``, ``services.lobby.open_table(...)``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

from bot.computer import ComputerPlayers
from bot.daily import DailyConfig
from bot.i18n import DEFAULT_LANGUAGE
from bot.service.alerts import AlertService
from bot.service.core import (
    REMINDER_LEAD,
    IsAdmin,
    Scheduler,
    TableLimits,
    Tables,
    active_seats,
    awaited_seats,
    snapshot,
)
from bot.service.daily import (
    Board,
    DailyService,
    DailyStart,
    DailyStartKind,
    DailySummary,
    NamedLine,
    Spawn,
)
from bot.service.lobby import LobbyService, next_setting
from bot.service.people import PeopleService
from bot.service.play import PlayService
from bot.service.rematch import RematchService
from bot.service.review import ReviewAsk, ReviewService
from bot.service.seats import SeatService
from bot.service.stats import PersonStats, StatsService
from bot.service.timers import MAX_TIMEOUTS, TimerService
from bot.service.tips import TipAnswer, TipService
from bot.service.view import TableView
from engine.ai.strong import StrongPlayer
from storage import Repository


class GameService:
    """Every service of the bot, built once from every setting (the composition root).

    Args:
        repo: the storage repository.
        computers: the computer-player pool.
        default_timeout: turn time of new tables in seconds (0: none).
        default_language: the bot's language when nothing else decides (``bot.i18n``).
        clock: UTC epoch seconds (injectable for tests).
        seeds: source of new game seeds (None: random, injectable for tests).
        scheduler: wakes ``timers.timer_fired`` for a game's version at a time (None:
            nowhere).
        computer_watch: seconds after which a computer's pending turn counts as a timer (0:
            never; several workers on one database).
        limits: the caps on open tables and the lobby's idle time.
        rematch_wait: seconds a rematch's players have to confirm.
        daily_config: the operator's settings of the daily.
        timezone: where a month of the standings starts.
        spawn: starts background work (the application's task factory; None: plain tasks).
        review_player: the strong player that judges reviews (None: the tip's).
    """

    def __init__(
        self,
        repo: Repository,
        computers: ComputerPlayers,
        *,
        default_timeout: int = 60,
        default_language: str = DEFAULT_LANGUAGE,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] | None = None,
        scheduler: Scheduler | None = None,
        computer_watch: float = 0.0,
        limits: TableLimits | None = None,
        rematch_wait: float = 60.0,
        daily_config: DailyConfig | None = None,
        timezone: str = "Europe/Amsterdam",
        spawn: Spawn | None = None,
        review_player: StrongPlayer | None = None,
    ) -> None:
        seeds = seeds or (lambda: random.SystemRandom().getrandbits(62))
        limits = limits or TableLimits()
        daily_config = daily_config or DailyConfig()
        self.repo = repo
        self.computers = computers
        self.clock = clock
        self.spawn: Spawn = spawn or asyncio.create_task
        self.stats = StatsService(repo, clock=clock, timezone=timezone)
        self.tables = Tables(
            repo,
            clock=clock,
            default_language=default_language,
            scheduler=scheduler,
            computer_watch=computer_watch,
            ended=self.stats.record_ended,
        )
        tables = self.tables
        self.people = PeopleService(tables, repo, clock=clock, default_language=default_language)
        self.play = PlayService(tables, repo, computers, daily_level=daily_config.level)
        self.seats = SeatService(tables, repo, clock=clock)
        self.rematch = RematchService(
            tables, repo, clock=clock, seeds=seeds, limits=limits, wait=rematch_wait
        )
        self.lobby = LobbyService(
            tables,
            repo,
            self.rematch,
            clock=clock,
            seeds=seeds,
            limits=limits,
            default_timeout=default_timeout,
        )
        self.timers = TimerService(
            tables,
            repo,
            self.lobby,
            self.seats,
            self.rematch,
            self.play,
            clock=clock,
            limits=limits,
        )
        self.daily = DailyService(
            tables, repo, computers, clock=clock, config=daily_config, spawn=self.spawn
        )
        self.tips = TipService(tables, computers)
        self.review = ReviewService(
            tables, repo, computers, self.play.computer_kind, player=review_player
        )
        self.alerts = AlertService(tables, repo, clock=clock)


__all__ = [
    "MAX_TIMEOUTS",
    "REMINDER_LEAD",
    "AlertService",
    "Board",
    "DailyService",
    "DailyStart",
    "DailyStartKind",
    "DailySummary",
    "GameService",
    "IsAdmin",
    "LobbyService",
    "NamedLine",
    "PeopleService",
    "PersonStats",
    "PlayService",
    "RematchService",
    "ReviewAsk",
    "ReviewService",
    "Scheduler",
    "SeatService",
    "StatsService",
    "TableLimits",
    "TableView",
    "Tables",
    "TimerService",
    "TipAnswer",
    "TipService",
    "active_seats",
    "awaited_seats",
    "next_setting",
    "snapshot",
]
