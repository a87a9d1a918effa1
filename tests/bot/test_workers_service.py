"""Several workers on one database, without Telegram: the timer sweep (a due timer
runs once, whichever service sweeps; the reminder first, then the deadline), the watch on a
computer's turn that a dying worker leaves undone, each worker's share of Telegram's limits,
and the settings that go with it. The end-to-end test with two real processes is
``tests/bot/test_e2e_workers.py``."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from bot.budget import GROUP, OVERALL, PRIVATE, Limits, shared
from bot.config import BotConfig
from bot.outcome import NoticeKind
from bot.service import GameService
from bot.taps import Move
from storage import Repository, SqliteRepository
from tests.bot.helpers import drive, make_service
from tests.bot.test_service import _group_game

TOKEN = "123456789:AAtokenForSettingsTests"


def _service(repo: Repository, now: list[float], watch: float = 0.0) -> GameService:
    # timers in the database, as on a shared database (bot.app)
    return make_service(
        repo,
        timeout=60,
        clock=lambda: now[0],
        seeds=21,
        scheduler=repo.arm_timer,
        computer_watch=watch,
    )


async def test_two_services_sweeping_run_a_due_timer_once(tmp_path: object) -> None:
    now = [1000.0]
    path = f"{tmp_path}/shared.sqlite3"
    async with (
        await SqliteRepository.open(path) as one,
        await SqliteRepository.open(path) as two,
    ):
        first, second = _service(one, now), _service(two, now)
        gid = await _group_game(first, 2)
        table = await first.tables.load(gid)
        assert table is not None and table.row.timer is not None
        deadline = table.row.timer.deadline_at
        assert await first.timers.sweep_timers(lease=30) == []  # not due yet
        now[0] = deadline - 20  # the reminder is due (armed in the database)
        reminded = [
            *await first.timers.sweep_timers(lease=30),
            *await second.timers.sweep_timers(lease=30),
        ]
        kinds = [n.kind for out in reminded for n in out.notices]
        assert kinds == [NoticeKind.REMINDER]  # once, by one of the two
        assert await first.timers.sweep_timers(lease=30) == []  # next: the deadline
        now[0] = deadline + 1
        fired = await asyncio.gather(
            first.timers.sweep_timers(lease=30), second.timers.sweep_timers(lease=30)
        )
        kinds = [n.kind for outs in fired for out in outs for n in out.notices]
        assert kinds == [NoticeKind.TIMEOUT]
        after = await second.tables.load(gid)
        assert after is not None and after.version > table.version


async def test_a_computer_turn_left_undone_is_a_timer_another_worker_runs() -> None:
    now = [1000.0]
    async with await SqliteRepository.open(":memory:") as repo:
        svc = _service(repo, now, watch=30.0)
        gid = await _group_game(svc, 1)
        table = await svc.tables.load(gid)
        assert table is not None and table.state is not None
        human = table.state.to_act
        assert human == 0 and table.row.timer is not None and table.row.timer.seat == 0
        legal = next(  # a move after which a computer is to act
            a.notation(with_seat=False)
            for a in table.state.legal_actions(human)
            if table.state.apply(a)[0].to_act not in (None, human)
        )
        out = await svc.play.act(gid, table.version, 1, Move(legal))  # the worker dies here
        assert out.ok
        left = await svc.tables.load(gid)
        assert left is not None and left.state is not None
        timer = left.row.timer
        assert timer is not None and left.kind(timer.seat).value == "computer"
        assert timer.reminded  # a watch: nobody is reminded of it
        now[0] = timer.deadline_at + 1
        (ran,) = await svc.timers.sweep_timers(lease=30)
        assert ran.resync and not ran.notices  # a redraw, no "timeout" notice
        await drive(svc, ran)  # the table driver moves the computers
        done = await svc.tables.load(gid)
        assert done is not None and done.row.action_count > left.row.action_count


def test_each_worker_keeps_to_its_share_of_telegrams_limits() -> None:
    assert shared(GROUP, 1) is GROUP and shared(None, 3) is None
    two = shared(GROUP, 2)
    assert two == Limits(limit=10, window=60.0, table_limit=7, table_gap=8.0, lobby_gap=2.0)
    assert shared(OVERALL, 2) == Limits(
        limit=12, window=1.0, table_limit=10, table_gap=0.0, lobby_gap=2.0
    )
    private = shared(PRIVATE, 2)  # one a second cannot be halved: one every two seconds
    assert private == Limits(limit=1, window=2.0, table_limit=1, table_gap=2.0, lobby_gap=2.0)
    for n in range(1, 9):
        share = shared(GROUP, n)
        assert share is not None and share.limit * n <= GROUP.limit


def _config(monkeypatch: pytest.MonkeyPatch, **settings: str) -> BotConfig:
    monkeypatch.chdir("/")  # no .env
    for name, value in {"TELEGRAM_BOT_TOKEN": TOKEN, **settings}.items():
        monkeypatch.setenv(name, value)
    return BotConfig()  # type: ignore[call-arg]


def test_several_workers_need_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError, match="BOT_WORKERS above 1 needs a PostgreSQL"):
        _config(monkeypatch, BOT_WORKERS="2")
    postgres = "postgresql://bot@db:5432/klaverjas"
    with pytest.raises(ValidationError, match="BOT_WORKERS above 1 needs WEBHOOK_URL"):
        _config(monkeypatch, BOT_WORKERS="2", DATABASE_URL=postgres)
    config = _config(
        monkeypatch,
        BOT_WORKERS="2",
        DATABASE_URL=postgres,
        WEBHOOK_URL="https://bot.example.org/telegram",
        WEBHOOK_SECRET="same-on-every-worker",
    )
    assert (config.bot_workers, config.timer_sweep_seconds) == (2, 1.0)
    with pytest.raises(ValidationError):
        _config(monkeypatch, TIMER_SWEEP_SECONDS="0")
