"""Callback queries (button taps): parse, call one service method, answer exactly once, then
let the presenter sync Telegram. Stale, forged or foreign taps get a short translated alert
and change nothing."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence

from telegram import Message, Update
from telegram.error import TelegramError

from bot.callbacks import GameCallback, LanguageCallback, MalformedCallback, decode
from bot.context import Context, translator_for
from bot.handlers.common import is_admin_check, remember_user
from bot.i18n import LANGUAGES, Translator, get_translator
from bot.outcome import Outcome, refused
from bot.render import messages
from bot.render.common import Player
from bot.render.reasons import ALERT_LIMIT, Refusal, explain, refusal_text
from bot.telegram_io import markup
from engine.cards import Seat

log = logging.getLogger(__name__)

BOT_REFUSALS = frozenset(r.value for r in Refusal)


async def on_button(update: Update, context: Context) -> None:
    """Every callback query of the bot."""
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    data = context.app_data
    await remember_user(update, context)
    tr = await translator_for(update, context, private=True)
    try:
        parsed = decode(query.data)
    except MalformedCallback:
        await _answer(update, context, tr, refused(Refusal.MALFORMED.value))
        return
    if isinstance(parsed, LanguageCallback):
        await _language(update, context, parsed, tr)
        return
    user_id = query.from_user.id
    service = data.service
    out: Outcome
    if parsed.scope == "l":
        if parsed.action.startswith("sit:"):
            await _probe_private_chat(update, context)
        out = await service.lobby_action(
            parsed.game_id,
            parsed.version,
            user_id,
            parsed.action,
            is_admin_check(update, context),
        )
    elif parsed.scope == "a" and parsed.action in ("handover", "handover:no"):
        await _handover_prompt(update, context, parsed, tr)
        return
    elif parsed.scope == "a" and parsed.action == "handover:yes":
        out = await service.handover(parsed.game_id, user_id)
    elif parsed.scope == "a" and parsed.action.startswith("reclaim:"):
        out = await service.reclaim(parsed.game_id, parsed.version, user_id, parsed.action)
    elif parsed.scope == "a":
        out = await service.act(parsed.game_id, parsed.version, user_id, parsed.action)
    elif parsed.scope == "s":
        await _stop(update, context, parsed, tr)
        return
    else:  # "t": table-message buttons carry only links today
        out = refused(Refusal.MALFORMED.value)
    await _answer(update, context, tr, out, await _players(context, out))
    if out.refusal == Refusal.STALE_BUTTON.value and out.acted and out.game_id is not None:
        table = await service.load(out.game_id)
        seat = table.seat_of(user_id) if table is not None else None
        if table is not None and seat is not None:
            await data.presenter.hand_hidden(table, seat, user_id)
        return
    if out.ok or out.lobby:
        await data.driver.submit(out)


async def _players(context: Context, out: Outcome) -> Sequence[Player] | None:
    """The table's players, to name them in a rule refusal ("Anna is to play")."""
    if out.refusal is None or out.refusal in BOT_REFUSALS or out.game_id is None:
        return None
    table = await context.app_data.service.load(out.game_id)
    return table.players() if table is not None else None


async def _probe_private_chat(update: Update, context: Context) -> None:
    """A user taking a seat must receive their cards in private. If we have not heard from
    them there yet, greet them: when Telegram lets it through they have started the bot
    before; when it refuses (403) the seat button answers with a deep link instead."""
    user = update.effective_user
    assert user is not None
    data = context.app_data
    row = await data.service.repo.get_user(user.id)
    if row is not None and row.can_message:
        return
    tr = await translator_for(update, context, private=True)
    if await data.presenter.messenger.send(user.id, messages.welcome(tr, user.full_name)):
        await data.service.user_started(user.id)


async def _answer(
    update: Update,
    context: Context,
    tr: Translator,
    out: Outcome,
    players: Sequence[Player] | None = None,
) -> None:
    """Answer the callback query exactly once: an alert for a refusal, a toast or a deep link
    otherwise."""
    query = update.callback_query
    assert query is not None
    text: str | None = None
    alert = False
    if out.refusal is not None:
        alert = True
        if out.refusal in BOT_REFUSALS:
            text = refusal_text(tr, out.refusal)
        else:
            text = explain(tr, out.refusal, out.details, players)
    elif out.toast == "seated":
        text = messages.ack_seated(tr, Seat(out.details.get("seat", 0)))
    elif out.toast == "left":
        text = messages.ack_left(tr)
    elif out.toast == "already_seated":
        text = refusal_text(tr, Refusal.ALREADY_SEATED)
    elif out.toast == "reclaimed":
        text = messages.ack_reclaimed(tr)
    context.app_data.mark_answered(query.id)
    try:
        if out.url:
            await query.answer(url=context.app_data.presenter.start_link(out.url))
        else:
            await query.answer(text[:ALERT_LIMIT] if text else None, show_alert=alert)
    except TelegramError as exc:
        log.info("answering callback failed: %s", exc)


async def _handover_prompt(
    update: Update, context: Context, parsed: GameCallback, tr: Translator
) -> None:
    """The two-step "let the computer play for me", only in the player's own hand message."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    table = await data.service.load(parsed.game_id)
    seat = table.seat_of(query.from_user.id) if table is not None else None
    hand = table.row.seats[seat].hand_message if table is not None and seat is not None else None
    message = query.message
    if (
        table is None
        or seat is None
        or hand is None
        or not isinstance(message, Message)
        or (message.chat.id, message.message_id) != (hand.chat_id, hand.message_id)
    ):
        await _answer(update, context, tr, refused(Refusal.NOT_YOUR_HAND.value))
        return
    await _answer(update, context, tr, Outcome(game_id=table.game_id))
    if parsed.action == "handover":
        rendered = messages.handover_confirm(tr)
        await data.presenter.messenger.edit(
            hand.chat_id,
            hand.message_id,
            rendered.text,
            markup(rendered.keyboard, "a", table.game_id, table.version),
        )
    else:
        await data.presenter.hand_hidden(table, seat, query.from_user.id)


async def _stop(update: Update, context: Context, parsed: GameCallback, tr: Translator) -> None:
    """The /stop confirmation: only the creator or an admin may answer it, and only on the
    confirmation message itself (never on the table)."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    table = await data.service.load(parsed.game_id)
    message = query.message
    if (
        table is None
        or not isinstance(message, Message)
        or message.chat.id != table.row.chat_id
        or message.message_id == table.row.table_message_id
        or parsed.action not in ("stop:yes", "stop:no")
    ):
        await _answer(update, context, tr, refused(Refusal.MALFORMED.value))
        return
    is_admin = is_admin_check(update, context)
    if query.from_user.id != table.row.creator_id and not await is_admin():
        await _answer(update, context, tr, refused(Refusal.CREATOR_OR_ADMIN_ONLY.value))
        return
    out = Outcome(game_id=table.game_id)
    if parsed.action == "stop:yes":
        out = await data.service.stop(parsed.game_id, query.from_user.id, is_admin)
    await _answer(update, context, tr, out)
    if out.ok:
        with contextlib.suppress(TelegramError):
            await message.delete()
        if out.stopped:
            await data.driver.submit(out)


async def _language(
    update: Update, context: Context, parsed: LanguageCallback, tr: Translator
) -> None:
    """A language button: the group's language (admins) or the user's own (private)."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    if parsed.language not in LANGUAGES:
        await _answer(update, context, tr, refused(Refusal.UNKNOWN_LANGUAGE.value))
        return
    chat = update.effective_chat
    if parsed.target == "c" and chat is not None and chat.type != "private":
        if not await is_admin_check(update, context)():
            await _answer(update, context, tr, refused(Refusal.ADMIN_ONLY.value))
            return
        outcomes = await data.service.set_chat_language(
            chat.id, chat.type, chat.title, parsed.language
        )
    else:
        outcomes = await data.service.set_user_language(query.from_user.id, parsed.language)
    new = get_translator(parsed.language)
    data.mark_answered(query.id)
    with contextlib.suppress(TelegramError):
        await query.answer(messages.language_set(new)[:ALERT_LIMIT])
    if isinstance(query.message, Message):
        with contextlib.suppress(TelegramError):
            await query.message.edit_text(messages.language_set(new))
    for out in outcomes:
        await data.driver.submit(out)
