"""The tip button (💡): what the strong computer would play in the tapping player's
seat, with the expected round scores of the best cards (:mod:`engine.ai.tip`).

A tip changes nothing: the tap is checked like a move (the game, the tapper's seat, the state
version the button was drawn at, tips on at this table, the tapper to play a card,
``rules.md`` §4), then the seat's observation goes to the computer pool; the game's lock is
not held while the pool works. A tip depends only on the position (:mod:`engine.ai.tip` is
deterministic), so the last :data:`TIP_CACHE` tips are kept by game, version and seat: tapping
💡 again (or while it is being worked out) asks the pool nothing new, so one player cannot fill
the pool that every table's computers share.
"""

from __future__ import annotations

import asyncio
from asyncio import Future
from concurrent.futures import BrokenExecutor
from dataclasses import dataclass

from bot.computer import ComputerPlayers
from bot.outcome import Outcome, Refusal, refused
from bot.service.core import Tables
from bot.service.play import computer_seed
from engine.actions import PlayCard
from engine.ai.tip import Suggestion
from engine.observe import Observation, observe
from engine.round import Phase
from storage import GameStatus

TIP_CACHE = 256
"""Tips kept (and tips being worked out), by ``(game, version, seat)``."""

TIP_WAIT = 12.0
"""Seconds a tip may wait for the computer pool (it queues behind the computers' moves)
before the tap is answered ``TIP_BUSY`` (Telegram wants a callback answered soon)."""


@dataclass(frozen=True, slots=True)
class TipAnswer:
    """What :meth:`TipService.tip` found.

    Attributes:
        outcome: the refusal (``ok`` when there is a tip); never a state change.
        suggestion: the tip (None when refused).
        obs: the tapper's observation the tip is for (None when refused).
    """

    outcome: Outcome
    suggestion: Suggestion | None = None
    obs: Observation | None = None


class TipService:
    """The tip (module docstring).

    Args:
        tables: the tables (the lock, loading, whether tips are on).
        computers: the computer pool that works tips out.
    """

    def __init__(self, tables: Tables, computers: ComputerPlayers) -> None:
        self.tables = tables
        self.computers = computers
        self._tip_tasks: dict[tuple[int, int, int], Future[Suggestion]] = {}
        """The last :data:`TIP_CACHE` tips (or tips being worked out)."""

    def _tip_task(
        self, key: tuple[int, int, int], obs: Observation, seed: int
    ) -> Future[Suggestion]:
        """The pool's work on the tip of ``key`` (game, version, seat): the one already asked
        for, unless it failed, else a new one (at most :data:`TIP_CACHE` are kept)."""
        tasks = self._tip_tasks
        task = tasks.get(key)
        if task is not None and not (
            task.done() and (task.cancelled() or task.exception() is not None)
        ):
            return task
        task = asyncio.ensure_future(self.computers.tip(obs, seed, table=key[0]))
        tasks.pop(key, None)
        tasks[key] = task
        while len(tasks) > TIP_CACHE:
            tasks.pop(next(iter(tasks)))
        return task

    async def tip(self, game_id: int, version: int, user_id: int) -> TipAnswer:
        """A tap on the 💡 button of ``user_id``'s hand, drawn at ``version``.

        Refusals (the game unchanged): ``GAME_NOT_FOUND``, ``GAME_FINISHED``, ``NOT_IN_GAME``
        (not seated at this table), ``TIPS_OFF`` (a ranked daily, a group table without the
        setting: :meth:`~bot.service.core.Tables.tips_on`), ``STALE_BUTTON`` (the game
        moved on since the button was drawn), ``NO_TIP_NOW`` (not the tapper's turn to play
        a card), ``TIP_BUSY`` (the pool did not answer within :data:`TIP_WAIT`, or is
        stopping).
        """
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None:
                return TipAnswer(refused(Refusal.GAME_NOT_FOUND))
            state = table.state
            if table.row.status is not GameStatus.ACTIVE or state is None or state.is_over:
                return TipAnswer(refused(Refusal.GAME_FINISHED, game_id))
            seat = table.seat_of(user_id)
            if seat is None:
                return TipAnswer(refused(Refusal.NOT_IN_GAME, game_id))
            if not await self.tables.tips_on(table):
                return TipAnswer(refused(Refusal.TIPS_OFF, game_id))
            if version != table.version:
                return TipAnswer(refused(Refusal.STALE_BUTTON, game_id))
            obs = observe(state, seat)
            if (
                obs.phase is not Phase.PLAY
                or obs.to_act != seat
                or not any(isinstance(a, PlayCard) for a in obs.legal)
            ):
                return TipAnswer(refused(Refusal.NO_TIP_NOW, game_id))
            seed = computer_seed(table.row.seed, len(state.log))
        task = self._tip_task((game_id, version, int(seat)), obs, seed)
        try:
            suggestion = await asyncio.wait_for(asyncio.shield(task), TIP_WAIT)
        except (TimeoutError, BrokenExecutor):
            return TipAnswer(refused(Refusal.TIP_BUSY, game_id))
        return TipAnswer(Outcome(game_id=game_id), suggestion, obs)
