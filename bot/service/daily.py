"""The daily deal (rules in :mod:`bot.daily`): ``/daily`` starts today's attempt in
the player's private chat, the computers of a daily decide by a fixed node budget and the
day's seed (:meth:`bot.service.play.PlayService.computer_kind`), the day's par is computed
once in the background through the computer pool, and the result, place and board are read
from the records.

A daily left open when its day ends can still be finished; it is then not on that day's board
(it ended after the day did). A ``/daily`` on a later day stops such a leftover (it counts as
played, :mod:`bot.standings`) and starts the new day's deal.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.computer import ComputerPlayers
from bot.daily import (
    BOARD_SIZE,
    SECRET_KEY,
    BoardLine,
    DailyConfig,
    board_name,
    daily_seats,
    daily_seed,
    day_bounds,
    day_of,
    ranked_board,
)
from bot.outcome import Outcome
from bot.service.core import Tables
from bot.service.play import computer_seed
from bot.tables import TableSettings
from engine.actions import Action, ClaimRoem
from engine.cards import SEATS, Team
from engine.game import GameState
from engine.observe import observe
from engine.record import replay_actions
from storage import GameStatus, OpenGameExists, Repository
from storage.stats_rows import DailyEntry, DailyPar, DailyResult, PlayerResult

log = logging.getLogger(__name__)

Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]


class DailyStartKind(StrEnum):
    """What ``/daily`` in the private chat did."""

    STARTED = "started"
    """A new attempt was dealt (:attr:`DailyStart.entry` says whether it is ranked)."""
    RUNNING = "running"
    """Today's attempt is being played: the hand is sent again."""
    DONE = "done"
    """Today's ranked attempt is over: the board (and a button to play again, unranked)."""
    OTHER_GAME = "other_game"
    """Another game is open in the private chat (``/klaverjas`` alone): finish or stop it."""


@dataclass(frozen=True, slots=True)
class NamedLine:
    """A board line with the name to show: ``name`` ``""`` for somebody hidden or without a
    name (the renderer says so), ``me`` for the reader's own line."""

    line: BoardLine
    name: str
    hidden: bool = False
    me: bool = False


@dataclass(frozen=True, slots=True)
class Board:
    """A day's board as one reader sees it.

    Attributes:
        day: ``YYYY-MM-DD``.
        entries: how many lines it has.
        top: the first :data:`~bot.daily.BOARD_SIZE` lines.
        own: the reader's line (also when it is among the top), None without one.
        group: the group's title for a group's board, None for the global board.
    """

    day: str
    entries: int
    top: tuple[NamedLine, ...]
    own: NamedLine | None
    group: str | None = None


@dataclass(frozen=True, slots=True)
class DailySummary:
    """The result of a daily attempt, with the day's board.

    Attributes:
        entry: the attempt.
        result: its recorded result (None: not ended or not recorded).
        rounds: the points of the player's team in each scored round.
        par: the day's par (None: still being computed: "par follows").
        on_board: the attempt is the one on the board (ranked, finished in time).
        late: a ranked attempt that finished after its day ended.
        board: the day's global board.
        hidden: the reader hid themselves from the boards.
    """

    entry: DailyEntry
    result: PlayerResult | None
    rounds: tuple[int, ...]
    par: DailyPar | None
    on_board: bool
    late: bool
    board: Board
    hidden: bool


@dataclass(slots=True)
class DailyStart:
    """What :meth:`DailyService.start_daily` did (``kind``), with what to show.

    Attributes:
        kind: see :class:`DailyStartKind`.
        outcome: the dealt game, for the table driver (``STARTED``).
        entry: the attempt started, or running.
        summary: today's ranked attempt and the board (``DONE``).
        stopped_day: the day of an older daily that was stopped to start this one.
        stopped: that older daily's stop, for the table driver.
    """

    kind: DailyStartKind
    outcome: Outcome | None = None
    entry: DailyEntry | None = None
    summary: DailySummary | None = None
    stopped_day: str | None = None
    stopped: Outcome | None = None


class DailyService:
    """The daily deal (module docstring).

    Args:
        tables: the tables (the lock, loading, the deal, stopping a leftover).
        repo: the storage repository.
        computers: the computer pool that plays the day's par.
        clock: UTC epoch seconds.
        config: the operator's settings of the daily.
        spawn: starts background work (the application's task factory; None: a plain task).
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        computers: ComputerPlayers,
        *,
        clock: Callable[[], float],
        config: DailyConfig,
        spawn: Spawn | None = None,
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.computers = computers
        self.clock = clock
        self.config = config
        self.spawn: Spawn = spawn or asyncio.create_task
        self._par_tasks: dict[str, asyncio.Task[None]] = {}
        """The day's par being computed (finished ones are dropped as new ones start)."""

    def today(self) -> str:
        """Today's day in the daily's time zone."""
        return day_of(self.clock(), self.config.timezone)

    async def daily_secret(self) -> str:
        """``DAILY_SECRET``, else the one drawn on first use and stored."""
        if self.config.secret:
            return self.config.secret
        return await self.repo.bot_value(SECRET_KEY, secrets.token_hex(32), now=self.clock())

    async def daily_deal(self, day: str) -> tuple[TableSettings, int]:
        """The table settings and the deal seed of ``day``'s daily."""
        return self.config.settings(day), daily_seed(await self.daily_secret(), day)

    # --- starting ----------------------------------------------------------------------------

    async def start_daily(self, user_id: int, name: str) -> DailyStart:
        """``/daily`` in the private chat of ``user_id`` (module docstring)."""
        now, day = self.clock(), self.today()
        await self.repo.upsert_chat(user_id, "private", None, now=now)
        stopped_day: str | None = None
        stopped: Outcome | None = None
        open_row = await self.repo.open_game_of_chat(user_id)
        if open_row is not None:
            table = await self.tables.table(open_row)
            if table.settings.daily is None:
                return DailyStart(DailyStartKind.OTHER_GAME, entry=None)
            entry = await self.repo.daily_entry(open_row.game_id)
            if table.settings.daily == day:
                return DailyStart(DailyStartKind.RUNNING, entry=entry)
            async with self.tables.lock(open_row.game_id):  # yesterday's leftover: stop it
                fresh = await self.tables.load(open_row.game_id)
                if fresh is not None and fresh.is_open:
                    stopped = await self.tables.abandon(fresh, None)
            stopped_day = table.settings.daily
        ranked = [e for e in await self.repo.daily_entries(user_id=user_id, day=day) if e.ranked]
        if ranked and not ranked[0].status.is_open and stopped_day is None:
            summary = await self.daily_summary(ranked[0])
            return DailyStart(DailyStartKind.DONE, entry=ranked[0], summary=summary)
        started = await self.deal_daily(user_id, name, stopped_day=stopped_day)
        started.stopped = stopped
        return started

    async def deal_daily(
        self, user_id: int, name: str, *, stopped_day: str | None = None
    ) -> DailyStart:
        """Deal today's deal set for ``user_id`` (ranked when it is their first attempt of
        the day), and have the par computed if it is not yet."""
        now, day = self.clock(), self.today()
        settings, seed = await self.daily_deal(day)
        _, ends = day_bounds(day, self.config.timezone)
        await self.repo.upsert_chat(user_id, "private", None, now=now)
        try:
            row, entry = await self.repo.create_daily_game(
                user_id,
                settings.to_json(),
                seed,
                day=day,
                day_ends_at=ends,
                now=now,
                seats=daily_seats(user_id, name),
            )
        except OpenGameExists:
            return DailyStart(DailyStartKind.OTHER_GAME)
        self.start_par(day)
        async with self.tables.lock(row.game_id):
            out = await self.tables.start(await self.tables.table(row))
        return DailyStart(DailyStartKind.STARTED, out, entry, stopped_day=stopped_day)

    # --- the par -------------------------------------------------------------------------------

    def start_par(self, day: str) -> None:
        """Compute ``day``'s par in the background unless it is stored or being computed."""
        tasks = self._par_tasks
        if day in tasks and not tasks[day].done():
            return
        for done in [d for d, task in tasks.items() if task.done()]:  # keeps the dict small
            del tasks[done]
        tasks[day] = self.spawn(self._par_task(day))

    async def _par_task(self, day: str) -> None:
        try:
            await self.daily_par(day)
        except Exception:  # the par follows later (the next /daily tries again)
            log.exception("computing the par of %s failed", day)

    async def daily_par(self, day: str) -> DailyPar:
        """``day``'s par, computed (and stored) when there is none: the daily's four seats
        played by the daily's computers through the pool, the player's seat by the same
        computer, on the day's deals; the points of the player's team per round."""
        stored = await self.repo.get_daily_par(day)
        if stored is not None:
            return stored
        settings, seed = await self.daily_deal(day)
        level = self.config.level
        state = GameState.new(settings.rules, seed)
        while not state.is_over:
            claim = next(
                (ClaimRoem(s) for s in SEATS if ClaimRoem(s) in state.legal_actions(s)), None
            )
            action: Action
            if claim is not None:
                action = claim
            else:
                seat = state.to_act
                if seat is None:
                    raise RuntimeError(f"the par game of {day} waits for nobody")
                action = await self.computers.choose(
                    observe(state, seat), computer_seed(seed, len(state.log)),
                    level=level, deterministic=True, table=("par", day),
                )  # fmt: skip
            state, _ = state.apply(action)
        pars = tuple(int(r.result.score[Team.NS]) for r in state.rounds if r.result is not None)
        par = DailyPar(day, seed, settings.to_json(), pars, self.clock())
        return await self.repo.save_daily_par(par)

    # --- results and boards ------------------------------------------------------------------

    async def daily_summary_of_game(self, game_id: int) -> DailySummary | None:
        """The summary of the daily attempt played in ``game_id`` (None: not a daily)."""
        entry = await self.repo.daily_entry(game_id)
        return await self.daily_summary(entry) if entry is not None else None

    async def daily_summary(self, entry: DailyEntry) -> DailySummary:
        """The result of ``entry`` and its day's global board, as its player sees them."""
        results = [
            r for r in await self.repo.player_results(user_id=entry.user_id)
            if r.game_id == entry.game_id
        ]  # fmt: skip
        result = results[0] if results else None
        rounds: tuple[int, ...] = ()
        row = await self.repo.get_game(entry.game_id, with_actions=True)
        if row is not None and row.snapshot not in (None, "{}"):
            settings = TableSettings.from_json(row.settings)
            state = replay_actions(settings.rules, row.seed, row.actions or ())
            rounds = tuple(
                int(r.result.score[Team.NS]) for r in state.rounds if r.result is not None
            )
        par = await self.repo.get_daily_par(entry.day)
        if par is None:
            self.start_par(entry.day)
        lines = await self.repo.daily_results(entry.day)
        on_board = any(r.game_id == entry.game_id for r in lines)
        late = (
            entry.ranked
            and result is not None
            and result.status is GameStatus.FINISHED
            and result.ended_at >= entry.day_ends_at
        )
        board = await self.board(entry.day, entry.user_id, lines)
        hidden = entry.user_id in await self.repo.hidden_users([entry.user_id])
        return DailySummary(entry, result, rounds, par, on_board, late, board, hidden)

    async def board(
        self,
        day: str,
        reader: int | None,
        lines: list[DailyResult] | None = None,
        *,
        chat_id: int | None = None,
        title: str | None = None,
    ) -> Board:
        """``day``'s board as ``reader`` sees it: the global one (first name and initial), or
        the group ``chat_id``'s (the people who have played there, full names). People who
        hid themselves are on it without a name, except on their own line."""
        if lines is None:
            lines = await self.repo.daily_results(day)
        if chat_id is not None:
            members = {r.user_id for r in await self.repo.player_results(chat_id=chat_id)}
            lines = [r for r in lines if r.user_id in members]
        ranked = ranked_board(lines)
        shown = ranked[:BOARD_SIZE]
        own = next((x for x in ranked if x.user_id == reader), None)
        ids = {x.user_id for x in shown} | ({own.user_id} if own else set())
        users = await self.repo.get_users(ids)
        hidden = await self.repo.hidden_users(ids)

        def named(x: BoardLine) -> NamedLine:
            user = users.get(x.user_id)
            full = user.display_name if user is not None else ""
            me = x.user_id == reader
            secret = x.user_id in hidden and not me
            name = "" if secret else full if chat_id is not None else board_name(full)
            return NamedLine(x, name, secret, me)

        return Board(
            day,
            len(ranked),
            tuple(named(x) for x in shown),
            named(own) if own is not None else None,
            title if chat_id is not None else None,
        )

    async def set_board_hidden(self, user_id: int, hidden: bool) -> None:
        """A person hides themselves from the boards (or shows themselves again)."""
        await self.repo.set_board_hidden(user_id, hidden, now=self.clock())
