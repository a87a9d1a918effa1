"""End-to-end: the limits on tables. A group table does not start with four computers and no
person; one person may keep only so many group tables open, and the bot only so many in all;
a lobby nobody starts closes itself and the group is told."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from storage import GameStatus, open_repository
from tests.fakebot import FakeBotApi, run_polling

from .helpers import by_action, make_app, play_to_end


async def _statuses(db: Path) -> list[GameStatus]:
    repo = await open_repository(db)
    try:
        return [g.status for g in await repo.export_games()]
    finally:
        await repo.close()


async def _games(db: Path) -> list[Any]:
    repo = await open_repository(db)
    try:
        return list(await repo.export_games())
    finally:
        await repo.close()


async def test_a_group_table_of_four_computers_does_not_start(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, db, default_language="en"), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        for _ in range(4):
            await (await anna.tap(lobby, by_action("bot:add"))).wait_answered()
            await bot.settle()
        start = await anna.tap(lobby, by_action("start"))
        await start.wait_answered()
        await bot.settle()
        assert start.text is not None and "At least one person" in start.text
        assert await _statuses(db) == [GameStatus.LOBBY]
        # With a person seated (a computer making room) the table starts.
        await (await anna.tap(lobby, by_action("bot:remove"))).wait_answered()
        await bot.settle()
        await (await anna.tap(lobby, by_action("sit:3"))).wait_answered()
        await bot.settle()
        await (await anna.tap(lobby, by_action("start"))).wait_answered()
        await bot.settle()
        assert await _statuses(db) == [GameStatus.ACTIVE]


async def test_open_tables_are_capped_per_person_and_for_the_bot(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert, cas = (fake_api.add_user(n, language_code="en", started=True) for n in "ABC")
    groups = [fake_api.add_group(f"G{i}", members=[anna, bert, cas]) for i in range(4)]
    limits = {"max_tables_per_player": 2, "max_open_tables": 3}
    app = make_app(fake_api, db, default_language="en", config=limits)
    async with run_polling(app, fake_api) as bot:
        for group in groups[:2]:
            await anna.send(group, "/klaverjas")
            await bot.settle()
            assert fake_api.last_message(group).keyboard_rows()  # a lobby
        await anna.send(groups[2], "/klaverjas")  # her third
        await bot.settle()
        refused = fake_api.last_message(groups[2])
        assert "most open tables one person" in refused.body and not refused.keyboard_rows()
        await bert.send(groups[2], "/klaverjas")  # the bot's third
        await bot.settle()
        assert fake_api.last_message(groups[2]).keyboard_rows()
        await cas.send(groups[3], "/klaverjas")  # the bot's fourth
        await bot.settle()
        full = fake_api.last_message(groups[3])
        assert "All my tables are taken" in full.body and not full.keyboard_rows()
        assert await _statuses(db) == [GameStatus.LOBBY] * 3
        # One table closes: there is room again.
        first = fake_api.last_message(groups[0])
        await (await anna.tap(first, by_action("cancel"))).wait_answered()
        await bot.settle()
        await cas.send(groups[3], "/klaverjas")
        await bot.settle()
        assert fake_api.last_message(groups[3]).keyboard_rows()
        assert sorted(await _statuses(db)) == sorted(
            [GameStatus.ABANDONED, *[GameStatus.LOBBY] * 3]
        )


async def test_an_idle_lobby_closes_itself_and_the_group_is_told(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    group = fake_api.add_group("Club", members=[anna])
    app = make_app(fake_api, db, default_language="en", config={"lobby_idle_minutes": 0.02})
    async with run_polling(app, fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        await (await anna.tap(lobby, by_action("sit:0"))).wait_answered()
        await bot.settle()
        await fake_api.wait_for(
            lambda: (
                (m := fake_api.chat(group).last_message(from_bot=True)) is not None
                and "Nobody started the game within 1 minute" in m.body
            ),
            timeout=20,
        )
        assert not fake_api.last_message(group).keyboard_rows()
        await bot.settle()
        assert await _statuses(db) == [GameStatus.ABANDONED]
        assert all(not m.keyboard_rows() for m in fake_api.chat(group).messages if m.from_bot)
        await anna.send(group, "/klaverjas")  # the group may open a new one
        await bot.settle()
        assert fake_api.last_message(group).keyboard_rows()


async def test_a_finished_game_leaves_nothing_in_the_bots_memory(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    group = fake_api.add_group("Club", members=[anna])
    app = make_app(fake_api, db, default_language="en", timeout=30)
    async with run_polling(app, fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        for action in ("rounds:toggle", "sit:0", "bot:add", "bot:add", "bot:add", "start"):
            await (await anna.tap(lobby, by_action(action))).wait_answered()
            await bot.settle()
        await play_to_end(bot, [anna], random.Random(4))
        await bot.settle()
        (game,) = await _games(db)
        assert game.status is GameStatus.FINISHED
        await anna.send(group, "/score")  # the old game's sheet
        data = app.bot_data["app"]
        token = await data.service.tables.link_token(game.game_id)
        await anna.start_bot(payload=f"h{token}")
        await bot.settle()
        service, presenter = data.service, data.presenter
        assert len(service.tables.cache) == 0 and len(service.tables.locks) == 0
        assert len(presenter._locks) == 0
        assert not presenter._notes
        assert not presenter._reminders and not presenter._warned
