"""End-to-end: the table's life around the cards: a second /klaverjas, /score,
/stop with confirmation, handing a seat to a computer, turn timers (also across a restart),
/language, /help and /rules."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.render.messages import COMMANDS
from storage import GameStatus, SeatKind, open_repository
from tests.fakebot import FakeBotApi, run_polling
from tests.fakebot.model import FakeChat

from .helpers import by_action, hand_message, make_app, open_and_fill, play_turn


async def _game(db: Path):  # type: ignore[no-untyped-def]
    repo = await open_repository(db)
    try:
        (game,) = await repo.export_games()
        return game
    finally:
        await repo.close()


async def test_second_klaverjas_points_to_the_running_table_and_score_shows_the_sheet(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in "AB")
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    rng = random.Random(2)
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        await bert.send(group, "/klaverjas")
        await bot.settle()
        pointer = fake_api.last_message(group)
        assert pointer.message_id != table.message_id
        assert pointer.reply_to_message_id == table.message_id
        for _ in range(40):
            assert await play_turn([anna, bert], rng)
            await bot.settle()
        await anna.send(group, "/score")
        await bot.settle()
        sheet = fake_api.last_message(group)
    assert "<pre>" in (sheet.source_text or "") or sheet.entities
    assert "Wij" not in sheet.body  # the group sees the teams by name, not "Wij/Zij"


async def test_stop_needs_the_creator_or_an_admin_and_a_confirmation(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert, cas = (fake_api.add_user(n, language_code="nl", started=True) for n in "ABC")
    group = fake_api.add_group("Club", members=[anna, bert, cas], admins=[cas])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        await bert.send(group, "/stop")
        await bot.settle()
        refused = fake_api.last_message(group)
        assert refused.from_bot and not refused.keyboard_rows()
        assert (await _game(db)).status is GameStatus.ACTIVE
        await cas.send(group, "/stop")  # an admin who is not playing
        await bot.settle()
        confirm = fake_api.last_message(group)
        no = await cas.tap(confirm, by_action("stop:no"))
        await no.wait_answered()
        await bot.settle()
        assert (await _game(db)).status is GameStatus.ACTIVE
        await anna.send(group, "/stop")
        await bot.settle()
        confirm = fake_api.last_message(group)
        bad = await bert.tap(confirm, by_action("stop:yes"))
        await bad.wait_answered()
        await bot.settle()
        assert bad.show_alert
        assert (await _game(db)).status is GameStatus.ACTIVE
        yes = await anna.tap(confirm, by_action("stop:yes"))
        await yes.wait_answered()
        await bot.settle()
        assert (await _game(db)).status is GameStatus.ABANDONED
        await anna.send(group, "/klaverjas")  # a new table can be opened
        await bot.settle()
    fake_api.assert_callbacks_answered_once()


async def test_a_player_hands_the_seat_to_a_computer(fake_api: FakeBotApi, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in "AB")
    group = fake_api.add_group("Club", members=[anna, bert])
    rng = random.Random(4)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        hand = hand_message(bert)
        assert hand is not None
        ask = await bert.tap(hand, by_action("handover"))
        await ask.wait_answered()
        await bot.settle()
        confirm = fake_api.last_message(bert.private_chat)
        yes = await bert.tap(confirm, by_action("handover:yes"))
        await yes.wait_answered()
        await bot.settle()
        game = await _game(db)
        assert game.seats[1].kind is SeatKind.COMPUTER
        for _ in range(20):  # Anna plays on; Bert's seat plays itself
            if not await play_turn([anna], rng):
                break
            await bot.settle()
        assert len((await _game(db)).actions or ()) > 20
    fake_api.assert_callbacks_answered_once()


async def test_turn_timer_reminds_then_the_computer_plays_also_after_a_restart(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna])
    async with run_polling(make_app(fake_api, db, timeout=2), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        before = len((await _game(db)).actions or ())
        reminder = await fake_api.wait_for(
            lambda: (
                len(anna.private_chat.bot_messages) >= 3
                and "⏰" in anna.private_chat.bot_messages[-1].body
            ),
            timeout=8,
        )
        assert reminder
        await fake_api.wait_for(lambda: _timeouts(fake_api, group) > 0, timeout=8)
        await bot.settle()
        after = len((await _game(db)).actions or ())
        assert after > before
    # Restart while Anna is to act: the stored deadline is re-armed.
    game = await _game(db)
    assert game.timer is not None
    count = len(game.actions or ())
    played = _timeouts(fake_api, group)
    async with run_polling(make_app(fake_api, db, timeout=2), fake_api) as bot:
        await fake_api.wait_for(lambda: _timeouts(fake_api, group) > played, timeout=8)
        await bot.settle()
    assert len((await _game(db)).actions or ()) > count


def _timeouts(api: FakeBotApi, group: FakeChat) -> int:
    """Table messages (sent or edited) that say the computer acted for a timed-out player
    (the table's last line, not a message of its own)."""
    return sum(
        1
        for c in api.calls.filter("sendMessage", "editMessageText", chat_id=group.id)
        if "De tijd is om" in str(c.param("text"))
    )


async def test_language_help_and_rules_in_the_chats_language(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    bert = fake_api.add_user("Bert", language_code="fr", started=True)
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await bert.send(group, "/language")
        await bot.settle()
        assert not fake_api.last_message(group).keyboard_rows()  # not an admin
        await anna.send(group, "/language")
        await bot.settle()
        picker = fake_api.last_message(group)
        tap = await anna.tap(picker, lambda b: str(b.callback_data).endswith(".de"))
        await tap.wait_answered()
        await bot.settle()
        await bert.send(group, "/help")
        await bot.settle()
        help_de = fake_api.last_message(group).body
        await bert.send(group, "/rules")
        await bot.settle()
        rules_de = fake_api.last_message(group).body
        await bert.send(None, "/help")
        await bot.settle()
        help_fr = fake_api.last_message(bert.private_chat).body
    assert "Trumpf" in rules_de
    assert help_de != help_fr
    assert "/klaverjas" in help_de and "/klaverjas" in help_fr
    group_scope = {"type": "all_group_chats"}
    german = fake_api.commands.get(group_scope, "de")
    english = fake_api.commands.get(group_scope, "")
    assert [c["command"] for c in german] == [c["command"] for c in english]
    assert german != english and len(german) == len(COMMANDS)


@pytest.mark.parametrize("when", ["after_a_round", "mid_round"])
async def test_a_stop_leaves_the_live_table_as_its_last_word(
    fake_api: FakeBotApi, tmp_path: Path, when: str
) -> None:
    """Round 1 or later, at a round's end or in its middle: after a stop no message of the
    group still points at a turn or offers the cards."""
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    group = fake_api.add_group("Club", members=[anna])
    chat = fake_api.chat(group)
    rng = random.Random(8)
    async with run_polling(make_app(fake_api, db, default_language="en"), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        while not any("Round 1" in m.body for m in chat.bot_messages):
            assert await play_turn([anna], rng)
            await bot.settle(quiet=0.01)
        if when == "mid_round":
            for _ in range(6):
                assert await play_turn([anna], rng)
                await bot.settle(quiet=0.01)
        live = [m for m in chat.bot_messages if "👉" in m.body and m.buttons]
        assert live  # the table in play
        await anna.send(group, "/stop")
        await bot.settle()
        confirm = fake_api.last_message(group)
        await (await anna.tap(confirm, by_action("stop:yes"))).wait_answered()
        await bot.settle()
        assert (await _game(db)).status is GameStatus.ABANDONED
        stale = [m.body[:60] for m in chat.bot_messages if "👉" in m.body or m.buttons]
        assert not stale
        assert any("stopped the game" in m.body for m in chat.bot_messages)
    fake_api.assert_callbacks_answered_once()
