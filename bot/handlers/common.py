"""Small pieces the handlers share: who sent an update (an anonymous group admin is the group
itself), recording users, admin checks, and replies through the outbox."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import CallbackQuery, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from bot.context import Context
from bot.outbox import Content, Job
from bot.render.common import Rendered
from bot.render.reasons import ALERT_LIMIT
from bot.telegram_io import content

log = logging.getLogger(__name__)

ADMIN_STATUSES = {ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER}


@dataclass(frozen=True, slots=True)
class Sender:
    """Who an update is from, as the game sees them.

    Attributes:
        user_id: the Telegram user id; for an anonymous group admin (Telegram's
            ``GroupAnonymousBot`` with the group as ``sender_chat``) the group's chat id:
            the group itself is the sender (it may open, set up and stop tables, not sit).
        name: the display name (the group's title for an anonymous admin).
        language: Telegram's ``language_code`` (None for an anonymous admin).
        anonymous: an anonymous group admin.
        channel: a message sent on behalf of a channel (``sender_chat`` is a channel, not
            the group): every channel shares one user id, so a channel may not open, join
            or stop a table.
    """

    user_id: int
    name: str
    language: str | None
    anonymous: bool = False
    channel: bool = False


def sender(update: Update) -> Sender | None:
    """The sender of ``update``; None when it has none (a channel post, a service update)."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if (
        message is not None
        and chat is not None
        and message.sender_chat is not None
        and message.sender_chat.id == chat.id
        and chat.type != ChatType.PRIVATE
    ):
        return Sender(chat.id, (chat.title or "")[:64] or str(chat.id), None, anonymous=True)
    if user is None:
        return None
    if message is not None and message.sender_chat is not None and chat is not None:
        title = (message.sender_chat.title or "")[:64] or str(message.sender_chat.id)
        return Sender(user.id, title, None, channel=True)
    name = (user.full_name or user.username or str(user.id))[:64]
    return Sender(user.id, name, user.language_code)


def display_name(update: Update) -> str:
    """The sender's name as shown at the table (first + last name, raw; renderers escape
    it)."""
    who = sender(update)
    return who.name if who is not None else "?"


async def remember_user(update: Update, context: Context) -> None:
    """Record the sender's Telegram facts (an anonymous admin: the group, as a user row of its
    own); a private message also means the bot may write to them."""
    who = sender(update)
    user = update.effective_user
    if who is None or who.channel or (not who.anonymous and user is not None and user.is_bot):
        return
    service = context.app_data.service
    await service.people.touch_user(who.user_id, who.name, who.language)
    chat = update.effective_chat
    if chat is not None and chat.type == ChatType.PRIVATE and update.message is not None:
        await service.people.user_started(who.user_id)


def is_admin_check(
    update: Update, context: Context, chat_id: int | None = None
) -> Callable[[], Awaitable[bool]]:
    """A lazy "is the sender an admin of the chat?" (asked only when needed), of the chat
    ``chat_id`` (a game's own chat: never the chat a button was tapped in, which may be
    anybody's private chat), else of the update's chat. A private chat's admin is its own
    user; an anonymous admin is one of the group it speaks for."""

    async def check() -> bool:
        chat, who = update.effective_chat, sender(update)
        if chat is None or who is None:
            return False
        target = chat.id if chat_id is None else chat_id
        if target > 0:  # a private chat (a solo table): its own user
            return who.user_id == target
        if who.anonymous:
            return who.user_id == target
        try:
            member = await context.bot.get_chat_member(target, who.user_id)
        except TelegramError:
            return False
        return member.status in ADMIN_STATUSES

    return check


def thread_of(update: Update) -> int | None:
    """The forum topic the update's message is in (None outside topics)."""
    message = update.effective_message
    if message is None or not message.is_topic_message:
        return None
    return message.message_thread_id


def reply(
    update: Update,
    context: Context,
    shown: Rendered | Content | str,
    *,
    game_id: int = 0,
    version: int = 0,
    quote: bool = True,
    to: int | None = None,
) -> Job | None:
    """Answer the update in its chat (and forum topic), quoting the message when ``quote``
    (or the message ``to``; sent all the same if it was deleted meanwhile). Never waits for
    Telegram: the outbox sends it, dropping it when the same answer still waits there or was
    just sent (a flood: one answer to 300 ``/help``): an answer that quotes somebody is theirs
    (each sender gets one), one that does not is everybody's."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None:
        return None
    body = shown if isinstance(shown, Content) else content(shown, game_id, version)
    who = sender(update)
    thread = thread_of(update)
    return context.app_data.presenter.outbox.post(
        chat.id,
        body,
        thread_id=thread,
        reply_to=to or (message.message_id if quote and message is not None else None),
        dedupe=(who.user_id if quote and who is not None else None, body.key, thread),
    )


async def answer_query(
    context: Context,
    query: CallbackQuery,
    text: str | None = None,
    *,
    alert: bool = False,
    url: str | None = None,
) -> None:
    """Answer a tap's callback query, once: marked answered first (so the application's
    fallback never answers it again), ``text`` cut to :data:`ALERT_LIMIT` (empty or None: no
    text), shown as an alert when ``alert``, or the deep link ``url`` instead. A failure (the
    query too old, Telegram away) is logged, never raised: the tap's work is done already."""
    context.app_data.mark_answered(query.id)
    try:
        if url is not None:
            await query.answer(url=url)
        else:
            await query.answer(text[:ALERT_LIMIT] if text else None, show_alert=alert)
    except TelegramError as exc:
        log.info("answering callback failed: %s", exc)
