"""End to end: a group game played to the end updates the standings; ``/top`` in the
group as a picture with its period buttons (a tap sends the other period's picture
and deletes the tapped one), the text when drawing fails; ``/daily`` in a group with the
group's board as a picture; ``/stats`` in private and in reply to somebody in a group; the
standings follow a group that became a supergroup; a rebuild of the statistics gives the same
numbers as the ones kept game by game."""

from __future__ import annotations

import random
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.admin import rebuild_stats
from bot.handlers import standings as handlers
from storage import SqliteRepository
from storage.stats_rows import TableRows
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat

from .helpers import by_action, make_app, play_to_end


def app(api: FakeBotApi, db: Path) -> Any:
    return make_app(api, db, default_language="en", config={"daily_level": "random"})


async def group_game(
    api: FakeBotApi, bot: Any, group: FakeChat, humans: list[SimUser], seed: int
) -> None:
    """A table of 8 rounds with ``humans`` and computers in the other seats, played out."""
    await humans[0].send(group, "/klaverjas")
    await bot.settle()
    lobby = api.last_message(group)
    await (await humans[0].tap(lobby, by_action("rounds:toggle"))).wait_answered()
    await bot.settle()
    for seat, user in enumerate(humans):
        await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
        await bot.settle()
    for _ in range(4 - len(humans)):
        await (await humans[0].tap(lobby, by_action("bot:add"))).wait_answered()
        await bot.settle()
    await (await humans[0].tap(lobby, by_action("start"))).wait_answered()
    await bot.settle()
    await play_to_end(bot, humans, random.Random(seed))
    await bot.settle()


def picture_size(png: bytes | None) -> tuple[int, int]:
    """The size of a sent picture."""
    assert png
    with Image.open(BytesIO(png)) as image:
        return image.size


def answers(api: FakeBotApi, group: FakeChat, since: int) -> list[str]:
    """The messages the bot sent (or edited) in ``group`` since call ``since``."""
    methods = ("sendMessage", "sendPhoto", "editMessageText", "editMessageMedia")
    return [c.method for c in api.calls.filter(*methods, chat_id=group.id, since=since)]


async def test_top_in_a_group_with_the_period_buttons(fake_api: FakeBotApi, tmp_path: Path) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    group = fake_api.add_group("Club", [anna, bob])
    async with run_polling(app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await group_game(fake_api, bot, group, [anna, bob], seed=3)
        start = len(fake_api.calls)
        await anna.send(group, "/top")
        await bot.settle()
        top = fake_api.last_message(group)
        assert answers(fake_api, group, start) == ["sendPhoto"]  # one message per answer
        width, height = picture_size(top.photo_bytes)
        assert width == 1000 and 300 < height < 1000
        assert top.body.startswith("🏆 Standings of Club, this month\n1. ")
        assert "Anna" in top.body and "Bob" in top.body  # the leaders in the caption
        labels = [b.text for b in top.buttons]
        assert labels == ["• This month", "All time"]
        start = len(fake_api.calls)
        await (await bob.tap(top, lambda b: b.callback_data == "t.all")).wait_answered()
        await bot.settle()
        assert answers(fake_api, group, start) == ["sendPhoto"]
        assert group.message(top.message_id).deleted  # type: ignore[union-attr]
        shown = fake_api.last_message(group)
        assert shown.photo_bytes and shown.photo_bytes != top.photo_bytes
        assert "Standings of Club, all time" in shown.body
        assert [b.text for b in shown.buttons] == ["This month", "• All time"]
        await (await anna.tap(shown, lambda b: b.callback_data == "t.month")).wait_answered()
        await bot.settle()
        back = fake_api.last_message(group)
        assert back.photo_bytes == top.photo_bytes and "this month" in back.body
        await anna.send(None, "/top")
        await bot.settle()
        assert "send it in the group" in anna.private_chat.bot_messages[-1].body
    fake_api.assert_callbacks_answered_once()


async def test_top_is_text_when_drawing_fails_and_its_buttons_edit_it(
    fake_api: FakeBotApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*args: object, **kwargs: object) -> bytes:
        raise RuntimeError("no pictures today")

    monkeypatch.setattr(handlers, "render_top_png", broken)
    anna = fake_api.add_user("Anna", started=True)
    group = fake_api.add_group("Club", [anna])
    db = tmp_path / "db.sqlite3"
    async with run_polling(app(fake_api, db), fake_api, fail_on_log_errors=False) as bot:
        await group_game(fake_api, bot, group, [anna], seed=3)
        await anna.send(group, "/top")
        await bot.settle()
        top = fake_api.last_message(group)
        assert top.photo_bytes is None and "1. Anna — " in top.body and "1 game" in top.body
        await (await anna.tap(top, lambda b: b.callback_data == "t.all")).wait_answered()
        await bot.settle()
        assert fake_api.last_message(group).message_id == top.message_id  # edited in place
        assert "Standings of Club, all time" in top.body and top.edited
    fake_api.assert_callbacks_answered_once()
    failed = [r for r in caplog.records if r.getMessage() == "drawing the standings failed"]
    assert len(failed) == 2  # logged, once per answer; nothing else went wrong
    assert not [r for r in caplog.records if r.levelname == "ERROR" and r not in failed]


async def test_daily_in_a_group_shows_the_groups_board_as_a_picture(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    group = fake_api.add_group("Club", [anna])
    async with run_polling(app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await group_game(fake_api, bot, group, [anna], seed=4)  # she played here
        await anna.send(None, "/daily")
        await bot.settle()
        await play_to_end(bot, [anna], random.Random(2), chat=anna.private_chat)
        await bot.settle()
        start = len(fake_api.calls)
        await anna.send(group, "/daily")
        await bot.settle()
        assert answers(fake_api, group, start) == ["sendPhoto"]
        board = fake_api.last_message(group)
        assert picture_size(board.photo_bytes)[0] == 1000
        assert "played alone in our private chat" in board.body
        assert "Club: board of " in board.body and "(1 player)" in board.body
        assert "1. you " in board.body
        urls = [b.url for b in board.buttons if b.url]
        assert urls and urls[0].endswith("?start=daily")


async def test_stats_in_private_and_in_reply_to_somebody(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    cas = fake_api.add_user("Cas", started=True)
    group = fake_api.add_group("Club", [anna, bob, cas])
    async with run_polling(app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await group_game(fake_api, bot, group, [anna], seed=5)
        await anna.send(None, "/stats")
        await bot.settle()
        mine = anna.private_chat.bot_messages[-1].body
        assert "Statistics of Anna" in mine and "Games: 1 (" in mine
        assert "Rounds: 8, as playing team" in mine
        hello = await anna.send(group, "hello")
        await bob.send(group, "/stats", reply_to=hello)
        await bot.settle()
        theirs = fake_api.last_message(group).body
        assert "Statistics of Anna" in theirs and "Rating in this group" in theirs
        await cas.send(group, "/stats")  # no reply: their own, no games yet
        await bot.settle()
        assert "No games recorded yet." in fake_api.last_message(group).body
        await cas.send(group, "/stats", reply_to=fake_api.last_message(group))
        await bot.settle()
        assert "Bots have no statistics" in fake_api.last_message(group).body


async def test_the_standings_follow_a_group_that_became_a_supergroup(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    group = fake_api.add_group("Club", [anna])
    async with run_polling(app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await group_game(fake_api, bot, group, [anna], seed=6)
        supergroup = fake_api.migrate_group(group)
        await bot.settle()
        await anna.send(supergroup, "/top")
        await bot.settle()
        top = fake_api.last_message(supergroup)
        assert top.photo_bytes and "1. Anna " in top.body


def derived(rows: TableRows) -> dict[str, list[tuple[Any, ...]]]:
    """The derived rows without the times they were written."""
    return {
        "stats_games": [r[:3] for r in rows["stats_games"]],
        "player_results": rows["player_results"],
        "ratings": [r[:5] for r in rows["ratings"]],
    }


@pytest.mark.slow
async def test_a_rebuild_gives_the_numbers_kept_game_by_game(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    group = fake_api.add_group("Club", [anna, bob])
    db = tmp_path / "db.sqlite3"
    async with run_polling(app(fake_api, db), fake_api) as bot:
        await group_game(fake_api, bot, group, [anna, bob], seed=8)
        await group_game(fake_api, bot, group, [bob, anna], seed=9)
        await anna.send(None, "/daily")
        await bot.settle()
        await play_to_end(bot, [anna], random.Random(4), chat=anna.private_chat)
        await bot.settle()
        await bob.send(group, "/klaverjas")  # a lobby cancelled: counts for nobody
        await bot.settle()
        await (await bob.tap(fake_api.last_message(group), by_action("cancel"))).wait_answered()
        await bot.settle()
    async with await SqliteRepository.open(db) as repo:
        kept = await repo.standings_rows()
    assert len(kept["stats_games"]) == 4
    assert len(kept["player_results"]) == 5
    assert {r[1] for r in kept["ratings"]} == {anna.id, bob.id}
    assert await rebuild_stats(str(db)) == 4
    async with await SqliteRepository.open(db) as repo:
        rebuilt = await repo.standings_rows()
    assert derived(rebuilt) == derived(kept)
    assert rebuilt["daily_games"] == kept["daily_games"]  # primary data untouched


async def test_top_on_the_period_already_shown_answers_with_a_toast_only(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    group = fake_api.add_group("Club", [anna, bob])
    async with run_polling(app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await group_game(fake_api, bot, group, [anna, bob], seed=3)
        await anna.send(group, "/top")
        await bot.settle()
        top = fake_api.last_message(group)
        start = len(fake_api.calls)
        tap = await bob.tap(top, lambda b: b.callback_data == "t.month")  # shown already
        answer = await tap.wait_answered()
        await bot.settle()
        assert answers(fake_api, group, start) == []
        assert answer.text and "this month" in answer.text.lower()
        assert not group.message(top.message_id).deleted  # type: ignore[union-attr]
    fake_api.assert_callbacks_answered_once()
