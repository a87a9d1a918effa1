"""``/daily``, ``/top``, ``/stats`` and the buttons of their answers: parse, call
the service, render, reply through the outbox (the daily's result posted when an attempt
ends is :mod:`bot.daily_result`, the table driver's game-end hook).

Pictures: ``/top``'s standings and the daily's board (the result, ``/daily`` later
that day, ``/daily`` in a group) are sent as a picture, drawn in a worker thread, with the
essential result in the caption, the same buttons, and the whole text as the fallback should
Telegram refuse the picture; with nothing to draw (no games, nobody on the board), or when
drawing fails, the text goes. A button under a picture answers with a new message and deletes
the tapped one (a photo message cannot become text by an edit, and a new picture is
one call, like the ``/score`` switch); under a text answer whose new form is text too, the
message is edited.

Edges: ``/daily`` in a group points to the private chat (and shows the group's board of
today); ``/top`` in a private chat says it belongs in a group; ``/stats`` in reply to a bot
says bots have none; somebody unknown to the bot has no games yet; a player who blocked the bot
misses the result message (the outbox drops it) and finds it with ``/daily``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from telegram import Message, Update
from telegram.constants import ChatType

from bot.context import BotData, Context, translator_for
from bot.daily_result import daily_answer, drawn
from bot.handlers.common import Sender, answer_query, remember_user, reply, sender
from bot.i18n import Translator
from bot.outbox import Content
from bot.render import standings as texts
from bot.render.common import Rendered
from bot.render.picture import render_board_png, render_top_png
from bot.service import DailyStart, DailyStartKind
from bot.taps import DailyAction, DailyTap, Period, TopPeriod
from bot.telegram_io import content, markup

log = logging.getLogger(__name__)


async def _who(update: Update, context: Context) -> tuple[Sender, Translator] | None:
    """The sender (recorded) and the reader's translator; None without a chat or sender."""
    who = sender(update)
    if update.effective_chat is None or update.effective_message is None or who is None:
        return None
    await remember_user(update, context)
    return who, await translator_for(update, context)


async def cmd_daily(update: Update, context: Context) -> None:
    """``/daily``: in the private chat today's attempt (or its board when it is over); in a
    group a pointer to the private chat and the group's board of today."""
    got = await _who(update, context)
    chat = update.effective_chat
    if got is None or chat is None:
        return
    who, tr = got
    data = context.app_data
    if chat.type != ChatType.PRIVATE:
        pointer = texts.daily_in_group(tr, data.presenter.start_link(texts.DAILY_LINK))
        board = await data.service.daily.board(
            data.service.daily.today(), who.user_id, chat_id=chat.id, title=chat.title or ""
        )
        if not board.entries:
            reply(update, context, pointer)
            return
        text = pointer.text + "\n\n" + texts.board_text(tr, board)
        par = await data.service.repo.get_daily_par(board.day)
        png = await _drawn(data, lambda: render_board_png(tr, board, par=par), "a group's board")
        if png is None:
            reply(update, context, Rendered(text, pointer.keyboard))
            return
        caption = pointer.text + "\n\n" + texts.board_summary(tr, board)
        reply(update, context, Content(caption, markup(pointer.keyboard), photo=png, alt=text))
        return
    await start_daily(update, context, who, tr)


async def start_daily(update: Update, context: Context, who: Sender, tr: Translator) -> None:
    """Start (or show) today's daily for ``who`` in the private chat (``/daily``, the group's
    link)."""
    data = context.app_data
    started = await data.service.daily.start_daily(who.user_id, who.name)
    await _show_start(update, context, started, tr, who.user_id)


async def _show_start(
    update: Update, context: Context, started: DailyStart, tr: Translator, user_id: int
) -> None:
    data = context.app_data
    if started.stopped is not None:  # yesterday's leftover: its stop is shown first
        await data.driver.submit(started.stopped)
    match started.kind:
        case DailyStartKind.STARTED:
            assert started.entry is not None and started.outcome is not None
            rounds = data.service.daily.config.rounds
            text = texts.daily_started(tr, started.entry.day, rounds, ranked=started.entry.ranked)
            reply(update, context, text, quote=False)
            await data.driver.submit(started.outcome)
        case DailyStartKind.RUNNING:
            reply(update, context, texts.daily_running(tr), quote=False)
            await data.presenter.user_back(user_id)
        case DailyStartKind.DONE:
            assert started.summary is not None
            shown = await daily_answer(tr, started.summary, pictures=data.presenter.pictures)
            reply(update, context, shown, quote=False)
        case DailyStartKind.OTHER_GAME:
            reply(update, context, texts.daily_other_game(tr))


async def cmd_top(update: Update, context: Context) -> None:
    """``/top`` in a group: its standings of this month, with the period buttons."""
    got = await _who(update, context)
    chat = update.effective_chat
    if got is None or chat is None:
        return
    _, tr = got
    if chat.type == ChatType.PRIVATE:
        reply(update, context, texts.top_in_private(tr))
        return
    reply(update, context, await _top(context, chat.id, chat.title or "", Period.MONTH, tr))


async def _top(
    context: Context, chat_id: int, title: str, period: Period, tr: Translator
) -> Content:
    """The standings of the group ``chat_id`` (raw ``title``) over ``period``: a picture with
    the leaders in its caption and the period buttons, the text as its fallback; the text
    alone when nobody has played in the period (or drawing failed)."""
    data = context.app_data
    service = data.service
    lines = await service.stats.group_standings(chat_id, period)
    names = await service.stats.names([s.user_id for s in lines])
    shown = texts.top_text(tr, title, period, lines, names)
    if not lines:
        return content(shown)
    png = await _drawn(
        data, lambda: render_top_png(tr, title, period, lines, names), "the standings"
    )
    if png is None:
        return content(shown)
    caption = texts.top_caption(tr, title, period, lines, names)
    return Content(caption, markup(shown.keyboard), photo=png, alt=shown.text)


async def _drawn(data: BotData, draw: Callable[[], bytes], what: str) -> bytes | None:
    """:func:`bot.daily_result.drawn` with the presenter's picture setting."""
    return await drawn(data.presenter.pictures, draw, what)


def _replace(data: BotData, message: Message, answer: Content) -> None:
    """Show ``answer`` instead of the tapped ``message``: an edit when both are text, else a
    new message (in the same forum topic) and the old one deleted. Taps on a message that is
    being replaced already send nothing more (the post's ``dedupe`` is the message)."""
    outbox = data.presenter.outbox
    chat_id = message.chat.id
    if not message.photo and answer.photo is None:
        outbox.edit(chat_id, message.message_id, answer)
        return
    thread = message.message_thread_id if message.is_topic_message else None
    key = ("replaces", message.message_id)
    if outbox.post(chat_id, answer, thread_id=thread, dedupe=key) is not None:
        outbox.delete(chat_id, message.message_id)


async def cmd_stats(update: Update, context: Context) -> None:
    """``/stats``: the sender's statistics; in a group in reply to somebody, theirs (with
    their rating in the group)."""
    got = await _who(update, context)
    chat, message = update.effective_chat, update.effective_message
    if got is None or chat is None or message is None:
        return
    who, tr = got
    group = chat.type != ChatType.PRIVATE
    target, fallback = who.user_id, who.name
    asked = message.reply_to_message if group else None
    if asked is not None and asked.forum_topic_created is None:  # a topic's own message
        if asked.sender_chat is not None and asked.sender_chat.id != chat.id:
            reply(update, context, texts.no_stats_for_bots(tr))  # a channel
            return
        person = asked.from_user
        if person is not None and person.is_bot:
            reply(update, context, texts.no_stats_for_bots(tr))
            return
        if person is not None and asked.sender_chat is None:
            target, fallback = person.id, person.full_name or person.username or ""
    stats = await context.app_data.service.stats.person_stats(target, chat.id if group else None)
    reply(update, context, texts.stats_text(tr, stats, fallback))


async def on_standings_button(
    update: Update, context: Context, tap: DailyTap | TopPeriod, tr: Translator
) -> None:
    """A button of a ``/top`` answer (the period: the answer shows the other period) or of a
    daily board (play again, unranked; hide or show me on the boards: the answer is shown
    again with the other button); see the module docstring for how an answer is replaced."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    message = query.message if isinstance(query.message, Message) else None
    if isinstance(tap, TopPeriod):
        if message is not None and _shows(message, query.data):  # shown already: a toast
            await answer_query(context, query, texts.top_shown_already(tr, tap.period))
            return
        await answer_query(context, query)
        if message is not None and message.chat.type != ChatType.PRIVATE:
            chat = message.chat
            reader = await translator_for(update, context, private=False)
            shown = await _top(context, chat.id, chat.title or "", tap.period, reader)
            _replace(data, message, shown)
        return
    user = query.from_user
    if tap.action is DailyAction.AGAIN:
        await answer_query(context, query)
        name = (user.full_name or user.username or str(user.id))[:64]
        started = await data.service.daily.deal_daily(user.id, name)
        await _show_start(update, context, started, tr, user.id)
        return
    hidden = tap.action is DailyAction.HIDE
    await data.service.daily.set_board_hidden(user.id, hidden)
    await answer_query(context, query, texts.board_visibility(tr, hidden=hidden))
    entries = await data.service.repo.daily_entries(user_id=user.id)
    if message is not None and entries:
        summary = await data.service.daily.daily_summary(entries[-1])
        answer = await daily_answer(tr, summary, pictures=data.presenter.pictures)
        _replace(data, message, answer)


def _shows(message: Message, data: str | None) -> bool:
    """Whether the tapped button (callback ``data``) of a ``/top`` answer is the marked one:
    the period the answer shows already."""
    markup = message.reply_markup
    if markup is None or data is None:
        return False
    return any(
        b.callback_data == data and b.text.startswith(texts.CURRENT_MARK)
        for row in markup.inline_keyboard
        for b in row
    )
