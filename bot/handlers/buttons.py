"""Callback queries (button taps): parse, call one service method, answer exactly once, then
let the presenter sync Telegram. Stale, forged or foreign taps get a short translated alert
and change nothing."""

from __future__ import annotations

import contextlib
import logging

from telegram import Message, Update
from telegram.error import TelegramError

from bot.callbacks import GameCallback, LanguageCallback, MalformedCallback, decode
from bot.context import Context, translator_for
from bot.handlers.common import is_admin_check, remember_user
from bot.i18n import LANGUAGES, Translator, get_translator
from bot.outcome import Outcome, refused
from bot.render import messages
from bot.render.reasons import Refusal, explain, refusal_text
from engine.cards import Seat

log = logging.getLogger(__name__)

ALERT_LIMIT = 200


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
        await _answer(update, tr, refused(Refusal.MALFORMED.value))
        return
    if isinstance(parsed, LanguageCallback):
        await _language(update, context, parsed)
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
        await _answer(update, tr, Outcome(game_id=parsed.game_id))
        await _handover_prompt(update, context, parsed, tr, confirm=parsed.action == "handover")
        return
    elif parsed.scope == "a" and parsed.action == "handover:yes":
        out = await service.handover(parsed.game_id, user_id)
    elif parsed.scope == "a":
        out = await service.act(parsed.game_id, parsed.version, user_id, parsed.action)
    elif parsed.scope == "s":
        out = await _stop(update, context, parsed)
    else:  # "t": table-message buttons carry only links today
        out = refused(Refusal.MALFORMED.value)
    await _answer(update, tr, out)
    if out.refusal == Refusal.STALE_BUTTON.value and out.acted and out.game_id is not None:
        table = await service.load(out.game_id)
        if table is not None:
            seat = table.seat_of(user_id)
            if seat is not None:
                await data.presenter.hand_hidden(table, seat, user_id)
        return
    if not out.ok:
        if out.lobby and out.game_id is not None:
            await data.presenter.present(out)
        return
    await data.presenter.present(out)
    if out.changed and out.game_id is not None and not out.ended:
        more = await service.run_computers(out.game_id)
        if more.changed:
            await data.presenter.present(more)


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


async def _answer(update: Update, tr: Translator, out: Outcome) -> None:
    """Answer the callback query exactly once: an alert for a refusal, a toast or a deep link
    otherwise."""
    query = update.callback_query
    assert query is not None
    text: str | None = None
    alert = False
    if out.refusal is not None:
        alert = True
        if out.refusal in {r.value for r in Refusal}:
            text = refusal_text(tr, out.refusal)
        else:
            text = explain(tr, out.refusal, out.details)
    elif out.toast == "seated":
        text = messages.ack_seated(tr, Seat(out.details.get("seat", 0)))
    elif out.toast == "left":
        text = messages.ack_left(tr)
    elif out.toast == "already_seated":
        text = refusal_text(tr, Refusal.ALREADY_SEATED)
    try:
        if out.url:
            await query.answer(url=_bot_link(update, out.url))
        else:
            await query.answer(text[:ALERT_LIMIT] if text else None, show_alert=alert)
    except TelegramError as exc:
        log.info("answering callback failed: %s", exc)


def _bot_link(update: Update, payload: str) -> str:
    bot = update.get_bot()
    return f"https://t.me/{bot.username}?start={payload}"


async def _handover_prompt(
    update: Update, context: Context, parsed: GameCallback, tr: Translator, *, confirm: bool
) -> None:
    """The two-step "let the computer play for me" in the private hand message."""
    query = update.callback_query
    assert query is not None and query.message is not None
    data = context.app_data
    table = await data.service.load(parsed.game_id)
    if table is None or query.from_user is None:
        return
    seat = table.seat_of(query.from_user.id)
    if seat is None:
        return
    if confirm:
        from bot.telegram_io import markup

        rendered = messages.handover_confirm(tr)
        await data.presenter.messenger.edit(
            query.message.chat.id,
            query.message.message_id,
            rendered.text,
            markup(rendered.keyboard, "a", table.game_id, table.version),
        )
    else:
        await data.presenter.hand_hidden(table, seat, query.from_user.id)


async def _stop(update: Update, context: Context, parsed: GameCallback) -> Outcome:
    query = update.callback_query
    assert query is not None
    if parsed.action != "stop:yes":
        if isinstance(query.message, Message):
            with contextlib.suppress(TelegramError):
                await query.message.delete()
        return Outcome()
    return await context.app_data.service.stop(
        parsed.game_id, query.from_user.id, is_admin_check(update, context)
    )


async def _language(update: Update, context: Context, parsed: LanguageCallback) -> None:
    query = update.callback_query
    assert query is not None
    repo = context.app_data.service.repo
    now = context.app_data.service.clock()
    if parsed.language not in LANGUAGES:
        await query.answer(
            refusal_text(get_translator("en"), Refusal.UNKNOWN_LANGUAGE), show_alert=True
        )
        return
    chat = update.effective_chat
    if parsed.target == "c" and chat is not None and chat.type != "private":
        if not await is_admin_check(update, context)():
            tr = await translator_for(update, context, private=True)
            await query.answer(refusal_text(tr, Refusal.ADMIN_ONLY), show_alert=True)
            return
        await repo.upsert_chat(chat.id, chat.type, chat.title, now=now)
        await repo.set_chat_language(chat.id, parsed.language, now=now)
    else:
        await repo.set_user_language(query.from_user.id, parsed.language, now=now)
    tr = get_translator(parsed.language)
    await query.answer(messages.language_set(tr)[:ALERT_LIMIT])
    if isinstance(query.message, Message):
        with contextlib.suppress(TelegramError):
            await query.message.edit_text(messages.language_set(tr))
    table = await context.app_data.service.open_table_of_chat(chat.id) if chat else None
    if table is not None:
        await context.app_data.presenter.present(
            Outcome(game_id=table.game_id, changed=True, lobby=table.state is None)
        )
