"""Taking a seat back from the computer, without Telegram: who may (only the player who left
that seat, in that game, while it runs), what it does to the turn and its timer, the timeout
count, a restart in between, and the export that keeps calling the seat a computer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.admin import export_game
from bot.service import GameService
from bot.tables import Table
from bot.taps import Move
from engine.cards import Seat
from storage import GameStatus, Occupant, Repository, SeatKind, TurnTimer, open_repository
from tests.bot.helpers import lobby_payload, make_service

GROUP, OTHER_GROUP = -100, -200
ANNA, BERT, CAS, DIRK, EVE = 1, 2, 3, 4, 5


async def _no() -> bool:
    return False


@dataclass
class World:
    """A service on a controllable clock that records what it schedules."""

    svc: GameService
    repo: Repository
    now: list[float] = field(default_factory=lambda: [1000.0])
    scheduled: list[tuple[int, int, float]] = field(default_factory=list)


async def _world(path: str | Path = ":memory:") -> World:
    repo = await open_repository(path)
    now = [1000.0]
    scheduled: list[tuple[int, int, float]] = []
    svc = make_service(
        repo,
        timeout=60,
        clock=lambda: now[0],
        seeds=21,
        scheduler=lambda gid, version, at: scheduled.append((gid, version, at)),
    )
    world = World(svc, repo, now, scheduled)
    for uid in (ANNA, BERT, CAS, DIRK, EVE):
        await svc.people.touch_user(uid, f"user{uid}", "nl")
        await svc.people.user_started(uid)
    return world


@pytest.fixture
async def world() -> AsyncIterator[World]:
    w = await _world()
    try:
        yield w
    finally:
        w.svc.computers.shutdown()
        await w.repo.close()


async def _table(svc: GameService, gid: int) -> Table:
    table = await svc.tables.load(gid)
    assert table is not None and table.state is not None
    return table


async def _group_game(svc: GameService, chat: int, humans: tuple[int, ...]) -> int:
    """A started game in ``chat``: ``humans`` in seats 0.., computers in the rest, tips on
    (without tips a seat handed over comes back only at the next round)."""
    gid = (await svc.lobby.open_table(chat, "group", "Club", humans[0], "x")).game_id
    assert gid is not None
    for seat, uid in enumerate(humans):
        table = await svc.tables.load(gid)
        assert table is not None
        assert (
            await svc.lobby.lobby_action(gid, table.version, uid, lobby_payload(f"sit:{seat}"), _no)
        ).ok
    for _ in range(4 - len(humans)):
        table = await svc.tables.load(gid)
        assert table is not None
        assert (
            await svc.lobby.lobby_action(
                gid, table.version, humans[0], lobby_payload("bot:add"), _no
            )
        ).ok
    table = await svc.tables.load(gid)
    assert table is not None  # with tips: a seat handed over may come back in the same round
    tips = lobby_payload("tips:toggle")
    assert (await svc.lobby.lobby_action(gid, table.version, humans[0], tips, _no)).ok
    table = await svc.tables.load(gid)
    assert table is not None
    assert (
        await svc.lobby.lobby_action(gid, table.version, humans[0], lobby_payload("start"), _no)
    ).started
    await svc.play.run_computers(gid)
    return gid


async def _play_until(
    svc: GameService, gid: int, done: Callable[[Table], bool], limit: int = 400
) -> Table:
    """Humans play their first legal action and computers move (as the bot does after every
    tap) until ``done(table)``; a human's tap is not followed by the computers at once, so a
    computer may be left to act."""
    for _ in range(limit):
        table = await _table(svc, gid)
        if done(table):
            return table
        assert table.state is not None
        to_act = table.state.to_act
        assert to_act is not None, "the game ended before the test got there"
        user_id = table.user_id(to_act)
        if user_id is None:
            assert (await svc.play.run_computers(gid)).changed
            continue
        token = table.state.legal_actions(to_act)[0].notation(with_seat=False)
        assert (await svc.play.act(gid, table.version, user_id, Move(token))).ok
    raise AssertionError("never reached")


def _to_act(seat: int) -> Callable[[Table], bool]:
    return lambda t: t.state is not None and t.state.to_act == seat


async def _time_out(w: World, gid: int, seat: int) -> list[str]:
    """Play on until ``seat`` (a human) is to act, then let its turn time run out."""
    table = await _play_until(w.svc, gid, _to_act(seat))
    assert table.row.timer is not None and table.row.timer.seat == seat
    w.now[0] = table.row.timer.deadline_at + 1
    out = await w.svc.timers.timer_fired(gid, table.version)
    return [n.kind for n in out.notices]


async def test_a_player_who_handed_over_takes_the_seat_back_and_gets_the_turn(
    world: World,
) -> None:
    svc = world.svc
    gid = await _group_game(svc, GROUP, (ANNA, BERT))
    assert (await svc.seats.handover(gid, BERT)).ok
    handed = await _table(svc, gid)
    button_version = handed.version  # the offer was drawn now; the computer plays on
    assert handed.row.seats[1].occupant == Occupant.computer("computer", former_user_id=BERT)
    # Anna plays; before the computers move it is the computer's turn in Bert's seat.
    table = await _play_until(svc, gid, lambda t: t.version > button_version and _to_act(1)(t))
    assert table.kind(1) is SeatKind.COMPUTER and table.row.timer is None
    world.now[0] += 5
    world.scheduled.clear()

    out = await svc.seats.reclaim(gid, button_version, BERT, 1)

    assert out.ok and out.changed and out.toast == "reclaimed"
    assert [(n.kind, n.seat, n.user_id) for n in out.notices] == [("back", 1, BERT)]
    assert out.acted == {1} and 1 not in out.before
    back = await _table(svc, gid)
    assert back.row.seats[1].occupant == Occupant.human(BERT, "user2")
    assert back.row.seats[1].former_user_id is None
    assert back.state is not None and back.state.to_act == Seat(1)  # nobody played for him
    assert back.row.action_count == table.row.action_count
    assert back.row.timer == TurnTimer(world.now[0] + 60, 1)  # a fresh turn time
    assert world.scheduled and world.scheduled[-1][:2] == (gid, back.version)
    again = await svc.seats.reclaim(gid, back.version, BERT, 1)  # a double tap
    assert again.refusal == "already_seated"
    token = back.state.legal_actions(Seat(1))[0].notation(with_seat=False)
    assert (await svc.play.act(gid, back.version, BERT, Move(token))).ok  # and he plays on


async def test_taking_back_keeps_another_players_running_timer(world: World) -> None:
    svc = world.svc
    gid = await _group_game(svc, GROUP, (ANNA, BERT))
    assert (await svc.seats.handover(gid, BERT)).ok
    table = await _play_until(svc, gid, _to_act(0))  # Anna's turn, her clock is running
    timer = table.row.timer
    assert timer is not None and timer.seat == 0
    world.now[0] += 7
    world.scheduled.clear()
    assert (await svc.seats.reclaim(gid, table.version, BERT, 1)).ok
    after = await _table(svc, gid)
    assert after.row.timer == timer  # not a second of extra time for Anna
    assert world.scheduled == [(gid, after.version, timer.deadline_at - 20)]


async def test_only_the_player_who_left_the_seat_may_take_it_back(world: World) -> None:
    svc = world.svc
    gid = await _group_game(svc, GROUP, (ANNA, BERT))
    other = await _group_game(svc, OTHER_GROUP, (CAS, DIRK))
    assert (await svc.seats.handover(gid, BERT)).ok
    assert (await svc.seats.handover(other, DIRK)).ok
    before = await _table(svc, gid)
    v, vo = before.version, (await _table(svc, other)).version
    refusals = {
        "a stranger": await svc.seats.reclaim(gid, v, EVE, 1),
        "a seated player": await svc.seats.reclaim(gid, v, ANNA, 1),
        "a computer nobody left": await svc.seats.reclaim(gid, v, BERT, 2),
        "a human's seat": await svc.seats.reclaim(gid, v, BERT, 0),
        "his seat number in another game": await svc.seats.reclaim(other, vo, BERT, 1),
        "no such seat": await svc.seats.reclaim(gid, v, BERT, 7),
        "a version from the future": await svc.seats.reclaim(gid, v + 50, BERT, 1),
        "no such game": await svc.seats.reclaim(999, 1, BERT, 1),
    }
    assert {why: out.refusal for why, out in refusals.items()} == {
        "a stranger": "not_your_seat",
        "a seated player": "already_seated",
        "a computer nobody left": "not_your_seat",
        "a human's seat": "not_your_seat",
        "his seat number in another game": "not_your_seat",
        "no such seat": "malformed",
        "a version from the future": "malformed",
        "no such game": "game_not_found",
    }
    assert not any(out.changed or out.notices for out in refusals.values())
    after = await _table(svc, gid)
    assert (after.version, after.row.seats) == (before.version, before.row.seats)
    assert (await svc.seats.reclaim(other, vo, DIRK, 1)).ok  # Dirk's own seat there


async def test_no_way_back_once_the_game_is_over(world: World) -> None:
    svc = world.svc
    gid = await _group_game(svc, GROUP, (ANNA, BERT))
    assert (await svc.seats.handover(gid, BERT)).ok
    table = await _table(svc, gid)
    assert (await svc.seats.stop(gid, ANNA, _no)).stopped
    out = await svc.seats.reclaim(gid, table.version, BERT, 1)
    assert out.refusal == "game_finished"
    row = await world.repo.get_game(gid)
    assert row is not None and row.status is GameStatus.ABANDONED
    assert row.seats[1].kind is SeatKind.COMPUTER


async def test_taking_back_starts_the_timeout_count_anew(world: World) -> None:
    svc = world.svc
    gid = await _group_game(svc, GROUP, (ANNA, BERT))
    assert await _time_out(world, gid, 1) == ["timeout"]
    assert await _time_out(world, gid, 1) == ["timeout"]
    assert (await svc.seats.handover(gid, BERT)).ok
    table = await _table(svc, gid)
    assert (await svc.seats.reclaim(gid, table.version, BERT, 1)).ok
    # A third timeout in a row would make him absent; after coming back it is his first.
    assert await _time_out(world, gid, 1) == ["timeout"]
    assert (await _table(svc, gid)).kind(1) is SeatKind.HUMAN


async def test_an_absent_player_takes_the_seat_back(world: World) -> None:
    svc = world.svc
    gid = await _group_game(svc, GROUP, (ANNA, BERT))
    kinds = [await _time_out(world, gid, 1) for _ in range(3)]
    assert kinds == [["timeout"], ["timeout"], ["absent"]]
    table = await _table(svc, gid)
    assert table.row.status is GameStatus.ACTIVE  # Anna plays on
    assert table.row.seats[1].occupant == Occupant.computer("computer", former_user_id=BERT)
    out = await svc.seats.reclaim(gid, table.version, BERT, 1)
    assert out.ok and [n.kind for n in out.notices] == ["back"]
    assert (await _table(svc, gid)).seat_of(BERT) == Seat(1)


async def test_the_way_back_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    first = await _world(db)
    try:
        gid = await _group_game(first.svc, GROUP, (ANNA, BERT))
        assert (await first.svc.seats.handover(gid, BERT)).ok
        version = (await _table(first.svc, gid)).version
    finally:
        first.svc.computers.shutdown()
        await first.repo.close()
    second = await _world(db)  # a new process: nothing in memory
    try:
        await second.svc.timers.resume()
        out = await second.svc.seats.reclaim(gid, version, BERT, 1)
        assert out.ok
        assert (await _table(second.svc, gid)).seat_of(BERT) == Seat(1)
    finally:
        second.svc.computers.shutdown()
        await second.repo.close()


async def test_the_export_still_lists_a_handed_over_seat_as_a_computer(world: World) -> None:
    svc = world.svc
    gid = await _group_game(svc, GROUP, (ANNA, BERT))
    assert (await svc.seats.handover(gid, BERT)).ok
    row = await world.repo.get_game(gid, with_actions=True)
    assert row is not None and row.seats[1].former_user_id == BERT
    players = export_game(row)["players"]
    assert players == [
        {"seat": 0, "kind": "human", "name": "user1"},
        {"seat": 1, "kind": "computer", "name": "Computer E"},
        {"seat": 2, "kind": "computer", "name": "Computer S"},
        {"seat": 3, "kind": "computer", "name": "Computer W"},
    ]


async def test_a_restart_between_taking_back_and_the_timer_write_still_times_the_turn(
    tmp_path: Path,
) -> None:
    """The seat change and the new turn timer are two writes; a process that dies between them
    leaves a human's turn without a timer, which ``resume()`` stores and arms."""
    db = tmp_path / "db.sqlite3"
    first = await _world(db)
    try:
        gid = await _group_game(first.svc, GROUP, (ANNA, BERT))
        assert (await first.svc.seats.handover(gid, BERT)).ok
        handed = await _table(first.svc, gid)
        table = await _play_until(
            first.svc, gid, lambda t: t.version > handed.version and _to_act(1)(t)
        )
        assert table.row.timer is None  # the computer's turn in Bert's seat: no timer
        # Only the first write of reclaim() happens, then the process dies.
        await first.repo.set_seats(
            gid, table.version, {1: Occupant.human(BERT, "user2")}, now=first.now[0]
        )
    finally:
        first.svc.computers.shutdown()
        await first.repo.close()
    second = await _world(db)
    try:
        second.now[0] = 2000.0
        await second.svc.timers.resume()
        after = await _table(second.svc, gid)
        assert after.state is not None and after.state.to_act == Seat(1)
        assert after.row.timer == TurnTimer(2000.0 + 60, 1)
        assert second.scheduled and second.scheduled[-1][:2] == (gid, after.version)
    finally:
        second.svc.computers.shutdown()
        await second.repo.close()
