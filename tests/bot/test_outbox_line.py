"""The outbox at the bot's overall budget (Telegram's limit for all chats together): a reply
that has to wait for it goes before the redraws other chats wait with, and the computers'
:meth:`~bot.outbox.Outbox.turn` returns once their chat got its place. Budget time runs 50
times faster than real time (a budget second is 20 ms); nothing is asserted on time."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from typing import Any

from telegram import Chat, Message

from bot.budget import ChatBudget, Limits
from bot.outbox import Content, Outbox

ONE_A_SECOND = Limits(limit=1, window=1.0, table_limit=1, table_gap=0.0)


class FastClock:
    """Budget time, :data:`SPEED` times faster than real time."""

    def __call__(self) -> float:
        return time.monotonic() * SPEED

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(seconds, 0.0) / SPEED)


SPEED = 50.0


class RecordingBot:
    """The two calls the test's outbox makes, recorded in order: (method, chat id)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self._ids = 0

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Message:
        self.calls.append(("sendMessage", chat_id))
        self._ids += 1
        chat = Chat(chat_id, "private")
        return Message(self._ids, dt.datetime.now(dt.UTC), chat)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **_: Any) -> bool:
        self.calls.append(("editMessageText", chat_id))
        return True


async def _nothing(*_: Any) -> None:
    return None


def _outbox(bot: RecordingBot, clock: FastClock) -> Outbox:
    budget = ChatBudget(None, None, overall=ONE_A_SECOND, clock=clock, sleep=clock.sleep)
    return Outbox(bot, budget, _nothing, _nothing)  # type: ignore[arg-type]


async def _drain(outbox: Outbox) -> None:
    for _ in range(2_000):  # at most 20 s of real time, 1,000 budget seconds
        if not outbox.waiting():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{outbox.waiting()} calls still wait")


async def test_a_reply_waiting_for_the_overall_budget_goes_before_other_chats_redraws() -> None:
    clock, bot = FastClock(), RecordingBot()
    outbox = _outbox(bot, clock)
    for chat in range(1, 9):  # eight tables' hands to draw: one call a second for the bot
        outbox.show(("hand", chat, 0), chat, Content(f"hand {chat}"), message_id=None)
    await asyncio.sleep(0)
    outbox.post(99, Content("help"), dedupe="help")
    await _drain(outbox)
    order = [chat for _, chat in bot.calls]
    assert sorted(order) == [*range(1, 9), 99]
    assert order.index(99) <= 1, order  # the first hand had the budget already; then the reply
    await outbox.close()


async def test_a_reply_to_a_person_goes_before_other_chats_game_posts() -> None:
    """A reply (``/help``: a post with a dedupe key) waiting for the overall budget goes
    before the posts of other chats' games (round summaries, notices) that wait for it."""
    clock, bot = FastClock(), RecordingBot()
    outbox = _outbox(bot, clock)
    for chat in range(1, 9):  # eight tables' round summaries: one call a second for the bot
        outbox.post(chat, Content(f"summary {chat}"))
    await asyncio.sleep(0)
    outbox.post(99, Content("help"), dedupe="help")
    await _drain(outbox)
    order = [chat for _, chat in bot.calls]
    assert sorted(order) == [*range(1, 9), 99]
    assert order.index(99) <= 1, order  # the first summary had the budget already
    await outbox.close()


async def test_turn_returns_once_the_chat_got_its_place_at_the_overall_budget() -> None:
    clock, bot = FastClock(), RecordingBot()
    outbox = _outbox(bot, clock)
    for chat in range(1, 5):
        outbox.show(("table", chat), chat, Content(f"table {chat}"), message_id=None)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    last = ("table", 4)
    assert outbox.in_line(last)
    await outbox.turn(last)
    assert ("sendMessage", 4) in bot.calls or not outbox.in_line(last)
    assert not outbox.in_line(last)
    await outbox.turn(("table", 77))  # unknown: at once
    await _drain(outbox)
    await outbox.close()
