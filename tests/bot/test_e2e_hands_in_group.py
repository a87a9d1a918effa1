"""End to end: hands shown in the group, each to its player alone (ephemeral messages,
:mod:`bot.presenter.ephemeral`). A whole game is played without anybody opening a private
chat; a player who is offline falls back to the private hand; players on both surfaces share
a table; a restart mid-trick carries on in the same messages; a stranger's tap on somebody's
in-group hand is refused; the table stays within the group's limits."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.admin import export
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.flood import RateLimits
from tests.fakebot.model import CallbackQueryRecord, FakeChat, FakeMessage

from .helpers import (
    CARDS,
    FastTime,
    active_buttons,
    by_action,
    group_hand,
    hand_message,
    hand_version,
    make_app,
    pick,
    table_message,
)

_NONE = FakeMessage(chat_id=0, message_id=0, date=0, from_user=None)


def hand_of(api: FakeBotApi, group: FakeChat, user: SimUser) -> FakeMessage | None:
    """Where the user's cards are: their hand in the group, else their private hand."""
    return group_hand(api, group, user) or hand_message(user)


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
    for user in humans:  # nobody left the group for a single card, nor was asked to
        assert fake_api.calls.filter("sendMessage", chat_id=user.id) == []
        assert user.private_chat.bot_messages == []
        assert len(fake_api.ephemeral_messages(group, user)) == 1  # one hand, edited
    edits = fake_api.calls.filter("editEphemeralMessageText", chat_id=group.id)
    assert len(edits) >= taps and all(c.ok for c in edits)
    assert not fake_api.unknown_methods and not fake_api.internal_errors


@pytest.mark.slow(30)
async def test_an_offline_player_falls_back_to_the_private_hand(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """Cas is offline when he asks for his cards in the group: Telegram does not deliver
    them, so he gets his private hand. Dirk plays in the group until he goes offline: his
    next hand edit is not delivered, and his private hand carries on. Both finish the
    game."""
    db = tmp_path / "bot.sqlite3"
    names = ("Anna", "Bert", "Cas", "Dirk")
    humans = [fake_api.add_user(n, language_code="nl", started=True) for n in names]
    anna, bert, cas, dirk = humans
    group = fake_api.add_group("Kaartclub", members=humans, admins=[anna])
    rng = random.Random(5)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_table(fake_api, bot, group, humans, in_group=True)
        fake_api.set_offline(cas)
        for user in humans:
            await cards_here(fake_api, bot, group, user)
        assert fake_api.ephemeral_messages(group, cas) == []
        assert hand_message(cas) is not None  # his private hand instead
        assert all(group_hand(fake_api, group, u) is not None for u in (anna, bert, dirk))
        await play(fake_api, bot, group, humans, rng, limit=12)
        in_group = group_hand(fake_api, group, dirk)
        assert in_group is not None
        before = len(private_sends(fake_api, dirk))
        fake_api.set_offline(dirk)
        await play(fake_api, bot, group, humans, rng)
        refused = fake_api.calls.filter("editEphemeralMessageText", chat_id=group.id, ok=False)
        assert refused and all("not delivered" in str(c.description) for c in refused)
        assert len(private_sends(fake_api, dirk)) > before  # his private hand took over
    fake_api.assert_callbacks_answered_once()
    game = await _finished(db)
    assert game["status"] == "finished" and len(game["rounds"]) == 8
    assert not fake_api.internal_errors


@pytest.mark.slow(30)
async def test_hands_in_the_group_and_in_private_at_one_table(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """At a table with private hands (the default) Anna and Bert take their cards into the
    group: their private hands say so (no buttons left) and get nothing more; Cas and Dirk
    play in private as ever, and see nobody's cards in the group."""
    db = tmp_path / "bot.sqlite3"
    names = ("Anna", "Bert", "Cas", "Dirk")
    humans = [fake_api.add_user(n, language_code="nl", started=True) for n in names]
    anna, bert, cas, dirk = humans
    group = fake_api.add_group("Kaartclub", members=humans, admins=[anna])
    rng = random.Random(3)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_table(fake_api, bot, group, humans, in_group=False)
        assert all(hand_message(u) is not None for u in humans)  # private, as ever
        for user in (anna, bert):
            old = hand_message(user)
            assert old is not None
            await cards_here(fake_api, bot, group, user)
            assert "Kaartclub" in old.body and old.keyboard_rows() == []  # says where they are
        switched = len(fake_api.calls)
        await play(fake_api, bot, group, humans, rng)
        for user in (anna, bert):
            assert fake_api.calls.filter("sendMessage", chat_id=user.id, since=switched) == []
            assert len(fake_api.ephemeral_messages(group, user)) == 1
        for user in (cas, dirk):
            assert fake_api.ephemeral_messages(group, user) == []
            assert private_sends(fake_api, user)
            assert all(m.receiver_id in (anna.id, bert.id) for m in fake_api.chat(group).ephemeral)
    fake_api.assert_callbacks_answered_once()
    game = await _finished(db)
    assert game["status"] == "finished"
    assert not fake_api.internal_errors


@pytest.mark.slow(30)
async def test_a_restart_mid_trick_carries_on_in_the_same_hands(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """The bot stops in the middle of a trick and starts again on the same database: the
    players' hands in the group are the same messages, edited on, and the game ends without
    any private message."""
    db = tmp_path / "bot.sqlite3"
    humans = [fake_api.add_user(n, language_code="nl") for n in ("Anna", "Bert", "Cas", "Dirk")]
    group = fake_api.add_group("Kaartclub", members=humans, admins=[humans[0]])
    rng = random.Random(9)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_table(fake_api, bot, group, humans, in_group=True)
        for user in humans:
            await cards_here(fake_api, bot, group, user)
        await play(fake_api, bot, group, humans, rng, limit=10)  # bids, then cards
    hands = {u.id: fake_api.ephemeral_messages(group, u) for u in humans}
    assert all(len(h) == 1 for h in hands.values())
    restarted = len(fake_api.calls)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        taps = await play(fake_api, bot, group, humans, rng)
    assert taps > 0
    for user in humans:
        assert fake_api.ephemeral_messages(group, user) == hands[user.id]  # the same message
        assert user.private_chat.bot_messages == []
    edits = fake_api.calls.filter("editEphemeralMessageText", chat_id=group.id, since=restarted)
    assert {int(c.param("receiver_user_id")) for c in edits} == {u.id for u in humans}
    game = await _finished(db)
    assert game["status"] == "finished"
    assert not fake_api.internal_errors


async def test_a_tap_on_somebody_elses_hand_in_the_group_is_refused(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """Only its owner sees a hand in the group; a tap sent on it by anybody else (forged:
    Telegram shows it to nobody else) is refused like a tap on another's private hand, and
    the game does not move. So is "my cards" from somebody without a seat."""
    db = tmp_path / "bot.sqlite3"
    humans = [fake_api.add_user(n, language_code="en") for n in ("Anna", "Bert", "Cas", "Dirk")]
    anna, bert = humans[:2]
    eve = fake_api.add_user("Eve", language_code="en")
    group = fake_api.add_group("Club", members=[*humans, eve], admins=[anna])
    async with run_polling(make_app(fake_api, db, default_language="en"), fake_api) as bot:
        await open_table(fake_api, bot, group, humans, in_group=True)
        for user in humans:
            await cards_here(fake_api, bot, group, user)
        owner = next(u for u in humans if active_buttons(group_hand(fake_api, group, u) or _NONE))
        hand = group_hand(fake_api, group, owner)
        assert hand is not None
        with pytest.raises(LookupError):  # nobody else sees it
            await (eve if owner is not eve else bert).tap(hand, by_action("pass"))
        stranger = bert if owner is not bert else anna
        _, action = active_buttons(hand)[0]
        data = next(t for row in hand.keyboard_rows() for _, t in row if t and t.endswith(action))
        world = fake_api.world
        query = CallbackQueryRecord(
            id=world.new_query_id(), user_id=stranger.id, chat_id=group.id,
            message_id=hand.message_id, data=data, created=fake_api.clock(), ephemeral=True,
        )  # fmt: skip
        world.callback_queries[query.id] = query
        fake_api.enqueue(
            "callback_query",
            {
                "id": query.id,
                "from": stranger.record.to_api(),
                "message": hand.to_api(fake_api.chat(group)),
                "chat_instance": "1",
                "data": data,
            },
        )
        await bot.settle()
        assert query.answered and query.show_alert
        assert hand_version(hand) == hand_version(group_hand(fake_api, group, owner) or hand)
        nobody = await eve.tap(table_message(fake_api, group), by_action(CARDS))
        record = await nobody.wait_answered()
        assert record.show_alert
        assert fake_api.ephemeral_messages(group, eve) == []
    fake_api.assert_callbacks_answered_once()


GROUP_CALLS = (
    "sendMessage",
    "sendPhoto",
    "editMessageText",
    "editMessageMedia",
    "editEphemeralMessageText",
    "editEphemeralMessageReplyMarkup",
)
"""What Telegram counts in a group's 20 a minute; the hands in the group count too."""


@pytest.mark.slow(40)
async def test_hands_in_a_talkative_group_stay_within_its_limit(tmp_path: Path) -> None:
    """Four quick players with their hands in the group, and a command every 6 s (time 20
    times faster), for a round: the hands' edits keep within the table's share of the
    group's budget, so replies go first; no 429, nothing left waiting, never more than 20
    calls in any 60 s, and in the end the hand of the one to act has live buttons."""
    fast = FastTime()
    async with FakeBotApi(clock=fast.now) as api:
        api.enable_rate_limits(RateLimits(group_per_minute=20))
        humans = [api.add_user(n, language_code="nl") for n in ("A", "B", "C", "D")]
        group = api.add_group("Club", members=humans, admins=humans[:1])
        app = make_app(api, tmp_path / "db.sqlite3", budget=fast.budget(private=False))
        async with run_polling(app, api) as bot:
            await open_table(api, bot, group, humans, in_group=True, rounds=False)
            start = len(api.calls)
            for user in humans:
                await cards_here(api, bot, group, user)
            assert all(group_hand(api, group, u) is not None for u in humans)
            rng = random.Random(5)
            commands, cards = 0, 0
            next_command = fast.now()
            while cards < 32:
                if fast.now() >= next_command:
                    await humans[commands % 4].send(group, "/score")
                    commands += 1
                    next_command += 6.0
                for user in humans:
                    message = group_hand(api, group, user)
                    buttons = active_buttons(message) if message else []
                    if message is not None and buttons:
                        _, action = pick(buttons, rng)
                        tap = await user.tap(message, by_action(action))
                        query = await tap.wait_answered()
                        cards += action.startswith("play:") and not query.show_alert
                        break
                await asyncio.sleep(1.5 / fast.factor)  # quick players: 1.5 s a move
            await bot.settle(timeout=30)
            await asyncio.sleep(65 / fast.factor)  # a whole window: every deferred edit ran
            await bot.settle(timeout=30)
            assert app.bot_data["app"].presenter.outbox.waiting() == 0
            version = max(hand_version(group_hand(api, group, u) or _NONE) or 0 for u in humans)
        assert not [c for c in api.calls.errors(start) if c.status == 429]
        assert all(u.private_chat.bot_messages == [] for u in humans)
        replies = [
            c
            for c in api.calls.filter("sendMessage", chat_id=group.id, since=start)
            if c.param("reply_to_message_id") or "reply_parameters" in c.params
        ]
        assert commands >= 10 and len(replies) >= 5  # the same /score twice: one answer
        assert api.calls.max_in_window(group.id, 60.0, GROUP_CALLS) <= 20
        assert version > 0  # the hand of the one to act is current: it has live buttons


async def test_the_table_link_brings_the_hand_back_into_the_private_chat(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """Anna plays in the group, then opens her hand from the table's "🃏 My hand" link: her
    hand in the group goes, her private hand carries on, and that is her choice from now
    on. Her hand-over question in the group is asked and answered in the group."""
    db = tmp_path / "bot.sqlite3"
    humans = [fake_api.add_user(n, language_code="en", started=True) for n in "ABCD"]
    anna = humans[0]
    group = fake_api.add_group("Club", members=humans, admins=[anna])
    rng = random.Random(2)
    app = make_app(fake_api, db, default_language="en")
    async with run_polling(app, fake_api) as bot:
        await open_table(fake_api, bot, group, humans, in_group=True)
        for user in humans:
            await cards_here(fake_api, bot, group, user)
        hand = group_hand(fake_api, group, anna)
        assert hand is not None
        await (await anna.tap(hand, by_action("handover"))).wait_answered()
        await bot.settle()
        assert any(t and t.endswith("handover:no") for row in hand.keyboard_rows() for _, t in row)
        await (await anna.tap(hand, by_action("handover:no"))).wait_answered()
        await bot.settle()
        assert not any(t and "handover:" in t for row in hand.keyboard_rows() for _, t in row)
        await play(fake_api, bot, group, humans, rng, limit=6)
        link = next(
            t for row in table_message(fake_api, group).keyboard_rows() for _, t in row
            if t and "?start=h" in t
        )  # fmt: skip
        await anna.start_bot(payload=link.partition("?start=")[2])
        await bot.settle()
        assert fake_api.ephemeral_messages(group, anna) == []
        private = hand_message(anna)
        assert private is not None
        switched = len(fake_api.calls)
        await play(fake_api, bot, group, humans, rng, limit=40)
        assert fake_api.ephemeral_messages(group, anna) == []
        assert fake_api.calls.filter("sendMessage", chat_id=anna.id, since=switched)
        repo = app.bot_data["app"].service.repo
        assert await repo.hand_places([u.id for u in humans]) == {
            anna.id: "private",
            **{u.id: "group" for u in humans[1:]},
        }
    fake_api.assert_callbacks_answered_once()
    assert not fake_api.internal_errors


async def test_a_seat_handed_over_from_the_group_leaves_no_live_hand_there(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """Bert hands his seat to the computer from his hand in the group: that hand says so and
    keeps no button; the way back is offered in private, as for a private hand."""
    db = tmp_path / "bot.sqlite3"
    humans = [fake_api.add_user(n, language_code="en", started=True) for n in "ABCD"]
    bert = humans[1]
    group = fake_api.add_group("Club", members=humans, admins=[humans[0]])
    async with run_polling(make_app(fake_api, db, default_language="en"), fake_api) as bot:
        await open_table(fake_api, bot, group, humans, in_group=True)
        for user in humans:
            await cards_here(fake_api, bot, group, user)
        hand = group_hand(fake_api, group, bert)
        assert hand is not None
        await (await bert.tap(hand, by_action("handover"))).wait_answered()
        await bot.settle()
        await (await bert.tap(hand, by_action("handover:yes"))).wait_answered()
        await bot.settle()
        assert hand.keyboard_rows() == [] and "B" in hand.body and hand.history  # edited
        offer = bert.private_chat.bot_messages[-1]
        assert any(t and "reclaim:" in t for row in offer.keyboard_rows() for _, t in row)
    fake_api.assert_callbacks_answered_once()
    assert not fake_api.internal_errors
