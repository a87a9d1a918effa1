"""End to end: ``/daily`` in a private chat plays today's deal set to the end and
shows the result, the place and the board (the board a picture, the result in its caption,
"hide me" sends it again with the other button); a second attempt is unranked and
says so; ``/daily``
in a group points to the private chat; every player gets the same hands on the same date (and
other hands on another date), and the export carries ``"daily"``; a daily left over past
midnight is stopped by the next day's ``/daily``."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.admin import export
from bot.daily import day_bounds
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeMessage

from .helpers import by_action, make_app, play_to_end

DAY = "2025-03-14"
NOON = day_bounds(DAY, "Europe/Amsterdam")[0] + 12 * 3600


class Clock:
    """The service's clock, moved by the test (the day of the daily depends on it)."""

    def __init__(self, now: float = NOON) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def daily_app(api: FakeBotApi, db: Path, clock: Callable[[], float]) -> Any:
    return make_app(
        api,
        db,
        clock=clock,
        default_language="en",
        config={"daily_level": "random", "daily_secret": "test-secret"},
    )


def texts(user: SimUser) -> list[str]:
    return [m.body for m in user.private_chat.bot_messages]


def last_with(user: SimUser, needle: str) -> FakeMessage:
    for message in reversed(user.private_chat.bot_messages):
        if needle in message.body:
            return message
    raise AssertionError(f"no message with {needle!r}: {texts(user)[-3:]}")


async def play_daily(bot: Any, user: SimUser, seed: int = 1) -> None:
    await user.send(None, "/daily")
    await bot.settle()
    await play_to_end(bot, [user], random.Random(seed), chat=user.private_chat)
    await bot.settle()


async def test_a_daily_is_played_to_the_end_with_result_place_and_board(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", last_name="de Vries", started=True)
    db = tmp_path / "db.sqlite3"
    async with run_polling(daily_app(fake_api, db, Clock()), fake_api) as bot:
        await play_daily(bot, anna)
        result = last_with(anna, "Daily of 14-03-2025: you scored")
        assert result.photo_bytes  # the board as a picture, the result in the caption
        assert "Place 1 of 1." in result.body
        assert "Board of 14-03-2025 (1 player)" in result.body
        assert "\n1. you " in result.body
        datas = [b.callback_data or "" for b in result.buttons]
        assert datas[:2] == ["d.again", "d.hide"] and re.fullmatch(r"r\d+\.0\.review", datas[2])
        assert any("This is your ranked attempt" in t for t in texts(anna))
        # Later that day /daily shows the board (with the par, computed meanwhile).
        await anna.send(None, "/daily")
        await bot.settle()
        board = anna.private_chat.bot_messages[-1]
        assert board.photo_bytes
        assert "Place 1 of 1." in board.body and "Par (the strong computer" in board.body
        # Hide me: the answer is sent again with the other button, the tapped one deleted.
        tap = await anna.tap(board, by_action("hide"))
        assert (await tap.wait_answered()).text == "You are hidden on the boards now."
        await bot.settle()
        again = anna.private_chat.bot_messages[-1]
        assert board.deleted and again.message_id > board.message_id
        assert again.photo_bytes == board.photo_bytes  # the reader's own line shows "you"
        assert [b.callback_data for b in again.buttons] == ["d.again", "d.show"]
        assert again.body == board.body
    fake_api.assert_callbacks_answered_once()
    (record,) = await export(str(db))
    assert record["daily"] == DAY and record["status"] == "finished"
    assert len(record["rounds"]) == 8


async def test_a_second_attempt_is_unranked_and_says_so(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        await play_daily(bot, anna)
        await anna.send(None, "/daily")
        await bot.settle()
        board = anna.private_chat.bot_messages[-1]
        tap = await anna.tap(board, by_action("again"))
        await tap.wait_answered()
        await bot.settle()
        assert any("this attempt is unranked" in t for t in texts(anna)[-3:])
        await play_to_end(bot, [anna], random.Random(2), chat=anna.private_chat)
        await bot.settle()
        result = last_with(anna, "Daily of 14-03-2025: you scored")
        assert "Unranked attempt: not on the board." in result.body
        assert "(1 player)" in result.body  # the ranked attempt stays the only line
    fake_api.assert_callbacks_answered_once()


async def test_daily_in_a_group_points_to_the_private_chat(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    group = fake_api.add_group("Club", [anna])
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        await anna.send(group, "/daily")
        await bot.settle()
        pointer = fake_api.last_message(group)
        assert "played alone in our private chat" in pointer.body
        urls = [b.url for b in pointer.buttons if b.url]
        assert urls and urls[0].endswith("?start=daily")
        await anna.start_bot("daily")  # the button's link
        await bot.settle()
        assert any("The daily deal of 14-03-2025" in t for t in texts(anna))


async def test_everybody_gets_the_same_hands_on_a_date_and_others_the_next_day(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    clock = Clock()
    db = tmp_path / "db.sqlite3"
    async with run_polling(daily_app(fake_api, db, clock), fake_api) as bot:
        await play_daily(bot, anna, seed=1)
        await play_daily(bot, bob, seed=7)  # other choices, the same deals
        clock.now += 86_400
        await anna.send(None, "/daily")
        await bot.settle()
    records = await export(str(db))
    assert [r["daily"] for r in records] == [DAY, DAY, "2025-03-15"]
    first, second, other = records
    assert first["seed"] == second["seed"] != other["seed"]
    hands = [[r["hands"] for r in rec["rounds"]] for rec in (first, second)]
    assert hands[0] == hands[1] and len(hands[0]) == 8
    assert other["current_round"]["hands"] != first["rounds"][0]["hands"]
    assert first["actions"] != second["actions"]


async def test_a_daily_left_over_past_midnight_is_stopped_by_the_next_days(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    clock = Clock()
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", clock), fake_api) as bot:
        await anna.send(None, "/daily")
        await bot.settle()
        clock.now += 86_400
        await anna.send(None, "/daily")
        await bot.settle()
        assert any("Your daily of 14-03-2025 was stopped" in t for t in texts(anna))
        assert any("The daily deal of 15-03-2025" in t for t in texts(anna))
        assert any("This is your ranked attempt" in t for t in texts(anna)[-4:])


async def test_a_daily_ends_with_one_message_the_result_with_the_board(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        await anna.send(None, "/daily")
        await bot.settle()
        chat = anna.private_chat
        before = len(chat.all_messages)
        await play_to_end(bot, [anna], random.Random(3), chat=chat)
        await bot.settle()
        # Rounds end with their summaries as the table moves on; the game's end adds ONE
        # message: the result, the place and the board picture.
        shown = [m for m in chat.all_messages[before:] if m.from_bot and not m.deleted]
        last_round = max(i for i, m in enumerate(shown) if "Round 8" in m.body)
        new = shown[last_round + 1 :]
        assert [m.body[:30] for m in new] == [new[-1].body[:30]]
        (result,) = new
        assert result.photo_bytes and "you scored" in result.body and "Place 1 of 1." in result.body
        assert not any("/klaverjas" in m.body for m in chat.all_messages if m.from_bot)
        assert not any("Game over" in m.body for m in chat.all_messages if m.from_bot)


async def test_daily_after_a_stopped_attempt_shows_the_board_and_plays_again_unranked(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        await play_daily(bot, bob)  # somebody on today's board
        await anna.send(None, "/daily")
        await bot.settle()
        await anna.send(None, "/stop")
        await bot.settle()
        confirm = anna.private_chat.bot_messages[-1]
        if confirm.buttons:
            await (await anna.tap(confirm, by_action("stop:yes"))).wait_answered()
            await bot.settle()
        await anna.send(None, "/daily")
        await bot.settle()
        board = anna.private_chat.bot_messages[-1]
        assert board.photo_bytes, board.body  # the day's board
        assert "was stopped" in board.body and "Board of 14-03-2025 (1 player)" in board.body
        assert "/daily starts today's" not in board.body
        assert "play it again below, unranked" in board.body
        assert next(b.callback_data for b in board.buttons) == "d.again"
        tap = await anna.tap(board, by_action("again"))
        await tap.wait_answered()
        await bot.settle()
        assert any("this attempt is unranked" in t for t in texts(anna)[-3:])
    fake_api.assert_callbacks_answered_once()
