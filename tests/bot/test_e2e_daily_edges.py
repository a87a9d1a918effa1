"""End to end ("bad input and edges"): a player who blocks the bot in the middle of
the daily loses nothing (the attempt stays ranked and is finished after unblocking), and
people with no usable name, only a first name, or a deleted Telegram account appear on the
board without a traceback ("a player" for no usable name; first name and initial otherwise)."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from bot.admin import export
from tests.fakebot import FakeBotApi, run_polling

from .helpers import play_to_end, play_turn
from .test_e2e_daily import Clock, daily_app, last_with, play_daily, texts


async def test_a_player_who_blocks_the_bot_mid_daily_finishes_it_ranked_later(
    fake_api: FakeBotApi, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    db = tmp_path / "db.sqlite3"
    rng = random.Random(5)
    async with run_polling(daily_app(fake_api, db, Clock()), fake_api) as bot:
        await anna.send(None, "/daily")
        await bot.settle()
        for _ in range(6):
            assert await play_turn([anna], rng, anna.private_chat)
            await bot.settle(quiet=0.01)
        anna.block_bot()
        await bot.settle()
        before = len(anna.private_chat.bot_messages)
        anna.unblock_bot()
        await anna.send(None, "/daily")  # back: the running attempt, not a new one
        await bot.settle()
        assert len(anna.private_chat.bot_messages) > before
        await play_to_end(bot, [anna], rng, chat=anna.private_chat)
        await bot.settle()
        result = last_with(anna, "Daily of 14-03-2025: you scored")
        assert "Place 1 of 1." in result.body
        assert not any("unranked" in t for t in texts(anna))
    (record,) = await export(str(db))  # one attempt, finished: nothing lost or doubled
    assert record["status"] == "finished" and len(record["rounds"]) == 8
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]


async def test_people_without_a_usable_name_are_on_the_board(
    fake_api: FakeBotApi, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    anna = fake_api.add_user("Anna", last_name="de Vries", started=True)
    kees = fake_api.add_user("Kees", started=True)  # no last name, no username
    gone = fake_api.add_user("Deleted Account", started=True)  # how Telegram shows one
    blank = fake_api.add_user("\u3164", started=True)  # a "blank" Hangul filler name
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        for seed, user in enumerate((kees, gone, blank, anna), start=1):
            await play_daily(bot, user, seed)
            last_with(user, "Daily of 14-03-2025: you scored")
        board = last_with(anna, "Board of 14-03-2025 (4 players)")
        body = board.body
        assert "Kees" in body
        assert "Deleted A." in body
        assert "ㅤ" not in body and "a player" in body  # the blank name
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]


async def test_stats_of_somebody_the_bot_has_no_row_of(
    fake_api: FakeBotApi, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    dirk = fake_api.add_user("Dirk")  # never wrote to the bot: no user row
    group = fake_api.add_group("Club", [anna, dirk])
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        dirks = await dirk.send(group, "hoi")  # privacy mode: the bot does not see it
        await anna.send(group, "/stats", reply_to=dirks)
        await bot.settle()
        answer = fake_api.last_message(group).body
        assert "Dirk" in answer and "No games recorded yet." in answer
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]
