"""A full game per language: nothing a player reads is left in English in nl, de
or fr; in en everything reads in English. Also /klaverjas@botname, and a player at two tables
who gets two clearly labelled hands."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from storage import GameStatus, open_repository
from tests.fakebot import FakeBotApi, run_polling
from tests.render.helpers import untranslated

from .helpers import by_action, hand_message, make_app, open_and_fill, play_to_end


@pytest.mark.parametrize(("lang", "word"), [("nl", "troef"), ("de", "Trumpf"), ("fr", "atout")])
async def test_a_full_game_reads_in_the_chats_language(
    fake_api: FakeBotApi, tmp_path: Path, lang: str, word: str
) -> None:
    db = tmp_path / "db.sqlite3"
    player = fake_api.add_user("Kim", language_code=lang, started=True)
    group = fake_api.add_group("Club", members=[player], admins=[player])
    rng = random.Random(21)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await player.send(group, "/language")
        await bot.settle()
        picker = fake_api.last_message(group)
        await (
            await player.tap(picker, lambda b: str(b.callback_data).endswith("." + lang))
        ).wait_answered()
        await bot.settle()
        await open_and_fill(fake_api, bot, group, [player], computers=3)
        await play_to_end(bot, [player], rng)
        await player.send(group, "/score")
        await player.send(group, "/rules")
        await player.send(group, "/help")
        await bot.settle()
    repo = await open_repository(db)
    try:
        (game,) = await repo.export_games()
    finally:
        await repo.close()
    assert game.status is GameStatus.FINISHED
    texts = [m.body for m in fake_api.chat(group).all_messages if m.from_bot]
    texts += [m.body for m in player.private_chat.all_messages if m.from_bot]
    texts += [
        label
        for chat in (fake_api.chat(group), player.private_chat)
        for m in chat.all_messages
        if m.from_bot
        for row in m.keyboard_rows()
        for label, _ in row
    ]
    answers = [c.params.get("text") for c in fake_api.calls.filter("answerCallbackQuery")]
    texts += [t for t in answers if t]
    leftovers = {t[:60]: untranslated(t, lang) for t in texts if untranslated(t, lang)}
    assert not leftovers
    assert any(word in t for t in texts)


async def test_command_with_the_bots_name_and_two_tables_give_two_labelled_hands(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    kim = fake_api.add_user("Kim", language_code="nl", started=True)
    first = fake_api.add_group("Eerste tafel", members=[kim], admins=[kim])
    second = fake_api.add_group("Tweede tafel", members=[kim], admins=[kim])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await kim.send(first, "/klaverjas@klaverjas_test_bot")
        await bot.settle()
        lobby = fake_api.last_message(first)
        assert any(t and t.endswith(".sit:0") for row in lobby.keyboard_rows() for _, t in row)
        for action in ("sit:0", "bot:add", "bot:add", "bot:add", "start"):
            await (await kim.tap(lobby, by_action(action))).wait_answered()
            await bot.settle()
        await open_and_fill(fake_api, bot, second, [kim], computers=3)
        hands = [
            m
            for m in kim.private_chat.all_messages
            if m.from_bot and not m.deleted and m.keyboard_rows()
        ]
    titles = {m.body.splitlines()[0] for m in hands}
    assert any("Eerste tafel" in t for t in titles)
    assert any("Tweede tafel" in t for t in titles)
    assert hand_message(kim) is not None
