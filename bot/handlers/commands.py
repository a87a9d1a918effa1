"""Commands: /klaverjas, /start, /score, /stop, /language, /help, /rules; the greeting when the
bot is added to a group; and the service message of a group that became a supergroup.
(``/daily``, ``/top``, ``/stats``: :mod:`bot.handlers.standings`; ``/start daily`` starts the
daily.)

Every reply goes through the outbox (:func:`~bot.handlers.common.reply`): a handler never
waits for a chat's message budget, so one busy group cannot hold up anybody else.
An anonymous group admin is the group itself (:func:`~bot.handlers.common.sender`).
"""

from __future__ import annotations

from telegram import Chat, ChatMemberRestricted, Message, Update
from telegram.constants import ChatType

from bot.context import Context, translator_for
from bot.handlers.alerts import announce_lobby
from bot.handlers.common import is_admin_check, remember_user, reply, sender, thread_of
from bot.handlers.standings import start_daily
from bot.i18n import Translator
from bot.membership import PRESENT
from bot.outcome import Refusal
from bot.render import messages
from bot.render.reasons import refusal_text
from bot.render.rules_text import rules_text
from bot.render.standings import DAILY_LINK
from bot.taps import Target, decode_deep_link, is_old_deep_link
from engine.settings import PRESETS, Settings
from storage import GameStatus


async def cmd_klaverjas(update: Update, context: Context) -> None:
    """Open a table in a group (lobby), in the forum topic where it was asked, or start a
    game alone with three computers in a private chat. A second /klaverjas points to the
    running table; an unknown preset is refused with the list."""
    got = await _prelude(update, context)
    who = sender(update)
    if got is None or who is None:
        return
    chat, _message, tr = got
    data = context.app_data
    if who.channel:
        reply(update, context, refusal_text(tr, Refusal.CHANNEL_CANNOT_PLAY))
        return
    given = context.args[0] if context.args else None
    preset = given.lower() if given else None
    if given is not None and preset not in PRESETS:
        reply(update, context, messages.unknown_preset(tr, given, tuple(PRESETS)))
        return
    out = await data.service.lobby.open_table(
        chat.id, chat.type, chat.title, who.user_id, who.name, preset, thread_id=thread_of(update)
    )
    if out.refusal is Refusal.CHAT_MOVED:  # moved while we were at it
        await moved_away(update, context, tr)
        return
    if out.refusal is Refusal.TABLE_EXISTS and out.game_id is not None:
        table = await data.service.tables.load(out.game_id)
        there = table.row.table_message_id if table is not None else None
        rendered = messages.table_already_open(
            tr, _message_link(chat.id, there), private=chat.type == ChatType.PRIVATE
        )
        reply(update, context, rendered, game_id=out.game_id, to=there)
        return
    if isinstance(out.refusal, Refusal):  # too many open tables
        reply(update, context, refusal_text(tr, out.refusal))
        return
    if chat.type == ChatType.PRIVATE:
        reply(update, context, messages.solo_started(tr), quote=False)
    await data.driver.submit(out)
    if out.lobby and out.game_id is not None:  # a fourth wanted (bot.handlers.alerts)
        context.application.create_task(announce_lobby(data, context.bot, out.game_id))


def _message_link(chat_id: int, message_id: int | None) -> str | None:
    """A t.me link to a message of a supergroup (basic groups have none)."""
    text = str(chat_id)
    if message_id is None or not text.startswith("-100"):
        return None
    return f"https://t.me/c/{text[4:]}/{message_id}"


async def cmd_start(update: Update, context: Context) -> None:
    """``/start [payload]`` in the private chat: ``j<game>_<seat>`` takes a seat; ``h<game>``
    (the lobby's and the table's link) says what the link does for this user; otherwise a
    welcome. Then the player's hands of every running game are sent (again): a player who
    blocked the bot and comes back gets their cards without another step. In a group,
    ``/start`` says how to begin there."""
    got = await _prelude(update, context)
    who = sender(update)
    if got is None or who is None:
        return
    chat, _message, tr = got
    data = context.app_data
    if chat.type != ChatType.PRIVATE:
        reply(update, context, messages.group_start(tr))
        return
    if context.args and context.args[0] == DAILY_LINK:  # the group's /daily button
        await start_daily(update, context, who, tr)
        return
    payload = context.args[0] if context.args else None
    if is_old_deep_link(payload):  # a number names no game any more (guessable)
        reply(update, context, refusal_text(tr, Refusal.OLD_LINK), quote=False)
        await data.presenter.user_back(who.user_id)
        return
    link = decode_deep_link(payload)
    game_id = await data.service.tables.game_of_link(link.token) if link is not None else None
    if link is not None and link.kind == "j":
        await _join(update, context, game_id, link.seat, tr)
        return
    text = messages.welcome(tr, who.name)
    if game_id is not None:
        text = await _about_table(context, game_id, who.user_id, tr) or text
        # the table's "my hand" link: the hand is shown in private from now on
        await data.service.people.set_hand_place(who.user_id, "private")
        await data.presenter.cards_in_private(game_id, who.user_id)
    if text:
        reply(update, context, text, quote=False)
    await data.presenter.user_back(who.user_id)


async def _join(
    update: Update, context: Context, game_id: int | None, seat: int | None, tr: Translator
) -> None:
    """``/start j<token>_<seat>``: take the seat, if the user is a member of the table's
    group (``getChatMember``, :mod:`bot.membership`)."""
    who = sender(update)
    assert who is not None
    data = context.app_data
    table = await data.service.tables.load(game_id) if game_id is not None else None
    if table is None or game_id is None:
        reply(update, context, refusal_text(tr, Refusal.GAME_NOT_FOUND), quote=False)
        return
    member = table.seat_of(who.user_id) is not None or await data.members.is_member(
        context.bot, table.row.chat_id, who.user_id
    )
    if not member:
        reply(update, context, refusal_text(tr, Refusal.NOT_A_MEMBER), quote=False)
        return
    out = await data.service.lobby.join_link(game_id, seat, who.user_id)
    if isinstance(out.refusal, Refusal):
        reply(update, context, refusal_text(tr, out.refusal), quote=False)
        return
    table = await data.service.tables.load(game_id)
    taken = table.seat_of(who.user_id) if table is not None else None
    if table is not None and taken is not None:
        title = (await data.service.tables.view_of(table)).title
        reply(update, context, messages.seated_via_link(tr, taken, title), quote=False)
    await data.driver.submit(out)


async def _about_table(context: Context, game_id: int, user_id: int, tr: Translator) -> str | None:
    """What a table's ``h<token>`` link tells ``user_id``: None for the welcome (no such group
    table, or one of a group the user is no member of: nothing of it is shown), empty for
    nothing (their hand or the offer to take their seat back follows)."""
    data = context.app_data
    table = await data.service.tables.load(game_id)
    if table is None or table.is_private:
        return None
    seat = table.seat_of(user_id)
    played = seat is not None or any(s.former_user_id == user_id for s in table.row.seats)
    if not played and not await data.members.is_member(context.bot, table.row.chat_id, user_id):
        return None
    title = (await data.service.tables.view_of(table)).title
    if table.row.status is GameStatus.LOBBY:
        return messages.private_chat_open(tr, title, seated=seat is not None)
    if not table.is_open:
        return messages.game_finished_notice(tr)
    if played:
        return ""
    return messages.not_dealt_in(tr, title)


async def cmd_score(update: Update, context: Context) -> None:
    """The boompje of this chat's game (the running one, else the last one); in a private
    chat also of the user's games in groups, from their side (Wij/Zij)."""
    got = await _prelude(update, context)
    who = sender(update)
    if got is None or who is None:
        return
    chat, _message, tr = got
    data = context.app_data
    private = chat.type == ChatType.PRIVATE
    tables = await data.service.people.score_tables(chat.id, who.user_id, private)
    if not tables:
        reply(update, context, refusal_text(tr, Refusal.NO_TABLE_HERE))
        return
    for table in tables:
        viewer = table.seat_of(who.user_id) if private else None
        title = (await data.service.tables.view_of(table)).title if private else ""
        answer = await data.presenter.score_message(table, tr, viewer, picture=True, title=title)
        reply(update, context, answer)


async def cmd_stop(update: Update, context: Context) -> None:
    """Ask the creator or an admin to confirm ending the table; the confirmation is valid on
    that message only."""
    got = await _prelude(update, context)
    who = sender(update)
    if got is None or who is None:
        return
    chat, _message, tr = got
    data = context.app_data
    table = await data.service.tables.open_table_of_chat(chat.id)
    if table is None:
        reply(update, context, refusal_text(tr, Refusal.NO_TABLE_HERE))
        return
    if who.channel:
        reply(update, context, refusal_text(tr, Refusal.CHANNEL_CANNOT_PLAY))
        return
    if who.user_id != table.row.creator_id and not await is_admin_check(update, context)():
        reply(update, context, refusal_text(tr, Refusal.CREATOR_OR_ADMIN_ONLY))
        return
    data.presenter.ask_stop(
        table, messages.stop_confirm(tr), thread_of(update), update.effective_message
    )


async def cmd_language(update: Update, context: Context) -> None:
    """Language picker: for the group (admins only) or for the user in private."""
    got = await _prelude(update, context)
    if got is None:
        return
    chat, _message, tr = got
    group = chat.type != ChatType.PRIVATE
    if group and not await is_admin_check(update, context)():
        reply(update, context, refusal_text(tr, Refusal.ADMIN_ONLY))
        return
    rendered = messages.language_prompt(tr, Target.CHAT if group else Target.USER, tr.language)
    reply(update, context, rendered)


async def cmd_help(update: Update, context: Context) -> None:
    """What the commands do."""
    got = await _prelude(update, context)
    if got is not None:
        reply(update, context, messages.help_text(got[2]), quote=False)


async def cmd_rules(update: Update, context: Context) -> None:
    """The rules of this chat's table (or the default preset)."""
    got = await _prelude(update, context)
    if got is None:
        return
    chat, _message, tr = got
    table = await context.app_data.service.tables.open_table_of_chat(chat.id)
    settings = table.settings.rules if table is not None else Settings()
    reply(update, context, rules_text(tr, settings), quote=False)


async def _prelude(update: Update, context: Context) -> tuple[Chat, Message, Translator] | None:
    """What every command needs: the chat, the message and the reader's translator (and the
    sender recorded). None for an update without a chat, message or sender."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or sender(update) is None:
        return None
    await remember_user(update, context)
    tr = await translator_for(update, context)
    if await moved_away(update, context, tr):
        return None
    return chat, message, tr


async def moved_away(update: Update, context: Context, tr: Translator) -> bool:
    """True (and the sender told where the group is now) for an update from the old id of a
    group that became a supergroup: such late updates are not carried out. Only basic groups
    migrate, so only they cost a look-up (storage knows, whichever worker saw the move)."""
    chat = update.effective_chat
    if chat is None or chat.type != ChatType.GROUP:
        return False
    data = context.app_data
    new = await data.service.people.chat_moved(chat.id)
    if new is None:
        return False
    data.presenter.outbox.migrate(chat.id, new)  # this worker may not have heard of it
    row = await data.service.repo.get_chat(new)
    reply(update, context, messages.chat_moved(tr, row.title if row else None), quote=False)
    return True


async def on_migrate(update: Update, context: Context) -> None:
    """A group became a supergroup: Telegram sends two service messages, ``migrate_to`` in
    the old chat and ``migrate_from`` in the new one, which may arrive in either order (or on
    two workers). The first moves the group's games to the new id and draws the table there;
    the second finds nothing left to move."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    if message.migrate_to_chat_id is not None:
        old, new = chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id is not None:
        old, new = message.migrate_from_chat_id, chat.id
    else:
        return
    await follow_migration(context, old, new)


async def follow_migration(context: Context, old_chat_id: int, new_chat_id: int) -> None:
    """Everything this worker remembers of ``old_chat_id`` follows it to ``new_chat_id`` (the
    outbox's waiting calls, surfaces and budget), and the games move in storage, where every
    other worker reads it."""
    data = context.app_data
    outs = await data.service.people.migrate_chat(old_chat_id, new_chat_id)  # storage first: the
    data.presenter.outbox.migrate(old_chat_id, new_chat_id)  # table is recorded after it
    for out in outs:
        await data.driver.submit(out)


async def on_new_members(update: Update, context: Context) -> None:
    """Members joined a group: when the bot itself is among them, greet the group in its
    language with a short how-to (others joining get no message)."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or chat.type == ChatType.PRIVATE:
        return
    for member in message.new_chat_members:
        context.app_data.members.forget(chat.id, member.id)
    if not any(m.id == context.bot.id for m in message.new_chat_members):
        return
    await remember_user(update, context)
    tr = await translator_for(update, context)
    reply(update, context, messages.group_greeting(tr), quote=False)


async def on_member_left(update: Update, context: Context) -> None:
    """A person left a group (or was removed): the ``left_chat_member`` service message, or a
    ``chat_member`` update to ``left``, ``kicked`` or a restricted non-member. Their seat at
    the group's open table goes to a computer player and they are told
    (:meth:`~bot.service.seats.SeatService.member_left`)."""
    chat = update.effective_chat
    if chat is None or chat.type == ChatType.PRIVATE:
        return
    gone: list[int] = []
    message, change = update.effective_message, update.chat_member
    if message is not None and message.left_chat_member is not None:
        gone.append(message.left_chat_member.id)
    if change is not None:
        member = change.new_chat_member
        present = member.status in PRESENT or (
            isinstance(member, ChatMemberRestricted) and member.is_member
        )
        if not present:
            gone.append(member.user.id)
    data = context.app_data
    for user_id in gone:
        data.members.forget(chat.id, user_id)
        out = await data.service.seats.member_left(chat.id, user_id)
        if out is not None:
            await data.driver.submit(out)
