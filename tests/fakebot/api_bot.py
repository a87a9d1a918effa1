"""Bot-level methods: identity, updates (long polling), webhook, command menus, settings."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from . import errors
from .errors import ApiError, bad_request
from .registry import api_method

if TYPE_CHECKING:
    from .calls import ApiCall
    from .params import Params
    from .server import FakeBotApi


@api_method("getMe")
async def get_me(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The bot's ``User`` with the bot-only capability fields."""
    return {
        **api.bot.to_api(),
        "can_join_groups": True,
        "can_read_all_group_messages": not api.privacy_mode,
        "supports_inline_queries": False,
        "can_connect_to_business": False,
        "has_main_web_app": False,
    }


@api_method("logOut", "close")
async def log_out(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Accepted and ignored."""
    return True


@api_method("getUpdates")
async def get_updates(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Long polling: confirm by ``offset``, then answer at once or when an update arrives."""
    if api.webhook_url:
        raise ApiError(409, errors.WEBHOOK_ACTIVE)
    offset = p.integer("offset")
    limit = min(max(p.integer("limit", 100) or 100, 1), 100)
    timeout = max(p.number("timeout", 0.0) or 0.0, 0.0)
    allowed = p.decoded("allowed_updates", "allowed_updates")
    if allowed is not None:
        api.updates.set_allowed(str(kind) for kind in allowed)
    if offset is not None and api.updates.confirm(offset):
        api.touch()
        api.notify()
    deadline = time.monotonic() + timeout
    while True:
        event = api.change_event
        if api.updates.pending or api.closing:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        await api.wait_change(event, remaining)
    batch = api.updates.peek(limit)
    for update in batch:  # when the bot got each tap, for latency measurements
        if update.kind == "callback_query":
            query = api.world.callback_queries.get(str(update.payload.get("id")))
            if query is not None and query.delivered_at is None:
                query.delivered_at = api.clock()
    return [update.to_api() for update in batch]


@api_method("deleteWebhook")
async def delete_webhook(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Remove the webhook; ``drop_pending_updates`` forgets queued updates."""
    api.webhook.clear()
    if p.flag("drop_pending_updates"):
        api.updates.drop_pending()
    return True


@api_method("setWebhook")
async def set_webhook(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Check and remember the URL and secret (``getUpdates`` then answers 409 Conflict, as
    on Telegram); with delivery switched on, updates are POSTed to it (``webhook.py``)."""
    api.webhook.configure(p)
    if p.flag("drop_pending_updates"):
        api.updates.drop_pending()
    return True


@api_method("getWebhookInfo")
async def get_webhook_info(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The webhook URL (empty when polling), pending updates and the last delivery error."""
    return api.webhook.info()


def _language(p: Params) -> str:
    code = (p.text("language_code") or "").strip()
    if code and not (len(code) == 2 and code.isalpha() and code.islower()):
        raise bad_request("invalid language code specified")
    return code


@api_method("setMyCommands")
async def set_my_commands(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Store the command list for a scope and language."""
    commands = p.decoded("commands", "commands")
    api.commands.set(p.decoded("scope", "scope"), _language(p), commands)
    return True


@api_method("getMyCommands")
async def get_my_commands(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The list stored for exactly this scope and language."""
    return api.commands.get(p.decoded("scope", "scope"), _language(p))


@api_method("deleteMyCommands")
async def delete_my_commands(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Delete the list for this scope and language."""
    api.commands.delete(p.decoded("scope", "scope"), _language(p))
    return True


_SETTINGS = {
    "setMyName": ("getMyName", "name", 64),
    "setMyDescription": ("getMyDescription", "description", 512),
    "setMyShortDescription": ("getMyShortDescription", "short_description", 120),
}


@api_method(*_SETTINGS)
async def set_my_text(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Store the bot's name or (short) description per language."""
    _, field, limit = _SETTINGS[call.method]
    value = p.text(field) or ""
    if len(value) > limit:
        raise bad_request(f"{field} is too long")
    api.bot_settings[f"{field}:{_language(p)}"] = value
    return True


@api_method(*(getter for getter, _, _ in _SETTINGS.values()))
async def get_my_text(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The stored name or (short) description for a language."""
    field = next(f for getter, f, _ in _SETTINGS.values() if getter == call.method)
    value = api.bot_settings.get(f"{field}:{_language(p)}")
    if value is None and field == "name":
        value = api.bot.first_name
    return {field: value or ""}


@api_method("setMyDefaultAdministratorRights")
async def set_default_rights(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Store the suggested administrator rights."""
    key = "rights:channels" if p.flag("for_channels") else "rights:groups"
    api.bot_settings[key] = p.decoded("rights", "rights") or {}
    return True


@api_method("getMyDefaultAdministratorRights")
async def get_default_rights(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """The stored administrator rights (all false by default)."""
    key = "rights:channels" if p.flag("for_channels") else "rights:groups"
    base = dict.fromkeys(
        (
            "is_anonymous", "can_manage_chat", "can_delete_messages", "can_manage_video_chats",
            "can_restrict_members", "can_promote_members", "can_change_info",
            "can_invite_users", "can_post_stories", "can_edit_stories", "can_delete_stories",
        ),
        False,
    )  # fmt: skip
    return {**base, **api.bot_settings.get(key, {})}
