"""End to end: ``/forgetme`` (the right to be forgotten). In the private chat a question with a
confirm and a cancel button; after the confirmation the group's ``/top`` and ``/stats`` name
the person nowhere and every game still exports and replays (an anonymous seat); cancel keeps
everything; a person seated at an open table is told to finish or leave it first; in a group
the command points to the private chat; a forged confirmation outside the tapper's private
chat forgets nobody. And ``/stats`` in a group respects "hide me on the boards"."""

from __future__ import annotations

from pathlib import Path

from bot.admin import export
from storage import SqliteRepository
from tests.fakebot import FakeBotApi, SimUser, run_polling

from .helpers import by_action, open_and_fill
from .test_e2e_daily import Clock, daily_app, last_with, play_daily
from .test_e2e_standings import app, group_game


def last_private(user: SimUser) -> str:
    return user.private_chat.bot_messages[-1].body


async def test_forgetme_confirmed_leaves_no_name_in_top_stats_or_export(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    group = fake_api.add_group("Club", [anna, bob])
    db = tmp_path / "db.sqlite3"
    application = app(fake_api, db)
    async with run_polling(application, fake_api) as bot:
        await group_game(fake_api, bot, group, [anna, bob], seed=3)
        await bob.send(group, "/top")
        await bot.settle()
        assert "Anna" in fake_api.last_message(group).body  # before: on the standings
        await anna.send(group, "/forgetme")
        await bot.settle()
        assert "/forgetme works in our private chat" in fake_api.last_message(group).body
        # Cancel keeps everything.
        await anna.send(None, "/forgetme")
        await bot.settle()
        question = anna.private_chat.bot_messages[-1]
        assert "Forget me?" in question.body
        assert [b.callback_data for b in question.buttons] == ["f.yes", "f.no"]
        tap = await anna.tap(question, by_action("no"))
        assert (await tap.wait_answered()).text == "Nothing was deleted."
        await bot.settle()
        assert question.body == "Nothing was deleted." and not question.buttons
        repo = application.bot_data["app"].service.repo
        assert len(await repo.player_results(user_id=anna.id)) == 1  # kept
        # Confirm forgets.
        await anna.send(None, "/forgetme")
        await bot.settle()
        question = anna.private_chat.bot_messages[-1]
        tap = await anna.tap(question, by_action("yes"))
        answered = await tap.wait_answered()
        assert answered.text is not None and answered.text.startswith("Done: I have deleted")
        await bot.settle()
        assert question.body.startswith("Done: I have deleted") and not question.buttons
        await bob.send(group, "/top")
        await bot.settle()
        top = fake_api.last_message(group).body
        assert "Bob" in top and "Anna" not in top and "—" not in top
        await bob.send(group, "/stats")
        await bot.settle()
        stats = fake_api.last_message(group).body
        assert "Statistics of Bob" in stats and "Games: 1 (" in stats and "Anna" not in stats
        # Stored nowhere: the repository (its rows in memory too) has no Anna.
        assert await repo.get_user(anna.id) is None
        assert await repo.player_results(user_id=anna.id) == []
        await anna.send(None, "/stats")  # writing again starts afresh
        await bot.settle()
        assert "No games recorded yet." in last_private(anna)
    fake_api.assert_callbacks_answered_once()
    (record,) = await export(str(db))
    assert len(record["rounds"]) == 8 and record["status"] == "finished"
    names = [p["name"] for p in record["players"]]
    assert "Anna" not in names and "Bob" in names
    async with await SqliteRepository.open(db) as repo:
        (history,) = await repo.game_histories()
        assert anna.id not in {s.user_id for s in history.game.seats}


async def test_forgetme_at_an_open_table_is_refused_and_forged_taps_forget_nobody(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    group = fake_api.add_group("Club", [anna, bob])
    db = tmp_path / "db.sqlite3"
    application = app(fake_api, db)
    async with run_polling(application, fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, [anna], computers=3)
        await anna.send(None, "/forgetme")
        await bot.settle()
        question = anna.private_chat.bot_messages[-1]
        tap = await anna.tap(question, by_action("yes"))
        await tap.wait_answered()
        await bot.settle()
        assert "finish or leave your table first" in question.body
        repo = application.bot_data["app"].service.repo
        assert await repo.get_user(anna.id) is not None
        # Bob forges the confirmation on the group's table message: refused, nobody forgotten.
        forged = await bob.tap_data(table, "f.yes")
        answer = await forged.wait_answered()
        assert answer.text == "This button does not belong here."
        await bot.settle()
        assert await repo.get_user(bob.id) is not None
        assert await repo.get_user(anna.id) is not None
    fake_api.assert_callbacks_answered_once()


async def test_stats_in_a_group_hides_the_daily_of_somebody_hidden_on_the_boards(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    group = fake_api.add_group("Club", [anna])
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        await play_daily(bot, anna)
        board = last_with(anna, "Daily of 14-03-2025: you scored")
        await anna.send(group, "/stats")
        await bot.settle()
        assert "Daily: 1 attempts" in fake_api.last_message(group).body  # shown: not hidden
        await (await anna.tap(board, by_action("hide"))).wait_answered()
        await bot.settle()
        await anna.send(group, "/stats")
        await bot.settle()
        shown = fake_api.last_message(group).body
        assert "Statistics of Anna" in shown and "Daily" not in shown
        await anna.send(None, "/stats")  # in private the person sees their own daily
        await bot.settle()
        assert "Daily: 1 attempts" in last_private(anna)
    fake_api.assert_callbacks_answered_once()
