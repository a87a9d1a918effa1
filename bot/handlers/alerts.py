"""A fourth wanted (:mod:`bot.service.alerts`): ``/notify`` and the lobby's 🔔 switch a
member's wish to hear of tables in the group; a group lobby that opens with empty seats sends
those members one private message with a join button (:func:`announce_lobby`), and its 🔕 turns
the wish off. Only members of the group are told (asked of Telegram just before), at most once
an hour each, never the lobby's own players."""

from __future__ import annotations

import contextlib
import logging

from telegram import Bot, Message, Update
from telegram.constants import ChatType

from bot.context import BotData, Context, translator_for
from bot.handlers.common import answer_query, remember_user, reply, sender
from bot.i18n import Translator, get_translator
from bot.outbox import Content
from bot.outcome import Refusal
from bot.render.alerts import (
    alerts_in_private,
    alerts_need_private_chat,
    alerts_off_done,
    alerts_toggled,
    table_needs_player,
)
from bot.render.common import Rendered
from bot.render.lobby import deep_link_keyboard
from bot.render.reasons import ALERT_LIMIT, refusal_text
from bot.tables import Table
from bot.taps import AlertsOff, DeepLink
from bot.telegram_io import content

log = logging.getLogger(__name__)


async def cmd_notify(update: Update, context: Context) -> None:
    """``/notify`` in a group: switch the sender's wish to hear (in private) of tables there
    that need a player. In a private chat it says where to send it."""
    chat, who = update.effective_chat, sender(update)
    if chat is None or who is None:
        return
    await remember_user(update, context)
    tr = await translator_for(update, context)
    if chat.type == ChatType.PRIVATE:
        reply(update, context, alerts_in_private(tr))
        return
    if who.anonymous or who.channel:
        reply(update, context, refusal_text(tr, Refusal.CHANNEL_CANNOT_PLAY))
        return
    data = context.app_data
    on = await data.service.alerts.toggle_table_alert(chat.id, who.user_id, (chat.type, chat.title))
    text = alerts_toggled(tr, on)
    if on and not await data.service.people.can_message(who.user_id):
        url = data.presenter.start_link("notify")
        reply(
            update,
            context,
            Rendered(text + "\n" + alerts_need_private_chat(tr), deep_link_keyboard(tr, url)),
        )
        return
    reply(update, context, text)


async def on_bell(update: Update, context: Context, table: Table | None, tr: Translator) -> None:
    """The lobby's 🔔 (the caller checked that it was tapped in the table's own chat)."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    answer: str
    alert = True
    if table is None or table.is_private:
        answer = refusal_text(tr, Refusal.GAME_NOT_FOUND)
    elif not await data.members.is_member(context.bot, table.row.chat_id, query.from_user.id):
        answer = refusal_text(tr, Refusal.NOT_A_MEMBER)
    else:
        on = await data.service.alerts.toggle_table_alert(table.row.chat_id, query.from_user.id)
        answer, alert = alerts_toggled(tr, on), False
    await _answer(context, update, answer[:ALERT_LIMIT], alert)


async def on_alerts_off(update: Update, context: Context, tap: AlertsOff, tr: Translator) -> None:
    """The 🔕 under a "a fourth wanted" message: only in the tapper's own private chat."""
    query = update.callback_query
    assert query is not None
    message = query.message
    if not isinstance(message, Message) or message.chat.id != query.from_user.id:
        await _answer(context, update, refusal_text(tr, Refusal.WRONG_CHAT), True)
        return
    await context.app_data.service.alerts.set_table_alert(tap.chat_id, query.from_user.id, False)
    await _answer(context, update, alerts_off_done(tr)[:ALERT_LIMIT], False)
    with contextlib.suppress(Exception):  # the message keeps its text, loses its buttons
        text = message.text_html or ""
        if text:
            context.app_data.presenter.outbox.edit(
                message.chat.id, message.message_id, Content(text)
            )


async def _answer(context: Context, update: Update, text: str, alert: bool) -> None:
    query = update.callback_query
    assert query is not None
    await answer_query(context, query, text, alert=alert)


async def announce_lobby(data: BotData, bot: Bot, game_id: int) -> int:
    """Tell those who asked that the group lobby ``game_id`` needs players: one private
    message each with a join button (the first free seat) and a 🔕; only to current members
    of the group, at most once an hour each (claimed in storage). Returns how many were
    sent; never raises (logged)."""
    sent = 0
    try:
        call = await data.service.alerts.lobby_call(game_id)
        if call is None:
            return 0
        for user_id, language in call.people:
            if not await data.members.is_member(bot, call.chat_id, user_id):
                continue
            if not await data.service.alerts.claim_alert(user_id):
                continue
            tr = get_translator(language)
            url = data.presenter.deep_link(DeepLink("j", call.link, call.free[0]))
            shown = table_needs_player(tr, call.title, len(call.free), url, call.chat_id)
            data.presenter.outbox.post(user_id, content(shown))
            sent += 1
    except Exception:
        log.exception("telling of the lobby of game %s failed", game_id)
    return sent
