"""The fake Bot API answers python-telegram-bot like Telegram does, over real HTTP."""

from __future__ import annotations

import asyncio
import datetime as dtm

import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    ChatMemberRestricted,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MessageEntity,
    Update,
)
from telegram.constants import ChatMemberStatus
from telegram.error import (
    BadRequest,
    ChatMigrated,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    RetryAfter,
)
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fakebot import (
    FakeBotApi,
    ManualClock,
    RateLimits,
    WaitTimeoutError,
    application_builder,
    run_polling,
)
from tests.fakebot.photos import tiny_png

Context = ContextTypes.DEFAULT_TYPE


def keyboard(*pairs: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=d) for t, d in pairs]])


def echo_app(api: FakeBotApi) -> Application:  # type: ignore[type-arg]
    """A tiny bot: /echo repeats, /start shows its payload, /menu shows a keyboard."""

    async def echo(update: Update, context: Context) -> None:
        assert update.effective_chat is not None
        await update.effective_chat.send_message(" ".join(context.args or []) or "(leeg)")

    async def start(update: Update, context: Context) -> None:
        assert update.effective_chat is not None
        await update.effective_chat.send_message(f"start: {context.args}")

    async def menu(update: Update, context: Context) -> None:
        assert update.effective_chat is not None
        await update.effective_chat.send_message("Kies", reply_markup=keyboard(("Ja", "yes")))

    app = application_builder(api).build()
    app.add_handler(CommandHandler("echo", echo))
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("menu", menu))
    return app


async def test_command_is_handled_over_real_http(fake_api: FakeBotApi) -> None:
    anna = fake_api.add_user("Anna", language_code="nl")
    group = fake_api.add_group("Tafel 1", members=[anna])
    async with run_polling(echo_app(fake_api), fake_api) as runner:
        await anna.send(group, "/echo hallo")
        await anna.send(group, "/echo@klaverjas_test_bot dag")
        await anna.send(group, "/echo@some_other_bot nee")  # not for us
        await anna.send(group, "gewoon praten")  # privacy mode: the bot does not see it
        await anna.start_bot(payload="g42")
        await runner.settle()

    assert [m.text for m in group.bot_messages] == ["hallo", "dag"]
    assert fake_api.last_message(anna.private_chat).text == "start: ['g42']"
    assert [u.kind for u in fake_api.updates.confirmed] == ["message"] * 3
    assert fake_api.calls.methods()[:2] == ["getMe", "deleteWebhook"]
    assert not fake_api.calls.errors()
    assert not fake_api.unknown_methods


async def test_tap_is_answered_once_and_a_second_answer_is_refused(fake_api: FakeBotApi) -> None:
    second_answers: list[Exception] = []

    async def on_tap(update: Update, context: Context) -> None:
        query = update.callback_query
        assert query is not None
        if query.data == "ignore":
            return
        await query.answer(f"gekozen: {query.data}")
        try:
            await query.answer("nog eens")
        except BadRequest as exc:
            second_answers.append(exc)

    app = echo_app(fake_api)
    app.add_handler(CallbackQueryHandler(on_tap))
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    async with run_polling(app, fake_api) as runner:
        await anna.send(group, "/menu")
        await runner.settle()
        menu = fake_api.last_message(group)
        assert menu.keyboard_rows() == [[("Ja", "yes")]]
        tap = await anna.tap(menu, "Ja")
        forged = await anna.tap_data(menu, "ignore")
        await runner.settle()

    assert tap.answered and tap.text == "gekozen: yes" and not tap.show_alert
    assert [str(e) for e in second_answers] == [
        "Query is too old and response timeout expired or query id is invalid"
    ]
    assert fake_api.unanswered_callback_queries() == [forged.query]
    with pytest.raises(AssertionError, match="answered more than once"):
        fake_api.assert_callbacks_answered_once()


async def test_private_message_needs_a_user_who_started_the_bot(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    bob = fake_api.add_user("Bob")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(bob.id, "Je kaarten")

    await bob.start_bot()
    await bot.send_message(bob.id, "Je kaarten")

    bob.block_bot()
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(bob.id, "Je kaarten")
    assert [u.kind for u in fake_api.updates.pending] == ["message", "my_chat_member"]
    assert fake_api.calls[-1].status == 403


async def test_edit_that_changes_nothing_is_a_bad_request(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    sent = await bot.send_message(group.id, "Slag 1", reply_markup=keyboard(("JH", "p:JH")))

    with pytest.raises(BadRequest, match=r"^Message is not modified: specified new message"):
        await bot.edit_message_text(
            "Slag 1", group.id, sent.message_id, reply_markup=keyboard(("JH", "p:JH"))
        )
    # Telegram drops the keyboard when an edit does not repeat it.
    await bot.edit_message_text("Slag 1", group.id, sent.message_id)
    stored = fake_api.last_message(group)
    assert stored.keyboard == [] and stored.edited
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(group.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", group.id, 999)
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(-42, "x")


async def test_injected_flood_raises_retry_after(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    fake_api.inject_flood(chat_id=group.id, retry_after=3, count=1)

    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(group.id, "te snel")
    assert caught.value.retry_after == dtm.timedelta(seconds=3)
    await bot.send_message(group.id, "weer goed")
    assert [(c.status, c.description) for c in fake_api.calls.filter("sendMessage")] == [
        (429, "Too Many Requests: retry after 3"),
        (200, None),
    ]


async def test_rate_model_allows_20_group_messages_per_minute() -> None:
    clock = ManualClock()
    async with (
        FakeBotApi(clock=clock) as api,
        Bot(api.token, base_url=api.base_url) as bot,
    ):
        group = api.add_group("Tafel", members=[api.add_user("Anna")])
        api.enable_rate_limits(RateLimits(group_per_minute=20, global_per_second=None))
        sent = await bot.send_message(group.id, "0")
        for n in range(1, 20):
            clock.advance(1)
            await bot.edit_message_text(str(n), group.id, sent.message_id)
        with pytest.raises(RetryAfter) as caught:
            await bot.send_message(group.id, "21e")
        assert caught.value.retry_after == dtm.timedelta(seconds=41)
        clock.advance(41)
        await bot.send_message(group.id, "weer goed")
        assert api.calls.max_in_window(group.id, 60) == 20


async def test_migrated_group_raises_chat_migrated(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna], admins=[anna])
    old = await bot.send_message(group.id, "tafel")
    supergroup = fake_api.migrate_group(group)

    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(group.id, "x")
    assert caught.value.new_chat_id == supergroup.id
    with pytest.raises(ChatMigrated):
        await bot.edit_message_text("y", group.id, old.message_id)
    await bot.send_message(supergroup.id, "verder")
    service = [u.payload for u in fake_api.updates.pending]
    assert service[0]["migrate_to_chat_id"] == supergroup.id
    assert service[1]["migrate_from_chat_id"] == group.id
    assert supergroup.type == "supergroup" and supergroup.members == group.members


async def test_callback_data_longer_than_64_bytes_is_refused(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    await bot.send_message(group.id, "ok", reply_markup=keyboard(("a", "é" * 32)))  # 64 bytes
    for data in ("x" * 65, "é" * 33):
        with pytest.raises(BadRequest, match=r"^Button_data_invalid$"):
            await bot.send_message(group.id, "te lang", reply_markup=keyboard(("a", data)))


async def test_text_longer_than_4096_is_refused(fake_api: FakeBotApi, bot: Bot) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    await bot.send_message(group.id, "a" * 4096)
    await bot.send_message(group.id, f"<b>{'a' * 4096}</b>", parse_mode="HTML")
    await bot.send_message(group.id, "&lt;" * 4096, parse_mode="HTML")
    for text in ("a" * 4097, "😀" * 2049):  # the emoji count twice (UTF-16)
        with pytest.raises(BadRequest, match=r"^Message is too long$"):
            await bot.send_message(group.id, text)


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("regel<br>regel", 'Unsupported start tag "br" at byte offset 5'),
        ("10 < 20", 'Unsupported start tag "" at byte offset 3'),
        ("<b>vet", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b>vet</i>", 'Unmatched end tag at byte offset 6, expected "</b>", found "</i>"'),
        ('<span class="x">y</span>', 'Tag "span" must have class "tg-spoiler"'),
        ("Tom & Jerry", 'Character "&" must be escaped'),
    ],
)
async def test_invalid_html_is_refused(
    fake_api: FakeBotApi, bot: Bot, html: str, error: str
) -> None:
    group = fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])
    with pytest.raises(BadRequest, match=r"^Can't parse entities: "):
        await bot.send_message(group.id, html, parse_mode="HTML")
    description = fake_api.calls[-1].description or ""
    assert description.startswith("Bad Request: can't parse entities: ")
    assert error in description


async def test_valid_html_is_accepted_with_entities(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    html = (
        f'<b>Troef</b>: <i>harten</i> &amp; <a href="tg://user?id={anna.id}">Anna</a> '
        "<tg-spoiler>geheim</tg-spoiler>\n<blockquote expandable>9 &#9829;</blockquote>"
    )
    sent = await bot.send_message(group.id, html, parse_mode="HTML")

    assert sent.text == "Troef: harten & Anna geheim\n9 ♥"
    assert [(e.type, e.offset, e.length) for e in sent.entities] == [
        (MessageEntity.BOLD, 0, 5),
        (MessageEntity.ITALIC, 7, 6),
        (MessageEntity.TEXT_MENTION, 16, 4),
        (MessageEntity.SPOILER, 21, 6),
        (MessageEntity.EXPANDABLE_BLOCKQUOTE, 28, 3),
    ]
    assert sent.entities[2].user is not None and sent.entities[2].user.id == anna.id
    assert fake_api.last_message(group).source_text == html


async def test_commands_are_stored_per_scope_and_language(fake_api: FakeBotApi) -> None:
    async def post_init(app: Application) -> None:  # type: ignore[type-arg]
        await app.bot.set_my_commands([BotCommand("play", "Play a game")])
        await app.bot.set_my_commands([BotCommand("spelen", "Speel")], language_code="nl")
        await app.bot.set_my_commands(
            [BotCommand("klaverjas", "Nieuw spel")],
            scope=BotCommandScopeAllGroupChats(),
            language_code="nl",
        )

    app = application_builder(fake_api).post_init(post_init).build()
    anna = fake_api.add_user("Anna", language_code="nl-BE")
    pierre = fake_api.add_user("Pierre", language_code="fr")
    group = fake_api.add_group("Tafel", members=[anna, pierre])
    async with run_polling(app, fake_api):
        stored = await app.bot.get_my_commands(language_code="nl")

    assert [c.command for c in stored] == ["spelen"]
    assert fake_api.commands.get(None, "") == [{"command": "play", "description": "Play a game"}]
    assert fake_api.commands.visible(anna.record, anna.private_chat) == [("spelen", "Speel")]
    assert fake_api.commands.visible(anna.record, group) == [("klaverjas", "Nieuw spel")]
    assert fake_api.commands.visible(pierre.record, group) == [("play", "Play a game")]


async def test_wait_for_and_settle_follow_background_work(fake_api: FakeBotApi) -> None:
    release = asyncio.Event()

    async def later(update: Update, context: Context) -> None:
        async def reply() -> None:
            await release.wait()
            assert update.effective_chat is not None
            await update.effective_chat.send_message("klaar")

        context.application.create_task(reply())

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("later", later))
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    async with run_polling(app, fake_api) as runner:
        await anna.send(group, "/later")
        await fake_api.idle()  # the update is fetched; the reply waits for `release`
        assert fake_api.find_messages(group, "klaar") == []
        release.set()
        found = await fake_api.wait_for(lambda: fake_api.find_messages(group, "klaar"))
        assert [m.text for m in found] == ["klaar"]
        await anna.send(group, "/later")
        await runner.settle()  # waits for the create_task task as well
        assert len(fake_api.find_messages(group, "klaar")) == 2


async def test_idle_and_wait_for_give_up_with_the_call_log(fake_api: FakeBotApi) -> None:
    anna = fake_api.add_user("Anna")
    await anna.start_bot()  # nobody polls: the update stays pending
    with pytest.raises(WaitTimeoutError, match="pending updates \\['message'\\]"):
        await fake_api.idle(timeout=0.1)
    with pytest.raises(WaitTimeoutError, match="last calls"):
        await fake_api.wait_for(lambda: fake_api.calls.count("sendMessage"), timeout=0.1)


async def test_long_poll_returns_as_soon_as_an_update_arrives(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna")
    poll = asyncio.create_task(bot.get_updates(timeout=30))
    await fake_api.wait_for(lambda: fake_api.calls.count("getUpdates"))
    await anna.start_bot()
    updates = await asyncio.wait_for(poll, 5)
    assert [u.message.text for u in updates if u.message] == ["/start"]
    # Not confirmed yet: the next call with offset = last id + 1 confirms it.
    assert len(fake_api.updates.pending) == 1
    assert await bot.get_updates(offset=updates[-1].update_id + 1) == ()
    assert fake_api.updates.pending == []


async def test_unknown_method_is_not_found_and_recorded(fake_api: FakeBotApi, bot: Bot) -> None:
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("frobnicate")
    assert fake_api.unknown_methods == ["frobnicate"]
    assert fake_api.calls[-1].status == 404


async def test_wrong_token_is_refused(fake_api: FakeBotApi) -> None:
    with pytest.raises(InvalidToken):
        async with Bot("1:wrong", base_url=fake_api.base_url):
            pass


async def test_chat_queries_parse_in_ptb(fake_api: FakeBotApi, bot: Bot) -> None:
    anna, bob, carl = (fake_api.add_user(n) for n in ("Anna", "Bob", "Carl"))
    group = fake_api.add_supergroup("Tafel", members=[anna, bob], admins=[anna], bot_admin=True)

    chat = await bot.get_chat(group.id)
    assert (chat.title, chat.type) == ("Tafel", "supergroup")
    statuses = [(await bot.get_chat_member(group.id, u.id)).status for u in (anna, bob)]
    assert statuses == [ChatMemberStatus.OWNER, ChatMemberStatus.MEMBER]
    with pytest.raises(BadRequest, match="User not found"):  # never in the group
        await bot.get_chat_member(group.id, carl.id)
    for status in ("left", "kicked", "restricted"):
        group.members[carl.id] = status
        member = await bot.get_chat_member(group.id, carl.id)
        assert member.status == status
    assert isinstance(member, ChatMemberRestricted) and member.is_member
    admins = await bot.get_chat_administrators(group.id)
    assert {a.user.id for a in admins} == {anna.id, fake_api.bot.id}
    assert await bot.send_chat_action(group.id, "typing")
    sent = await bot.send_message(group.id, "tafel")
    assert await bot.pin_chat_message(group.id, sent.message_id)
    assert group.pinned == [sent.message_id] and group.chat_actions == ["typing"]


async def test_delete_follows_telegram_rules(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    said = await anna.send(group, "hoi")
    sent = await bot.send_message(group.id, "tafel")

    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await bot.delete_message(group.id, said.message_id)
    assert await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(group.id, sent.message_id)
    assert group.messages == [said]
    old = await bot.send_message(group.id, "gisteren")
    stored = group.message(old.message_id)
    assert stored is not None
    stored.date -= 48 * 3600  # two days old: too old to delete
    with pytest.raises(BadRequest, match="Message can't be deleted for everyone"):
        await bot.delete_message(group.id, old.message_id)
    assert not stored.deleted


async def test_removed_bot_is_forbidden_and_photos_are_stored(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    png = tiny_png()
    photo = await bot.send_photo(group.id, png, caption="<b>Score</b>", parse_mode="HTML")
    assert photo.caption == "Score" and photo.photo[-1].file_size == len(png)
    await anna.remove_bot(group)
    with pytest.raises(Forbidden, match="bot was kicked from the group chat"):
        await bot.send_message(group.id, "x")
    assert fake_api.updates.pending[-1].payload["new_chat_member"]["status"] == "kicked"


async def test_runner_fails_when_the_bot_logs_an_error(fake_api: FakeBotApi) -> None:
    async def broken(update: Update, context: Context) -> None:
        raise RuntimeError("kapot")

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("kapot", broken))
    anna = fake_api.add_user("Anna")
    with pytest.raises(AssertionError, match="kapot"):
        async with run_polling(app, fake_api) as runner:
            await anna.start_bot()
            await anna.send(None, "/kapot")
            await runner.settle()


async def test_alert_text_is_limited_to_200_characters(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna", started=True)
    sent = await bot.send_message(anna.id, "Kies", reply_markup=keyboard(("Ja", "yes")))
    tap = await anna.tap(fake_api.last_message(anna.private_chat), "Ja")
    assert sent.message_id == tap.query.message_id
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_callback_query(tap.query.id, "x" * 201, show_alert=True)
    assert await bot.answer_callback_query(tap.query.id, "x" * 200, show_alert=True)
    assert tap.show_alert and tap.text == "x" * 200


async def test_allowed_updates_filter_new_updates(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna")
    assert await bot.get_updates(allowed_updates=["message"]) == ()
    await anna.start_bot()
    anna.block_bot()  # my_chat_member: not allowed, so never delivered
    assert [u.kind for u in fake_api.updates.pending] == ["message"]
    assert [u.kind for u in fake_api.updates.dropped] == ["my_chat_member"]


async def test_runner_cancels_background_work_when_the_test_fails(fake_api: FakeBotApi) -> None:
    async def hang(update: Update, context: Context) -> None:
        context.application.create_task(asyncio.Event().wait())

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("hang", hang))
    anna = fake_api.add_user("Anna")
    with pytest.raises(ZeroDivisionError):
        async with run_polling(app, fake_api) as runner:
            await anna.send(None, "/hang")
            await fake_api.idle()
            _ = 1 / 0
    with pytest.raises(AssertionError, match="1 background task"):
        async with run_polling(app, fake_api, shutdown_timeout=0.05) as runner:
            await anna.send(None, "/hang")
            await fake_api.idle()
    assert not runner.app.running
