"""End to end: the tip button (💡). A solo game shows it on the turn to play a card
and a tap answers, privately and in the player's language, with a legal card and the
expected round scores; a ranked daily shows none and refuses a forged tip; a group game has it
only with the lobby's "tips" setting; a tip from somebody not at the table, or from a stale
button, is refused; a tip never changes the game."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

import pytest

from bot.render.cards import TRUMP_MARK
from bot.service import next_setting
from bot.tables import TableSettings
from bot.taps import Setting
from engine.settings import Settings
from storage import open_repository
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import (
    ACTION,
    active_buttons,
    by_action,
    hand_message,
    make_app,
    play_turn,
)
from .test_e2e_daily import Clock, daily_app, play_daily

TIP_WAIT = 30.0
"""Seconds to wait for a tip's answer (a strong search in the test's one computer thread)."""


async def _action_count(db: Path) -> int:
    repo = await open_repository(db)
    try:
        return sum(len(g.actions or ()) for g in await repo.export_games())
    finally:
        await repo.close()


def tip_data(message: FakeMessage) -> str | None:
    """The callback data of the message's 💡 button, if it has one."""
    for row in message.keyboard_rows():
        for label, target in row:
            if target and target.endswith(".tip"):
                assert label.startswith("💡 ")
                return target
    return None


def card_buttons(message: FakeMessage) -> list[tuple[str, str]]:
    """``(label, action)`` of the legal (not dimmed) cards of a hand message, the labels
    without the trump mark (as cards are named in texts)."""
    return [
        (label.removeprefix(TRUMP_MARK), action)
        for label, action in active_buttons(message)
        if action.startswith("play:") and not label.startswith("·")
    ]


def forged_tip(message: FakeMessage) -> str:
    """A tip tap forged from a hand's versioned button (the right game and version)."""
    for row in message.keyboard_rows():
        for _, target in row:
            m = ACTION.match(target or "")
            if m and m[2] != "0":
                return f"a{m[1]}.{m[2]}.tip"
    raise AssertionError("the hand has no versioned button")


def watch_tips(app: Any, free: asyncio.Event | None = None) -> list[tuple[Any, ...]]:
    """Record every tip the service asks the computer pool for (the list returned), and when
    ``free`` is given, hold each one back until it is set."""
    computers = app.bot_data["app"].service.computers
    pool_tip = computers.tip
    asked: list[tuple[Any, ...]] = []

    async def watched(*args: Any, **kw: Any) -> Any:
        asked.append(args)
        if free is not None:
            await free.wait()
        return await pool_tip(*args, **kw)

    computers.tip = watched
    return asked


async def to_card_turn(
    bot: Any,
    users: list[SimUser],
    rng: random.Random,
    chat: FakeChat | None = None,
    *,
    cards: int = 1,
) -> tuple[SimUser, FakeMessage]:
    """Play until a human is to play a card for at least the ``cards``-th time; returns that
    human and their hand."""
    seen = 0
    for _ in range(400):
        for user in users:
            message = hand_message(user, chat)
            if message is None:
                continue
            buttons = active_buttons(message)
            bidding = any(not b[1].startswith("play:") for b in buttons)
            if card_buttons(message) and not bidding:
                seen += 1
                if seen >= cards:
                    return user, message
        assert await play_turn(users, rng, chat)
        await bot.settle()
    raise AssertionError("no human came to play a card")


async def test_solo_game_tip_answers_a_legal_card_in_the_players_language(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="de", started=True)
    rng = random.Random(4)
    app = make_app(fake_api, db)
    async with run_polling(app, fake_api) as bot:
        asked = watch_tips(app)
        await anna.send(None, "/klaverjas")
        await bot.settle()
        _, hand = await to_card_turn(bot, [anna], rng, anna.private_chat, cards=3)
        data = tip_data(hand)
        assert data is not None, hand.keyboard_rows()
        legal = [label for label, _ in card_buttons(hand)]
        before, messages = await _action_count(db), len(anna.private_chat.bot_messages)
        tap = await anna.tap_data(hand, data)
        answer = await tap.wait_answered(TIP_WAIT)
        await bot.settle()
        assert answer.show_alert and answer.text is not None
        m = re.match(r"^💡 Spiel (\S+) — erwartete Rundenpunkte: (.+)$", answer.text)
        assert m, answer.text
        assert m[1] in legal
        scores = [int(s.rsplit(" ", 1)[1]) for s in m[2].split(", ")]
        assert 1 <= len(scores) <= 3 and scores == sorted(scores, reverse=True)
        # Nothing changed: no action, no message; the same tap gives the same tip.
        assert await _action_count(db) == before
        assert len(anna.private_chat.bot_messages) == messages
        again = await (await anna.tap_data(hand, data)).wait_answered(TIP_WAIT)
        assert again.text == answer.text
        assert len(asked) == 1  # the pool worked it out once
        # A stale tip button (an older version) is refused.
        m2 = ACTION.match(data)
        assert m2 is not None
        stale = await anna.tap_data(hand, f"a{m2[1]}.{int(m2[2]) - 1}.tip")
        record = await stale.wait_answered()
        assert record.show_alert and record.text == "Dieser Knopf ist veraltet."
        # The 💡 is played past: a card, and the hand (computers' turn) has no 💡.
        card = card_buttons(hand)[0][1]
        await (await anna.tap(hand, by_action(card))).wait_answered()
        await bot.settle()
        assert await _action_count(db) > before
    fake_api.assert_callbacks_answered_once()


async def test_no_tip_in_a_ranked_daily_and_a_forged_tip_is_refused(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", started=True)
    rng = random.Random(2)
    async with run_polling(daily_app(fake_api, db, Clock()), fake_api) as bot:
        await anna.send(None, "/daily")
        await bot.settle()
        _, hand = await to_card_turn(bot, [anna], rng, anna.private_chat, cards=2)
        assert tip_data(hand) is None
        before = await _action_count(db)
        tap = await anna.tap_data(hand, forged_tip(hand))
        record = await tap.wait_answered()
        await bot.settle()
        assert record.show_alert and record.text == "There are no tips at this table."
        assert await _action_count(db) == before
    fake_api.assert_callbacks_answered_once()


async def _group_game(
    api: FakeBotApi, bot: Any, group: FakeChat, humans: list[SimUser], *, tips: bool
) -> FakeMessage:
    """``/klaverjas`` by the first human, the humans sit, computers fill the rest, the tips
    setting tapped on (``tips``), start. Returns the lobby message."""
    await humans[0].send(group, "/klaverjas")
    await bot.settle()
    lobby = api.last_message(group)
    for seat, user in enumerate(humans):
        await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
        await bot.settle()
    for _ in range(4 - len(humans)):
        await (await humans[0].tap(lobby, by_action("bot:add"))).wait_answered()
        await bot.settle()
    if tips:
        assert "💡 Tips: uit" in [b.text for b in lobby.buttons]
        await (await humans[0].tap(lobby, by_action("tips:toggle"))).wait_answered()
        await bot.settle()
        assert "💡 Tips: aan" in [b.text for b in lobby.buttons]
    await (await humans[0].tap(lobby, by_action("start"))).wait_answered()
    await bot.settle()
    return lobby


async def test_group_game_without_the_setting_has_no_tip_and_refuses_a_forged_one(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    rng = random.Random(6)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await _group_game(fake_api, bot, group, [anna, bert], tips=False)
        user, hand = await to_card_turn(bot, [anna, bert], rng, cards=2)
        assert tip_data(hand) is None
        before = await _action_count(db)
        record = await (await user.tap_data(hand, forged_tip(hand))).wait_answered()
        await bot.settle()
        assert record.show_alert and record.text == "Aan deze tafel zijn er geen tips."
        assert await _action_count(db) == before
    fake_api.assert_callbacks_answered_once()


async def test_group_game_with_the_setting_has_the_tip_and_refuses_strangers_and_stale_taps(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert, eve = (
        fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert", "Eve")
    )
    group = fake_api.add_group("Club", members=[anna, bert, eve], admins=[anna])
    rng = random.Random(8)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        lobby = await _group_game(fake_api, bot, group, [anna, bert], tips=True)
        user, hand = await to_card_turn(bot, [anna, bert], rng, cards=2)
        data = tip_data(hand)
        assert data is not None
        before = await _action_count(db)
        # Somebody not at the table, and a stale version: refused, nothing changes.
        stranger = await (await eve.tap_data(lobby, data)).wait_answered()
        m = ACTION.match(data)
        assert m is not None
        stale = await (await user.tap_data(hand, f"a{m[1]}.{int(m[2]) - 1}.tip")).wait_answered()
        other = bert if user is anna else anna
        other_hand = hand_message(other)
        assert other_hand is not None and tip_data(other_hand) is None  # not their turn
        not_now = await (await other.tap_data(other_hand, data)).wait_answered()
        await bot.settle()
        # a hand's button on the group's message: not where it lives
        assert stranger.show_alert and stranger.text == "Deze knop hoort hier niet."
        assert stale.show_alert and stale.text == "Deze knop is verouderd."
        assert not_now.show_alert
        assert not_now.text == "Een tip krijg je als jij een kaart moet spelen."
        assert await _action_count(db) == before
        # The player to play gets the tip, in Dutch, with a legal card.
        legal = [label for label, _ in card_buttons(hand)]
        answer = await (await user.tap_data(hand, data)).wait_answered(TIP_WAIT)
        assert answer.show_alert and answer.text is not None
        found = re.match(r"^💡 Speel (\S+)", answer.text)
        assert found and found[1] in legal, answer.text
        assert await _action_count(db) == before
    fake_api.assert_callbacks_answered_once()


async def test_an_unranked_daily_attempt_has_the_tip(fake_api: FakeBotApi, tmp_path: Path) -> None:
    """The ranked attempt (the day's first) has none; "play again" is unranked and has it."""
    anna = fake_api.add_user("Anna", started=True)
    async with run_polling(daily_app(fake_api, tmp_path / "db.sqlite3", Clock()), fake_api) as bot:
        await play_daily(bot, anna)
        await anna.send(None, "/daily")
        await bot.settle()
        board = anna.private_chat.bot_messages[-1]
        await (await anna.tap(board, by_action("again"))).wait_answered()
        await bot.settle()
        _, hand = await to_card_turn(bot, [anna], random.Random(3), anna.private_chat, cards=2)
        data = tip_data(hand)
        assert data is not None
        answer = await (await anna.tap_data(hand, data)).wait_answered(TIP_WAIT)
        assert answer.show_alert and answer.text is not None
        found = re.match(r"^💡 Play (\S+) — expected round score: ", answer.text)
        assert found and found[1] in [label for label, _ in card_buttons(hand)], answer.text
    fake_api.assert_callbacks_answered_once()


async def test_a_group_table_of_one_person_and_computers_has_the_tip(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """Solo means one person and computers, in a group too (no setting needed)."""
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await _group_game(fake_api, bot, group, [anna], tips=False)
        _, hand = await to_card_turn(bot, [anna], random.Random(1), cards=2)
        assert tip_data(hand) is not None
    fake_api.assert_callbacks_answered_once()


def test_the_tips_setting_is_stored_toggled_and_off_in_older_settings() -> None:
    """A table's ``tips`` (default off) survives storage, the lobby toggles it and keeps it
    through the other settings; settings stored before it existed read as off."""
    old = TableSettings(Settings.from_preset("rotterdam"), 60)
    assert old.tips is False and "tips" not in old.to_json()
    assert TableSettings.from_json('{"rules": {}, "turn_timeout": 30}').tips is False
    on = next_setting(old, Setting.TIPS)
    assert on.tips is True and TableSettings.from_json(on.to_json()) == on
    for setting in (Setting.PRESET, Setting.ROUNDS, Setting.TIMEOUT, Setting.AUTO_DECLARE):
        assert next_setting(on, setting).tips is True
    assert next_setting(on, Setting.TIPS) == old
    with pytest.raises(ValueError, match="tips"):
        TableSettings.from_json('{"rules": {}, "turn_timeout": 30, "tips": "yes"}')


async def test_a_tip_the_pool_is_too_slow_for_is_answered_busy_and_comes_on_a_second_tap(
    fake_api: FakeBotApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool does not answer within ``TIP_WAIT``: the tap is answered at once with the
    translated "taking too long" alert (Telegram wants a callback answered soon), the game is
    unchanged, and a second tap once the pool is free gets the tip the first one asked for."""
    from bot.service import tips

    monkeypatch.setattr(tips, "TIP_WAIT", 0.5)
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    rng = random.Random(4)
    app = make_app(fake_api, db)
    free = asyncio.Event()
    async with run_polling(app, fake_api) as bot:
        asked = watch_tips(app, free)
        await anna.send(None, "/klaverjas")
        await bot.settle()
        _, hand = await to_card_turn(bot, [anna], rng, anna.private_chat, cards=2)
        data = tip_data(hand)
        assert data is not None, hand.keyboard_rows()
        before, messages = await _action_count(db), len(anna.private_chat.bot_messages)
        busy = await (await anna.tap_data(hand, data)).wait_answered(TIP_WAIT)
        assert busy.show_alert
        assert busy.text == "De tip duurt te lang: probeer het zo nog eens."
        assert await _action_count(db) == before
        assert len(anna.private_chat.bot_messages) == messages
        free.set()
        answer = await (await anna.tap_data(hand, data)).wait_answered(TIP_WAIT)
        assert answer.show_alert and answer.text is not None
        assert answer.text.startswith("💡 "), answer.text
        assert len(asked) == 1  # the second tap waited for the first one's work
        assert await _action_count(db) == before
        # The game goes on: a legal card is accepted after the tips.
        card = card_buttons(hand)[0][1]
        await (await anna.tap(hand, by_action(card))).wait_answered()
        await bot.settle()
        assert await _action_count(db) > before
    fake_api.assert_callbacks_answered_once()
