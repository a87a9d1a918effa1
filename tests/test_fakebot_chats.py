"""Forum topics, anonymous admins, deleted messages, blocked users and the rate window, as
python-telegram-bot sees them over real HTTP."""

from __future__ import annotations

import datetime as dtm
import json
from typing import Any

import aiohttp
import pytest
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReplyParameters,
    Update,
)
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden, RetryAfter
from telegram.ext import (
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakebot import FakeBotApi, ManualClock, RateLimits, application_builder, run_polling
from tests.fakebot.people import GROUP_ANONYMOUS_BOT_ID, is_anonymous_post

Context = ContextTypes.DEFAULT_TYPE


async def raw_call(api: FakeBotApi, method: str, form: dict[str, Any]) -> tuple[int, Any]:
    """A Bot API call as a plain HTTP client makes it (form fields, no PTB)."""
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{api.base_url}{api.token}/{method}", data=form) as response,
    ):
        return response.status, await response.json()


def keyboard(data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("Ja", callback_data=data)]])


# --- forum topics ---------------------------------------------------------------------------


async def test_topic_messages_carry_their_thread_both_ways(fake_api: FakeBotApi) -> None:
    seen: list[Update] = []

    async def play(update: Update, context: Context) -> None:
        seen.append(update)
        message = update.effective_message
        assert message is not None
        # Message.reply_text keeps the topic (PTB passes message_thread_id itself).
        await message.reply_text("Tafel", reply_markup=keyboard("join"), do_quote=False)

    async def tap(update: Update, context: Context) -> None:
        seen.append(update)
        assert update.callback_query is not None
        await update.callback_query.answer()

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("klaverjas", play))
    app.add_handler(CallbackQueryHandler(tap))
    anna = fake_api.add_user("Anna")
    forum = fake_api.add_forum("Club", members=[anna], admins=[anna])
    spades = fake_api.add_topic(forum, "Schoppen")
    async with run_polling(app, fake_api) as runner:
        await anna.send(forum, "/klaverjas", thread_id=spades)
        await anna.send(forum, "/klaverjas")  # General topic
        await runner.settle()
        in_topic, in_general = forum.bot_messages
        await anna.tap(in_topic, "Ja")
        await runner.settle()

    command, general, tapped = seen
    assert command.effective_chat is not None and command.effective_chat.is_forum
    assert command.message is not None and command.message.is_topic_message
    assert command.message.message_thread_id == spades
    # Every message in a topic "replies" to the topic's creation message.
    root = command.message.reply_to_message
    assert root is not None and root.forum_topic_created is not None
    assert root.forum_topic_created.name == "Schoppen"
    assert general.message is not None and general.message.message_thread_id is None
    assert fake_api.topic_of(in_topic) == spades and fake_api.topic_of(in_general) is None
    assert fake_api.topic_messages(forum, spades) == [in_topic]
    assert fake_api.topic_messages(forum, None) == [in_general]
    assert tapped.callback_query is not None and tapped.callback_query.message is not None
    tapped_message = tapped.callback_query.message
    assert isinstance(tapped_message, Message) and tapped_message.message_thread_id == spades
    created = [u for u in fake_api.updates.confirmed if "forum_topic_created" in u.payload]
    assert len(created) == 1  # the service message reaches the bot


async def test_thread_errors_are_telegrams(fake_api: FakeBotApi, bot: Bot) -> None:
    anna, bob = fake_api.add_user("Anna"), fake_api.add_user("Bob")
    forum = fake_api.add_forum("Club", members=[anna, bob], admins=[anna])
    plain = fake_api.add_supergroup("Gewoon", members=[anna])
    topic = fake_api.add_topic(forum, "Harten")

    sent = await bot.send_message(forum.id, "in harten", message_thread_id=topic)
    assert sent.message_thread_id == topic and sent.is_topic_message
    for chat_id, thread in ((forum.id, 999), (plain.id, topic)):
        with pytest.raises(BadRequest, match=r"^Message thread not found$"):
            await bot.send_message(chat_id, "x", message_thread_id=thread)
    fake_api.close_topic(forum, topic)
    with pytest.raises(BadRequest, match=r"^Topic_closed$"):
        await bot.send_message(forum.id, "dicht", message_thread_id=topic)
    with pytest.raises(ValueError, match="TOPIC_CLOSED"):
        await bob.send(forum, "x", thread_id=topic)  # a member may not post in a closed topic
    await anna.send(forum, "admin mag", thread_id=topic)  # an administrator may
    fake_api.close_topic(forum, topic, closed=False)
    reply = await bot.send_message(
        forum.id, "antwoord", reply_parameters=ReplyParameters(sent.message_id)
    )
    assert reply.message_thread_id == topic  # a reply lands in the replied message's topic
    fake_api.delete_topic(forum, topic)
    with pytest.raises(BadRequest, match=r"^Message thread not found$"):
        await bot.send_message(forum.id, "weg", message_thread_id=topic)
    assert fake_api.topic_messages(forum, topic) == []
    with pytest.raises(ValueError, match="not a forum"):
        fake_api.add_topic(plain, "nee")


async def test_a_bot_admin_may_post_in_a_closed_topic(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna")
    forum = fake_api.add_forum("Club", members=[anna], admins=[anna], bot_admin=True)
    topic = fake_api.add_topic(forum, "Ruiten", by=anna)
    fake_api.close_topic(forum, topic)
    sent = await bot.send_message(forum.id, "toch", message_thread_id=topic)
    assert sent.message_thread_id == topic


# --- anonymous admins -----------------------------------------------------------------------


async def test_anonymous_admin_posts_as_the_group_but_taps_as_themselves(
    fake_api: FakeBotApi,
) -> None:
    seen: list[Update] = []

    async def play(update: Update, context: Context) -> None:
        seen.append(update)
        assert update.effective_chat is not None
        await update.effective_chat.send_message("Tafel", reply_markup=keyboard("join"))

    async def tap(update: Update, context: Context) -> None:
        seen.append(update)
        assert update.callback_query is not None
        await update.callback_query.answer()

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("klaverjas", play))
    app.add_handler(CallbackQueryHandler(tap))
    anna, bob = fake_api.add_user("Anna"), fake_api.add_user("Bob")
    group = fake_api.add_supergroup("Club", members=[anna, bob], admins=[anna])
    async with run_polling(app, fake_api) as runner:
        posted = await anna.send(group, "/klaverjas", anonymous=True)
        await runner.settle()
        await anna.tap(fake_api.last_message(group), "Ja")
        await runner.settle()
        member = await app.bot.get_chat_member(group.id, GROUP_ANONYMOUS_BOT_ID)
        admins = await app.bot.get_chat_administrators(group.id)

    command, tapped = seen
    assert command.message is not None and command.message.from_user is not None
    sender = command.message.from_user
    assert (sender.id, sender.is_bot, sender.first_name, sender.username) == (
        GROUP_ANONYMOUS_BOT_ID, True, "Group", "GroupAnonymousBot",
    )  # fmt: skip
    assert command.message.sender_chat is not None and command.message.sender_chat.id == group.id
    assert command.effective_sender is not None and command.effective_sender.id == group.id
    assert tapped.callback_query is not None and tapped.callback_query.from_user.id == anna.id
    assert is_anonymous_post(posted) and posted.from_user is anna.record  # the real author
    assert member.status == ChatMemberStatus.LEFT and member.user.id == GROUP_ANONYMOUS_BOT_ID
    listed = {a.user.id: getattr(a, "is_anonymous", None) for a in admins}
    assert listed == {anna.id: True}  # the real admin, no GroupAnonymousBot


async def test_anonymous_posting_is_refused_where_telegram_has_none(fake_api: FakeBotApi) -> None:
    anna, bob = fake_api.add_user("Anna"), fake_api.add_user("Bob")
    basic = fake_api.add_group("Klein", members=[anna, bob], admins=[anna])
    group = fake_api.add_supergroup("Club", members=[anna, bob], admins=[anna])
    with pytest.raises(ValueError, match="supergroups only"):
        await anna.send(basic, "/x", anonymous=True)
    with pytest.raises(ValueError, match="no administrator"):
        await bob.send(group, "/x", anonymous=True)
    fake_api.set_anonymous_admin(group, anna)
    assert group.anonymous_admins == {anna.id}
    fake_api.set_anonymous_admin(group, anna, anonymous=False)
    assert group.anonymous_admins == set()


# --- deleted messages -----------------------------------------------------------------------


async def test_replying_to_a_deleted_command(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    command = await anna.send(group, "/klaverjas")
    fake_api.delete_message_by_user(group, command)

    with pytest.raises(BadRequest, match=r"^Message to be replied not found$"):
        await bot.send_message(group.id, "x", reply_parameters=ReplyParameters(command.message_id))
    with pytest.raises(BadRequest, match=r"^Message to be replied not found$"):
        await bot.send_message(group.id, "x", reply_to_message_id=command.message_id)
    sent = await bot.send_message(
        group.id,
        "toch",
        reply_parameters=ReplyParameters(command.message_id, allow_sending_without_reply=True),
    )
    assert sent.reply_to_message is None
    sent = await bot.send_message(
        group.id, "ook", reply_to_message_id=command.message_id, allow_sending_without_reply=True
    )
    assert sent.reply_to_message is None
    # The raw Bot API style (top-level parameters, not reply_parameters) works the same.
    base = {"chat_id": group.id, "text": "raw", "reply_to_message_id": command.message_id}
    status, body = await raw_call(fake_api, "sendMessage", base)
    assert (status, body["description"]) == (400, "Bad Request: message to be replied not found")
    status, body = await raw_call(
        fake_api, "sendMessage", {**base, "allow_sending_without_reply": "true"}
    )
    assert status == 200 and "reply_to_message" not in body["result"]
    # With reply_parameters, the top-level flag is ignored (as by the Bot API).
    status, body = await raw_call(
        fake_api,
        "sendMessage",
        {
            "chat_id": group.id, "text": "x", "allow_sending_without_reply": "true",
            "reply_parameters": json.dumps({"message_id": command.message_id}),
        },
    )  # fmt: skip
    assert status == 400


async def test_editing_deleting_and_tapping_a_deleted_message(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna], admins=[anna])
    sent = await bot.send_message(group.id, "Tafel", reply_markup=keyboard("join"))
    table = fake_api.last_message(group)
    fake_api.delete_message_by_user(group, table, by=anna)  # an admin removes it

    with pytest.raises(BadRequest, match=r"^Message to edit not found$"):
        await bot.edit_message_text("x", group.id, sent.message_id)
    with pytest.raises(BadRequest, match=r"^Message to edit not found$"):
        await bot.edit_message_reply_markup(group.id, sent.message_id)
    with pytest.raises(BadRequest, match=r"^Message to delete not found$"):
        await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(LookupError, match="deleted"):
        await anna.tap(table, "Ja")
    with pytest.raises(LookupError, match="deleted"):
        await anna.tap_data(table, "join")
    bob = fake_api.add_user("Bob")
    await bob.join(group)
    said = await anna.send(group, "hoi")
    with pytest.raises(ValueError, match="may not delete"):
        fake_api.delete_message_by_user(group, said, by=bob)
    fake_api.delete_message_by_user(group, said)
    with pytest.raises(ValueError, match="already deleted"):
        fake_api.delete_message_by_user(group, said)


# --- blocked and never-started users --------------------------------------------------------


async def test_blocking_mid_game_and_starting_again(fake_api: FakeBotApi) -> None:
    failures: list[str] = []
    member_changes: list[str] = []

    async def deal(update: Update, context: Context) -> None:
        for user_id in context.bot_data.setdefault("players", []):
            try:
                await context.bot.send_message(user_id, "Je kaarten")
            except Forbidden as exc:
                failures.append(exc.message)

    async def join(update: Update, context: Context) -> None:
        assert update.effective_user is not None
        context.bot_data.setdefault("players", []).append(update.effective_user.id)
        await context.bot.send_message(update.effective_user.id, "Welkom")

    async def changed(update: Update, context: Context) -> None:
        assert update.my_chat_member is not None
        member_changes.append(update.my_chat_member.new_chat_member.status)

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("deal", deal))
    app.add_handler(CommandHandler("start", join))
    app.add_handler(ChatMemberHandler(changed, ChatMemberHandler.MY_CHAT_MEMBER))
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    async with run_polling(app, fake_api) as runner:
        await anna.start_bot()
        await runner.settle()
        await anna.send(group, "/deal")
        await runner.settle()
        anna.block_bot()  # mid-game
        await anna.send(group, "/deal")  # blocking the bot does not silence her in groups
        await runner.settle()
        await anna.start_bot()  # unblocks and starts again
        await runner.settle()
        await anna.send(group, "/deal")
        await runner.settle()

    assert failures == ["Forbidden: bot was blocked by the user"]
    assert member_changes == ["kicked", "member"]
    assert [m.text for m in anna.private_chat.bot_messages] == [
        "Welkom", "Je kaarten", "Welkom", "Je kaarten", "Je kaarten",
    ]  # fmt: skip
    assert [u.kind for u in fake_api.updates.confirmed][-3:] == [
        "my_chat_member", "message", "message",
    ]  # fmt: skip


async def test_edits_to_a_blocked_users_chat_are_forbidden(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bob = fake_api.add_user("Bob")  # never started
    hand = await bot.send_message(anna.id, "Hand", reply_markup=keyboard("p"))
    anna.block_bot()
    with pytest.raises(Forbidden, match=r"^Forbidden: bot was blocked by the user$"):
        await bot.edit_message_text("Nieuwe hand", anna.id, hand.message_id)
    with pytest.raises(Forbidden, match=r"^Forbidden: bot was blocked by the user$"):
        await bot.send_message(anna.id, "x")
    with pytest.raises(Forbidden, match=r"^Forbidden: bot can't initiate conversation"):
        await bot.send_message(bob.id, "x")
    bob.block_bot()  # blocking before ever starting: "blocked" wins, as on Telegram
    with pytest.raises(Forbidden, match=r"^Forbidden: bot was blocked by the user$"):
        await bot.send_message(bob.id, "x")
    with pytest.raises(ValueError, match="blocked the bot"):
        await anna.send(None, "hallo")


# --- the per-group rate limit ---------------------------------------------------------------


async def test_the_group_limit_is_a_sliding_minute_over_sends_and_edits() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, Bot(api.token, base_url=api.base_url) as bot:
        group = api.add_group("Tafel", members=[api.add_user("Anna")])
        api.enable_rate_limits(RateLimits(group_per_minute=20, global_per_second=None))
        first = await bot.send_message(group.id, "0")
        for n in range(1, 10):  # a burst at one instant: 10 sends and 10 edits
            await bot.send_message(group.id, str(n))
        for n in range(10):
            await bot.edit_message_text(f"e{n}", group.id, first.message_id)
        clock.advance(3)
        with pytest.raises(RetryAfter) as caught:
            await bot.send_message(group.id, "21e")
        assert caught.value.retry_after == dtm.timedelta(seconds=57)
        clock.advance(56.5)  # 59.5 s after the burst: still inside the window
        with pytest.raises(RetryAfter) as caught:
            await bot.edit_message_text("x", group.id, first.message_id)
        assert caught.value.retry_after == dtm.timedelta(seconds=1)
        clock.advance(0.5)  # the whole burst left the window at once
        for n in range(20):
            await bot.send_message(group.id, f"na {n}")
        with pytest.raises(RetryAfter):
            await bot.send_message(group.id, "te veel")
        assert api.calls.max_in_window(group.id, 60) == 20


async def test_the_window_slides_it_does_not_reset_each_minute() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, Bot(api.token, base_url=api.base_url) as bot:
        group = api.add_group("Tafel", members=[api.add_user("Anna")])
        api.enable_rate_limits(RateLimits(group_per_minute=20, global_per_second=None))
        for n in range(10):
            await bot.send_message(group.id, f"a{n}")
        clock.advance(30)
        for n in range(10):
            await bot.send_message(group.id, f"b{n}")
        clock.advance(31)  # 61 s: the first ten have left, the last ten have not
        for n in range(10):
            await bot.send_message(group.id, f"c{n}")
        with pytest.raises(RetryAfter) as caught:
            await bot.send_message(group.id, "te veel")
        assert caught.value.retry_after == dtm.timedelta(seconds=29)


async def test_private_chats_allow_one_message_per_second() -> None:
    clock = ManualClock()
    async with FakeBotApi(clock=clock) as api, Bot(api.token, base_url=api.base_url) as bot:
        anna = api.add_user("Anna", started=True)
        api.enable_rate_limits(RateLimits(private_per_second=1, global_per_second=None))
        await bot.send_message(anna.id, "1")
        with pytest.raises(RetryAfter):
            await bot.send_message(anna.id, "2")
        clock.advance(1)
        await bot.send_message(anna.id, "2")
        assert [m.text for m in anna.private_chat.bot_messages] == ["1", "2"]


async def test_messages_handler_sees_topic_and_anonymous_flags(fake_api: FakeBotApi) -> None:
    texts: list[tuple[str, int | None, bool]] = []

    async def record(update: Update, context: Context) -> None:
        message = update.effective_message
        assert message is not None and message.text is not None
        texts.append((message.text, message.message_thread_id, message.sender_chat is not None))

    fake_api.privacy_mode = False
    app = application_builder(fake_api).build()
    app.add_handler(MessageHandler(filters.TEXT, record))
    anna = fake_api.add_user("Anna")
    forum = fake_api.add_forum("Club", members=[anna], admins=[anna])
    topic = fake_api.add_topic(forum, "Klaveren")
    async with run_polling(app, fake_api) as runner:
        await anna.send(forum, "anoniem in topic", thread_id=topic, anonymous=True)
        await anna.send(forum, "gewoon")
        await runner.settle()
    assert texts == [("anoniem in topic", topic, True), ("gewoon", None, False)]
