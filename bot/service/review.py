"""The review of a player's finished game (:mod:`engine.ai.review`): ``/review`` and the
"🔍 review" button.

A review changes nothing. It is asked for a finished game by one of its players (the seat they
held at the end, else the seat they had handed to a computer); the decisions are found on the
event loop (a replay: milliseconds), then every decision is judged in the computer pool at the
lowest priority (:data:`bot.computer.REVIEW`), one decision a piece, so a computer's move or a
tip waits for at most one piece; the hindsight numbers of the shown decisions are one more
piece. A daily's review also says where the game and the day's par parted (the par's
computer asked, in the pool at the same priority, for the seat's decisions of each round until
the first it would have made otherwise). Judging depends only on the positions and the seeds
the tip would have had there (:func:`bot.service.play.computer_seed`), so the last
:data:`REVIEW_CACHE` reviews are kept by game and seat: asking again (or while it is being
worked out) asks the pool nothing new.
"""

from __future__ import annotations

import asyncio
from asyncio import Future
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bot.computer import ComputerPlayers, choose_notation
from bot.outcome import Outcome, Refusal, refused
from bot.render.common import Player
from bot.service.core import Tables
from bot.service.play import computer_seed
from bot.tables import Table
from engine.actions import parse_action
from engine.ai.review import (
    Judgement,
    ParComparison,
    Parting,
    Point,
    Review,
    choices,
    compare_par,
    hindsight_of,
    judge,
    par_without_computer,
    parting,
    points,
    summarize,
)
from engine.ai.strong import StrongPlayer
from engine.cards import Seat, Team
from storage import GameStatus, Repository

REVIEW_CACHE = 64
"""Reviews kept (and reviews being worked out), by ``(game, seat)``."""


@dataclass(frozen=True, slots=True)
class ReviewAsk:
    """What :meth:`ReviewService.ask_review` found.

    Attributes:
        outcome: the refusal (``ok`` when the review is coming).
        review: the review being worked out (None when refused): await it.
        title: the game's name for the review's title (plain).
        players: the game's players, by seat.
    """

    outcome: Outcome
    review: Future[Review] | None = None
    title: str = ""
    players: tuple[Player, ...] = ()


class ReviewService:
    """The review (module docstring).

    Args:
        tables: the tables (loading, the game's title).
        repo: the storage repository (a user's finished games).
        computers: the computer pool that judges.
        computer_kind: ``(level, deterministic)`` of a table's computers
            (:meth:`bot.service.play.PlayService.computer_kind`): the daily's par is asked
            of the same.
        player: the strong player that judges (None: the tip's,
            :func:`engine.ai.tip.tip_player`, so the numbers are the tip's); tests give a
            quicker one.
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        computers: ComputerPlayers,
        computer_kind: Callable[[Table], tuple[str | None, bool]],
        *,
        player: StrongPlayer | None = None,
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.computers = computers
        self.computer_kind = computer_kind
        self.player = player
        self._review_tasks: OrderedDict[tuple[int, int], Future[Review]] = OrderedDict()
        """The last :data:`REVIEW_CACHE` reviews (or reviews being worked out)."""

    async def last_finished_game(self, user_id: int) -> int | None:
        """The user's last finished game (the newest where they held a seat at the end), or
        None."""
        games = await self.repo.games_of_user(user_id, (GameStatus.FINISHED,))
        return max((g.game_id for g in games), default=None)

    async def ask_review(self, game_id: int, user_id: int) -> ReviewAsk:
        """The review of ``user_id``'s play in game ``game_id``.

        Refusals (nothing changes): ``GAME_NOT_FOUND``, ``REVIEW_NOT_YET`` (the game is not
        finished: running, or stopped), ``NOT_IN_GAME`` (the user never played in it).
        """
        table = await self.tables.load(game_id)
        if table is None or table.state is None:
            return ReviewAsk(refused(Refusal.GAME_NOT_FOUND))
        if table.row.status is not GameStatus.FINISHED or not table.state.is_over:
            return ReviewAsk(refused(Refusal.REVIEW_NOT_YET, game_id))
        seat = _seat_of(table, user_id)
        if seat is None:
            return ReviewAsk(refused(Refusal.NOT_IN_GAME, game_id))
        title = (await self.tables.view_of(table)).title
        task = self._review_task(table, seat)
        return ReviewAsk(Outcome(game_id=game_id), task, title, tuple(table.players()))

    def _review_task(self, table: Table, seat: Seat) -> Future[Review]:
        """The review of ``seat`` in ``table``'s game: the one already asked for, unless it
        failed, else a new one (at most :data:`REVIEW_CACHE` kept)."""
        tasks = self._review_tasks
        key = (table.game_id, int(seat))
        task = tasks.get(key)
        if task is not None and not (
            task.done() and (task.cancelled() or task.exception() is not None)
        ):
            if table.settings.daily is not None and task.done() and task.result().par is None:
                # a daily reviewed before its par was stored: add the par once it is
                task = asyncio.ensure_future(self._add_par(table, seat, task.result()))
                tasks[key] = task
            tasks.move_to_end(key)
            return task
        task = asyncio.ensure_future(self._work_out(table, seat))
        tasks.pop(key, None)
        tasks[key] = task
        while len(tasks) > REVIEW_CACHE:
            tasks.popitem(last=False)
        return task

    async def _work_out(self, table: Table, seat: Seat) -> Review:
        """The review, judged piece by piece in the pool (module docstring).

        Raises:
            concurrent.futures.BrokenExecutor: the pool broke or is stopping.
        """
        state = table.state
        assert state is not None
        seed = table.row.seed
        where = ("review", table.game_id)
        run = self.computers.review_work
        player = self.player
        found = points(state, seat)
        judged: Sequence[Judgement | None] = await asyncio.gather(
            *(run(judge, p, computer_seed(seed, p.index), player, table=where) for p in found)
        )
        review = summarize(
            seat, state.settings.variant, [j for j in judged if j is not None], len(state.rounds)
        )
        actions = tuple(a.notation() for a in state.log)
        hind: Review = await run(
            hindsight_of, state.settings, state.seed, actions, review, table=where
        )
        return await self._add_par(table, seat, hind)

    async def _add_par(self, table: Table, seat: Seat, review: Review) -> Review:
        """``review`` with the comparison with the day's par, when the par is stored now."""
        par = await self._next_to_par(table, seat)
        return replace(review, par=par) if par is not None else review

    async def _next_to_par(self, table: Table, seat: Seat) -> ParComparison | None:
        """A daily: where the game and the day's par parted (None: not a daily, no par
        stored yet, or the seat is not the daily's player). Per round, the seat's decisions
        are put to the par's computer (the daily's level and seeds, in the pool at the
        review's priority) until the first one it would have made otherwise."""
        state = table.state
        day = table.settings.daily
        if state is None or day is None or seat.team is not Team.NS:
            return None
        par = await self.repo.get_daily_par(day)
        if par is None or par.seed != table.row.seed:
            return None
        level, deterministic = self.computer_kind(table)
        chosen = level or self.computers.level
        seed, where = table.row.seed, ("review", table.game_id)
        scores = [
            (int(r.result.score[Team.NS]), p)
            for r, p in zip(state.rounds, par.pars, strict=False)
            if r.result is not None
        ]
        rounds: dict[int, list[Point]] = {}
        for p in choices(state, seat):
            rounds.setdefault(p.obs.number, []).append(p)

        async def first_apart(found: list[Point]) -> Parting | None:
            n = found[0].obs.number
            if n > len(scores):
                return None
            for p in found:
                other = par_without_computer(p)
                if other is None:
                    text = await self.computers.review_work(
                        choose_notation, p.obs, chosen, computer_seed(seed, p.index),
                        deterministic, table=where,
                    )  # fmt: skip
                    other = parse_action(text)
                if other != p.action:
                    return parting(p, other, *scores[n - 1])
            return None

        found = await asyncio.gather(*(first_apart(ps) for ps in rounds.values()))
        return compare_par([f for f in found if f is not None], scores)


def _seat_of(table: Table, user_id: int) -> Seat | None:
    """The seat ``user_id`` held at the end, else the one they had handed over."""
    seat = table.seat_of(user_id)
    if seat is not None:
        return seat
    for i, s in enumerate(table.row.seats):
        if s.former_user_id == user_id:
            return Seat(i)
    return None


__all__ = ["REVIEW_CACHE", "ReviewAsk", "ReviewService"]
