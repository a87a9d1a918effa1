"""End to end: hands shown in the group, each to its player alone (ephemeral messages,
:mod:`bot.presenter.ephemeral`). A whole game is played without anybody opening a private
chat; a player who is offline falls back to the private hand; players on both surfaces share
a table; a restart mid-trick carries on in the same messages; a stranger's tap on somebody's
in-group hand is refused; the table stays within the group's limits."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.admin import export
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import ACTION, active_buttons, by_action, hand_message, make_app, pick

CARDS = "cards"
"""The action token of the table's "🂠 my cards" button."""


def group_hand(api: FakeBotApi, group: FakeChat, user: SimUser) -> FakeMessage | None:
    """The user's newest hand shown in the group (an ephemeral message with hand buttons)."""
    for message in reversed(api.ephemeral_messages(group, user)):
        if any(t and ACTION.match(t) for row in message.keyboard_rows() for _, t in row):
            return message
    return None


def hand_of(api: FakeBotApi, group: FakeChat, user: SimUser) -> FakeMessage | None:
    """Where the user's cards are: their hand in the group, else their private hand."""
    return group_hand(api, group, user) or hand_message(user)


def table_message(api: FakeBotApi, group: FakeChat) -> FakeMessage:
    """The group's current table message (the one with "🂠 my cards")."""
    for message in reversed(api.chat(group).bot_messages):
        if any(t and t.endswith("." + CARDS) for row in message.keyboard_rows() for _, t in row):
            return message
    raise AssertionError("no table message with a 'my cards' button")


async def open_table(
    api: FakeBotApi,
    bot: Any,
    group: FakeChat,
    humans: Sequence[SimUser],
    *,
    in_group: bool,
    rounds: bool = True,
) -> None:
    """``/klaverjas``, the hands setting (``in_group``), 8 rounds (``rounds``), everybody
    sits, start."""
    await humans[0].send(group, "/klaverjas")
    await bot.settle()
    lobby = api.last_message(group)
    if in_group:
        await (await humans[0].tap(lobby, by_action("hands:toggle"))).wait_answered()
        await bot.settle()
        assert any("🂠" in label for row in lobby.keyboard_rows() for label, _ in row)
    if rounds:
        await (await humans[0].tap(lobby, by_action("rounds:toggle"))).wait_answered()
        await bot.settle()
    for seat, user in enumerate(humans):
        await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
        await bot.settle()
    await (await humans[0].tap(lobby, by_action("start"))).wait_answered()
    await bot.settle()


async def cards_here(api: FakeBotApi, bot: Any, group: FakeChat, user: SimUser) -> Any:
    """The user taps the table's "🂠 my cards"; returns the answered query."""
    tap = await user.tap(table_message(api, group), by_action(CARDS))
    query = await tap.wait_answered()
    await bot.settle()
    return query


async def play_turn(
    api: FakeBotApi, group: FakeChat, users: Sequence[SimUser], rng: random.Random
) -> bool:
    """The human whose turn it is taps a button of wherever their cards are shown."""
    for user in users:
        message = hand_of(api, group, user)
        if message is None:
            continue
        buttons = active_buttons(message)
        if not buttons:
            continue
        _, action = pick(buttons, rng)
        await (await user.tap(message, by_action(action))).wait_answered()
        return True
    return False


async def play(
    api: FakeBotApi,
    bot: Any,
    group: FakeChat,
    users: Sequence[SimUser],
    rng: random.Random,
    *,
    limit: int = 5000,
) -> int:
    """Play until nobody can act (or ``limit`` taps); returns the taps."""
    taps = 0
    while taps < limit and await play_turn(api, group, users, rng):
        taps += 1
        await bot.settle(quiet=0.01)
    return taps


def private_sends(api: FakeBotApi, user: SimUser) -> list[Any]:
    """The messages the bot got into the user's private chat (sent, not refused)."""
    return [c for c in api.calls.filter("sendMessage", chat_id=user.id) if c.ok]


async def _finished(db: Path) -> dict[str, Any]:
    games = await export(str(db))
    assert len(games) == 1
    return games[0]


@pytest.mark.slow(60)
async def test_a_whole_game_with_hands_in_the_group_and_no_private_chat(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "bot.sqlite3"
    humans = [fake_api.add_user(n, language_code="nl") for n in ("Anna", "Bert", "Cas", "Dirk")]
    group = fake_api.add_group("Kaartclub", members=humans, admins=[humans[0]])
    rng = random.Random(11)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_table(fake_api, bot, group, humans, in_group=True)
        assert all(hand_of(fake_api, group, u) is None for u in humans)  # none yet: tap first
        for user in humans:
            query = await cards_here(fake_api, bot, group, user)
            assert not query.show_alert
            mine = fake_api.ephemeral_messages(group, user)
            assert len(mine) == 1 and group_hand(fake_api, group, user) is mine[0]
            # only its owner sees it: not in the group's messages, not in another's view
            others = [u for u in humans if u is not user]
            assert all(mine[0] not in fake_api.transcript(group, u) for u in others)
            assert mine[0] not in fake_api.chat(group).messages
        taps = await play(fake_api, bot, group, humans, rng)
        # the opening reply named each tap, within Telegram's window
        opened = [
            c for c in fake_api.calls.filter("sendMessage", chat_id=group.id)
            if "ephemeral_message_parameters" in c.params
        ]  # fmt: skip
        assert len(opened) == 4 and all(c.ok for c in opened)
    fake_api.assert_callbacks_answered_once()
    game = await _finished(db)
    assert game["status"] == "finished" and len(game["rounds"]) == 8
    assert taps >= 8 * 33
    for user in humans:  # nobody left the group for a single card
        assert private_sends(fake_api, user) == []
        assert user.private_chat.bot_messages == []
        assert len(fake_api.ephemeral_messages(group, user)) == 1  # one hand, edited
    edits = fake_api.calls.filter("editEphemeralMessageText", chat_id=group.id)
    assert len(edits) >= taps and all(c.ok for c in edits)
    assert not fake_api.unknown_methods and not fake_api.internal_errors
