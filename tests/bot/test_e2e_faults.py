"""End to end: floods, faults and odd updates against the fake Bot API.

One busy group never freezes the others; a hand message that fails is sent again; a send that
timed out but was delivered leaves no second live keyboard; anonymous admins, deleted
commands, forum topics, a tap in flight at a crash, a /stop confirmation forged on another
message. Time-dependent tests run on ``FastTime`` (the bot's budget and the fake's rate model
share a clock 20 times faster than real time) and assert order and outcome, never durations.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.outbox import Outbox
from tests.bot.helpers import (
    FastTime,
    active_buttons,
    by_action,
    hand_message,
    make_app,
    open_and_fill,
    pick,
    play_to_end,
    play_turn,
)
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.faults import FaultKind
from tests.fakebot.flood import RateLimits
from tests.fakebot.model import FakeChat, FakeMessage


def _outbox(app: object) -> Outbox:
    outbox = app.bot_data["app"].presenter.outbox  # type: ignore[attr-defined]
    assert isinstance(outbox, Outbox)
    return outbox


def _live_keyboards(chat: FakeChat) -> list[FakeMessage]:
    """The chat's bot messages that still offer versioned (actionable) buttons."""
    return [m for m in chat.bot_messages if not m.deleted and active_buttons(m)]


async def _my_turn(api: FakeBotApi, user: SimUser, chat: FakeChat | None = None) -> FakeMessage:
    """Wait for the user's hand with buttons to tap."""

    def ready() -> FakeMessage | None:
        hand = hand_message(user, chat)
        return hand if hand is not None and active_buttons(hand) else None

    return await api.wait_for(ready, timeout=20, what=f"{user.first_name}'s turn")


# --- a flooded group never blocks another chat ------------------------------------


@pytest.mark.slow(35)
async def test_a_flooded_group_does_not_hold_up_a_player_elsewhere(tmp_path: Path) -> None:
    """300 /help and /score from the members of one group in about a second. The group's
    budget is full for a minute; a solo player in her private chat gets every tap answered
    and plays on, the flooded group's own game moves on (its player's hand keeps coming),
    the group gets one /help answer (not 150) and no 429. That the private chat does not
    wait for the group's backlog is checked on a manual clock (``tests/bot/test_pacing.py``),
    so no assertion here depends on how fast the machine is. The clock runs only twice as
    fast: the 300 commands all arrive within the minute that one /help answer covers."""
    fast = FastTime(2.0)
    async with FakeBotApi(clock=fast.now) as api:
        api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
        bob = api.add_user("Bob", language_code="nl", started=True)
        crowd = [api.add_user(f"M{i}", language_code="nl", started=True) for i in range(29)]
        busy = api.add_group("Busy", members=[bob, *crowd], admins=[bob])
        carla = api.add_user("Carla", language_code="nl", started=True)
        app = make_app(api, tmp_path / "db.sqlite3", budget=fast.budget())
        async with run_polling(app, api) as bot:
            await open_and_fill(api, bot, busy, [bob], computers=3)
            await carla.send(carla.private_chat, "/klaverjas")  # solo in her private chat
            await bot.settle(timeout=30)
            members = [bob, *crowd]
            for i in range(300):  # /help is everybody's answer, /score each member's own
                await members[i % len(members)].send(busy, "/help" if i % 2 else "/score")
            rng = random.Random(3)
            for _ in range(6):  # Carla plays on (each tap answered, her next hand comes)
                hand = await _my_turn(api, carla, carla.private_chat)
                _, action = pick(active_buttons(hand), rng)
                await (await carla.tap(hand, by_action(action))).wait_answered(timeout=10)
            bob_hand = await _my_turn(api, bob)  # the busy group's game goes on too
            _, action = pick(active_buttons(bob_hand), rng)
            await (await bob.tap(bob_hand, by_action(action))).wait_answered(timeout=10)
            await bot.settle(timeout=60)
        helps = [
            m for m in api.chat(busy).bot_messages if "/klaverjas" in m.body and "/score" in m.body
        ]
        assert len(helps) == 1  # one answer to 150 identical /help is plenty
        scores = [m for m in api.chat(busy).bot_messages if m.reply_to_message_id]
        assert len(scores) <= len(members)  # one /score answer per member at most
        assert not [c for c in api.calls.errors() if c.status == 429]
        api.assert_callbacks_answered_once()


# --- a hand message that fails is sent again -------------------------------


async def test_a_hand_that_failed_with_500_is_sent_again(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    fake_api.inject_fault(method="sendMessage", chat_id=anna.id, kind="500", count=2)
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        await bot.settle(timeout=20)
        hand = await _my_turn(fake_api, anna)  # after two refusals, the third try arrives
        taps = await play_to_end(bot, [anna], random.Random(2), limit=40)
    assert hand is not None and taps == 40
    faulted = fake_api.calls.faulted("sendMessage")
    assert len(faulted) == 2 and all(c.chat_id == anna.id for c in faulted)


async def test_a_timed_out_send_that_was_delivered_leaves_one_live_keyboard(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """The hand's sendMessage times out although Telegram delivered it; the retry sends it
    again. The first copy must not keep live buttons (18 orphan keyboards before)."""
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    app = make_app(fake_api, tmp_path / "db.sqlite3", read_timeout=0.5)
    async with run_polling(app, fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        rng = random.Random(4)
        for _ in range(3):  # three of her hands time out on the way, delivered all the same
            fake_api.inject_fault(
                method="sendMessage", chat_id=anna.id, kind="timeout_delivered", count=1
            )
            await _my_turn(fake_api, anna)
            await bot.settle(timeout=20)
            assert len(_live_keyboards(anna.private_chat)) == 1
            assert await play_turn([anna], rng)
            await bot.settle(timeout=20)
    assert len(fake_api.calls.faulted("sendMessage")) == 3


async def test_a_game_under_flaky_telegram_never_stalls(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """A tenth of all sends and edits answer 500, time out (delivered or lost) or come slowly;
    four people play two rounds to the end; every chat ends with one live hand at most."""
    players = [fake_api.add_user(n, language_code="nl", started=True) for n in "ABCD"]
    group = fake_api.add_group("Club", members=players, admins=players[:1])
    app = make_app(fake_api, tmp_path / "db.sqlite3", read_timeout=0.5)
    async with run_polling(app, fake_api, fail_on_log_errors=False) as bot:
        await open_and_fill(fake_api, bot, group, players)
        kinds: tuple[FaultKind, ...] = ("500", "timeout_delivered", "timeout_lost", "slow")
        for seed, kind in enumerate(kinds):
            for method in ("sendMessage", "editMessageText"):
                fake_api.inject_fault(
                    method=method, kind=kind, probability=0.03, count=None, seed=seed, delay=0.3
                )
        rng = random.Random(7)
        cards = 0
        while cards < 64:  # two rounds of 32 cards
            for user in players:
                hand = hand_message(user)
                buttons = active_buttons(hand) if hand is not None else []
                if hand is not None and buttons:
                    _, action = pick(buttons, rng)
                    await (await user.tap(hand, by_action(action))).wait_answered(timeout=20)
                    cards += action.startswith("play:")
                    break
            else:  # nobody can act yet: the bot is still retrying; wait for a hand
                await fake_api.wait_for(
                    lambda: any(
                        (h := hand_message(u)) is not None and active_buttons(h) for u in players
                    ),
                    timeout=30,
                    what="a hand to play",
                )
        fake_api.faults.clear()
        await bot.settle(timeout=60)
        assert _outbox(app).waiting() == 0
    assert fake_api.calls.faulted()  # the faults did happen
    for user in players:
        assert len(_live_keyboards(user.private_chat)) <= 1
    assert not bot.log_errors


# --- anonymous admins --------------------------------------------------------------


async def test_an_anonymous_admin_opens_and_stops_a_table(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    bert = fake_api.add_user("Bert", language_code="nl", started=True)
    club = fake_api.add_supergroup("Club", members=[anna, bert], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.send(club, "/klaverjas", anonymous=True)
        await bot.settle()
        lobby = fake_api.last_message(club)
        assert lobby.from_bot and any(
            "sit:0" in (t or "") for row in lobby.keyboard_rows() for _, t in row
        )
        assert "Club" in lobby.body  # the group itself opened it
        await (await bert.tap(lobby, by_action("sit:0"))).wait_answered()
        await bot.settle()
        await anna.send(club, "/stop", anonymous=True)  # the group is the table's creator
        await bot.settle()
        confirm = fake_api.last_message(club)
        assert any("stop:yes" in (t or "") for row in confirm.keyboard_rows() for _, t in row)
        tap = await bert.tap(confirm, by_action("stop:yes"))  # not an admin, not the creator
        assert (await tap.wait_answered()).show_alert
        tap = await anna.tap(confirm, by_action("stop:yes"))  # an admin, as herself
        assert not (await tap.wait_answered()).show_alert
        await bot.settle()
    assert "Anna" in lobby.body and not lobby.keyboard_rows()  # who closed it, by name
    fake_api.assert_callbacks_answered_once()


# --- a command deleted before the reply --------------------------------------------


async def test_a_command_deleted_before_the_reply_still_gets_it(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        command = await anna.send(group, "/score")
        fake_api.delete_message_by_user(group, command)
        await bot.settle()
    answer = fake_api.last_message(group)
    assert answer.from_bot and "/klaverjas" in answer.body  # "no table here: open one"
    assert not fake_api.calls.errors()


# --- forum topics ------------------------------------------------------------------


async def test_a_table_lives_in_the_forum_topic_where_it_was_opened(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    forum = fake_api.add_forum("Club", members=[anna], admins=[anna])
    spades = fake_api.add_topic(forum, "Klaverjassen")
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.send(forum, "/klaverjas", thread_id=spades)
        await bot.settle()
        lobby = fake_api.last_message(forum)
        assert fake_api.topic_of(lobby) == spades
        for action in ("sit:0", "bot:add", "bot:add", "bot:add", "start"):
            await (await anna.tap(lobby, by_action(action))).wait_answered()
            await bot.settle()
        rng = random.Random(1)
        while len([m for m in forum.bot_messages if not m.deleted]) < 2:  # a round is over
            assert await play_turn([anna], rng)
            await bot.settle()
        await anna.send(forum, "/score", thread_id=spades)
        await bot.settle()
    ours = [m for m in fake_api.chat(forum).bot_messages if not m.deleted]
    assert len(ours) >= 3  # the lobby (now the round's record), the new table, the /score answer
    assert all(fake_api.topic_of(m) == spades for m in ours)


# --- a tap in flight at a crash ------------------------------------------------------


async def test_after_a_crash_the_player_to_act_gets_the_hand_unasked(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """The bot stops while a tap is in flight (neither applied nor answered). After the
    restart the player whose turn it is gets their hand as a new message, without /start."""
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    app = make_app(fake_api, db)
    with pytest.raises(_Crash):
        async with run_polling(app, fake_api, fail_on_log_errors=False) as bot:
            await open_and_fill(fake_api, bot, group, [anna], computers=3)
            hand = await _my_turn(fake_api, anna)
            service = app.bot_data["app"].service
            stuck = asyncio.Event()

            async def hang(*args: object, **kwargs: object) -> object:
                stuck.set()
                await asyncio.Event().wait()  # the process dies before it gets further
                raise AssertionError("unreachable")

            service.play.act = hang
            _, action = pick(active_buttons(hand), random.Random(1))
            await anna.tap(hand, by_action(action))
            await asyncio.wait_for(stuck.wait(), timeout=10)
            raise _Crash  # the process dies here: nothing is shut down in order
    before = {m.message_id for m in anna.private_chat.bot_messages}
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await bot.settle()
    fresh = [m for m in anna.private_chat.bot_messages if m.message_id not in before]
    assert any(active_buttons(m) for m in fresh)  # her hand again, as a new message
    assert hand.deleted or not active_buttons(hand)


class _Crash(Exception):
    """The bot process dies."""


# --- a /stop confirmation is valid on its own message only -------------------------


async def test_a_stop_confirmation_forged_on_another_message_is_refused(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, [anna], computers=3)
        await anna.send(group, "/help")
        await bot.settle()
        help_message = fake_api.last_message(group)
        forged = [
            await anna.tap_data(message, f"s1.{version}.stop:yes")
            for message in (table, help_message)
            for version in (1, 2, 3, 4, 5)
        ]
        for tap in forged:
            assert (await tap.wait_answered()).show_alert
        await bot.settle()
        assert "⏹" not in table.body  # the game goes on
        await anna.send(group, "/stop")
        await bot.settle()
        confirm = fake_api.last_message(group)
        assert not (
            await (await anna.tap(confirm, by_action("stop:yes"))).wait_answered()
        ).show_alert
        await bot.settle()
    assert "⏹" in table.body
