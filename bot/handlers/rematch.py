"""The rematch's buttons (:mod:`bot.service.rematch`): "again" on a finished group game's
final message and "I'm in" on the rematch lobby. The caller checked that the tap came from
the game's own chat (and topic); here the tapper must be a member of that group, and the
service checks the message, the tapper's part in the game and that it happens once. Every
tap is answered exactly once (a refusal as an alert, else a toast)."""

from __future__ import annotations

import logging

from telegram import Message, Update

from bot.context import Context
from bot.handlers.common import answer_query, is_admin_check
from bot.i18n import Translator
from bot.outcome import Outcome, Refusal, refused
from bot.render.reasons import tap_answer
from bot.tables import Table
from bot.taps import Again, Ready, Tap

log = logging.getLogger(__name__)


async def on_rematch_button(
    update: Update,
    context: Context,
    tap: Tap,
    payload: Again | Ready,
    table: Table | None,
    tr: Translator,
) -> None:
    """A tap on "again" or "I'm in" (``table``: the tapped game, None when unknown)."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    message = query.message
    if table is None or not isinstance(message, Message):
        await _answer(update, context, tr, refused(Refusal.GAME_NOT_FOUND))
        return
    user_id, chat_id = query.from_user.id, table.row.chat_id
    if not await data.members.is_member(context.bot, chat_id, user_id):
        await _answer(update, context, tr, refused(Refusal.NOT_A_MEMBER, table.game_id))
        return
    if isinstance(payload, Again):

        async def is_member(uid: int) -> bool:
            return await data.members.is_member(context.bot, chat_id, uid)

        out = await data.service.rematch.rematch(
            tap.game_id,
            tap.version,
            user_id,
            message.message_id,
            is_admin_check(update, context, chat_id),
            is_member,
        )
    else:
        out = await data.service.rematch.rematch_ready(tap.game_id, user_id, message.message_id)
    await _answer(update, context, tr, out)
    if out.ok and out.game_id is not None and (out.lobby or out.started):
        await data.driver.submit(out)


async def _answer(update: Update, context: Context, tr: Translator, out: Outcome) -> None:
    """Answer the callback query once: an alert for a refusal, else the toast."""
    query = update.callback_query
    assert query is not None
    text = tap_answer(tr, out.refusal, out.toast, out.details)
    await answer_query(context, query, text, alert=out.refusal is not None)
