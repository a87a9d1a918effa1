"""Turn timers and the restart: a player who does not act in time is reminded, then the
computer plays for them; :data:`MAX_TIMEOUTS` timeouts in a row (counted with the game, so a
restart does not forget them) give the seat to a computer. After a restart every running
table is re-armed and redrawn."""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.outcome import Notice, NoticeKind, Outcome
from bot.service.core import TableLimits, Tables, active_seats
from bot.service.lobby import LobbyService
from bot.service.play import PlayService
from bot.service.rematch import RematchService
from bot.service.seats import SeatService
from storage import GameStatus, Repository, SeatKind

log = logging.getLogger(__name__)

MAX_TIMEOUTS = 3
"""Turn timeouts in a row after which an absent player's seat goes to a computer for good."""


LOBBY_SWEEP_SECONDS = 30.0
"""On a shared database, how often a worker's timer sweep also looks for idle lobbies (a
lobby's timer is this process's job only; any worker may close it)."""


class TimerService:
    """Turn timers, the idle lobby's timer and resuming after a restart (module docstring).

    Args:
        tables: the tables (the lock, loading, timers).
        repo: the storage repository (reminders, the shared timers' claims).
        lobby: closes an idle lobby.
        seats: gives an absent player's seat to a computer.
        rematch: re-arms the rematch lobbies' timers after a restart.
        play: the computers' moves of a timed-out turn.
        clock: UTC epoch seconds.
        limits: the lobby's idle time.
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        lobby: LobbyService,
        seats: SeatService,
        rematch: RematchService,
        play: PlayService,
        *,
        clock: Callable[[], float],
        limits: TableLimits,
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.lobby = lobby
        self.seats = seats
        self.rematch = rematch
        self.play = play
        self.clock = clock
        self.limits = limits
        self._lobbies_swept = float("-inf")

    async def timer_fired(self, game_id: int, version: int) -> Outcome:
        """A turn timer woke up: remind the player first, then let the computer play for them;
        after :data:`MAX_TIMEOUTS` timeouts in a row the seat goes to a computer for good. The
        computers' own moves after that are the table driver's (the outcome moved the game;
        a computer's turn left undone, a watch, comes back as a redraw). A timer of an older
        version (the player acted meanwhile) does nothing. A lobby's timer
        closes it when it stayed idle (:meth:`~bot.service.lobby.LobbyService.close_idle_lobby`)."""
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is not None and table.row.status is GameStatus.LOBBY:
                return await self.lobby.close_idle_lobby(table)
            if (
                table is None
                or table.state is None
                or table.row.status is not GameStatus.ACTIVE
                or table.version != version
                or table.row.timer is None
            ):
                return Outcome(game_id=game_id)
            timer = table.row.timer
            if self.clock() < timer.deadline_at - 0.05:
                if not timer.reminded:
                    await self.repo.mark_reminded(game_id, version)
                await self.tables.arm(game_id, version, timer.deadline_at)
                if timer.reminded:
                    return Outcome(game_id=game_id)
                return Outcome(game_id=game_id, notices=[Notice(NoticeKind.REMINDER, timer.seat)])
            if table.kind(timer.seat) is not SeatKind.HUMAN:  # a computer's turn left undone
                # The worker that should have moved them died (perhaps before it showed the
                # last move): redraw, and the table driver moves the computers.
                before = active_seats(table.state, table)
                return Outcome(game_id=game_id, resync=True, before=before)
            missed = table.row.seats[timer.seat].timeouts + 1
            if missed < MAX_TIMEOUTS:
                return await self.play.take_over(table, timer.seat, {timer.seat: missed})
            return await self.seats.to_computer(table, timer.seat, NoticeKind.ABSENT, None)

    async def sweep_timers(self, *, lease: float, limit: int = 50) -> list[Outcome]:
        """Run the turn timers that are due, whichever worker armed them: each is claimed in
        the database first (:meth:`storage.Repository.claim_due_timers`), so it fires once
        even with several workers sweeping; a worker that dies holding a claim loses it
        after ``lease`` seconds and another runs the timer. Returns one outcome
        per timer run, for the presenter; never raises for one timer's failure (logged;
        its claim runs out). Every :data:`LOBBY_SWEEP_SECONDS` it also closes the idle
        lobbies (:meth:`close_idle_lobbies`)."""
        outcomes = []
        if self.clock() - self._lobbies_swept >= LOBBY_SWEEP_SECONDS:
            self._lobbies_swept = self.clock()
            outcomes += await self.close_idle_lobbies()
        for game_id, version in await self.repo.claim_due_timers(
            self.clock(), lease=lease, limit=limit
        ):
            try:
                outcomes.append(await self.timer_fired(game_id, version))
            except Exception:
                log.exception("turn timer of game %s failed", game_id)
                continue
            await self.repo.release_timer(game_id, version)
        return outcomes

    async def close_idle_lobbies(self) -> list[Outcome]:
        """Close every lobby that stayed idle for :attr:`TableLimits.lobby_idle` seconds (the
        open tables are capped, so the list is short). Returns the closed ones' outcomes;
        never raises for one lobby's failure (logged)."""
        outcomes = []
        due = self.clock() - self.limits.lobby_idle
        for row in await self.repo.games_by_status({GameStatus.LOBBY}):
            if row.updated_at > due:
                continue
            try:
                async with self.tables.lock(row.game_id):
                    table = await self.tables.load(row.game_id)
                    if table is not None:
                        out = await self.lobby.close_idle_lobby(table)
                        if out.stopped:
                            outcomes.append(out)
            except Exception:
                log.exception("closing the idle lobby of game %s failed", row.game_id)
        return outcomes

    async def resume(self) -> list[Outcome]:
        """After a restart: re-arm every running timer (storing the turn timer a table needs if
        it has none, e.g. after a crash between a seat change and its timer), and have every
        running table redrawn (the process may have died between saving a move and showing
        it). Returns one outcome per active game, for the table driver (which then lets the
        computers finish their turns). Every lobby's idle timer is set again too, and every
        rematch lobby's confirmation timer."""
        outcomes = []
        for row in await self.repo.games_by_status({GameStatus.LOBBY}):
            await self.tables.arm(row.game_id, row.version, row.updated_at + self.limits.lobby_idle)
        for row in await self.repo.games_by_status({GameStatus.ACTIVE}):
            out = Outcome(game_id=row.game_id, resync=True, remind=True)
            async with self.tables.lock(row.game_id):
                table = await self.tables.load(row.game_id)
                if table is not None and table.state is not None:
                    await self.tables.retime(table)
            outcomes.append(out)
        await self.rematch.rearm()
        return outcomes
