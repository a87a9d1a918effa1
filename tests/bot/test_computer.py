"""The computer players' process pool: a worker that dies is replaced and
its decisions are made again; several decisions in the broken pool do not break the new one."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor

from bot.computer import MOVE, TIP, ComputerPlayers, FairGate
from engine.game import GameState
from engine.observe import Observation, observe
from engine.round import Phase
from engine.settings import Settings


def _observations(n: int) -> list[Observation]:
    out = []
    for seed in range(n):
        state = GameState.new(Settings(), seed)
        assert state.to_act is not None
        out.append(observe(state, state.to_act))
    return out


def _kill_workers(players: ComputerPlayers) -> int:
    executor = players._executor
    assert isinstance(executor, ProcessPoolExecutor)
    pids = list(executor._processes)  # the pool's worker processes
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return len(pids)


async def test_a_killed_worker_is_replaced_and_every_decision_is_made() -> None:
    players = ComputerPlayers("random", 2)
    await players.start()
    try:
        observations = _observations(12)
        first = await asyncio.gather(*(players.choose(o, 1) for o in observations[:4]))
        assert _kill_workers(players) == 2
        decisions = [players.choose(o, 1) for o in observations]  # 12 in the broken pool
        actions = await asyncio.gather(*decisions)
        assert all(a in o.legal for a, o in zip(actions, observations, strict=True))
        assert actions[:4] == first  # the same decisions as before the kill
        assert _kill_workers(players) == 2  # and again: a new pool each time
        again = await asyncio.gather(*(players.choose(o, 1) for o in observations))
        assert again == actions
    finally:
        players.shutdown()


async def test_a_tip_is_worked_out_in_a_worker_process_and_equals_the_engines() -> None:
    """The tip runs in the pool (a spawned worker: the suggestion pickles back) and
    is the engine's deterministic tip, whatever the pool's level."""
    from engine.ai.tip import tip

    state = GameState.new(Settings(), 3)
    while state.current is not None and state.current.phase is Phase.BIDDING:
        state, _ = state.apply(state.legal_actions()[0])
    for _ in range(9):  # into the second trick
        state, _ = state.apply(state.legal_actions()[0])
    assert state.to_act is not None
    obs = observe(state, state.to_act)
    players = ComputerPlayers("random", 1)
    try:
        got = await players.tip(obs, 5)
    finally:
        players.shutdown()
    assert got == tip(obs, 5)
    assert got.action in obs.legal and got.scores


_ran: list[str] = []


def _note(name: str, gate: threading.Event | None = None) -> str:
    """Runs in the pool's thread: waits for ``gate`` (if any), then records ``name``."""
    if gate is not None:
        gate.wait(10)
    _ran.append(name)
    return name


async def _turns() -> None:
    """Let every ready task run up to its next wait."""
    for _ in range(5):
        await asyncio.sleep(0)


async def test_tables_take_turns_in_the_pool_and_tips_wait_for_moves() -> None:
    """One table's queue of computer work cannot starve another table, and a tip runs only
    when no move waits (the pool of one thread: the order of the work is the order run)."""
    players = ComputerPlayers("random", 0)
    _ran.clear()
    busy = threading.Event()
    try:
        first = asyncio.ensure_future(players._run(MOVE, "x", _note, "busy", busy))
        await _turns()
        work = [players._run(TIP, "c", _note, "tip-c")]
        work += [players._run(MOVE, "a", _note, f"a{i}") for i in range(4)]
        work += [players._run(MOVE, "b", _note, "b0")]
        queued = [asyncio.ensure_future(w) for w in work]
        await _turns()
        busy.set()
        await asyncio.gather(first, *queued)
    finally:
        players.shutdown()
    assert _ran == ["busy", "a0", "b0", "a1", "a2", "a3", "tip-c"]


async def test_a_cancelled_waiter_gives_its_turn_away() -> None:
    gate = FairGate(1)
    await gate.acquire(MOVE, "x")
    waiter = asyncio.ensure_future(gate.acquire(MOVE, "a"))
    other = asyncio.ensure_future(gate.acquire(MOVE, "b"))
    await asyncio.sleep(0)
    waiter.cancel()
    await asyncio.sleep(0)
    gate.release()
    await asyncio.wait_for(other, 1)
    assert gate.waiting() == 0
    gate.release()
    await asyncio.wait_for(gate.acquire(TIP, "c"), 1)  # the slot is free again
