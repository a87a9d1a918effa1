"""End-to-end robustness: double taps, forged and stale buttons, users who never
started the bot, blocked users, 429s, a group that became a supergroup, restarts."""

from __future__ import annotations

import random
from pathlib import Path

from storage import GameStatus, open_repository
from tests.fakebot import FakeBotApi, run_polling

from .helpers import (
    active_buttons,
    by_action,
    hand_message,
    make_app,
    open_and_fill,
    play_to_end,
    play_turn,
)


async def _action_count(db: Path) -> int:
    repo = await open_repository(db)
    try:
        games = await repo.export_games()
        return sum(len(g.actions or ()) for g in games)
    finally:
        await repo.close()


async def test_double_tap_plays_one_card(fake_api: FakeBotApi, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    rng = random.Random(3)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(None, "/klaverjas")
        await bot.settle()
        while True:  # play until it is Anna's turn to play a card
            message = hand_message(anna, anna.private_chat)
            assert message is not None
            buttons = active_buttons(message)
            bidding = any(not b[1].startswith("play:") for b in buttons)
            cards = [b for b in buttons if b[1].startswith("play:") and not b[0].startswith("·")]
            if cards and not bidding:
                break
            assert await play_turn([anna], rng, anna.private_chat)
            await bot.settle()
        before = await _action_count(db)
        data = next(
            b.callback_data for b in message.buttons if str(b.callback_data).endswith(cards[0][1])
        )
        assert data is not None
        first = await anna.tap_data(message, data)
        second = await anna.tap_data(message, data)
        await bot.settle()
        await first.wait_answered()
        await second.wait_answered()
        after = await _action_count(db)
    fake_api.assert_callbacks_answered_once()
    assert [first.show_alert, second.show_alert].count(True) == 1, (first.text, second.text)
    # One card by Anna, then the computers until it is her turn again: her card once only.
    repo = await open_repository(db)
    try:
        (game,) = await repo.export_games()
    finally:
        await repo.close()
    assert game.actions is not None
    card = cards[0][1]
    assert sum(1 for a in game.actions if a.endswith(card) and ":play:" in a) == 1
    assert after > before


async def test_forged_stale_and_foreign_taps_change_nothing(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert, eve = (
        fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert", "Eve")
    )
    group = fake_api.add_group("Club", members=[anna, bert, eve], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        lobby = await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        await bot.settle()
        before = await _action_count(db)
        hand = hand_message(anna)
        assert hand is not None
        on_table = [
            "nonsense",
            "l999.1.sit:0",
            "l1.1.sit:9",
            "x" * 80,
            "l1.2.start",  # the lobby is gone: the game has started
            "g.c.xx",
        ]
        in_hand = ["a1.1.play:AS", "a1.999.play:ZZ", "a2.5.play:AS", "a1.0.play:JS"]
        taps = [await eve.tap_data(lobby, data) for data in on_table]
        taps += [await anna.tap_data(hand, data) for data in in_hand]
        await bot.settle()
        for tap in taps:
            await tap.wait_answered()
        after = await _action_count(db)
    fake_api.assert_callbacks_answered_once()
    assert all(t.show_alert and t.text for t in taps), [(t.text, t.show_alert) for t in taps]
    assert after == before


async def test_user_who_never_started_the_bot_gets_a_deep_link_and_is_seated(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    newbie = fake_api.add_user("Nina", language_code="nl", started=False)
    group = fake_api.add_group("Club", members=[anna, newbie])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        tap = await newbie.tap(lobby, by_action("sit:1"))
        record = await tap.wait_answered()
        await bot.settle()
        assert record.answer is not None
        url = str(record.answer.get("url"))
        assert url.startswith("https://t.me/klaverjas_test_bot?start=j")
        payload = url.split("start=", 1)[1]
        await newbie.start_bot(payload)
        await bot.settle()
        assert "Nina" in fake_api.last_message(group).body or "Nina" in lobby.body
        private = [m.text for m in newbie.private_chat.bot_messages]
    fake_api.assert_callbacks_answered_once()
    assert private, "the newcomer gets a confirmation in private"
    assert "Nina" in lobby.body


async def test_restart_in_the_middle_of_a_round_continues_the_game(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    humans = [fake_api.add_user(n, language_code="nl", started=True) for n in ("A", "B")]
    group = fake_api.add_group("Club", members=humans, admins=humans[:1])
    rng = random.Random(5)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, humans, computers=2)
        for _ in range(9):
            assert await play_turn(humans, rng)
            await bot.settle()
    mid = await _action_count(db)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await bot.settle()
        taps = await play_to_end(bot, humans, rng)
    assert taps > 0
    repo = await open_repository(db)
    try:
        (game,) = await repo.export_games()
    finally:
        await repo.close()
    assert game.status is GameStatus.FINISHED
    assert game.actions is not None and len(game.actions) > mid
    fake_api.assert_callbacks_answered_once()


async def test_flood_limits_and_blocked_players_do_not_lose_the_game(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    humans = [fake_api.add_user(n, language_code="de", started=True) for n in ("A", "B")]
    group = fake_api.add_group("Club", members=humans, admins=humans[:1])
    rng = random.Random(9)
    # The outbox retries the 429 in that chat; Telegram's group rate is not under test here.
    app = make_app(fake_api, db)
    async with run_polling(app, fake_api) as bot:
        await open_and_fill(fake_api, bot, group, humans, computers=2)
        fake_api.inject_flood(chat_id=group.id, retry_after=1, count=1)
        for _ in range(4):
            assert await play_turn(humans, rng)
            await bot.settle(timeout=10)
        assert fake_api.calls.filter(chat_id=group.id, ok=False)  # the 429 happened
        humans[1].block_bot()
        for _ in range(30):
            if not await play_turn(humans, rng):
                break
            await bot.settle(timeout=10)
        warnings = fake_api.find_messages(group, "t.me/klaverjas_test_bot?start=")
        links = [
            u
            for m in fake_api.chat(group).bot_messages
            for row in m.keyboard_rows()
            for _, u in row
            if u and "start=h" in u
        ]
        assert warnings or links
        humans[1].unblock_bot()
        await humans[1].start_bot("h1")
        await bot.settle()
        assert hand_message(humans[1]) is not None
    fake_api.assert_callbacks_answered_once()


async def test_group_upgraded_to_supergroup_keeps_its_game(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    humans = [fake_api.add_user(n, language_code="fr", started=True) for n in ("A", "B")]
    group = fake_api.add_group("Club", members=humans, admins=humans[:1])
    rng = random.Random(11)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, humans, computers=2)
        for _ in range(3):
            assert await play_turn(humans, rng)
            await bot.settle()
        supergroup = fake_api.migrate_group(group)
        await bot.settle()
        for _ in range(6):
            assert await play_turn(humans, rng)
            await bot.settle()
        assert fake_api.chat(supergroup).bot_messages, "the table continues in the supergroup"
        await humans[0].send(supergroup, "/score")
        await bot.settle()
    repo = await open_repository(db)
    try:
        (game,) = await repo.export_games()
    finally:
        await repo.close()
    assert game.chat_id == supergroup.id
    assert game.status is GameStatus.ACTIVE
    fake_api.assert_callbacks_answered_once()
