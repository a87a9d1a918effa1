"""The table limits in the service: the idle lobby's timer (this process's job, and the
shared database's sweep), and the caps' refusals."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.outcome import Refusal
from bot.service import GameService, TableLimits
from storage import GameStatus, Repository, open_repository
from tests.bot.helpers import lobby_payload, make_service


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _no() -> bool:
    return False


@pytest.fixture
async def service() -> AsyncIterator[tuple[GameService, Clock, list[tuple[int, int, float]]]]:
    repo: Repository = await open_repository(":memory:")
    clock = Clock()
    armed: list[tuple[int, int, float]] = []
    svc = make_service(
        repo,
        clock=clock,
        scheduler=lambda gid, version, at: armed.append((gid, version, at)),
        limits=TableLimits(per_creator=1, total=2, lobby_idle=600),
    )
    for uid in (1, 2, 3):
        await svc.people.touch_user(uid, f"user{uid}", "nl")
        await svc.people.user_started(uid)
    try:
        yield svc, clock, armed
    finally:
        svc.computers.shutdown()
        await repo.close()


async def test_a_lobby_timer_closes_it_only_after_the_idle_time_since_its_last_change(
    service: tuple[GameService, Clock, list[tuple[int, int, float]]],
) -> None:
    svc, clock, armed = service
    gid = (await svc.lobby.open_table(-1, "group", "A", 1, "user1")).game_id
    assert gid is not None and armed[-1][0] == gid and armed[-1][2] == 1600.0
    clock.now = 1300.0
    table = await svc.tables.load(gid)
    assert table is not None
    assert (await svc.lobby.lobby_action(gid, table.version, 1, lobby_payload("sit:0"), _no)).ok
    clock.now = 1600.0  # the first timer: the lobby changed at 1300
    out = await svc.timers.timer_fired(gid, armed[-1][1])
    assert not out.stopped and armed[-1][2] == 1900.0
    clock.now = 1900.0
    out = await svc.timers.timer_fired(gid, armed[-1][1])
    assert out.stopped and out.details["idle_minutes"] == 10 and out.actor is None
    row = await svc.repo.get_game(gid)
    assert row is not None and row.status is GameStatus.ABANDONED


async def test_the_sweep_of_a_shared_database_closes_idle_lobbies(
    service: tuple[GameService, Clock, list[tuple[int, int, float]]],
) -> None:
    svc, clock, _ = service
    old = (await svc.lobby.open_table(-1, "group", "A", 1, "user1")).game_id
    clock.now = 1500.0
    young = (await svc.lobby.open_table(-2, "group", "B", 2, "user2")).game_id
    clock.now = 1700.0
    outs = await svc.timers.sweep_timers(lease=30)
    assert [o.game_id for o in outs if o.stopped] == [old]
    rows = {g: await svc.repo.get_game(g) for g in (old, young) if g is not None}
    assert {g: r.status for g, r in rows.items() if r is not None} == {
        old: GameStatus.ABANDONED,
        young: GameStatus.LOBBY,
    }


async def test_the_caps_refuse_with_their_own_reasons(
    service: tuple[GameService, Clock, list[tuple[int, int, float]]],
) -> None:
    svc, _, _ = service
    assert (await svc.lobby.open_table(-1, "group", "A", 1, "user1")).ok
    assert (
        await svc.lobby.open_table(-2, "group", "B", 1, "user1")
    ).refusal is Refusal.TOO_MANY_TABLES
    assert (await svc.lobby.open_table(-2, "group", "B", 2, "user2")).ok
    assert (await svc.lobby.open_table(3, "private", None, 3, "user3")).refusal is Refusal.BOT_FULL
    gid = (await svc.lobby.open_table(-3, "group", "C", 3, "user3")).game_id
    assert gid is None


async def test_a_group_table_of_four_computers_is_refused(
    service: tuple[GameService, Clock, list[tuple[int, int, float]]],
) -> None:
    svc, _, _ = service
    gid = (await svc.lobby.open_table(-1, "group", "A", 1, "user1")).game_id
    assert gid is not None
    for action in ("bot:add", "bot:add", "bot:add", "bot:add", "start"):
        table = await svc.tables.load(gid)
        assert table is not None
        out = await svc.lobby.lobby_action(gid, table.version, 1, lobby_payload(action), _no)
    assert out.refusal is Refusal.NEED_A_PERSON
    row = await svc.repo.get_game(gid)
    assert row is not None and row.status is GameStatus.LOBBY
