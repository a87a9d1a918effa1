"""End to end (issue 11): a group game played to the end updates the standings; ``/top`` in the
group with its period buttons; ``/stats`` in private and in reply to somebody in a group; the
standings follow a group that became a supergroup; a rebuild of the statistics gives the same
numbers as the ones kept game by game."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bot.admin import rebuild_stats
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


async def test_top_in_a_group_with_the_period_buttons(fake_api: FakeBotApi, tmp_path: Path) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob", started=True)
    group = fake_api.add_group("Club", [anna, bob])
    async with run_polling(app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await group_game(fake_api, bot, group, [anna, bob], seed=3)
        await anna.send(group, "/top")
        await bot.settle()
        top = fake_api.last_message(group)
        assert "Standings of Club, this month" in top.body
        assert "1. " in top.body and "Anna" in top.body and "Bob" in top.body
        assert "1 game" in top.body
        labels = [b.text for b in top.buttons]
        assert labels == ["• This month", "All time"]
        await (await bob.tap(top, lambda b: b.callback_data == "t.all")).wait_answered()
        await bot.settle()
        edited = group.message(top.message_id)
        assert edited is not None and "Standings of Club, all time" in edited.body
        assert [b.text for b in edited.buttons] == ["This month", "• All time"]
        await anna.send(None, "/top")
        await bot.settle()
        assert "send it in the group" in anna.private_chat.bot_messages[-1].body
    fake_api.assert_callbacks_answered_once()


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
        top = fake_api.last_message(supergroup).body
        assert "Anna" in top and "1 game" in top


def derived(rows: TableRows) -> dict[str, list[tuple[Any, ...]]]:
    """The derived rows without the times they were written."""
    return {
        "stats_games": [r[:3] for r in rows["stats_games"]],
        "player_results": rows["player_results"],
        "ratings": [r[:5] for r in rows["ratings"]],
    }


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
