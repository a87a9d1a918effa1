"""End to end against the fake Bot API with Telegram's limits on: the
message budget per chat, the table's last word, computer moves at a readable pace.

Time runs 20 times faster than real time (``FastTime``), shared by the bot's budget and the
fake's rate model, so a 60 s window takes 3 real seconds.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.outcome import Outcome
from tests.bot.helpers import (
    FastTime,
    active_buttons,
    by_action,
    hand_message,
    make_app,
    open_and_fill,
    pick,
    play_turn,
)
from tests.fakebot import FakeBotApi, run_polling
from tests.fakebot.flood import RateLimits
from tests.fakebot.model import FakeMessage

SENDS_AND_EDITS = ("sendMessage", "sendPhoto", "editMessageText", "editMessageMedia")


async def test_a_stopped_table_keeps_its_last_word(tmp_path: Path) -> None:
    """/stop right after a card, confirm, open the next table at once. The computers'
    move that was saved just before the stop is shown after it (held back here to make the
    race certain): the message that shows the stop notice must never be edited back into the
    live table, and the new table is a new message."""
    fast = FastTime()
    async with FakeBotApi(clock=fast.now) as api:
        api.enable_rate_limits(RateLimits(group_per_minute=20))
        anna = api.add_user("Anna", language_code="nl", started=True)
        group = api.add_group("Club", members=[anna], admins=[anna])
        app = make_app(api, tmp_path / "db.sqlite3", budget=fast.budget(private=False))
        async with run_polling(app, api) as bot:
            await open_and_fill(api, bot, group, [anna], computers=3)
            service = app.bot_data["app"].service
            original = service.play.run_computers
            gate, held = asyncio.Event(), asyncio.Event()

            async def computers_then_wait(game_id: int, limit: int | None = None) -> Outcome:
                out: Outcome = await original(game_id, limit)
                if out.changed and not gate.is_set():
                    held.set()
                    await gate.wait()
                return out

            service.play.run_computers = computers_then_wait
            rng = random.Random(1)
            while not held.is_set():
                await api.wait_for(
                    lambda: (
                        held.is_set()
                        or ((m := hand_message(anna)) is not None and bool(active_buttons(m)))
                    ),
                    timeout=10,
                )
                if not held.is_set():
                    assert await play_turn([anna], rng)
                    await asyncio.sleep(0.05)
            await anna.send(group, "/stop")
            confirm = await api.wait_for(lambda: _stop_confirmation(api, group.id), timeout=10)
            await (await anna.tap(confirm, by_action("stop:yes"))).wait_answered()
            last_word = await api.wait_for(
                lambda: next((m for m in api.chat(group).messages if "⏹" in m.body), None),
                timeout=10,
            )
            sealed_at = len(api.calls)
            gate.set()  # the computers' move, saved before the stop, is shown now
            await anna.send(group, "/klaverjas")
            await bot.settle(timeout=20)
            await asyncio.sleep(65 / fast.factor)  # a whole window: every deferred edit ran
            await bot.settle(timeout=20)
        assert "⏹" in last_word.body and "👉" not in last_word.body
        assert not last_word.keyboard_rows()
        assert not [
            c
            for c in api.calls.filter("editMessageText", chat_id=group.id, since=sealed_at)
            if c.param("message_id") == last_word.message_id
        ]
        lobby = api.last_message(group)
        assert lobby.message_id != last_word.message_id and lobby.keyboard_rows()
        assert not api.calls.errors()


def _stop_confirmation(api: FakeBotApi, chat_id: int) -> FakeMessage | None:
    """The newest /stop confirmation in the chat."""
    for message in reversed(api.chat(chat_id).bot_messages):
        if any("stop:yes" in (t or "") for row in message.keyboard_rows() for _, t in row):
            return message
    return None


@pytest.mark.slow
async def test_a_talkative_group_beside_a_four_human_game_gets_no_429(tmp_path: Path) -> None:
    """A command every 4 s beside a 4-human game: no 429, every command answered,
    the group never above 20 messages in any 60 s, the table's own edits at most 15."""
    fast = FastTime()
    async with FakeBotApi(clock=fast.now) as api:
        api.enable_rate_limits(RateLimits(group_per_minute=20))
        humans = [api.add_user(n, language_code="nl", started=True) for n in ("A", "B", "C", "D")]
        group = api.add_group("Club", members=humans, admins=humans[:1])
        app = make_app(api, tmp_path / "db.sqlite3", budget=fast.budget(private=False))
        async with run_polling(app, api) as bot:
            await open_and_fill(api, bot, group, humans)
            start = len(api.calls)
            rng = random.Random(5)
            commands = 0
            next_command = fast.now()
            cards = 0
            while cards < 160:
                if fast.now() >= next_command:
                    await humans[commands % 4].send(group, "/score")
                    commands += 1
                    next_command += 4.0
                for user in humans:
                    message = hand_message(user)
                    buttons = active_buttons(message) if message else []
                    if message is not None and buttons:
                        _, action = pick(buttons, rng)
                        await (await user.tap(message, by_action(action))).wait_answered()
                        cards += action.startswith("play:")
                        break
                await asyncio.sleep(1.5 / fast.factor)  # quick players: 1.5 s a move
            await bot.settle(timeout=30)
            outbox = app.bot_data["app"].presenter.outbox
            assert outbox.waiting() == 0
        assert not [c for c in api.calls.errors(start) if c.status == 429]
        replies = [
            c
            for c in api.calls.filter("sendMessage", "sendPhoto", chat_id=group.id, since=start)
            if c.param("reply_to_message_id") or "reply_parameters" in c.params
        ]
        assert len(replies) == commands >= 30
        assert api.calls.max_in_window(group.id, 60.0, SENDS_AND_EDITS) <= 20
        table_edits = api.calls.max_in_window(group.id, 60.0, ("editMessageText",))
        assert table_edits <= 15


@pytest.mark.slow
async def test_solo_computer_moves_come_one_a_second(tmp_path: Path) -> None:
    """A solo game (1 human, 3 computers in the private chat): computer cards
    arrive at the set pace, never more than one message a second in the chat, and the
    answer to the human's own tap comes before anything the tap makes the bot show (so
    never after the computers' moves). The pace itself, on a manual clock:
    ``tests/bot/test_pacing.py``."""
    fast = FastTime()
    async with FakeBotApi(clock=fast.now) as api:
        api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
        anna = api.add_user("Anna", language_code="nl", started=True)
        app = make_app(api, tmp_path / "db.sqlite3", budget=fast.budget(), computer_delay=1.0)
        async with run_polling(app, api) as bot:
            await anna.send(anna.private_chat, "/klaverjas")
            await bot.settle(timeout=20)
            start = len(api.calls)
            chat = anna.private_chat.id
            rng = random.Random(3)
            shown_first: list[str] = []  # what the chat was sent before each tap's answer
            for _ in range(12):
                message = hand_message(anna)
                if message is None or not active_buttons(message):
                    await bot.settle(timeout=20)
                    continue
                _, action = pick(active_buttons(message), rng)
                before = len(api.calls)
                tap = await anna.tap(message, by_action(action))
                record = await tap.wait_answered(timeout=10)
                answer = next(
                    c.seq
                    for c in api.calls.filter("answerCallbackQuery", since=before)
                    if str(c.params.get("callback_query_id")) == record.id
                )
                shown_first += [
                    c.method
                    for c in api.calls.filter(*SENDS_AND_EDITS, chat_id=chat, since=before)
                    if c.seq < answer
                ]
                await bot.settle(timeout=20)
        assert not api.calls.errors(start)
        assert api.calls.max_in_window(chat, 1.0, SENDS_AND_EDITS) <= 1
        assert shown_first == []
        edits = [c.started for c in api.calls.filter("editMessageText", chat_id=chat, since=start)]
        assert len(edits) >= 12
