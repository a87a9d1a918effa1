"""A rematch tapped on two workers at once (one database, no Telegram): one new table, the
other tap told it was started already; and nobody but the finished game's players or an admin
starts it. The end-to-end tests are ``tests/bot/test_e2e_rematch.py``."""

from __future__ import annotations

import asyncio
import random

from bot.outcome import Refusal, Toast
from bot.service import GameService
from bot.taps import move
from storage import GameStatus, SqliteRepository
from tests.bot.helpers import make_service
from tests.bot.test_service import _group_game

TABLE_MESSAGE = 77


def _service(repo: SqliteRepository, now: list[float]) -> GameService:
    # timers in the database, as on a shared database (bot.app)
    return make_service(repo, clock=lambda: now[0], seeds=31, scheduler=repo.arm_timer)


async def _finish(svc: GameService, gid: int, rng: random.Random) -> None:
    """Play the game's one human (user 1) to the end, the computers for the rest."""
    while True:
        table = await svc.tables.load(gid)
        assert table is not None and table.state is not None
        if table.state.is_over:
            return
        actions = table.state.legal_actions()
        assert actions, "the human is to act"
        action = rng.choice(actions)
        token = action.notation(with_seat=False)
        out = await svc.play.act(gid, table.version, 1, move(token))
        assert out.ok, out.refusal
        await svc.play.run_computers(gid)


async def _yes() -> bool:
    return True


async def _no() -> bool:
    return False


async def _member(user_id: int) -> bool:
    return user_id > 0


async def test_two_workers_tapping_again_open_one_table(tmp_path: object) -> None:
    now = [1000.0]
    path = f"{tmp_path}/shared.sqlite3"
    async with (
        await SqliteRepository.open(path) as one,
        await SqliteRepository.open(path) as two,
    ):
        first, second = _service(one, now), _service(two, now)
        gid = await _group_game(first, 1)
        await _finish(first, gid, random.Random(2))
        await one.set_table_message(gid, TABLE_MESSAGE, expected_version=None)
        table = await first.tables.load(gid)
        assert table is not None and table.row.status is GameStatus.FINISHED
        outsider = await first.rematch.rematch(gid, table.version, 9, TABLE_MESSAGE, _no, _member)
        assert outsider.refusal is Refusal.REMATCH_PLAYERS_ONLY
        taps = await asyncio.gather(
            first.rematch.rematch(gid, table.version, 1, TABLE_MESSAGE, _no, _member),
            second.rematch.rematch(gid, table.version, 1, TABLE_MESSAGE, _no, _member),
        )
        assert sorted(str(o.toast) for o in taps) == sorted(
            [str(Toast.REMATCH_OPENED), str(Toast.REMATCH_EXISTS)]
        )
        games = await one.export_games()
        assert len(games) == 2
        # Only user 1 played (the rest were computers): no one to wait for, it started.
        assert games[1].status is GameStatus.ACTIVE
        admin = await second.rematch.rematch(gid, table.version, 9, TABLE_MESSAGE, _yes, _member)
        assert admin.toast is Toast.REMATCH_EXISTS
