"""The game service for Klammern, without Telegram: "declare all", and the fair
contra / re window (``rules.md`` §9.7): computers do not play the card that would close a
human's window until the human called, said no, or ran out of time."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.admin import export
from bot.service import GameService, awaited_seats
from bot.tables import Table
from bot.taps import Move
from engine.actions import Accept, Contra, Declare, Pass, Re
from engine.cards import Seat
from engine.game import GameState
from engine.klammern import klammern_state, runs
from engine.klammern.play import CONTRA_UNTIL_CARDS, RE_UNTIL_CARDS, cards_played
from engine.settings import Settings
from storage import open_repository
from tests.bot.helpers import lobby_payload, make_service

HUMAN = 1
SEAT = Seat.SOUTH
CHAT = -100


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def _yes() -> bool:
    return True


@pytest.fixture
async def clock() -> Clock:
    return Clock()


async def _table(
    tmp_path: Path, seed: int, clock: Clock, turn_time: int = 0
) -> AsyncIterator[tuple[GameService, int]]:

    repo = await open_repository(tmp_path / "db.sqlite3")
    svc = make_service(repo, timeout=turn_time, clock=clock, seeds=lambda: seed)
    await svc.people.touch_user(HUMAN, "Anna", "nl")
    await svc.people.user_started(HUMAN)
    out = await svc.lobby.open_table(CHAT, "group", "Club", HUMAN, "Anna")
    assert out.game_id is not None
    gid = out.game_id

    async def lobby(action: str) -> None:
        table = await svc.tables.load(gid)
        assert table is not None
        done = await svc.lobby.lobby_action(gid, table.version, HUMAN, lobby_payload(action), _yes)
        assert done.ok, done.refusal

    await lobby(f"sit:{int(SEAT)}")
    for _ in range(3):
        await lobby("bot:add")
    for _ in range(4):
        await lobby("preset:next")
    table = await svc.tables.load(gid)
    assert table is not None and table.settings.rules.preset == "klammern"
    await lobby("start")
    await svc.play.run_computers(gid)
    try:
        yield svc, gid
    finally:
        svc.computers.shutdown()
        await repo.close()


async def _load(svc: GameService, gid: int) -> tuple[Table, GameState]:
    table = await svc.tables.load(gid)
    assert table is not None and table.state is not None
    return table, table.state


async def _tap(svc: GameService, gid: int, token: str) -> None:
    table, _ = await _load(svc, gid)
    out = await svc.play.act(gid, table.version, HUMAN, Move(token))
    assert out.ok, (token, out.refusal, out.details)
    await svc.play.run_computers(gid)


def _plain_choice(state: GameState, *, accept: bool = True) -> str:
    """The human's move when nothing Klammern-specific is wanted: accept (or pass) in the
    bidding, else the first legal card."""
    legal = state.legal_actions(SEAT)
    if accept and any(isinstance(a, Accept) for a in legal):
        return "accept"
    plays = [a for a in legal if a.kind == "play"]
    if plays and state.to_act == SEAT:
        return plays[0].notation(with_seat=False)
    return "pass"


async def _until_awaited(
    svc: GameService, gid: int, call: type[Contra | Re] = Contra, limit: int = 600
) -> tuple[Table, GameState]:
    """Play (calling nothing, saying no to other calls) until the computers wait for the
    human's ``call``. The human passes in the bidding when waiting for a contra."""
    for _ in range(limit):
        table, state = await _load(svc, gid)
        if awaited_seats(table, state):
            if any(isinstance(a, call) for a in state.legal_actions(SEAT)):
                return table, state
            await _tap(svc, gid, "pass")
            continue
        assert not state.is_over
        if state.to_act == SEAT:
            await _tap(svc, gid, _plain_choice(state, accept=call is Re))
        else:
            out = await svc.play.run_computers(gid)
            assert out.changed, "nobody can act"
    raise AssertionError("the computers never waited for the human")


async def test_computers_wait_before_the_card_that_closes_a_humans_contra(
    tmp_path: Path, clock: Clock
) -> None:
    async for svc, gid in _table(tmp_path, 3, clock):
        table, state = await _until_awaited(svc, gid)
        cur = state.current
        assert cur is not None and cur.maker is not None
        assert awaited_seats(table, state) == [SEAT]
        assert SEAT.team is not cur.maker.team and state.to_act != SEAT
        assert cards_played(cur) == CONTRA_UNTIL_CARDS
        assert Contra(SEAT) in state.legal_actions(SEAT)
        assert not (await svc.play.run_computers(gid)).changed  # they keep waiting
        await _tap(svc, gid, "contra")
        _, after = await _load(svc, gid)
        assert after.current is not None
        km = klammern_state(after.current)
        assert km is not None and km.contra == SEAT
        assert cards_played(after.current) > CONTRA_UNTIL_CARDS or after.to_act == SEAT


async def test_computers_wait_before_the_card_that_closes_a_humans_re(
    tmp_path: Path, clock: Clock
) -> None:
    async for svc, gid in _table(tmp_path, 3, clock):
        table, state = await _until_awaited(svc, gid, Re)
        cur = state.current
        assert cur is not None and cur.maker is not None
        km = klammern_state(cur)
        assert km is not None and SEAT.team is cur.maker.team and km.contra is not None
        assert cards_played(cur) == RE_UNTIL_CARDS and awaited_seats(table, state) == [SEAT]
        assert not (await svc.play.run_computers(gid)).changed
        await _tap(svc, gid, "re")
        _, after = await _load(svc, gid)
        assert after.current is not None
        km = klammern_state(after.current)
        assert km is not None and km.re == SEAT


async def test_no_contra_lets_the_computers_go_on(tmp_path: Path, clock: Clock) -> None:
    async for svc, gid in _table(tmp_path, 3, clock):
        await _until_awaited(svc, gid)
        await _tap(svc, gid, "pass")
        table, state = await _load(svc, gid)
        assert Pass(SEAT) in state.log and not awaited_seats(table, state)
        cur = state.current
        km = klammern_state(cur) if cur is not None else None
    assert km is not None and SEAT in km.declined


async def test_a_timed_out_human_says_no_and_the_game_goes_on(tmp_path: Path, clock: Clock) -> None:
    async for svc, gid in _table(tmp_path, 3, clock, turn_time=30):
        table, state = await _until_awaited(svc, gid)
        timer = table.row.timer
        assert timer is not None and timer.seat == int(SEAT)
        clock.now = timer.deadline_at + 1
        out = await svc.timers.timer_fired(gid, table.version)
        assert out.changed and [n.kind for n in out.notices] == ["timeout"]
        _, after = await _load(svc, gid)
        assert Pass(SEAT) in after.log[len(state.log) :]


def _seed_with_two_runs() -> int:
    settings = Settings.from_preset("klammern")
    for seed in range(500):
        cur = GameState.new(settings, seed).current
        assert cur is not None
        if len(runs(cur.hands[SEAT])) >= 2:
            return seed
    raise AssertionError("no seed")


async def test_declare_all_declares_every_sequence(tmp_path: Path, clock: Clock) -> None:
    seed = _seed_with_two_runs()
    async for svc, gid in _table(tmp_path, seed, clock):
        for _ in range(100):
            table, state = await _load(svc, gid)
            declares = [a for a in state.legal_actions(SEAT) if isinstance(a, Declare)]
            if len(declares) >= 2:
                break
            if state.to_act == SEAT or awaited_seats(table, state):
                await _tap(svc, gid, _plain_choice(state))
            else:
                assert (await svc.play.run_computers(gid)).changed
        else:
            pytest.skip("the deal was passed out before the human could declare")
        await _tap(svc, gid, "declare:all")
        _, after = await _load(svc, gid)
        new = after.log[len(state.log) : len(state.log) + len(declares)]
        assert list(new) == declares
        assert not [a for a in after.legal_actions(SEAT) if isinstance(a, Declare)]
        table, _ = await _load(svc, gid)
        refused = await svc.play.act(gid, table.version, HUMAN, Move("declare:all"))
        assert refused.refusal == "not_allowed" and refused.details == {"action": "declare"}


async def test_admin_export_covers_klammern_rounds(tmp_path: Path, clock: Clock) -> None:
    async for svc, gid in _table(tmp_path, 3, clock):
        for _ in range(300):  # two rounds and a bit
            table, state = await _load(svc, gid)
            if len(state.rounds) >= 2 and state.current and state.current.tricks:
                break
            if state.to_act == SEAT or awaited_seats(table, state):
                await _tap(svc, gid, _plain_choice(state))
            else:
                assert (await svc.play.run_computers(gid)).changed
        (record,) = await export(str(tmp_path / "db.sqlite3"))
    json.dumps(record)
    assert record["variant"] == "klammern" and record["status"] == "active"
    assert (
        record["settings"]["preset"] == "klammern" and record["settings"]["target_big_points"] == 3
    )
    assert set(record["small_points"]) == {"NS", "EW"} and isinstance(record["voided"], list)
    assert len(record["rounds"]) == len(state.rounds) >= 2
    for r in record["rounds"]:
        assert r["proposed"] and r["bids"] and len(r["tricks"]) == 8 and r["tally"]
        assert r["score"] == r["small_points"] and isinstance(r["nat"], bool)
        assert {"declarations", "declaration_points", "bella", "contra", "re", "declined"} <= set(r)
        assert sum(r["points"].values()) >= 162
    assert record["totals"] == record["rounds"][-1]["tally"]["big"]
    current = record["current_round"]
    assert current["variant"] == "klammern" and current["winner"] is None and current["tricks"]
    assert record["actions"] == [a.notation() for a in state.log]


async def test_lobby_cycles_to_klammern_and_toggles_its_settings(
    tmp_path: Path, clock: Clock
) -> None:

    repo = await open_repository(tmp_path / "lobby.sqlite3")
    svc = make_service(repo, timeout=60, clock=clock, seeds=None)
    try:
        await svc.people.touch_user(HUMAN, "Anna", "nl")
        out = await svc.lobby.open_table(CHAT, "group", "Club", HUMAN, "Anna")
        assert out.game_id is not None
        gid = out.game_id

        async def tap(action: str) -> Settings:
            table = await svc.tables.load(gid)
            assert table is not None
            assert (
                await svc.lobby.lobby_action(gid, table.version, HUMAN, lobby_payload(action), _yes)
            ).ok
            table = await svc.tables.load(gid)
            assert table is not None
            return table.settings.rules

        assert (await tap("auto_declare:toggle")).auto_declare is False  # Klaverjassen: inert
        presets = [(await tap("preset:next")).preset for _ in range(5)]
        assert presets == ["rotterdam", "utrecht", "klassiek", "klammern", "amsterdam"]
        for _ in range(4):
            rules = await tap("preset:next")
        assert rules.preset == "klammern" and rules.target_big_points == 3
        assert (await tap("rounds:toggle")).target_big_points == 5
        assert (await tap("rounds:toggle")).target_big_points == 3
        assert (await tap("auto_declare:toggle")).auto_declare is True
        rules = await tap("rounds:toggle")
        assert rules.auto_declare and rules.target_big_points == 5
        assert (await tap("preset:next")).preset == "amsterdam"
        assert (await tap("rounds:toggle")).rounds == 8
    finally:
        await repo.close()


async def test_a_hand_over_keeps_a_timer_for_the_other_human_awaited_for_contra(
    tmp_path: Path,
) -> None:
    """§9.7 with two human partners (North, South) that may both call contra while the
    computers wait: the stored turn timer runs for one of them. When that one hands the seat
    over, the other still gets a running turn timer (else the table could wait forever)."""
    anna, bert = 1, 2
    repo = await open_repository(tmp_path / "db.sqlite3")
    now = [1000.0]
    svc = make_service(
        repo, timeout=30, clock=lambda: now[0], seeds=lambda: 1, scheduler=lambda gid, v, at: None
    )
    try:
        for uid in (anna, bert):
            await svc.people.touch_user(uid, f"user{uid}", "nl")
            await svc.people.user_started(uid)
        gid = (await svc.lobby.open_table(CHAT, "group", "Club", anna, "x")).game_id
        assert gid is not None

        async def lobby(uid: int, action: str) -> None:
            t = await svc.tables.load(gid)
            assert t is not None
            assert (
                await svc.lobby.lobby_action(gid, t.version, uid, lobby_payload(action), _yes)
            ).ok

        for uid, action in ((anna, "sit:0"), (bert, "sit:2"), (anna, "bot:add"), (anna, "bot:add")):
            await lobby(uid, action)
        while (
            t := await svc.tables.load(gid)
        ) is not None and t.settings.rules.preset != "klammern":
            await lobby(anna, "preset:next")
        await lobby(anna, "start")
        await svc.play.run_computers(gid)
        uids = {0: anna, 2: bert}
        table = None
        for _ in range(400):  # humans play their first card (or say no) until both are awaited
            t = await svc.tables.load(gid)
            assert t is not None and t.state is not None and not t.state.is_over
            waiting = awaited_seats(t, t.state)
            if len(waiting) == 2:
                table = t
                break
            if waiting:
                assert (await svc.play.act(gid, t.version, uids[int(waiting[0])], Move("pass"))).ok
                await svc.play.run_computers(gid)
                continue
            to_act = t.state.to_act
            assert to_act is not None
            if int(to_act) in uids:
                legal = t.state.legal_actions(to_act)
                act = next((a for a in legal if a.kind == "play"), None)
                act = act or next((a for a in legal if a.kind == "pass"), legal[0])
                token = act.notation(with_seat=False)
                assert (await svc.play.act(gid, t.version, uids[int(to_act)], Move(token))).ok
            await svc.play.run_computers(gid)
        assert table is not None and table.row.timer is not None, "seed 1 reaches the position"
        timed = table.row.timer.seat
        other, leaver = (2, anna) if timed == 0 else (0, bert)

        assert (await svc.seats.handover(gid, leaver)).ok

        after = await svc.tables.load(gid)
        assert after is not None and after.state is not None
        assert awaited_seats(after, after.state) == [Seat(other)]
        assert after.row.timer is not None and after.row.timer.seat == other
        now[0] = after.row.timer.deadline_at + 1  # and when it runs out, the computer says no
        fired = await svc.timers.timer_fired(gid, after.version)
        assert fired.changed
    finally:
        svc.computers.shutdown()
        await repo.close()
