"""The Bot API calls newer than python-telegram-bot (:mod:`bot.telegram_ext`): taps on an
ephemeral message are told apart by the fields PTB keeps in ``api_kwargs``, and Telegram's
refusals become typed errors."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Update
from telegram.error import BadRequest

from bot.telegram_ext import (
    EphemeralError,
    EphemeralGone,
    EphemeralNotDelivered,
    QueryExpired,
    TappedMessage,
    refusal,
    tapped_message,
)

USER = {"id": 7, "is_bot": False, "first_name": "Anna"}
BOT = {"id": 9, "is_bot": True, "first_name": "Bot"}
GROUP = {"id": -5, "type": "group", "title": "Club"}


def _tap(**message: Any) -> Update:
    body = {"date": 1_700_000_000, "chat": GROUP, "from": BOT, "text": "hand", **message}
    data = {
        "update_id": 1,
        "callback_query": {
            "id": "42",
            "from": USER,
            "chat_instance": "x",
            "data": "a1.2.play:JH",
            "message": body,
        },
    }
    update = Update.de_json(data, None)
    assert update is not None and update.callback_query is not None
    return update


def test_a_tap_on_an_ephemeral_message_names_its_receiver() -> None:
    update = _tap(message_id=0, ephemeral_message_id=12, receiver_user=USER)
    assert update.callback_query is not None
    tapped = tapped_message(update.callback_query)
    assert tapped == TappedMessage(-5, 12, receiver_id=7) and tapped.ephemeral


def test_an_ordinary_message_is_not_ephemeral() -> None:
    update = _tap(message_id=33)
    assert update.callback_query is not None
    tapped = tapped_message(update.callback_query)
    assert tapped == TappedMessage(-5, 33) and not tapped.ephemeral


@pytest.mark.parametrize("receiver", [None, {"id": "7"}, {"id": True}, "7"])
def test_an_ephemeral_message_without_a_proper_receiver_is_nobodys(receiver: Any) -> None:
    extra = {"receiver_user": receiver} if receiver is not None else {}
    update = _tap(message_id=0, ephemeral_message_id=12, **extra)
    assert update.callback_query is not None
    tapped = tapped_message(update.callback_query)
    assert tapped is not None and tapped.ephemeral and tapped.receiver_id == 0


@pytest.mark.parametrize(
    ("description", "kind"),
    [
        ("Bad Request: ephemeral message was not delivered", EphemeralNotDelivered),
        (
            "Bad Request: query is too old and response timeout expired or query ID is invalid",
            QueryExpired,
        ),
        ("Bad Request: message to edit not found", EphemeralGone),
        ("Bad Request: not enough rights to send ephemeral messages to the chat", EphemeralError),
    ],
)
def test_refusals_are_typed(description: str, kind: type[EphemeralError]) -> None:
    error = refusal(BadRequest(description))
    assert type(error) is kind
