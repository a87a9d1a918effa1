"""A group that becomes a supergroup (Telegram's ``migrate_to_chat_id`` /
``migrate_from_chat_id`` pair, in either order, while updates from the old id still arrive
late): every command either works in the chat it names or is answered, in the new group,
with a pointer there; a table open in the old group moves and finishes in the new one.
``run_polling`` fails any of these tests that logs an ERROR line."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from storage import GameStatus, Repository, SqliteRepository
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat

from .helpers import make_app, open_and_fill, play_to_end, play_turn

MOVED = "Deze groep is verhuisd naar"  # the pointer, in Dutch (the bot's default here)


def _is(text: str) -> Callable[[str, dict[str, Any]], bool]:
    return lambda kind, payload: kind == "message" and payload.get("text") == text


def _notes(kind: str, payload: dict[str, Any]) -> bool:
    return "migrate_to_chat_id" in payload or "migrate_from_chat_id" in payload


def _people(api: FakeBotApi) -> tuple[SimUser, SimUser, FakeChat]:
    anna = api.add_user("Anna", language_code="nl", started=True)
    bert = api.add_user("Bert", language_code="nl", started=True)
    return anna, bert, api.add_group("Club", members=[anna, bert], admins=[anna])


async def _games(repo: Repository, chat_id: int) -> list[GameStatus]:
    return [g.status for g in await repo.export_games(chat_id=chat_id)]


@pytest.mark.parametrize("from_first", [False, True])
async def test_klaverjas_from_the_old_id_after_the_migration_points_to_the_new_group(
    fake_api: FakeBotApi, tmp_path: Path, from_first: bool
) -> None:
    anna, bert, group = _people(fake_api)
    repo = await SqliteRepository.open(tmp_path / "db.sqlite3")
    async with run_polling(make_app(fake_api, tmp_path / "x", repository=repo), fake_api) as bot:
        held = fake_api.hold_updates(_is("/klaverjas"))
        await anna.send(group, "/klaverjas")  # written before the move, delivered after it
        held.stop()
        supergroup = fake_api.migrate_group(group, from_first=from_first)
        await bot.settle()
        await bert.send(supergroup, "/klaverjas")  # Bert opens a table in the new group
        await bot.settle()
        held.release()
        await bot.settle()
        assert fake_api.find_messages(supergroup, MOVED), "the late command is answered there"
        assert await _games(repo, group.id) == []
        assert await _games(repo, supergroup.id) == [GameStatus.LOBBY]
        assert await repo.get_chat(group.id) is None
        await anna.send(supergroup, "/klaverjas")  # in the new group it works as ever
        await bot.settle()
        assert fake_api.find_messages(supergroup, "al een tafel open")
    await repo.close()


@pytest.mark.parametrize("from_first", [False, True])
async def test_klaverjas_before_the_migration_notes_opens_the_table_in_the_new_group(
    fake_api: FakeBotApi, tmp_path: Path, from_first: bool
) -> None:
    anna, bert, group = _people(fake_api)
    repo = await SqliteRepository.open(tmp_path / "db.sqlite3")
    async with run_polling(make_app(fake_api, tmp_path / "x", repository=repo), fake_api) as bot:
        command = fake_api.hold_updates(_is("/klaverjas"))
        await anna.send(group, "/klaverjas")
        command.stop()
        notes = fake_api.hold_updates(_notes)
        supergroup = fake_api.migrate_group(group, from_first=from_first)
        notes.stop()
        command.release()  # Telegram moved the group; the bot hears of it from its answer
        await bot.settle()
        notes.release()  # and then from the two notes
        await bot.settle()
        assert await _games(repo, group.id) == []
        (game,) = await repo.export_games()
        assert game.chat_id == supergroup.id and game.status is GameStatus.LOBBY
        lobby = fake_api.last_message(supergroup)
        assert game.table_message_id == lobby.message_id
        await open_and_fill_lobby(fake_api, bot, lobby, [anna, bert])
        assert await play_to_end(bot, [anna, bert], random.Random(2)) > 0
        (game,) = await repo.export_games()
        assert game.chat_id == supergroup.id and game.status is GameStatus.FINISHED
    fake_api.assert_callbacks_answered_once()
    await repo.close()


async def open_and_fill_lobby(api: FakeBotApi, bot: Any, lobby: Any, humans: list[SimUser]) -> None:
    """Seat ``humans``, two computers, start."""
    from .helpers import by_action

    for seat, user in enumerate(humans):
        await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
        await bot.settle()
    for _ in range(4 - len(humans)):
        await (await humans[0].tap(lobby, by_action("bot:add"))).wait_answered()
        await bot.settle()
    await (await humans[0].tap(lobby, by_action("start"))).wait_answered()
    await bot.settle()


ORDERS = [("cmd", "to", "from"), ("to", "cmd", "from"), ("from", "cmd", "to")]


@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
async def test_klaverjas_interleaved_with_the_migration_never_fails(
    fake_api: FakeBotApi, tmp_path: Path, order: tuple[str, str, str]
) -> None:
    """The race of the traceback: the command has recorded the old chat when the migration
    moves it, and then opens the table there."""
    anna, bert, group = _people(fake_api)
    repo = await SqliteRepository.open(tmp_path / "db.sqlite3")
    upserted, moved = asyncio.Event(), asyncio.Event()
    upsert_chat, migrate_chat = repo.upsert_chat, repo.migrate_chat

    async def upsert(chat_id: int, *args: Any, **kwargs: Any) -> Any:
        try:
            row = await upsert_chat(chat_id, *args, **kwargs)
        finally:
            upserted.set()
        if chat_id == group.id:  # let the migration overtake the command right here
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(moved.wait(), 3.0)
        return row

    async def migrate(*args: Any, **kwargs: Any) -> Any:
        with contextlib.suppress(TimeoutError):  # (a fixed bot may never record the old chat)
            await asyncio.wait_for(upserted.wait(), 3.0)
        try:
            return await migrate_chat(*args, **kwargs)
        finally:
            moved.set()

    repo.upsert_chat = upsert  # type: ignore[method-assign]
    repo.migrate_chat = migrate  # type: ignore[method-assign]
    async with run_polling(make_app(fake_api, tmp_path / "x", repository=repo), fake_api) as bot:
        held = fake_api.hold_updates()
        await anna.send(group, "/klaverjas")
        supergroup = fake_api.migrate_group(group)
        held.stop()
        cmd, to, back = held.updates
        named = {"cmd": cmd, "to": to, "from": back}
        held.release(*(named[k] for k in order))  # one batch, handled concurrently
        await bot.settle()
        assert await _games(repo, group.id) == []
        assert await repo.get_chat(group.id) is None
        statuses = await _games(repo, supergroup.id)
        assert statuses in ([], [GameStatus.LOBBY])  # pointed to the new group, or opened there
        if not statuses:
            assert fake_api.find_messages(supergroup, MOVED)
        await bert.send(supergroup, "/klaverjas")
        await bot.settle()
        assert await _games(repo, supergroup.id) == [GameStatus.LOBBY]
    await repo.close()


@pytest.mark.parametrize("from_first", [False, True])
async def test_a_table_open_during_the_migration_finishes_in_the_new_group(
    fake_api: FakeBotApi, tmp_path: Path, from_first: bool
) -> None:
    anna, bert, group = _people(fake_api)
    rng = random.Random(5)
    repo = await SqliteRepository.open(tmp_path / "db.sqlite3")
    async with run_polling(make_app(fake_api, tmp_path / "x", repository=repo), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        for _ in range(4):
            assert await play_turn([anna, bert], rng)
            await bot.settle()
        in_old = len(group.bot_messages)
        supergroup = fake_api.migrate_group(group, from_first=from_first)
        await bot.settle()
        (game,) = await repo.export_games()
        assert game.chat_id == supergroup.id
        table = fake_api.last_message(supergroup)
        assert game.table_message_id == table.message_id, "the table is drawn in the new group"
        assert await play_to_end(bot, [anna, bert], rng) > 0
        (game,) = await repo.export_games()
        assert game.status is GameStatus.FINISHED and game.chat_id == supergroup.id
        assert game.table_message_id is not None
        assert supergroup.message(game.table_message_id) is not None
        assert len(group.bot_messages) == in_old, "nothing more was sent to the old group"
    fake_api.assert_callbacks_answered_once()
    await repo.close()


async def test_a_table_opened_in_the_new_group_before_the_notes_gives_way(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """The old group's running game moves; the lobby somebody opened in the supergroup
    before the bot heard of the move closes (nothing was played there)."""
    anna, bert, group = _people(fake_api)
    rng = random.Random(8)
    repo = await SqliteRepository.open(tmp_path / "db.sqlite3")
    async with run_polling(make_app(fake_api, tmp_path / "x", repository=repo), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        notes = fake_api.hold_updates(_notes)
        supergroup = fake_api.migrate_group(group)
        notes.stop()
        await bert.send(supergroup, "/klaverjas")
        await bot.settle()
        notes.release()
        await bot.settle()
        games = {g.game_id: g for g in await repo.export_games()}
        assert games[1].chat_id == supergroup.id and games[1].status is GameStatus.ACTIVE
        assert games[2].status is GameStatus.ABANDONED
        assert await play_to_end(bot, [anna, bert], rng) > 0
        finished = await repo.get_game(1)
        assert finished is not None and finished.status is GameStatus.FINISHED
    fake_api.assert_callbacks_answered_once()
    await repo.close()
