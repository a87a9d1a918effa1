"""Bot API methods newer than python-telegram-bot 22.8 (which speaks Bot API 10.0), called
through its raw request path (:meth:`telegram.Bot.do_api_request`), with typed results and
errors. Nothing else in the bot builds these requests, so this module is swapped for the
library's own calls once it has them.

Ephemeral messages (Bot API 10.2; their parameters moved into
``EphemeralMessageParameters`` in Bot API 10.3): a message in a group that one user alone
sees. It is sent with ``sendMessage`` and ``ephemeral_message_parameters``
(``receiver_user_id``, and ``callback_query_id`` when it answers a button tap: Telegram takes
such a reply only within about 15 seconds of the tap), and answers with a ``Message`` whose
``message_id`` is 0 and whose ``ephemeral_message_id`` names it in the
``editEphemeralMessage…`` and ``deleteEphemeralMessage`` methods. Delivery is not guaranteed,
above all to people who are offline. A tap on a button of an ephemeral message comes as an
ordinary ``callback_query`` whose ``message`` carries ``ephemeral_message_id`` and
``receiver_user``: fields PTB 22.8 does not know, kept in ``Message.api_kwargs``
(:func:`tapped_message` reads them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from telegram import Bot, CallbackQuery, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest

__all__ = [
    "EphemeralError",
    "EphemeralGone",
    "EphemeralNotDelivered",
    "EphemeralRef",
    "QueryExpired",
    "TappedMessage",
    "delete_ephemeral",
    "edit_ephemeral_text",
    "refusal",
    "send_ephemeral",
    "tapped_message",
]

REPLY_WINDOW = 15.0
"""Seconds after a button tap within which Telegram takes an ephemeral reply naming the tap's
``callback_query_id`` (Bot API 10.2, "about 15 s"); later the reply is refused."""


@dataclass(frozen=True, slots=True)
class EphemeralRef:
    """An ephemeral message: the chat it is in, the one user who sees it, and its
    ``ephemeral_message_id`` (its ``message_id`` is always 0)."""

    chat_id: int
    receiver_id: int
    message_id: int


@dataclass(frozen=True, slots=True)
class TappedMessage:
    """The message a button tap came from: ``(chat_id, message_id)`` of an ordinary message,
    or ``(chat_id, ephemeral_message_id)`` with ``receiver_id`` set for an ephemeral one."""

    chat_id: int
    message_id: int
    receiver_id: int | None = None

    @property
    def ephemeral(self) -> bool:
        """Whether the tapped message is an ephemeral message."""
        return self.receiver_id is not None


class EphemeralError(Exception):
    """Telegram refused an ephemeral call (the player falls back to the private hand)."""


class EphemeralNotDelivered(EphemeralError):
    """The receiver could not get the message (offline, or a client without ephemeral
    messages)."""


class QueryExpired(EphemeralError):
    """The ``callback_query_id`` is too old (more than :data:`REPLY_WINDOW` s) or unknown."""


class EphemeralGone(EphemeralError):
    """The ephemeral message to edit or delete no longer exists."""


def refusal(exc: BadRequest) -> EphemeralError:
    """The typed error of a 400 answer to an ephemeral call (matched on Telegram's
    description: not delivered, query too old, not found, else :class:`EphemeralError`)."""
    text = exc.message.lower()
    if "not delivered" in text or "user_offline" in text or "offline" in text:
        return EphemeralNotDelivered(exc.message)
    if "query is too old" in text or "query id is invalid" in text:
        return QueryExpired(exc.message)
    if "not found" in text:
        return EphemeralGone(exc.message)
    return EphemeralError(exc.message)


def _ephemeral_id(raw: Any) -> int | None:
    value = raw.get("ephemeral_message_id") if isinstance(raw, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def send_ephemeral(
    bot: Bot,
    chat_id: int,
    receiver_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None,
    *,
    callback_query_id: str | None = None,
    thread_id: int | None = None,
) -> EphemeralRef:
    """``sendMessage`` with ``ephemeral_message_parameters`` (Bot API 10.3; 10.2 took the
    same two fields at the top level): an HTML message in the group ``chat_id`` that only
    ``receiver_id`` sees, answering the tap ``callback_query_id`` when given.

    Raises:
        EphemeralNotDelivered, QueryExpired, EphemeralError: Telegram refused it (400).
        telegram.error.TelegramError: the other failures, as for any call (timeouts, 5xx,
            429, 403, migrated chats).
    """
    params: dict[str, Any] = {"receiver_user_id": receiver_id}
    if callback_query_id is not None:
        params["callback_query_id"] = callback_query_id
    try:
        # PTB knows sendMessage (and warns against its raw call): the new parameter goes
        # through ``api_kwargs``; the answer's new fields land in ``Message.api_kwargs``.
        sent = await bot.send_message(
            chat_id,
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            message_thread_id=thread_id,
            disable_web_page_preview=True,
            api_kwargs={"ephemeral_message_parameters": params},
        )
    except BadRequest as exc:
        raise refusal(exc) from exc
    result = sent.api_kwargs
    message_id = _ephemeral_id(result)
    if message_id is None:
        raise EphemeralError("sendMessage answered without an ephemeral_message_id")
    return EphemeralRef(chat_id, receiver_id, message_id)


async def edit_ephemeral_text(
    bot: Bot, ref: EphemeralRef, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    """``editEphemeralMessageText`` (Bot API 10.2): the message's new HTML text and keyboard
    (none: removed). "Not modified" is success.

    Raises:
        EphemeralGone, EphemeralNotDelivered, EphemeralError: Telegram refused it (400).
        telegram.error.TelegramError: the other failures.
    """
    kwargs: dict[str, Any] = {
        "chat_id": ref.chat_id,
        "receiver_user_id": ref.receiver_id,
        "ephemeral_message_id": ref.message_id,
        "text": text,
        "parse_mode": ParseMode.HTML,
        "link_preview_options": {"is_disabled": True},
    }
    if markup is not None:
        kwargs["reply_markup"] = markup
    try:
        await bot.do_api_request("editEphemeralMessageText", api_kwargs=kwargs)
    except BadRequest as exc:
        if "not modified" in exc.message.lower():
            return
        raise refusal(exc) from exc


async def delete_ephemeral(bot: Bot, ref: EphemeralRef) -> None:
    """``deleteEphemeralMessage`` (Bot API 10.2); a message already gone is success.

    Raises:
        EphemeralError: Telegram refused it otherwise (400).
        telegram.error.TelegramError: the other failures.
    """
    kwargs = {
        "chat_id": ref.chat_id,
        "receiver_user_id": ref.receiver_id,
        "ephemeral_message_id": ref.message_id,
    }
    try:
        await bot.do_api_request("deleteEphemeralMessage", api_kwargs=kwargs)
    except BadRequest as exc:
        error = refusal(exc)
        if not isinstance(error, EphemeralGone):
            raise error from exc


def tapped_message(query: CallbackQuery) -> TappedMessage | None:
    """The message a tap came from (None: none, e.g. an inline message). For an ephemeral
    message (Bot API 10.2) PTB 22.8 keeps ``ephemeral_message_id`` and ``receiver_user`` in
    ``api_kwargs``; a message that names no receiver is not taken as ephemeral."""
    message = query.message
    if message is None:
        return None
    chat_id = message.chat.id
    raw = message.api_kwargs if isinstance(message, Message) else {}
    ephemeral = _ephemeral_id(raw)
    receiver = raw.get("receiver_user") if isinstance(raw, Mapping) else None
    receiver_id = receiver.get("id") if isinstance(receiver, Mapping) else None
    if ephemeral is not None:
        if not isinstance(receiver_id, int) or isinstance(receiver_id, bool):
            return TappedMessage(chat_id, 0, receiver_id=0)  # ephemeral, but nobody's
        return TappedMessage(chat_id, ephemeral, receiver_id=receiver_id)
    return TappedMessage(chat_id, message.message_id)
