"""Turn timers and the restart: a player who does not act in time is reminded, then the
computer plays for them; :data:`MAX_TIMEOUTS` timeouts in a row (counted with the game, so a
restart does not forget them) give the seat to a computer. After a restart every running
table is re-armed and redrawn."""

from __future__ import annotations

import logging

from bot.outcome import Notice, NoticeKind, Outcome
from bot.service.lobby import LobbyOps
from storage import GameStatus, SeatKind

log = logging.getLogger(__name__)

MAX_TIMEOUTS = 3
"""Turn timeouts in a row after which an absent player's seat goes to a computer for good."""


LOBBY_SWEEP_SECONDS = 30.0
"""On a shared database, how often a worker's timer sweep also looks for idle lobbies (a
lobby's timer is this process's job only; any worker may close it)."""


class TimerOps(LobbyOps):
    """Turn timers, the idle lobby's timer and resuming after a restart (see
    :class:`bot.service.GameService`)."""

    _lobbies_swept: float = float("-inf")

    async def timer_fired(self, game_id: int, version: int) -> Outcome:
        """A turn timer woke up: remind the player first, then let the computer play for them;
        after :data:`MAX_TIMEOUTS` timeouts in a row the seat goes to a computer for good. A
        timer of an older version (the player acted meanwhile) does nothing. A lobby's timer
        closes it when it stayed idle (:meth:`~bot.service.lobby.LobbyOps.close_idle_lobby`)."""
        async with self.lock(game_id):
            table = await self.load(game_id)
            if table is not None and table.row.status is GameStatus.LOBBY:
                return await self.close_idle_lobby(table)
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
                await self._arm(game_id, version, timer.deadline_at)
                if timer.reminded:
                    return Outcome(game_id=game_id)
                return Outcome(game_id=game_id, notices=[Notice(NoticeKind.REMINDER, timer.seat)])
            if table.kind(timer.seat) is not SeatKind.HUMAN:  # a computer's turn left undone
                return await self._run_computers(table)
            missed = table.row.seats[timer.seat].timeouts + 1
            if missed < MAX_TIMEOUTS:
                return await self._run_computers(
                    table, takeover=timer.seat, timeouts={timer.seat: missed}
                )
            return await self._to_computer(table, timer.seat, NoticeKind.ABSENT, None)

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
                async with self.lock(row.game_id):
                    table = await self.load(row.game_id)
                    if table is not None:
                        out = await self.close_idle_lobby(table)
                        if out.stopped:
                            outcomes.append(out)
            except Exception:
                log.exception("closing the idle lobby of game %s failed", row.game_id)
        return outcomes

    async def resume(self) -> list[Outcome]:
        """After a restart: re-arm every running timer (storing the turn timer a table needs if
        it has none, e.g. after a crash between a seat change and its timer), let computers
        finish their turns, and have every running table redrawn (the process may have died
        between saving a move and showing it). Returns one outcome per active game, for the
        presenter. Every lobby's idle timer is set again too."""
        outcomes = []
        for row in await self.repo.games_by_status({GameStatus.LOBBY}):
            await self._arm(row.game_id, row.version, row.updated_at + self.limits.lobby_idle)
        for row in await self.repo.games_by_status({GameStatus.ACTIVE}):
            out = Outcome(game_id=row.game_id, resync=True, remind=True)
            async with self.lock(row.game_id):
                table = await self.load(row.game_id)
                if table is not None and table.state is not None:
                    await self._retime(table)
            outcomes.append(out.merge(await self.run_computers(row.game_id)))
        return outcomes
