"""``/review`` and the "🔍 review" button: the review of the player's play in a finished game
(:mod:`bot.service.review`), sent to the player's private chat in their language.

``/review`` works in the private chat only and reviews the sender's last finished game. The
button lives on a game's final sheet (the game's chat) and on a daily's result (the player's
private chat); :func:`bot.handlers.buttons._from_its_place` checks where it was tapped, the
service that the tapper played in the game. The tap is answered at once; the review follows
once the computer pool has worked it out: a picture (:func:`bot.render.picture.render_review_png`)
with a short caption, or the text review when the picture cannot be drawn or Telegram refuses
it (the outbox sends the content's ``alt`` text instead).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import BrokenExecutor

from telegram import Message, Update
from telegram.constants import ChatType

from bot.context import BotData, Context
from bot.handlers.commands import _prelude
from bot.handlers.common import answer_query, reply, sender
from bot.i18n import Translator
from bot.outbox import Content
from bot.outcome import Refusal
from bot.render.picture import render_review_png
from bot.render.reasons import refusal_text
from bot.render.review import (
    review_busy_text,
    review_caption,
    review_in_group_text,
    review_none_text,
    review_private_first_text,
    review_text,
    review_wait_text,
)
from bot.service.review import ReviewAsk
from bot.taps import Tap

log = logging.getLogger(__name__)


async def cmd_review(update: Update, context: Context) -> None:
    """``/review``: the review of the sender's last finished game, in private."""
    got = await _prelude(update, context)
    who = sender(update)
    if got is None or who is None:
        return
    chat, message, tr = got
    if chat.type != ChatType.PRIVATE:
        reply(update, context, review_in_group_text(tr))
        return
    data = context.app_data
    game_id = await data.service.review.last_finished_game(who.user_id)
    if game_id is None:
        reply(update, context, review_none_text(tr))
        return
    ask = await data.service.review.ask_review(game_id, who.user_id)
    if ask.review is None:
        reply(update, context, _refusal(tr, ask))
        return
    if not ask.review.done():
        reply(update, context, review_wait_text(tr))
    _deliver(data, who.user_id, ask, tr, ("review", message.message_id))


async def on_review_button(update: Update, context: Context, tap: Tap, tr: Translator) -> None:
    """The "🔍 review" button (its place already checked): the review of the tapper's play
    in ``tap.game_id`` to the tapper's private chat; a refusal is an alert."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    user_id = query.from_user.id
    ask = await data.service.review.ask_review(tap.game_id, user_id)
    if ask.review is None:
        text = _refusal(tr, ask)
        await answer_query(context, query, text, alert=True)
        return
    if not await data.service.people.can_message(user_id):
        await answer_query(context, query, review_private_first_text(tr), alert=True)
        return
    await answer_query(context, query, review_wait_text(tr))
    message = query.message
    where = (message.chat.id, message.message_id) if isinstance(message, Message) else None
    _deliver(data, user_id, ask, tr, ("review", tap.game_id, where))


def _refusal(tr: Translator, ask: ReviewAsk) -> str:
    """The text of the service's refusal (plain)."""
    why = ask.outcome.refusal
    return refusal_text(tr, why if isinstance(why, Refusal) else Refusal.GAME_NOT_FOUND)


def _deliver(data: BotData, user_id: int, ask: ReviewAsk, tr: Translator, key: object) -> None:
    """Post the review to ``user_id``'s private chat once it is worked out (in the
    background: a handler never waits for the pool)."""
    review = ask.review
    assert review is not None

    async def send() -> None:
        try:
            done = await review
        except (BrokenExecutor, RuntimeError):
            data.presenter.outbox.post(user_id, Content(review_busy_text(tr)), dedupe=key)
            return
        except Exception:  # a bug in one review must not leave the player without an answer
            log.exception("the review of game %s failed", ask.outcome.game_id)
            data.presenter.outbox.post(user_id, Content(review_busy_text(tr)), dedupe=key)
            return
        text = review_text(tr, done, title=ask.title, players=ask.players)
        try:
            png = await asyncio.to_thread(
                render_review_png, tr, done, title=ask.title, players=ask.players
            )
        except Exception:  # no picture: the text says it all
            log.exception("drawing the review of game %s failed", ask.outcome.game_id)
            data.presenter.outbox.post(user_id, Content(text), dedupe=key)
            return
        caption = review_caption(tr, done, title=ask.title)
        shown = Content(caption, photo=png, alt=text)
        data.presenter.outbox.post(user_id, shown, dedupe=key)

    data.service.spawn(send())


__all__ = ["cmd_review", "on_review_button"]
