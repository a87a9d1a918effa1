"""Computer players off the event loop: the search runs in a process pool so other
tables keep responding while a computer thinks.

The worker gets only the seat's :class:`~engine.observe.Observation` (never the full state) and
a seed, and answers an action in notation; for a tip the strong player's
:class:`~engine.ai.tip.Suggestion`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import signal
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING, Any

from engine.actions import Action, parse_action
from engine.observe import Observation
from engine.players import Player, RandomPlayer

if TYPE_CHECKING:
    from engine.ai.strong import StrongPlayer
    from engine.ai.tip import Suggestion

TIP_TOP = 3
"""Cards with an expected score in a tip (:func:`engine.ai.tip.tip`'s ``top``)."""


@cache
def _player(level: str, deterministic: bool = False) -> Player:
    """The player object for a level (one per worker process and kind)."""
    try:
        from engine import ai
    except ImportError:
        return RandomPlayer()
    factory = getattr(ai, "make_player", None)
    if factory is None:
        return RandomPlayer()
    player: Player = factory(level, deterministic=True) if deterministic else factory(level)
    return player


def choose_notation(obs: Observation, level: str, seed: int, deterministic: bool = False) -> str:
    """Pick an action for ``obs.seat``; runs in a worker. Returns the action in notation.
    ``deterministic``: without any wall-clock budget (:func:`engine.ai.make_player`), so the
    answer depends on ``(obs, level, seed)`` only."""
    action = _player(level, deterministic).choose(obs, random.Random(seed))
    return action.notation()


@cache
def _tip_player() -> StrongPlayer:
    """The strong player of tips (one per worker process): deterministic, no wall clock."""
    from engine.ai.tip import tip_player

    return tip_player()


def tip_in_worker(obs: Observation, seed: int, top: int = TIP_TOP) -> Suggestion:
    """The tip for ``obs.seat`` (:func:`engine.ai.tip.tip`); runs in a worker."""
    from engine.ai.tip import tip

    return tip(obs, seed, top, player=_tip_player())


def _warm_up(level: str) -> None:
    _player(level)


WORKER_NICENESS = 19
"""How much lower the workers' CPU priority is than the bot's: a computer's search waits for
the event loop, never the other way round, so taps are answered at once on a busy machine
(at 100 tables the searches took the cores from the loop)."""


def _worker_init() -> None:
    """In each worker: leave Ctrl-C to the bot (a terminal sends SIGINT to the whole process
    group; a worker that died of it would break the pool under a running decision)
    and yield the CPU to the bot (:data:`WORKER_NICENESS`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)


log = logging.getLogger(__name__)

ATTEMPTS = 3
"""Tries of a decision whose pool broke under it."""


MOVE = 0
"""Priority of a computer's move (:class:`FairGate`: served first)."""

TIP = 1
"""Priority of a tip: it waits while any move waits."""

REVIEW = 2
"""Priority of a game review's work (:mod:`bot.service.review`): the lowest, it waits while
any move or tip waits."""


class FairGate:
    """Who runs next in a pool of ``slots`` workers: lower priority numbers first (moves
    before tips), and within a priority the tables take turns (round robin), so one table's
    computers cannot starve another's however much work it queues.

    Args:
        slots: work items that may run at once (the pool's workers), at least 1.
    """

    def __init__(self, slots: int) -> None:
        self._free = max(1, slots)
        self._waiting: dict[int, OrderedDict[Hashable, deque[asyncio.Future[None]]]] = {}

    def waiting(self) -> int:
        """Work items waiting for a slot."""
        return sum(len(q) for tables in self._waiting.values() for q in tables.values())

    async def acquire(self, priority: int, table: Hashable) -> None:
        """Wait for a slot for ``table``'s work of ``priority``; then hold it (call
        :meth:`release` once done)."""
        if self._free > 0 and not self.waiting():
            self._free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(priority, OrderedDict()).setdefault(table, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # granted, then cancelled: pass it on
                self.release()
            else:
                self._drop(priority, table, turn)
            raise

    def release(self) -> None:
        """Give the slot to the next waiting work (or free it)."""
        for priority in sorted(self._waiting):
            tables = self._waiting[priority]
            while tables:
                table, queue = next(iter(tables.items()))
                turn = queue.popleft()
                del tables[table]
                if queue:  # the table's next item waits behind the other tables
                    tables[table] = queue
                if not turn.done():
                    turn.set_result(None)
                    return
            del self._waiting[priority]
        self._free += 1

    def _drop(self, priority: int, table: Hashable, turn: asyncio.Future[None]) -> None:
        tables = self._waiting.get(priority, OrderedDict())
        queue = tables.get(table)
        if queue is not None and turn in queue:
            queue.remove(turn)
            if not queue:
                del tables[table]


class ComputerPlayers:
    """Runs computer decisions in a pool, fairly between tables, moves before tips
    (:class:`FairGate`).

    Args:
        level: ``strong``, ``basic`` or ``random``.
        workers: processes in the pool; 0 runs decisions in one thread of this process.
    """

    def __init__(self, level: str = "strong", workers: int = 1) -> None:
        self.level = level
        self._workers = workers
        self._executor: Executor | None = None
        self._closed = False
        self._gate = FairGate(workers)

    def _pool(self) -> Executor:
        if self._closed:
            raise BrokenExecutor("the computer players were shut down")
        if self._executor is None:
            if self._workers > 0:
                ctx = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(
                    self._workers, mp_context=ctx, initializer=_worker_init
                )
            else:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="computer")
        return self._executor

    async def start(self) -> None:
        """Start the pool and load the player in each worker (so the first move is quick)."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._pool(), _warm_up, self.level)

    async def choose(
        self,
        obs: Observation,
        seed: int,
        *,
        level: str | None = None,
        deterministic: bool = False,
        table: Hashable = None,
    ) -> Action:
        """The computer's action for ``obs.seat`` (one of ``obs.legal``), by the pool's level
        or ``level``; ``deterministic``: decided by a fixed search budget with no clock (the
        daily deal: the same observation and seed give the same action on any machine under
        any load). The level and the flag travel to the worker with the observation.
        ``table``: whose decision it is (a game id; any hashable).

        Decisions wait for a worker in turns between tables (:class:`FairGate`), before any
        tip. A worker that dies (killed, out of memory) breaks the pool: it is replaced by
        a new pool, once for every decision that was in it, and the decision is made again
        (up to :data:`ATTEMPTS` times).

        Raises:
            concurrent.futures.BrokenExecutor: the pool kept breaking, or was shut down (the
                bot is stopping); the game stays as saved.
        """
        text = await self._run(
            MOVE, table, choose_notation, obs, level or self.level, seed, deterministic
        )
        action = parse_action(text)
        if action not in obs.legal:  # a broken player must never stall or corrupt a game
            action = obs.legal[0]
        return action

    async def tip(
        self, obs: Observation, seed: int, top: int = TIP_TOP, *, table: Hashable = None
    ) -> Suggestion:
        """The tip for ``obs.seat`` (:func:`engine.ai.tip.tip`): the strong player's
        action with its deterministic budget, whatever the pool's level, and the expected round
        scores of the ``top`` best cards. Runs in the pool like a decision (never on the event
        loop) but only when no move waits; a pool that breaks is replaced as for
        :meth:`choose`. ``table``: as for :meth:`choose`.

        Raises:
            concurrent.futures.BrokenExecutor: as :meth:`choose`.
            ValueError: ``obs`` has no legal action.
        """
        if not obs.legal:
            raise ValueError("a tip needs a seat that is to act")
        suggestion: Suggestion = await self._run(TIP, table, tip_in_worker, obs, seed, top)
        return suggestion

    async def review_work(self, fn: Callable[..., Any], *args: Any, table: Hashable = None) -> Any:
        """``fn(*args)`` (a picklable top-level function) in the pool at :data:`REVIEW`
        priority, one piece of a game review at a time (so a move waits for at most one
        piece); a pool that breaks is replaced as for :meth:`choose`.

        Raises:
            concurrent.futures.BrokenExecutor: as :meth:`choose`.
        """
        return await self._run(REVIEW, table, fn, *args)

    async def _run(self, priority: int, table: Hashable, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the pool once :class:`FairGate` lets ``table``'s work of
        ``priority`` through; the pool replaced when it broke (:meth:`choose`)."""
        await self._gate.acquire(priority, table)
        try:
            return await self._in_pool(fn, *args)
        finally:
            self._gate.release()

    async def _in_pool(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        for attempt in range(ATTEMPTS):
            executor = self._pool()
            try:
                return await loop.run_in_executor(executor, fn, *args)
            except BrokenExecutor:
                if self._closed or attempt == ATTEMPTS - 1:
                    raise
                if self._executor is executor:  # the first to notice replaces it
                    log.warning("a computer player's worker died; starting a new pool")
                    executor.shutdown(wait=False, cancel_futures=True)
                    self._executor = None
        raise BrokenExecutor("unreachable")  # pragma: no cover

    def shutdown(self) -> None:
        """Stop the workers (does not wait for a running decision); later decisions raise
        ``BrokenExecutor``."""
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
