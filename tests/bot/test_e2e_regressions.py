"""Regressions found by review (end to end): a seat rush, concurrent /klaverjas, a blocked
player warned once and back with /start, /score after the end, a forged stop tap, the turn
timer after a hand-over, a restart between saving a move and showing it, and an old hand too
old to delete."""

from __future__ import annotations

import random
from pathlib import Path

from bot.context import BotData
from bot.taps import Move
from storage import GameStatus, open_repository
from tests.fakebot import FakeBotApi, run_polling

from .helpers import active_buttons, by_action, hand_message, make_app, open_and_fill, play_turn


async def test_four_players_rushing_to_their_seats_are_all_seated(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    users = [fake_api.add_user(n, language_code="nl", started=True) for n in "ABCD"]
    group = fake_api.add_group("Club", members=users)
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        for u in users:  # the bot has seen them all in private before
            await u.start_bot()
        await users[0].send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        taps = [await u.tap(lobby, by_action(f"sit:{i}")) for i, u in enumerate(users)]
        await bot.settle()
        for tap in taps:
            await tap.wait_answered()
    assert not any(t.show_alert for t in taps), [t.text for t in taps]
    assert all(u.first_name in lobby.body for u in users)


async def test_three_klaverjas_at_once_open_one_table_and_answer_everybody(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    users = [fake_api.add_user(n, language_code="nl", started=True) for n in "ABC"]
    group = fake_api.add_group("Club", members=users)
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        for u in users:
            await u.send(group, "/klaverjas")
        await bot.settle()
    lobbies = [m for m in fake_api.chat(group).bot_messages if m.keyboard_rows()]
    assert (
        len(
            [
                m
                for m in lobbies
                if any("sit:0" in (t or "") for r in m.keyboard_rows() for _, t in r)
            ]
        )
        == 1
    )
    # A lobby and pointers to it: one per /klaverjas, or fewer when an identical pointer was
    # still waiting to be sent (one answer the whole group sees; floods are merged floods).
    others = [m for m in fake_api.chat(group).bot_messages if m.message_id != lobbies[0].message_id]
    assert 1 <= len(others) <= 2
    commands = {m.message_id for m in fake_api.chat(group).all_messages if not m.from_bot}
    # each points to the lobby (or, while its id is not yet known, answers the command)
    assert all(m.reply_to_message_id in {lobbies[0].message_id, *commands} for m in others)
    assert len({m.text for m in others}) == 1


async def test_a_blocked_player_is_warned_once_and_gets_the_cards_back_with_start(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in "AB")
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    rng = random.Random(3)
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        bert.block_bot()
        for _ in range(25):
            if not await play_turn([anna, bert], rng):
                break
            await bot.settle()
        warnings = [m for m in fake_api.chat(group).bot_messages if m.body.startswith("🔒")]
        assert len(warnings) == 1
        bert.unblock_bot()
        await bert.start_bot()  # the plain "Restart bot" button
        await bot.settle()
        hand = hand_message(bert)
        assert hand is not None and not hand.deleted


async def test_score_after_the_end_and_a_forged_stop_tap(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna, eve = (fake_api.add_user(n, language_code="nl", started=True) for n in "AE")
    group = fake_api.add_group("Club", members=[anna, eve], admins=[anna])
    rng = random.Random(8)
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, [anna], computers=3)
        forged = await eve.tap_data(table, f"s1.{0}.stop:no")
        await forged.wait_answered()
        await bot.settle()
        assert forged.show_alert and not table.deleted
        await anna.send(group, "/stop")
        await bot.settle()
        confirm = fake_api.last_message(group)
        eve_no = await eve.tap(confirm, by_action("stop:no"))
        await eve_no.wait_answered()
        await bot.settle()
        assert eve_no.show_alert and not confirm.deleted  # only creator / admin
        await (await anna.tap(confirm, by_action("stop:yes"))).wait_answered()
        await bot.settle()
        assert confirm.deleted
        await anna.send(group, "/score")
        await bot.settle()
        sheet = fake_api.last_message(group)
        for _ in range(3):
            await play_turn([anna], rng)
    assert "📋" in sheet.text or "<pre>" in sheet.source_text


async def test_the_turn_timer_keeps_running_after_someone_hands_over(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in "AB")
    group = fake_api.add_group("Club", members=[anna, bert])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3", timeout=2), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        waiting = next(
            u for u in (anna, bert) if (m := hand_message(u)) is not None and active_buttons(m)
        )
        other = bert if waiting is anna else anna
        hand = hand_message(other)
        assert hand is not None
        await (await other.tap(hand, by_action("handover"))).wait_answered()
        await bot.settle()
        confirm = hand_message(other)
        assert confirm is not None
        await (await other.tap(confirm, by_action("handover:yes"))).wait_answered()
        await bot.settle()
        await fake_api.wait_for(
            lambda: any(
                "De tijd is om" in m.body and waiting.first_name in m.body
                for m in fake_api.chat(group).bot_messages
            ),
            timeout=8,
        )


async def test_a_restart_redraws_a_move_that_was_saved_but_not_shown(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    users = [fake_api.add_user(n, language_code="nl", started=True) for n in "ABCD"]
    group = fake_api.add_group("Club", members=users)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, users)
        data = bot.app.bot_data["app"]
        assert isinstance(data, BotData)
        loaded = await data.service.tables.load(1)
        assert loaded is not None and loaded.state is not None
        seat = loaded.state.to_act
        assert seat is not None
        out = await data.service.play.act(1, loaded.version, users[seat].id, Move("choose:H"))
        assert out.ok  # saved, never shown: the process "dies" here
        after = await data.service.tables.load(1)
        assert after is not None and after.state is not None and after.state.to_act is not None
        nxt = users[after.state.to_act]
        before = table.text
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await bot.settle()
    assert table.text != before
    hand = hand_message(nxt)
    assert hand is not None and active_buttons(hand)
    repo = await open_repository(db)
    try:
        (game,) = await repo.export_games()
    finally:
        await repo.close()
    assert game.status is GameStatus.ACTIVE


async def test_an_old_hand_too_old_to_delete_says_it_is_no_longer_current(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna])
    rng = random.Random(5)
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        first = hand_message(anna)
        assert first is not None
        first.date -= 48 * 3600  # two days old: Telegram no longer lets the bot delete it
        for _ in range(40):
            newest = hand_message(anna)
            if newest is not None and newest.message_id != first.message_id:
                break
            assert await play_turn([anna], rng)
            await bot.settle()
        else:
            raise AssertionError("no new hand message came")
        await bot.settle()
    assert not first.deleted
    assert first.body.startswith("Deze hand is niet meer actueel") and not first.buttons
    live = [m for m in anna.private_chat.bot_messages if active_buttons(m) or m.buttons]
    assert [m.message_id for m in live] == [newest.message_id]
