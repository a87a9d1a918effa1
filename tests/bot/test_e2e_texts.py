"""Every input gets an answer in the reader's language, a stopped game crowns nobody, and the
group's sheet reads at a glance (symptoms 3, 4 and 7)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import by_action, make_app, open_and_fill, play_turn

DEEP = re.compile(r"start=(h[0-9a-f]+)")


def _bot_texts(chat: FakeChat) -> list[str]:
    return [m.body for m in chat.all_messages if m.from_bot and not m.deleted]


def _deep_link(message: FakeMessage) -> str:
    """The ``h<token>`` payload of a message's link button."""
    for row in message.keyboard_rows():
        for _, target in row:
            m = DEEP.search(target or "")
            if m:
                return m[1]
    raise AssertionError(f"no deep link in {message.keyboard_rows()}")


async def _open(api: FakeBotApi, bot: object, group: FakeChat, user: SimUser, cmd: str) -> None:
    """``cmd`` (a /klaverjas), the user sits North, three computers, start."""
    await user.send(group, cmd)
    await bot.settle()  # type: ignore[attr-defined]
    lobby = api.last_message(group)
    for action in ("sit:0", "bot:add", "bot:add", "bot:add", "start"):
        await (await user.tap(lobby, by_action(action))).wait_answered()
        await bot.settle()  # type: ignore[attr-defined]


async def _play_rounds(bot: object, user: SimUser, group: FakeChat, rounds: int) -> None:
    rng = random.Random(5)
    for _ in range(400):
        if sum(t.startswith("🏁") for t in _bot_texts(group)) >= rounds:
            return
        if not await play_turn([user], rng):
            break
        await bot.settle(quiet=0.01)  # type: ignore[attr-defined]
    raise AssertionError("the rounds did not end")


async def _stop(api: FakeBotApi, bot: object, group: FakeChat, user: SimUser) -> None:
    await user.send(group, "/stop")
    await bot.settle()  # type: ignore[attr-defined]
    confirm = api.last_message(group)
    await (await user.tap(confirm, by_action("stop:yes"))).wait_answered()
    await bot.settle()  # type: ignore[attr-defined]


# --- symptom 3: silence ---------------------------------------------------------------------


async def test_the_lobbys_private_chat_link_gets_an_answer(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    bert = fake_api.add_user("Bert", language_code="de")
    group = fake_api.add_group("Club", members=[anna, bert])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        await bert.start_bot(_deep_link(lobby))
        await bot.settle()
        texts = _bot_texts(bert.private_chat)
        assert len(texts) == 1 and "Club" in texts[0]
        assert "Platz" in texts[0]  # German: take a seat
        await (await bert.tap(lobby, by_action("sit:1"))).wait_answered()
        await bot.settle()
        await bert.start_bot(_deep_link(lobby))
        await bot.settle()
        assert len(_bot_texts(bert.private_chat)) == 2
        assert "Karten" in _bot_texts(bert.private_chat)[-1]


async def test_the_my_cards_link_answers_someone_not_dealt_in(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    carl = fake_api.add_user("Carl", language_code="fr")
    group = fake_api.add_group("Club", members=[anna, carl])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, [anna], computers=3)
        await carl.start_bot(_deep_link(table))
        await bot.settle()
    (text,) = _bot_texts(carl.private_chat)
    assert "Club" in text and "partie" in text  # French


async def test_start_in_a_group_is_answered(fake_api: FakeBotApi, tmp_path: Path) -> None:
    anna = fake_api.add_user("Anna", language_code="de", started=True)
    group = fake_api.add_group("Club", members=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.send(group, "/start")
        await bot.settle()
    (text,) = _bot_texts(group)
    assert "/klaverjas" in text and "Tisch" in text


async def test_an_unknown_preset_is_refused_with_the_list(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.send(group, "/klaverjas xyz")
        await bot.settle()
        (text,) = _bot_texts(group)
        assert "xyz" in text and "onbekend" in text.lower()
        for preset in ("amsterdam", "rotterdam", "utrecht", "klassiek", "klammern"):
            assert preset in text
        assert not fake_api.last_message(group).keyboard_rows()  # no lobby
        await anna.send(group, "/klaverjas Rotterdam")
        await bot.settle()
        assert fake_api.last_message(group).keyboard_rows()  # presets ignore case


async def test_adding_the_bot_to_a_group_greets_in_the_groups_language(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="fr", started=True)
    bert = fake_api.add_user("Bert", language_code="fr", started=True)
    group = fake_api.add_group("Club", members=[anna, bert])
    group.bot_status = "left"
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.add_bot(group)
        await bot.settle()
        await bert.join(group)  # another member joining: no greeting
        await bot.settle()
    (text,) = _bot_texts(group)
    assert "/klaverjas" in text and "Bonjour" in text


# --- symptom 4: a stopped game crowns nobody -------------------------------------------------


async def test_a_stopped_game_shows_the_score_and_no_winner(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await _open(fake_api, bot, group, anna, "/klaverjas")
        await _play_rounds(bot, anna, group, 2)
        await _stop(fake_api, bot, group, anna)
        final = fake_api.last_message(group).body
        await anna.send(group, "/score")
        await bot.settle()
        score = fake_api.last_message(group).body
    for text in (final, score):
        assert "🏆" not in text and "wint" not in text and "winnen" not in text
        assert "gestopt na ronde 2 van 16" in text
        assert "geen winnaar" in text.lower()


async def test_a_stopped_klammern_game_shows_the_score_and_no_winner(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="de", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await _open(fake_api, bot, group, anna, "/klaverjas klammern")
        await _play_rounds(bot, anna, group, 1)
        await _stop(fake_api, bot, group, anna)
        final = fake_api.last_message(group).body
    assert "🏆" not in final and "gewinnen" not in final
    assert "nach Runde 1" in final and "kein Sieger" in final
    assert "Kleine Punkte" in final  # the standing at that moment


# --- symptom 7: a sheet readable at a glance --------------------------------------------------


async def test_the_group_sheet_has_team_labels_and_a_legend(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Annemarie", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await _open(fake_api, bot, group, anna, "/klaverjas")
        await _play_rounds(bot, anna, group, 1)
        await anna.send(group, "/score")
        await bot.settle()
        picture = fake_api.last_message(group)  # the sheet as a picture first
        assert picture.photo_bytes and "Boompje" in picture.body
        await (await anna.tap(picture, by_action("sheet:text"))).wait_answered()
        await anna.send(group, "/help")
        await bot.settle()
        assert picture.deleted  # the answer was sent again as text
        messages = fake_api.chat(group).bot_messages[-2:]
    sheet = next(m.body for m in messages if "Σ" in m.body)
    help_text = next(m.body for m in messages if "/help —" in m.body)
    head = sheet.split("📋")[-1].splitlines()
    table = [line for line in head if line.lstrip().startswith("#")]
    assert table and table[0].split() == ["#", "N–Z", "O–W"]
    assert "N–Z: Annemarie & Computer Zuid" in sheet
    assert "Annema/" not in sheet  # no names cut to six letters
    assert "Σ" in sheet and "roem" in sheet and "totaal" in sheet.lower()  # the legend
    assert "/score" in help_text
    assert "na elke ronde het boompje" not in help_text


async def test_the_score_switches_between_picture_and_text_as_often_as_tapped(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """Picture → text → picture → text, within a minute: every tap answers (a
    switch is never taken for a repeated reply)."""
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await _open(fake_api, bot, group, anna, "/klaverjas")
        await _play_rounds(bot, anna, group, 1)
        await anna.send(group, "/score")
        await bot.settle()
        shown = fake_api.last_message(group)
        forms = [bool(shown.photo_bytes)]
        for action in ("sheet:text", "sheet:picture", "sheet:text"):
            await (await anna.tap(shown, by_action(action))).wait_answered()
            await bot.settle()
            assert shown.deleted
            shown = fake_api.last_message(group)
            forms.append(bool(shown.photo_bytes))
    assert forms == [True, False, True, False]
