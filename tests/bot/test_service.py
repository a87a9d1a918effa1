"""The game service without Telegram: lobby rules, permissions, compare-and-set versions,
refusal codes, and the stored snapshot equal to a replay of the log (``docs/design.md`` §5)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import GameService, snapshot
from bot.tables import TableSettings
from bot.taps import Move
from engine.record import replay_actions
from storage import GameStatus, Repository, SeatKind, open_repository
from tests.bot.helpers import drive, lobby_payload, make_service

GROUP = -100


async def _no() -> bool:
    return False


async def _yes() -> bool:
    return True


@pytest.fixture
async def service() -> AsyncIterator[GameService]:
    repo: Repository = await open_repository(":memory:")
    svc = make_service(repo, clock=lambda: 1000.0)
    try:
        yield svc
    finally:
        svc.computers.shutdown()
        await repo.close()


async def _users(svc: GameService, *ids: int, started: bool = True) -> None:
    for uid in ids:
        await svc.people.touch_user(uid, f"user{uid}", "nl")
        if started:
            await svc.people.user_started(uid)


async def test_one_table_per_chat_and_seating_rules(service: GameService) -> None:
    await _users(service, 1, 2)
    await _users(service, 3, started=False)
    out = await service.lobby.open_table(GROUP, "group", "Club", 1, "user1")
    assert out.ok and out.lobby and out.game_id is not None
    gid = out.game_id
    again = await service.lobby.open_table(GROUP, "group", "Club", 2, "user2")
    assert again.refusal == "table_exists" and again.game_id == gid
    table = await service.tables.load(gid)
    assert table is not None
    v = table.version
    seated = await service.lobby.lobby_action(gid, v, 1, lobby_payload("sit:0"), _no)
    assert seated.ok and seated.toast == "seated"
    # A group fills a table in a rush: seat taps are judged on the table as it is now.
    rush = await service.lobby.lobby_action(gid, v, 2, lobby_payload("sit:1"), _no)
    assert rush.ok and rush.toast == "seated"
    taken = await service.lobby.lobby_action(gid, v, 2, lobby_payload("sit:0"), _no)
    assert taken.refusal == "seat_taken"
    link = await service.lobby.lobby_action(gid, v, 3, lobby_payload("sit:2"), _no)
    token = await service.tables.link_token(gid)  # random, not the game's number
    assert link.url == f"j{token}_2" and link.ok  # never started the bot: a deep link
    v += 2
    assert (
        await service.lobby.lobby_action(gid, v - 1, 1, lobby_payload("start"), _no)
    ).refusal == "stale_button"
    assert (
        await service.lobby.lobby_action(gid, v, 3, lobby_payload("start"), _no)
    ).refusal == "not_in_game"
    assert (
        await service.lobby.lobby_action(gid, v, 1, lobby_payload("start"), _no)
    ).refusal == "need_four_players"
    assert (
        await service.lobby.lobby_action(gid, v, 3, lobby_payload("preset:next"), _no)
    ).refusal == ("creator_or_admin_only")
    assert (
        await service.lobby.lobby_action(gid, v, 3, lobby_payload("preset:next"), _yes)
    ).ok  # an admin may


async def test_play_refusals_versions_and_snapshot(service: GameService) -> None:
    await _users(service, 1, 2, 3, 4)
    gid = (await service.lobby.open_table(GROUP, "group", "Club", 1, "user1")).game_id
    assert gid is not None
    for uid in (1, 2, 3, 4):
        table = await service.tables.load(gid)
        assert table is not None
        assert (
            await service.lobby.lobby_action(
                gid, table.version, uid, lobby_payload(f"sit:{uid - 1}"), _no
            )
        ).ok
    table = await service.tables.load(gid)
    assert table is not None
    started = await service.lobby.lobby_action(gid, table.version, 1, lobby_payload("start"), _no)
    assert started.ok and started.started
    table = await service.tables.load(gid)
    assert table is not None and table.state is not None
    to_act = table.state.to_act
    assert to_act is not None
    user = to_act + 1
    other = (to_act + 1) % 4 + 1
    assert (await service.play.act(gid, table.version, 99, Move("pass"))).refusal == "not_in_game"
    wrong = await service.play.act(gid, table.version, other, Move("pass"))
    assert wrong.refusal == "not_your_turn"
    assert (
        await service.play.act(gid, table.version, user, Move("play:AS"))
    ).refusal == "wrong_phase"
    assert (
        await service.play.act(gid, table.version, user, Move("fly:away"))
    ).refusal == "malformed"
    ok = await service.play.act(gid, table.version, user, Move("choose:H"))
    assert ok.ok and ok.changed
    double = await service.play.act(gid, table.version, user, Move("choose:H"))
    assert double.refusal in ("stale_button", "not_your_turn")
    row = await service.repo.get_game(gid, with_actions=True)
    assert row is not None and row.actions is not None and row.snapshot is not None
    settings = TableSettings.from_json(row.settings)
    replayed = replay_actions(settings.rules, row.seed, row.actions)
    assert json.loads(row.snapshot) == snapshot(replayed)
    assert row.version == table.version + 1


async def test_stop_needs_creator_or_admin(service: GameService) -> None:
    await _users(service, 1, 2)
    gid = (await service.lobby.open_table(GROUP, "group", "Club", 1, "user1")).game_id
    assert gid is not None
    assert (await service.seats.stop(gid, 2, _no)).refusal == "creator_or_admin_only"
    assert (await service.seats.stop(gid, 2, _yes)).stopped
    row = await service.repo.get_game(gid)
    assert row is not None and row.status is GameStatus.ABANDONED
    assert (await service.seats.stop(gid, 1, _no)).refusal == "game_finished"


async def test_private_chat_starts_a_solo_game_with_three_computers(service: GameService) -> None:
    await _users(service, 5)
    out = await service.lobby.open_table(5, "private", None, 5, "user5")
    assert out.started and out.game_id is not None
    table = await service.tables.load(out.game_id)
    assert table is not None and table.row.status is GameStatus.ACTIVE
    assert [s.kind.value for s in table.row.seats] == ["computer", "computer", "human", "computer"]


async def _group_game(svc: GameService, humans: int) -> int:
    """A started group game: users 1..humans seated in order, computers in the rest."""
    await _users(svc, *range(1, humans + 1))
    gid = (await svc.lobby.open_table(GROUP, "group", "Club", 1, "user1")).game_id
    assert gid is not None
    for uid in range(1, humans + 1):
        table = await svc.tables.load(gid)
        assert table is not None
        assert (
            await svc.lobby.lobby_action(
                gid, table.version, uid, lobby_payload(f"sit:{uid - 1}"), _no
            )
        ).ok
    for _ in range(4 - humans):
        table = await svc.tables.load(gid)
        assert table is not None
        assert (
            await svc.lobby.lobby_action(gid, table.version, 1, lobby_payload("bot:add"), _no)
        ).ok
    table = await svc.tables.load(gid)
    assert table is not None
    assert (
        await svc.lobby.lobby_action(gid, table.version, 1, lobby_payload("start"), _no)
    ).started
    await svc.play.run_computers(gid)
    return gid


async def test_a_timer_that_fires_after_the_player_acted_does_nothing() -> None:
    now = [1000.0]
    repo = await open_repository(":memory:")
    svc = make_service(repo, timeout=60, clock=lambda: now[0], seeds=lambda: 11)
    try:
        gid = await _group_game(svc, 4)
        table = await svc.tables.load(gid)
        assert table is not None and table.state is not None and table.row.timer is not None
        seat = table.state.to_act
        assert seat is not None and table.row.timer.seat == seat
        now[0] = table.row.timer.deadline_at + 1
        legal = table.state.legal_actions()[0].notation(with_seat=False)
        assert (await svc.play.act(gid, table.version, seat + 1, Move(legal))).ok
        late = await svc.timers.timer_fired(gid, table.version)
        assert not late.changed and not late.notices
        after = await svc.tables.load(gid)
        assert after is not None and after.row.action_count == table.row.action_count + 1
    finally:
        await repo.close()


async def test_three_timeouts_in_a_row_give_the_seat_to_a_computer() -> None:
    now = [1000.0]
    repo = await open_repository(":memory:")
    svc = make_service(repo, timeout=60, clock=lambda: now[0], seeds=lambda: 12)
    try:
        gid = await _group_game(svc, 1)
        kinds = []
        for _ in range(3):
            table = await svc.tables.load(gid)
            assert table is not None and table.row.timer is not None
            now[0] = table.row.timer.deadline_at + 1
            out = await drive(svc, await svc.timers.timer_fired(gid, table.version))
            kinds.append([n.kind for n in out.notices])
        assert kinds == [["timeout"], ["timeout"], ["absent"]]
        table = await svc.tables.load(gid)
        assert table is not None
        assert table.row.seats[0].kind.value == "computer"
        assert table.row.status is GameStatus.ABANDONED  # nobody left: the table closes
    finally:
        await repo.close()


async def test_a_timeout_and_a_handover_leave_the_computers_moves_to_the_driver() -> None:
    """The services never move the computers themselves (``docs/design.md`` §6): a timeout
    stores only the timed-out person's turn, a hand-over only the seat change; the outcome
    moved the game, and what the driver does next (:func:`drive`) moves the computers."""
    now = [1000.0]
    repo = await open_repository(":memory:")
    svc = make_service(repo, timeout=60, clock=lambda: now[0], seeds=lambda: 12)
    try:
        gid = await _group_game(svc, 1)
        table = await svc.tables.load(gid)
        assert table is not None and table.row.timer is not None and table.row.timer.seat == 0
        now[0] = table.row.timer.deadline_at + 1
        out = await svc.timers.timer_fired(gid, table.version)
        assert [n.kind for n in out.notices] == ["timeout"] and out.changed
        after = await svc.tables.load(gid)
        assert after is not None and after.state is not None and after.state.to_act is not None
        assert after.kind(after.state.to_act) is SeatKind.COMPUTER  # the computers are due
        new = (await repo.get_actions(gid))[table.row.action_count :]
        assert new and all(a.startswith("0:") or "roem" in a for a in new)
        await drive(svc, out)
        moved = await svc.tables.load(gid)
        assert moved is not None and moved.row.action_count > after.row.action_count
    finally:
        await repo.close()


async def test_a_handover_changes_only_the_seat_and_the_driver_moves_the_computer() -> None:
    repo = await open_repository(":memory:")
    svc = make_service(repo, seeds=lambda: 12)
    try:
        gid = await _group_game(svc, 2)
        table = await svc.tables.load(gid)
        assert table is not None and table.state is not None
        seat = table.state.to_act
        assert seat is not None and table.kind(seat) is SeatKind.HUMAN
        out = await svc.seats.handover(gid, int(seat) + 1)
        assert out.ok and out.changed and [n.kind for n in out.notices] == ["handover"]
        after = await svc.tables.load(gid)
        assert after is not None and after.row.action_count == table.row.action_count
        assert after.kind(seat) is SeatKind.COMPUTER  # its turn: the driver's to move
        await drive(svc, out)
        moved = await svc.tables.load(gid)
        assert moved is not None and moved.row.action_count > after.row.action_count
    finally:
        await repo.close()


async def test_klaverjas_with_a_preset_name_picks_those_rules(service: GameService) -> None:
    await _users(service, 6, 7)
    solo = await service.lobby.open_table(6, "private", None, 6, "user6", "klammern")
    table = await service.tables.load(solo.game_id or 0)
    assert table is not None and table.settings.rules.preset == "klammern"
    lobby = await service.lobby.open_table(GROUP - 1, "group", "Club", 7, "user7", "nonsense")
    table = await service.tables.load(lobby.game_id or 0)
    assert table is not None and table.settings.rules.preset == "amsterdam"


async def test_the_timeout_count_survives_a_restart(tmp_path: Path) -> None:
    """The "three timeouts in a row" count is stored with the game; a restart between
    the second and the third timeout still gives the seat to a computer on the third."""
    now = [1000.0]
    db = tmp_path / "bot.sqlite3"

    def service(repo: Repository) -> GameService:
        return make_service(repo, timeout=60, clock=lambda: now[0], seeds=lambda: 12)

    async def time_out(svc: GameService, gid: int) -> list[str]:
        table = await svc.tables.load(gid)
        assert table is not None and table.row.timer is not None
        now[0] = table.row.timer.deadline_at + 1
        out = await drive(svc, await svc.timers.timer_fired(gid, table.version))
        return [n.kind for n in out.notices]

    repo = await open_repository(db)
    svc = service(repo)
    gid = await _group_game(svc, 1)
    first = [await time_out(svc, gid), await time_out(svc, gid)]
    await repo.close()
    repo = await open_repository(db)  # the restart: a new process knows only the database
    try:
        svc = service(repo)
        for out in await svc.timers.resume():
            await drive(svc, out)
        table = await svc.tables.load(gid)
        assert table is not None and table.row.timer is not None
        seat = table.row.timer.seat
        assert table.row.seats[seat].timeouts == 2
        assert [*first, await time_out(svc, gid)] == [["timeout"], ["timeout"], ["absent"]]
        table = await svc.tables.load(gid)
        assert table is not None and table.row.seats[seat].kind.value == "computer"
    finally:
        await repo.close()
