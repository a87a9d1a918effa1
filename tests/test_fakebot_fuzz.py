"""The update fuzzer: deterministic for a seed, every kind covered, and everything it makes is
an update python-telegram-bot parses and a bot can answer."""

from __future__ import annotations

import random
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes, TypeHandler

from tests.fakebot import FakeBotApi, SimUser, application_builder, run_polling
from tests.fakebot.fuzz import FUZZ_KINDS, UpdateFuzzer
from tests.fakebot.html_parser import utf16_len
from tests.fakebot.model import FakeChat

Context = ContextTypes.DEFAULT_TYPE


def undated(value: Any) -> Any:
    """The value without ``date``/``edit_date`` fields (the only wall-clock part)."""
    if isinstance(value, dict):
        return {k: undated(v) for k, v in value.items() if k not in ("date", "edit_date")}
    if isinstance(value, list):
        return [undated(v) for v in value]
    return value


def world(api: FakeBotApi) -> tuple[list[FakeChat], list[SimUser]]:
    anna, bob = api.add_user("Anna", started=True), api.add_user("Bob")
    group = api.add_group("Tafel", members=[anna, bob], admins=[anna])
    club = api.add_supergroup("Club", members=[anna, bob], admins=[anna], bot_admin=True)
    return [group, club], [anna, bob]


async def fuzz(seed: int, steps: int) -> tuple[list[str], list[Any]]:
    async with FakeBotApi() as api:
        groups, users = world(api)
        fuzzer = UpdateFuzzer(api, random.Random(seed), groups=groups, users=users)
        events = await fuzzer.run(steps)
        made = sorted(api.updates.pending + api.updates.dropped, key=lambda u: u.update_id)
        return [e.kind for e in events], [undated(u.to_api()) for u in made]


async def test_the_same_seed_gives_the_same_updates() -> None:
    kinds, updates = await fuzz(11, 120)
    again_kinds, again_updates = await fuzz(11, 120)
    other_kinds, _ = await fuzz(12, 120)
    assert kinds == again_kinds and updates == again_updates
    assert kinds != other_kinds
    assert len(updates) >= 100


async def test_every_kind_makes_updates_ptb_parses(fake_api: FakeBotApi, bot: Bot) -> None:
    groups, users = world(fake_api)
    await bot.send_message(groups[1].id, "Tafel", reply_markup=_keyboard())  # for taps
    fuzzer = UpdateFuzzer(fake_api, random.Random(3), groups=groups, users=users)
    for kind in FUZZ_KINDS:
        for _ in range(3):
            await fuzzer.emit(kind)
    await fuzzer.run(150)
    made = fake_api.updates.pending + fake_api.updates.dropped
    parsed = [Update.de_json(u.to_api(), bot) for u in made]

    produced = {e.kind for e in fuzzer.events if e.update_ids}
    assert produced == set(FUZZ_KINDS)
    assert all(
        p is not None and p.update_id == u.update_id for p, u in zip(parsed, made, strict=True)
    )
    messages = [p.effective_message for p in parsed if p.effective_message]
    assert any(m.caption and m.caption.startswith("/") for m in messages)
    assert any(m.sender_chat and m.from_user and m.from_user.id == 1087968824 for m in messages)
    assert any(m.is_topic_message for m in messages)
    assert any(m.sticker for m in messages) and any(m.migrate_to_chat_id for m in messages)
    assert any(m.text and utf16_len(m.text) == 4096 for m in messages)
    assert any(p.channel_post or p.edited_channel_post for p in parsed)
    assert any(p.inline_query for p in parsed) and any(p.edited_message for p in parsed)
    datas = [p.callback_query.data or "" for p in parsed if p.callback_query]
    assert any(len(d.encode()) > 64 for d in datas)
    rtl = [u for u in fake_api.world.users.values() if u.first_name in ("محمد", "אבי")]
    assert rtl and all(u.username is None for u in rtl)


async def test_a_bot_survives_a_fuzzed_stream(fake_api: FakeBotApi) -> None:
    seen: list[Update] = []
    refused: list[TelegramError] = []

    async def record(update: Update, context: Context) -> None:
        seen.append(update)
        try:
            if update.callback_query is not None:
                await update.callback_query.answer("?")
            elif (
                update.effective_message is not None
                and update.effective_chat is not None
                and update.effective_chat.type != "channel"
            ):
                await update.effective_message.reply_text(
                    "ok", do_quote=False, reply_markup=_keyboard()
                )
        except TelegramError as exc:  # flood control, kicked, migrated...: Telegram's answers
            refused.append(exc)

    fake_api.enable_rate_limits()
    app = application_builder(fake_api).build()
    app.add_handler(TypeHandler(Update, record))
    groups, users = world(fake_api)
    async with run_polling(app, fake_api, allowed_updates=Update.ALL_TYPES) as runner:
        fuzzer = UpdateFuzzer(fake_api, random.Random(5), groups=groups, users=users)
        for _ in range(8):  # the bot answers between bursts, so there are buttons to tap
            await fuzzer.run(10)
            await runner.settle(timeout=30)
    expected = [u.update_id for u in fake_api.updates.confirmed]
    assert [u.update_id for u in seen] == expected and len(expected) >= 60
    assert sum(1 for u in seen if u.callback_query) >= 5  # odd taps on the bot's buttons
    assert any(u.chat_member for u in seen)  # allowed_updates asked for them
    assert not fake_api.unanswered_callback_queries()
    answered = fake_api.calls.filter("sendMessage", "answerCallbackQuery")
    attempted = [
        u
        for u in seen
        if u.callback_query
        or (u.effective_message and u.effective_chat and u.effective_chat.type != "channel")
    ]
    assert len(answered) == len(attempted)  # one call per answer the toy bot tried
    failed = [c for c in answered if not c.ok]
    assert len(refused) == len(failed)  # every refusal was a Telegram error PTB raised
    assert all(c.description for c in failed)


async def test_unknown_kinds_are_refused(fake_api: FakeBotApi) -> None:
    with pytest.raises(ValueError, match="unknown fuzz kinds"):
        UpdateFuzzer(fake_api, random.Random(0), weights={"nope": 1})
    with pytest.raises(ValueError, match="unknown fuzz kind"):
        await UpdateFuzzer(fake_api, random.Random(0)).emit("nope")


def _keyboard() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("Meedoen", callback_data="j:1:0")]])
