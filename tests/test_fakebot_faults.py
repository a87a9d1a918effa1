"""Injected faults reach python-telegram-bot as they would from Telegram: the exception class,
whether the call took effect, and what the call log shows."""

from __future__ import annotations

import asyncio
import logging
import random
import time

import pytest
from telegram import Bot, Update
from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.ext import CommandHandler, ContextTypes
from telegram.request import HTTPXRequest

from tests.fakebot import FakeBotApi, ManualClock, application_builder, run_polling
from tests.fakebot.photos import tiny_png

Context = ContextTypes.DEFAULT_TYPE
SHORT = 0.5  # the client's read timeout in these tests (PTB's default is 5 s)


def make_bot(api: FakeBotApi, read_timeout: float | None = SHORT) -> Bot:
    return Bot(
        api.token,
        base_url=api.base_url,
        request=HTTPXRequest(read_timeout=read_timeout, connect_timeout=2.0),
    )


@pytest.fixture
def bot_request() -> HTTPXRequest:
    """The shared ``bot`` fixture's client here: a short read timeout (:data:`SHORT`)."""
    return HTTPXRequest(read_timeout=SHORT, connect_timeout=2.0)


async def test_500_is_a_network_error_with_telegrams_description(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    rule = fake_api.inject_fault(method="sendMessage", kind="500")

    with pytest.raises(NetworkError) as caught:
        await bot.send_message(group.id, "kwijt")
    assert type(caught.value) is NetworkError
    assert caught.value.message == "Internal Server Error"
    assert group.messages == []  # the call did not take effect
    await bot.send_message(group.id, "weer goed")  # count=1: the next call is fine
    assert [m.text for m in group.messages] == ["weer goed"]
    first, second = fake_api.calls.filter("sendMessage")
    assert (first.status, first.fault, first.took_effect) == (500, "500", False)
    assert (second.status, second.fault) == (200, None)
    assert rule.calls == [first] and rule.hits == 1
    assert fake_api.calls.faulted() == [first]


async def test_a_refused_photo_is_a_bad_request_and_nothing_is_sent(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    rule = fake_api.inject_fault(method="sendPhoto", kind="photo_refused")

    with pytest.raises(BadRequest, match=r"^Image_process_failed$"):
        await bot.send_photo(anna.id, tiny_png(), caption="kwijt")
    assert anna.private_chat.messages == []
    (call,) = fake_api.calls.filter("sendPhoto")
    assert (call.status, call.fault, call.took_effect) == (400, "photo_refused", False)
    assert rule.hits == 1
    sent = await bot.send_photo(anna.id, tiny_png(), caption="weer goed")  # count=1
    assert sent.caption == "weer goed"


async def test_500_after_the_message_was_sent(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    fake_api.inject_fault(method="sendMessage", kind="500", takes_effect=True)

    with pytest.raises(NetworkError, match=r"^Internal Server Error$"):
        await bot.send_message(group.id, "toch verstuurd")
    assert [m.text for m in group.messages] == ["toch verstuurd"]
    call = fake_api.calls.faulted()[0]
    assert call.took_effect and call.result["text"] == "toch verstuurd"


async def test_502_from_a_proxy_is_a_network_error_and_ptb_logs_the_bad_json(
    fake_api: FakeBotApi, bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    fake_api.inject_fault(method="sendMessage", kind="502")

    with caplog.at_level(logging.ERROR), pytest.raises(NetworkError) as caught:
        await bot.send_message(group.id, "kwijt")
    assert type(caught.value) is NetworkError
    assert caught.value.message.startswith("Bad Gateway (502). Parsing the server response")
    assert any("Can not load invalid JSON data" in r.getMessage() for r in caplog.records)
    assert group.messages == []
    assert fake_api.calls[-1].status == 502


async def test_timeout_delivered_sends_the_message_but_ptb_times_out(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    fake_api.inject_fault(method="sendMessage", chat_id=group.id, kind="timeout_delivered")

    started = time.monotonic()
    with pytest.raises(TimedOut):
        await bot.send_message(group.id, "wel aangekomen")
    assert time.monotonic() - started >= SHORT
    assert [m.text for m in group.messages] == ["wel aangekomen"]
    await fake_api.wait_for(lambda: fake_api.faults.held == 0 and not fake_api.is_busy())
    call = fake_api.calls.faulted()[0]
    assert (call.status, call.fault, call.took_effect) == (0, "timeout_delivered", True)
    assert call.finished is not None and call.result["text"] == "wel aangekomen"


async def test_timeout_lost_times_out_and_nothing_happens(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    sent = await bot.send_message(group.id, "oud")
    fake_api.inject_fault(method="editMessageText", kind="timeout_lost")

    with pytest.raises(TimedOut):
        await bot.edit_message_text("nieuw", group.id, sent.message_id)
    assert fake_api.last_message(group).text == "oud"
    await bot.edit_message_text("nieuw", group.id, sent.message_id)  # the retry works
    assert fake_api.last_message(group).text == "nieuw"


async def test_disconnect_is_a_network_error_not_a_timeout(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    fake_api.inject_fault(method="sendMessage", kind="disconnect")

    with pytest.raises(NetworkError) as caught:
        await bot.send_message(group.id, "kwijt")
    assert not isinstance(caught.value, TimedOut)
    assert "disconnected" in caught.value.message.lower()
    assert group.messages == []
    await bot.send_message(group.id, "verder")  # a new connection works
    assert [m.text for m in group.messages] == ["verder"]


async def test_slow_answers_correctly_after_real_seconds(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    fake_api.inject_fault(method="sendMessage", kind="slow", delay=0.2)

    started = time.monotonic()
    sent = await bot.send_message(group.id, "traag")
    assert time.monotonic() - started >= 0.2
    assert sent.text == "traag" and fake_api.calls[-1].status == 200
    assert fake_api.calls[-1].fault == "slow"


async def test_slow_follows_the_fakes_clock() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, make_bot(api, read_timeout=10) as bot:
        api.faults.sleep = clock.sleep
        group = api.add_group("Tafel", members=[api.add_user("Anna")])
        api.inject_fault(method="sendMessage", kind="slow", delay=30)
        sending = asyncio.create_task(bot.send_message(group.id, "na 30 s"))
        await api.wait_for(lambda: api.calls.count("sendMessage"))
        clock.advance(29)
        await asyncio.sleep(0)
        assert not sending.done() and group.messages == []  # the method runs when it is due
        clock.advance(1)
        sent = await asyncio.wait_for(sending, 5)
        assert sent.text == "na 30 s"
        call = api.calls[-1]
        assert call.finished is not None and call.finished - call.started == 30


async def test_slow_answer_past_the_read_timeout_does_not_take_effect(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    fake_api.inject_fault(method="sendMessage", kind="slow", delay=3)

    with pytest.raises(TimedOut):
        await bot.send_message(group.id, "te laat")
    await fake_api.wait_for(lambda: not fake_api.is_busy())
    assert group.messages == []


async def test_probability_mode_is_seeded_and_per_chat(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna")
    noisy = fake_api.add_group("Luid", members=[anna])
    quiet = fake_api.add_group("Stil", members=[anna])
    rule = fake_api.inject_fault(
        method="sendMessage", chat_id=noisy.id, kind="500", probability=0.1, count=None, seed=7
    )
    draws = random.Random(7)
    expected = [n for n in range(60) if draws.random() < 0.1]

    failed = []
    for n in range(60):
        try:
            await bot.send_message(noisy.id, str(n))
        except NetworkError:
            failed.append(n)
        await bot.send_message(quiet.id, str(n))

    assert failed == expected and 2 <= len(failed) <= 12
    assert rule.hits == len(expected)
    assert len(quiet.messages) == 60
    assert [int(m.body) for m in noisy.messages] == [n for n in range(60) if n not in expected]


async def test_inject_fault_refuses_nonsense(fake_api: FakeBotApi) -> None:
    with pytest.raises(ValueError, match="unknown fault kind"):
        fake_api.inject_fault(kind="404")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="probability"):
        fake_api.inject_fault(kind="500", probability=1.5)
    with pytest.raises(ValueError, match="always takes effect"):
        fake_api.inject_fault(kind="slow", takes_effect=False)


async def test_held_answers_end_when_the_server_stops() -> None:
    api = FakeBotApi()
    await api.start()
    try:
        async with make_bot(api, read_timeout=None) as bot:  # a client that never gives up
            group = api.add_group("Tafel", members=[api.add_user("Anna")])
            api.inject_fault(method="sendMessage", kind="timeout_lost")
            sending = asyncio.create_task(bot.send_message(group.id, "hangt"))
            await api.wait_for(lambda: api.faults.held == 1)
            await asyncio.wait_for(api.stop(), 3)
            with pytest.raises(NetworkError) as caught:
                await asyncio.wait_for(sending, 3)
            assert not isinstance(caught.value, TimedOut)
    finally:
        await api.stop()
    assert api.faults.held == 0


async def test_a_bot_handler_sees_timed_out_with_a_short_read_timeout(
    fake_api: FakeBotApi,
) -> None:
    seen: list[Exception] = []

    async def deal(update: Update, context: Context) -> None:
        assert update.effective_chat is not None
        try:
            await update.effective_chat.send_message("Je kaarten")
        except TimedOut as exc:
            seen.append(exc)

    app = application_builder(fake_api).read_timeout(SHORT).build()
    app.add_handler(CommandHandler("deal", deal))
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    fake_api.inject_fault(method="sendMessage", chat_id=group.id, kind="timeout_delivered")
    async with run_polling(app, fake_api) as runner:
        await anna.send(group, "/deal")
        await runner.settle()
    assert len(seen) == 1
    assert [m.text for m in group.bot_messages] == ["Je kaarten"]


async def test_a_failing_long_poll_is_retried_by_the_updater(fake_api: FakeBotApi) -> None:
    async def echo(update: Update, context: Context) -> None:
        assert update.effective_chat is not None
        await update.effective_chat.send_message("hier")

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("echo", echo))
    anna = fake_api.add_user("Anna")
    fake_api.inject_fault(method="getUpdates", kind="500")
    async with run_polling(app, fake_api, fail_on_log_errors=False) as runner:
        await anna.send(None, "/echo")
        await runner.settle()
    assert [m.text for m in anna.private_chat.bot_messages] == ["hier"]
    assert [c.status for c in fake_api.calls.faulted("getUpdates")] == [500]
    assert any("Internal Server Error" in repr(r.exc_info) for r in runner.log_errors)
