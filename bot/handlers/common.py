"""Small pieces the handlers share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from bot.context import Context

ADMIN_STATUSES = {ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER}


def display_name(update: Update) -> str:
    """The user's name as shown at the table (first + last name, raw; renderers escape it)."""
    user = update.effective_user
    if user is None:
        return "?"
    return (user.full_name or user.username or str(user.id))[:64]


async def remember_user(update: Update, context: Context) -> None:
    """Record the user's Telegram facts; a private message also means the bot may write to
    them."""
    user = update.effective_user
    if user is None or user.is_bot:
        return
    service = context.app_data.service
    await service.touch_user(user.id, display_name(update), user.language_code)
    chat = update.effective_chat
    if chat is not None and chat.type == ChatType.PRIVATE and update.message is not None:
        await service.user_started(user.id)


def is_admin_check(update: Update, context: Context) -> Callable[[], Awaitable[bool]]:
    """A lazy "is the user an admin of this chat?" (asked only when needed). In a private
    chat the user is its admin."""

    async def check() -> bool:
        chat, user = update.effective_chat, update.effective_user
        if chat is None or user is None:
            return False
        if chat.type == ChatType.PRIVATE:
            return True
        try:
            member = await context.bot.get_chat_member(chat.id, user.id)
        except TelegramError:
            return False
        return member.status in ADMIN_STATUSES

    return check
