"""Ephemeral messages in the fake Bot API (``tests/fakebot/api_ephemeral.py``), through the
bot's own calls (:mod:`bot.telegram_ext`) over real HTTP: only the receiver sees them, a
reply to a tap is taken within 15 s, offline users get nothing, edits and deletes need the
right receiver and id, and they count in the group's rate limit."""

from __future__ import annotations

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import RetryAfter

from bot.telegram_ext import (
    EphemeralError,
    EphemeralGone,
    EphemeralNotDelivered,
    EphemeralRef,
    QueryExpired,
    delete_ephemeral,
    edit_ephemeral_text,
    send_ephemeral,
)
from tests.fakebot import FakeBotApi, ManualClock, RateLimits

KEYS = InlineKeyboardMarkup([[InlineKeyboardButton("J♥", callback_data="a1.2.play:JH")]])


async def test_a_reply_to_a_tap_is_seen_by_the_tapper_alone() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, Bot(api.token, base_url=api.base_url) as bot:
        anna, bert = api.add_user("Anna"), api.add_user("Bert")
        group = api.add_group("Club", members=[anna, bert])
        table = await bot.send_message(group.id, "table", reply_markup=KEYS)
        tap = await anna.tap(api.last_message(group), "J♥")
        ref = await send_ephemeral(
            bot, group.id, anna.id, "<b>hand</b>", KEYS, callback_query_id=tap.query.id
        )
        assert ref == EphemeralRef(group.id, anna.id, 1)
        [mine] = api.ephemeral_messages(group, anna)
        assert mine.text == "hand" and mine.keyboard_rows() == [[("J♥", "a1.2.play:JH")]]
        assert api.ephemeral_messages(group, bert) == []
        assert mine not in api.transcript(group, bert) and mine in api.transcript(group, anna)
        assert [m.message_id for m in api.chat(group).messages] == [table.message_id]
        with pytest.raises(LookupError):  # Bert does not see it, so cannot tap it
            await bert.tap(mine, "J♥")
        again = await anna.tap(mine, "J♥")
        assert again.query.ephemeral and again.query.message_id == ref.message_id
        await edit_ephemeral_text(bot, ref, "new hand", None)
        assert mine.text == "new hand" and mine.keyboard_rows() == [] and mine.history
        await edit_ephemeral_text(bot, ref, "new hand", None)  # not modified: no error
        with pytest.raises(EphemeralGone):
            await edit_ephemeral_text(bot, EphemeralRef(group.id, bert.id, 1), "x", None)
        await delete_ephemeral(bot, ref)
        assert api.ephemeral_messages(group, anna) == []
        await delete_ephemeral(bot, ref)  # already gone: fine
        with pytest.raises(EphemeralGone):
            await edit_ephemeral_text(bot, ref, "late", None)


async def test_a_tap_is_answered_within_15_seconds_by_the_tapper_only() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, Bot(api.token, base_url=api.base_url) as bot:
        anna, bert = api.add_user("Anna"), api.add_user("Bert")
        group = api.add_group("Club", members=[anna, bert])
        await bot.send_message(group.id, "table", reply_markup=KEYS)
        tap = await anna.tap(api.last_message(group), "J♥")
        with pytest.raises(QueryExpired):  # somebody else than the tapper
            await send_ephemeral(bot, group.id, bert.id, "x", None, callback_query_id=tap.query.id)
        clock.advance(15.5)
        with pytest.raises(QueryExpired):
            await send_ephemeral(bot, group.id, anna.id, "x", None, callback_query_id=tap.query.id)
        with pytest.raises(EphemeralError, match=r"(?i)not enough rights"):  # no tap, no admin
            await send_ephemeral(bot, group.id, anna.id, "x", None)
        cas = api.add_user("Cas", started=True)
        with pytest.raises(EphemeralError, match=r"(?i)private chats"):
            await send_ephemeral(bot, cas.id, cas.id, "x", None)
        assert api.ephemeral_messages(group, anna) == []


async def test_offline_users_get_nothing() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, Bot(api.token, base_url=api.base_url) as bot:
        anna = api.add_user("Anna")
        group = api.add_group("Club", members=[anna])
        await bot.send_message(group.id, "table", reply_markup=KEYS)
        tap = await anna.tap(api.last_message(group), "J♥")
        ref = await send_ephemeral(
            bot, group.id, anna.id, "hand", None, callback_query_id=tap.query.id
        )
        api.set_offline(anna)
        with pytest.raises(EphemeralNotDelivered):
            await edit_ephemeral_text(bot, ref, "new", None)
        tap = await anna.tap(api.last_message(group), "J♥")
        with pytest.raises(EphemeralNotDelivered):
            await send_ephemeral(bot, group.id, anna.id, "x", None, callback_query_id=tap.query.id)
        api.set_offline(anna, False)
        await edit_ephemeral_text(bot, ref, "new", None)
        assert api.ephemeral_messages(group, anna)[0].text == "new"


async def test_ephemeral_sends_and_edits_count_in_the_group_limit() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, Bot(api.token, base_url=api.base_url) as bot:
        anna = api.add_user("Anna")
        group = api.add_group("Club", members=[anna])
        api.enable_rate_limits(RateLimits(group_per_minute=20, global_per_second=None))
        await bot.send_message(group.id, "table", reply_markup=KEYS)
        tap = await anna.tap(api.last_message(group), "J♥")
        ref = await send_ephemeral(
            bot, group.id, anna.id, "0", None, callback_query_id=tap.query.id
        )
        for n in range(1, 19):
            await edit_ephemeral_text(bot, ref, str(n), None)
        with pytest.raises(RetryAfter):  # the 21st call of the minute in the group
            await bot.send_message(group.id, "one too many")
        assert api.calls.max_in_window(group.id, 60) == 20
