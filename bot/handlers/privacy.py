"""``/forgetme`` (the right to be forgotten) and the buttons of its question: in the private
chat a question with a confirm and a cancel button; the confirm unlinks the tapper's name and
id from every stored row (:meth:`bot.service.people.PeopleService.forget_user`, through the
repository, so its rows in memory follow). In a group the command points to the private chat.
A person seated at an open table is refused: they finish or leave it first.

A tap is honoured only on a message in the tapper's own private chat (callback data is a
claim: a forged ``f.yes`` elsewhere is refused and forgets nobody)."""

from __future__ import annotations

from telegram import Message, Update
from telegram.constants import ChatType

from bot.context import Context
from bot.handlers.commands import _prelude
from bot.handlers.common import answer_query, reply
from bot.i18n import Translator
from bot.outbox import Content
from bot.outcome import Refusal
from bot.render import messages
from bot.render.reasons import refusal_text
from bot.taps import ForgetAnswer, ForgetMe
from bot.telegram_io import content


async def cmd_forgetme(update: Update, context: Context) -> None:
    """``/forgetme``: the question in private; a pointer to the private chat in a group."""
    got = await _prelude(update, context)
    if got is None:
        return
    chat, message, tr = got
    if chat.type != ChatType.PRIVATE:
        reply(update, context, messages.forget_in_group(tr))
        return
    # Each /forgetme gets its question (an answered one was edited away: not a flood).
    prompt = content(messages.forget_prompt(tr))
    context.app_data.presenter.outbox.post(chat.id, prompt, dedupe=("forgetme", message.message_id))


async def on_forget_button(update: Update, context: Context, tap: ForgetMe, tr: Translator) -> None:
    """A button of ``/forgetme``'s question: forget the tapper (or not); the question becomes
    the answer (a toast too)."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    user = query.from_user
    message = query.message if isinstance(query.message, Message) else None
    if message is None or message.chat.type != ChatType.PRIVATE or message.chat.id != user.id:
        await answer_query(context, query, refusal_text(tr, Refusal.WRONG_CHAT), alert=True)
        return
    if tap.answer is ForgetAnswer.NO:
        text = messages.forget_cancelled(tr)
    elif await data.service.people.forget_user(user.id) is None:
        text = messages.forget_done(tr)
    else:
        text = messages.forget_seated(tr)
    await answer_query(context, query, text, alert=False)
    data.presenter.outbox.edit(message.chat.id, message.message_id, Content(text))
