"""Commands: /klaverjas, /start, /score, /stop, /language, /help, /rules; the greeting when the
bot is added to a group; and the service message of a group that became a supergroup."""

from __future__ import annotations

import html

from telegram import Chat, Message, Update
from telegram.constants import ChatType

from bot.context import Context, translator_for
from bot.handlers.common import display_name, is_admin_check, remember_user
from bot.i18n import Translator
from bot.outcome import Refusal
from bot.render import messages
from bot.render.reasons import refusal_text
from bot.render.rules_text import rules_text
from bot.taps import Target, decode_deep_link
from bot.telegram_io import markup
from engine.settings import PRESETS, Settings
from storage import GameStatus


async def cmd_klaverjas(update: Update, context: Context) -> None:
    """Open a table in a group (lobby), or start a game alone with three computers in a
    private chat. A second /klaverjas points to the running table."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None or message is None:
        return
    await remember_user(update, context)
    data = context.app_data
    given = context.args[0] if context.args else None
    preset = given.lower() if given else None
    if given is not None and preset not in PRESETS:
        tr = await translator_for(update, context)
        await data.presenter.messenger.send(
            chat.id,
            messages.unknown_preset(tr, given, tuple(PRESETS)),
            reply_to=message.message_id,
        )
        return
    out = await data.service.open_table(
        chat.id, chat.type, chat.title, user.id, display_name(update), preset
    )
    tr = await translator_for(update, context)
    if out.refusal is Refusal.TABLE_EXISTS and out.game_id is not None:
        table = await data.service.load(out.game_id)
        reply_to = table.row.table_message_id if table is not None else None
        rendered = messages.table_already_open(
            tr, _message_link(chat.id, reply_to), private=chat.type == ChatType.PRIVATE
        )
        await data.presenter.messenger.send(
            chat.id,
            rendered.text,
            markup(rendered.keyboard, out.game_id, 0),
            reply_to=reply_to or message.message_id,
        )
        return
    if chat.type == ChatType.PRIVATE:
        await data.presenter.messenger.send(chat.id, messages.solo_started(tr))
    await data.driver.submit(out)


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
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None or user is None:
        return
    await remember_user(update, context)
    data = context.app_data
    tr = await translator_for(update, context)
    if chat.type != ChatType.PRIVATE:
        reply_to = message.message_id if message is not None else None
        await data.presenter.messenger.send(chat.id, messages.group_start(tr), reply_to=reply_to)
        return
    link = decode_deep_link(context.args[0] if context.args else None)
    if link is not None and link.kind == "j":
        out = await data.service.join_link(link, user.id)
        if isinstance(out.refusal, Refusal):
            await data.presenter.messenger.send(chat.id, refusal_text(tr, out.refusal))
            return
        table = await data.service.load(link.game_id)
        seat = table.seat_of(user.id) if table is not None else None
        if table is not None and seat is not None:
            title = (await data.service.view_of(table)).title
            await data.presenter.messenger.send(chat.id, messages.seated_via_link(tr, seat, title))
        await data.driver.submit(out)
        return
    text = messages.welcome(tr, display_name(update))
    if link is not None:
        text = await _about_table(context, link.game_id, user.id, tr) or text
    if text:
        await data.presenter.messenger.send(chat.id, text)
    await data.presenter.user_back(user.id)


async def _about_table(context: Context, game_id: int, user_id: int, tr: Translator) -> str | None:
    """What a table's ``h<game>`` link tells ``user_id``: None for the welcome (no such group
    table), empty for nothing (their hand or the offer to take their seat back follows)."""
    data = context.app_data
    table = await data.service.load(game_id)
    if table is None or table.is_private:
        return None
    seat = table.seat_of(user_id)
    title = (await data.service.view_of(table)).title
    if table.row.status is GameStatus.LOBBY:
        return messages.private_chat_open(tr, title, seated=seat is not None)
    if not table.is_open:
        return messages.game_finished_notice(tr)
    if seat is not None or any(s.former_user_id == user_id for s in table.row.seats):
        return ""
    return messages.not_dealt_in(tr, title)


async def cmd_score(update: Update, context: Context) -> None:
    """The boompje of this chat's game (the running one, else the last one); in a private
    chat also of the user's games in groups, from their side (Wij/Zij)."""
    got = await _prelude(update, context)
    if got is None:
        return
    chat, message, tr = got
    user = update.effective_user
    data = context.app_data
    private = chat.type == ChatType.PRIVATE
    tables = await data.service.score_tables(chat.id, user.id if user else None, private)
    if not tables:
        await message.reply_text(refusal_text(tr, Refusal.NO_TABLE_HERE))
        return
    for table in tables:
        viewer = table.seat_of(user.id) if user is not None and private else None
        text = data.presenter.score(table, tr, viewer)
        title = (await data.service.view_of(table)).title
        if private and title:
            text = f"<b>{html.escape(title)}</b>\n{text}"
        await data.presenter.messenger.send(chat.id, text, reply_to=message.message_id)


async def cmd_stop(update: Update, context: Context) -> None:
    """Ask the creator or an admin to confirm ending the table."""
    got = await _prelude(update, context)
    user = update.effective_user
    if got is None or user is None:
        return
    chat, message, tr = got
    data = context.app_data
    table = await data.service.open_table_of_chat(chat.id)
    if table is None:
        await message.reply_text(refusal_text(tr, Refusal.NO_TABLE_HERE))
        return
    if user.id != table.row.creator_id and not await is_admin_check(update, context)():
        await message.reply_text(refusal_text(tr, Refusal.CREATOR_OR_ADMIN_ONLY))
        return
    rendered = messages.stop_confirm(tr)
    await data.presenter.messenger.send(
        chat.id,
        rendered.text,
        markup(rendered.keyboard, table.game_id, table.version),
        reply_to=message.message_id,
    )


async def cmd_language(update: Update, context: Context) -> None:
    """Language picker: for the group (admins only) or for the user in private."""
    got = await _prelude(update, context)
    if got is None:
        return
    chat, message, tr = got
    group = chat.type != ChatType.PRIVATE
    if group and not await is_admin_check(update, context)():
        await message.reply_text(refusal_text(tr, Refusal.ADMIN_ONLY))
        return
    rendered = messages.language_prompt(tr, Target.CHAT if group else Target.USER, tr.language)
    await context.app_data.presenter.messenger.send(
        chat.id, rendered.text, markup(rendered.keyboard, 0, 0), reply_to=message.message_id
    )


async def cmd_help(update: Update, context: Context) -> None:
    """What the commands do."""
    got = await _prelude(update, context)
    if got is None:
        return
    chat, _message, tr = got
    await context.app_data.presenter.messenger.send(chat.id, messages.help_text(tr))


async def cmd_rules(update: Update, context: Context) -> None:
    """The rules of this chat's table (or the default preset)."""
    got = await _prelude(update, context)
    if got is None:
        return
    chat, _message, tr = got
    table = await context.app_data.service.open_table_of_chat(chat.id)
    settings = table.settings.rules if table is not None else Settings()
    await context.app_data.presenter.messenger.send(chat.id, rules_text(tr, settings))


async def _prelude(update: Update, context: Context) -> tuple[Chat, Message, Translator] | None:
    """What every command needs: the chat, the message and the reader's translator (and the
    user recorded). None for an update without a chat or message."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None:
        return None
    await remember_user(update, context)
    return chat, message, await translator_for(update, context)


async def on_migrate(update: Update, context: Context) -> None:
    """A group became a supergroup: move its games to the new chat id and draw the table
    there."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or message.migrate_to_chat_id is None or chat is None:
        return
    data = context.app_data
    data.presenter.messenger.migrated[chat.id] = message.migrate_to_chat_id
    await data.driver.submit(await data.service.migrate_chat(chat.id, message.migrate_to_chat_id))


async def on_new_members(update: Update, context: Context) -> None:
    """Members joined a group: when the bot itself is among them, greet the group in its
    language with a short how-to (others joining get no message)."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or chat.type == ChatType.PRIVATE:
        return
    if not any(m.id == context.bot.id for m in message.new_chat_members):
        return
    await remember_user(update, context)
    tr = await translator_for(update, context)
    await context.app_data.presenter.messenger.send(chat.id, messages.group_greeting(tr))
