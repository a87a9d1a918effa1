"""Message methods: send, edit, delete, and answering callback queries (photos:
:mod:`.api_photos`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from . import errors
from .api_ephemeral import send_ephemeral
from .content import check_reply_markup, format_text
from .errors import ApiError, bad_request
from .html_parser import FormattedText, utf16_len
from .model import FakeChat, FakeMessage
from .registry import api_method
from .topics import thread_of_post, topic_root_reply

if TYPE_CHECKING:
    from .calls import ApiCall
    from .params import Params
    from .server import FakeBotApi

JSONDict = dict[str, Any]
MAX_ALERT = 200


def _format(api: FakeBotApi, p: Params, field: str = "text") -> FormattedText | None:
    return format_text(
        p,
        text_field=field,
        entities_field="entities" if field == "text" else "caption_entities",
        required=field == "text",
        strict_html=api.strict_html,
        resolve_user=api.world.user_json,
    )


def _reply_to(api: FakeBotApi, chat: FakeChat, p: Params) -> FakeMessage | None:
    # Like the Bot API: with reply_parameters, the old top-level parameters are ignored.
    if "reply_parameters" in p:
        reply = p.decoded("reply_parameters", "reply parameters") or {}
        if not isinstance(reply, dict):
            raise bad_request("Object expected as reply parameters")
        message_id = reply.get("message_id")
        allow = bool(reply.get("allow_sending_without_reply", False))
    else:
        message_id = p.integer("reply_to_message_id")
        allow = p.flag("allow_sending_without_reply")
    if message_id is None:
        return None
    target = chat.message(int(message_id))
    if target is None or target.deleted:
        if allow:
            return None
        raise bad_request(errors.REPLIED_NOT_FOUND)
    return target


def _post(
    api: FakeBotApi, chat: FakeChat, p: Params, formatted: FormattedText | None, **fields: Any
) -> JSONDict:
    reply_markup = check_reply_markup(p, disabled_buttons=api.disabled_buttons)
    replied = _reply_to(api, chat, p)
    thread = thread_of_post(
        chat, p.integer("message_thread_id"), replied, may_post_closed=api.world.bot_is_admin(chat)
    )
    extra: JSONDict = topic_root_reply(chat, thread)
    if replied is not None:
        extra["reply_to_message"] = replied.to_api(chat)
    message = api.world.add_message(
        chat,
        api.bot,
        entities=formatted.entities if formatted else [],
        parse_mode=p.text("parse_mode"),
        reply_markup=reply_markup,
        reply_to_message_id=replied.message_id if replied else None,
        message_thread_id=thread,
        extra=extra,
        **fields,
    )
    return message.to_api(chat)


@api_method("sendMessage")
async def send_message(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Post a text message from the bot (an ephemeral one: :mod:`.api_ephemeral`)."""
    if "ephemeral_message_parameters" in p:
        return send_ephemeral(api, p, call)
    chat = api.world.writable_chat(p.chat_id())
    formatted = _format(api, p)
    assert formatted is not None
    return _post(api, chat, p, formatted, text=formatted.text, source_text=p.text("text"))


def _own_message(api: FakeBotApi, p: Params) -> tuple[FakeChat, FakeMessage]:
    if "inline_message_id" in p:
        raise bad_request("MESSAGE_ID_INVALID")  # inline mode is not modelled
    chat = api.world.writable_chat(p.chat_id())
    message = api.world.find_message(
        chat, p.integer("message_id"), errors.MESSAGE_TO_EDIT_NOT_FOUND
    )
    if not message.from_bot:
        raise bad_request(errors.MESSAGE_CANT_BE_EDITED)
    return chat, message


def _apply_edit(
    chat: FakeChat, message: FakeMessage, markup: JSONDict | None, **changes: Any
) -> JSONDict:
    current = {name: getattr(message, name) for name in changes}
    if current == changes and markup == message.reply_markup:
        raise bad_request(errors.NOT_MODIFIED)
    message.history.append((message.text or message.caption, message.reply_markup))
    for name, value in changes.items():
        setattr(message, name, value)
    message.reply_markup = markup
    message.edit_date = int(time.time())
    return message.to_api(chat)


@api_method("editMessageText")
async def edit_message_text(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Replace the text; without ``reply_markup`` the inline keyboard is removed."""
    chat, message = _own_message(api, p)
    if message.text is None:
        raise bad_request("there is no text in the message to edit")
    formatted = _format(api, p)
    assert formatted is not None
    markup = check_reply_markup(p, inline_only=True, disabled_buttons=api.disabled_buttons)
    result = _apply_edit(chat, message, markup, text=formatted.text, entities=formatted.entities)
    message.source_text, message.parse_mode = p.text("text"), p.text("parse_mode")
    return result


@api_method("editMessageCaption")
async def edit_message_caption(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Replace a photo's caption; without ``reply_markup`` the keyboard is removed."""
    chat, message = _own_message(api, p)
    if message.photo is None:
        raise bad_request("there is no caption in the message to edit")
    formatted = _format(api, p, "caption")
    markup = check_reply_markup(p, inline_only=True, disabled_buttons=api.disabled_buttons)
    return _apply_edit(
        chat,
        message,
        markup,
        caption=formatted.text if formatted else None,
        entities=formatted.entities if formatted else [],
    )


@api_method("editMessageReplyMarkup")
async def edit_message_reply_markup(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Replace the inline keyboard (remove it without ``reply_markup``)."""
    chat, message = _own_message(api, p)
    return _apply_edit(
        chat,
        message,
        check_reply_markup(p, inline_only=True, disabled_buttons=api.disabled_buttons),
    )


DELETE_WINDOW = 48 * 3600
"""Seconds after it was sent (its ``date``) during which a message may be deleted."""


def _delete(api: FakeBotApi, chat: FakeChat, message_id: int | None) -> None:
    message = api.world.find_message(chat, message_id, errors.MESSAGE_TO_DELETE_NOT_FOUND)
    if not message.from_bot and chat.is_group and not api.world.bot_is_admin(chat):
        raise bad_request(errors.MESSAGE_CANT_BE_DELETED)
    if time.time() - message.date >= DELETE_WINDOW:
        raise bad_request(errors.MESSAGE_CANT_BE_DELETED_FOR_EVERYONE)
    message.deleted = True


@api_method("deleteMessage")
async def delete_message(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Delete a message (others' messages in groups only when the bot is an admin)."""
    chat = api.world.writable_chat(p.chat_id())
    _delete(api, chat, p.integer("message_id"))
    return True


@api_method("deleteMessages")
async def delete_messages(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Delete several messages; the ones that cannot be deleted are skipped."""
    chat = api.world.writable_chat(p.chat_id())
    ids = p.decoded("message_ids", "message_ids") or []
    for message_id in ids:
        try:
            _delete(api, chat, int(message_id))
        except ApiError:
            continue
    return True


@api_method("answerCallbackQuery")
async def answer_callback_query(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Answer a tap once; a second answer (or an unknown id) gets Telegram's 400."""
    query = api.world.callback_queries.get(p.text("callback_query_id") or "")
    if query is not None:
        call.chat_id = query.chat_id
    expired = (
        query is not None
        and api.callback_query_timeout is not None
        and api.clock() - query.created > api.callback_query_timeout
    )
    if query is None or query.answered or expired:
        if query is not None:
            query.refused_answers += 1
        raise bad_request(errors.QUERY_TOO_OLD)
    text = p.text("text")
    if text is not None and utf16_len(text) > MAX_ALERT:
        raise bad_request(errors.ALERT_TOO_LONG)
    query.answer = {
        "text": text,
        "show_alert": p.flag("show_alert"),
        "url": p.text("url"),
        "cache_time": p.integer("cache_time", 0),
    }
    query.answered_at = api.clock()
    return True
