"""Chat methods: chat info, members, administrators, chat actions, pins, menu button."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import errors
from .errors import bad_request
from .model import FakeChat, member_object
from .people import GROUP_ANONYMOUS_BOT_ID
from .registry import api_method

if TYPE_CHECKING:
    from .calls import ApiCall
    from .params import Params
    from .server import FakeBotApi

JSONDict = dict[str, Any]

CHAT_ACTIONS = frozenset(
    {
        "typing", "upload_photo", "record_video", "upload_video", "record_voice",
        "upload_voice", "upload_document", "choose_sticker", "find_location",
        "record_video_note", "upload_video_note",
    }
)  # fmt: skip


def chat_member_json(api: FakeBotApi, chat: FakeChat, user_id: int) -> JSONDict:
    """The ``ChatMember`` object for a user in a chat."""
    user = api.world.users[user_id]
    status = api.world.member_status(chat, user_id)
    return member_object(user.to_api(), status, is_anonymous=user_id in chat.anonymous_admins)


@api_method("getChat")
async def get_chat(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """A ``ChatFullInfo`` with the fields PTB requires."""
    chat = api.world.find_chat(p.chat_id())
    return {
        **chat.to_api(),
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": False, "limited_gifts": False, "unique_gifts": False,
            "premium_subscription": False, "gifts_from_channels": False,
        },
    }  # fmt: skip


@api_method("getChatMember")
async def get_chat_member(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """A user's membership in a chat, as Telegram answers it: ``creator``, ``administrator``,
    ``member``, ``restricted`` (with ``is_member``), ``left`` or ``kicked`` for somebody the
    group has had; "user not found" for somebody it never had (and for unknown ids). The
    GroupAnonymousBot is ``left`` (``people.py``); in a private chat only its user is a
    member."""
    chat = api.world.find_chat(p.chat_id())
    user_id = p.integer("user_id")
    if user_id is None or user_id not in api.world.users:
        raise bad_request(errors.USER_NOT_FOUND)
    known = user_id in chat.members or user_id in (api.bot.id, GROUP_ANONYMOUS_BOT_ID)
    if chat.is_group and not known:
        raise bad_request(errors.USER_NOT_FOUND)
    return chat_member_json(api, chat, user_id)


@api_method("getChatAdministrators")
async def get_chat_administrators(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The creator and administrators of a group (the bot included when it is one)."""
    chat = api.world.find_chat(p.chat_id())
    if not chat.is_group:
        raise bad_request(errors.NO_ADMINS_IN_PRIVATE)
    admins = list(chat.member_ids("creator", "administrator"))
    if api.world.bot_is_admin(chat):
        admins.append(api.bot.id)
    return [chat_member_json(api, chat, uid) for uid in admins]


@api_method("getChatMemberCount")
async def get_chat_member_count(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Members present in the chat, the bot included."""
    chat = api.world.find_chat(p.chat_id())
    if not chat.is_group:
        return 2
    bot_in = chat.bot_status in ("member", "administrator")
    return len(list(chat.member_ids())) + int(bot_in)


@api_method("leaveChat")
async def leave_chat(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The bot leaves a group."""
    chat = api.world.writable_chat(p.chat_id())
    if chat.is_group:
        chat.bot_status = "left"
    return True


@api_method("sendChatAction")
async def send_chat_action(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Record the action (``chat.chat_actions``)."""
    chat = api.world.writable_chat(p.chat_id())
    action = p.text("action") or ""
    if action not in CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request")
    chat.chat_actions.append(action)
    return True


def _pinnable_chat(api: FakeBotApi, p: Params) -> FakeChat:
    chat = api.world.writable_chat(p.chat_id())
    if chat.is_group and not api.world.bot_is_admin(chat):
        raise bad_request("not enough rights to manage pinned messages in the chat")
    return chat


@api_method("pinChatMessage")
async def pin_chat_message(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Pin a message (groups: the bot must be an administrator)."""
    chat = _pinnable_chat(api, p)
    message = api.world.find_message(chat, p.integer("message_id"), "message to pin not found")
    if message.message_id not in chat.pinned:
        chat.pinned.append(message.message_id)
    return True


@api_method("unpinChatMessage")
async def unpin_chat_message(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Unpin one message (the latest pinned one without ``message_id``)."""
    chat = _pinnable_chat(api, p)
    message_id = p.integer("message_id")
    if message_id is None and chat.pinned:
        message_id = chat.pinned[-1]
    if message_id is not None and message_id in chat.pinned:
        chat.pinned.remove(message_id)
    return True


@api_method("unpinAllChatMessages")
async def unpin_all_chat_messages(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Unpin every message."""
    _pinnable_chat(api, p).pinned.clear()
    return True


@api_method("setChatMenuButton")
async def set_chat_menu_button(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Set the menu button of a private chat, or the default one without ``chat_id``."""
    button = p.decoded("menu_button", "menu button") or {"type": "default"}
    if not isinstance(button, dict) or button.get("type") not in ("commands", "web_app", "default"):
        raise bad_request("can't parse menu button")
    if "chat_id" in p:
        chat = api.world.find_chat(p.chat_id())
        if chat.is_group:
            raise bad_request("menu button can be set only in private chats")
        chat.menu_button = button
    else:
        api.default_menu_button = button if button["type"] != "default" else {"type": "commands"}
    return True


@api_method("getChatMenuButton")
async def get_chat_menu_button(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The menu button of a private chat, or the default one."""
    if "chat_id" in p:
        chat = api.world.find_chat(p.chat_id())
        if chat.menu_button and chat.menu_button.get("type") != "default":
            return chat.menu_button
    return api.default_menu_button
