"""Ephemeral messages (Bot API 10.2, parameters as of 10.3): a message in a group that one
user alone sees.

``sendMessage`` with ``ephemeral_message_parameters`` (``receiver_user_id``, optional
``callback_query_id`` and ``replace_callback_query_message``) answers a ``Message`` with
``message_id`` 0, ``ephemeral_message_id`` and ``receiver_user``. The message lives in
``FakeChat.ephemeral`` (never in ``FakeChat.messages``: nobody else sees it) and is changed
with ``editEphemeralMessageText`` / ``editEphemeralMessageReplyMarkup`` and removed with
``deleteEphemeralMessage``. The fake is as strict as Telegram is documented to be, and
stricter where a real bot would fail in some chats:

* a reply to a tap (``callback_query_id``) is taken only within :data:`REPLY_WINDOW` seconds
  (the fake's clock) of the tap, from the tapper, in the tap's chat (else ``query is too
  old``); ``replace_callback_query_message`` must be false for a tap on an ephemeral message;
* without ``callback_query_id`` the bot must be an administrator of the group (as observed
  for ordinary messages sent as ephemeral replies; ``not enough rights``);
* a receiver marked offline (``FakeUser.offline``, ``FakeBotApi.set_offline``) gets nothing:
  sends and edits answer ``Bad Request: ephemeral message was not delivered`` (the Bot API
  says delivery is not guaranteed, above all to offline users; the wording is the fake's);
* the receiver must be a present member of the group (else ``user not found``); edits and
  deletes need the right receiver and id (else ``message to edit not found`` / ``message to
  delete not found``).

Sends and edits count in the group's rate limits like ordinary ones (``flood.py``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from . import errors
from .content import check_reply_markup, format_text
from .errors import bad_request
from .model import FakeChat, FakeMessage
from .registry import api_method

if TYPE_CHECKING:
    from .calls import ApiCall
    from .params import Params
    from .server import FakeBotApi

JSONDict = dict[str, Any]

REPLY_WINDOW = 15.0
"""Seconds after a tap within which a reply naming its ``callback_query_id`` is taken."""

NOT_DELIVERED = "Bad Request: ephemeral message was not delivered"
NO_RIGHTS = "Bad Request: not enough rights to send ephemeral messages to the chat"
PRIVATE_CHAT = "Bad Request: ephemeral messages can't be sent to private chats"
REPLACE_EPHEMERAL = (
    "Bad Request: replace_callback_query_message must be false for callback queries from "
    "ephemeral messages"
)


def _params(p: Params) -> JSONDict:
    params = p.decoded("ephemeral_message_parameters", "ephemeral message parameters")
    if not isinstance(params, dict):
        raise bad_request("Object expected as ephemeral message parameters")
    return params


def _receiver(api: FakeBotApi, chat: FakeChat, user_id: object) -> int:
    if isinstance(user_id, bool) or not isinstance(user_id, int):
        raise bad_request("Bad Request: invalid receiver_user_id specified")
    if chat.members.get(user_id) not in ("creator", "administrator", "member", "restricted"):
        raise bad_request(errors.USER_NOT_FOUND)
    return user_id


def _delivered(api: FakeBotApi, receiver: int) -> None:
    user = api.world.users.get(receiver)
    if user is not None and user.offline:
        raise bad_request(NOT_DELIVERED)


def send_ephemeral(api: FakeBotApi, p: Params, call: ApiCall) -> JSONDict:
    """``sendMessage`` with ``ephemeral_message_parameters`` (see the module docstring)."""
    chat = api.world.writable_chat(p.chat_id())
    if not chat.is_group:
        raise bad_request(PRIVATE_CHAT)
    params = _params(p)
    query_id = params.get("callback_query_id")
    receiver = params.get("receiver_user_id")
    if query_id is not None:
        query = api.world.callback_queries.get(str(query_id))
        if (
            query is None
            or query.chat_id != chat.id
            or (receiver is not None and receiver != query.user_id)
            or api.clock() - query.created > REPLY_WINDOW
        ):
            raise bad_request(errors.QUERY_TOO_OLD)
        if query.ephemeral and params.get("replace_callback_query_message"):
            raise bad_request(REPLACE_EPHEMERAL)
        receiver = query.user_id
    elif not api.world.bot_is_admin(chat):
        raise bad_request(NO_RIGHTS)
    user_id = _receiver(api, chat, receiver)
    _delivered(api, user_id)
    formatted = format_text(
        p,
        text_field="text",
        entities_field="entities",
        required=True,
        strict_html=api.strict_html,
        resolve_user=api.world.user_json,
    )
    assert formatted is not None
    markup = check_reply_markup(p, inline_only=True)
    message = FakeMessage(
        chat_id=chat.id,
        message_id=chat.next_ephemeral_id,
        date=int(time.time()),
        from_user=api.bot,
        text=formatted.text,
        entities=formatted.entities,
        source_text=p.text("text"),
        parse_mode=p.text("parse_mode"),
        reply_markup=markup,
        receiver_id=user_id,
    )
    chat.next_ephemeral_id += 1
    message.extra = {
        "ephemeral_message_id": message.message_id,
        "receiver_user": api.world.users[user_id].to_api(),
    }
    chat.ephemeral.append(message)
    return message.to_api(chat)


def _ephemeral(api: FakeBotApi, p: Params, missing: str) -> tuple[FakeChat, FakeMessage]:
    chat = api.world.writable_chat(p.chat_id())
    receiver = p.integer("receiver_user_id")
    message_id = p.integer("ephemeral_message_id")
    for message in chat.ephemeral:
        if (message.message_id, message.receiver_id) == (message_id, receiver) and not (
            message.deleted
        ):
            return chat, message
    raise bad_request(missing)


def _edit(chat: FakeChat, message: FakeMessage, markup: JSONDict | None, **changes: Any) -> bool:
    current = {name: getattr(message, name) for name in changes}
    if current == changes and markup == message.reply_markup:
        raise bad_request(errors.NOT_MODIFIED)
    message.history.append((message.text, message.reply_markup))
    for name, value in changes.items():
        setattr(message, name, value)
    message.reply_markup = markup
    message.edit_date = int(time.time())
    return True


@api_method("editEphemeralMessageText")
async def edit_ephemeral_text(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """New text (and keyboard: removed without ``reply_markup``) of an ephemeral message."""
    chat, message = _ephemeral(api, p, errors.MESSAGE_TO_EDIT_NOT_FOUND)
    assert message.receiver_id is not None
    _delivered(api, message.receiver_id)
    formatted = format_text(
        p,
        text_field="text",
        entities_field="entities",
        required=True,
        strict_html=api.strict_html,
        resolve_user=api.world.user_json,
    )
    assert formatted is not None
    markup = check_reply_markup(p, inline_only=True)
    _edit(chat, message, markup, text=formatted.text, entities=formatted.entities)
    message.source_text, message.parse_mode = p.text("text"), p.text("parse_mode")
    return True


@api_method("editEphemeralMessageReplyMarkup")
async def edit_ephemeral_markup(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """A new keyboard (removed without ``reply_markup``) of an ephemeral message."""
    chat, message = _ephemeral(api, p, errors.MESSAGE_TO_EDIT_NOT_FOUND)
    assert message.receiver_id is not None
    _delivered(api, message.receiver_id)
    return _edit(chat, message, check_reply_markup(p, inline_only=True))


@api_method("deleteEphemeralMessage")
async def delete_ephemeral(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Delete an ephemeral message (its receiver no longer sees it)."""
    _, message = _ephemeral(api, p, errors.MESSAGE_TO_DELETE_NOT_FOUND)
    message.deleted = True
    return True
