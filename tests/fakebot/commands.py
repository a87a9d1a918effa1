"""Bot command menus (``setMyCommands``) per scope and language, and what a user sees.

Resolution follows the Bot API documentation of ``BotCommandScope``: the most specific scope
with commands wins, trying the user's language before the scope's language-less list.
"""

from __future__ import annotations

import re
from typing import Any

from . import errors
from .errors import bad_request
from .model import FakeChat, FakeUser
from .world import World

JSONDict = dict[str, Any]
ScopeKey = tuple[str, int | None, int | None]  # (type, chat_id, user_id)
_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_SCOPES = {
    "default", "all_private_chats", "all_group_chats", "all_chat_administrators", "chat",
    "chat_administrators", "chat_member",
}  # fmt: skip


class CommandStore:
    """Command lists keyed by ``(scope, language_code)``; ``""`` is the language-less list."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.lists: dict[tuple[ScopeKey, str], list[JSONDict]] = {}

    def scope_key(self, scope: Any) -> ScopeKey:
        """Validate a ``BotCommandScope`` object and return its key (None: default scope)."""
        if scope is None:
            return ("default", None, None)
        if not isinstance(scope, dict) or scope.get("type") not in _SCOPES:
            raise bad_request("wrong parameter scope")
        kind = str(scope["type"])
        chat_id: int | None = None
        user_id: int | None = None
        if kind in ("chat", "chat_administrators", "chat_member"):
            ref = scope.get("chat_id")
            if ref is None:
                raise bad_request("chat_id is empty")
            chat_id = self.world.find_chat(ref if isinstance(ref, int) else _int_or(ref)).id
        if kind == "chat_member":
            raw_user = scope.get("user_id")
            if raw_user is None or int(raw_user) not in self.world.users:
                raise bad_request(errors.USER_NOT_FOUND)
            user_id = int(raw_user)
        return (kind, chat_id, user_id)

    def set(self, scope: Any, language_code: str, commands: Any) -> None:
        """Store a command list (an empty list deletes it), validating like Telegram."""
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("commands must be an array of at most 100 BotCommand")
        cleaned = []
        for item in commands:
            if not isinstance(item, dict):
                raise bad_request(errors.BOT_COMMAND_INVALID)
            command = str(item.get("command", "")).removeprefix("/")
            description = str(item.get("description", ""))
            if not _COMMAND.fullmatch(command):
                raise bad_request(errors.BOT_COMMAND_INVALID)
            if not 1 <= len(description) <= 256:
                raise bad_request(errors.BOT_COMMAND_DESCRIPTION_INVALID)
            cleaned.append({"command": command, "description": description})
        key = (self.scope_key(scope), language_code)
        if cleaned:
            self.lists[key] = cleaned
        else:
            self.lists.pop(key, None)

    def get(self, scope: Any = None, language_code: str = "") -> list[JSONDict]:
        """The list stored for exactly this scope and language (``getMyCommands``)."""
        return list(self.lists.get((self.scope_key(scope), language_code), []))

    def delete(self, scope: Any, language_code: str) -> None:
        """Remove the list for this scope and language (``deleteMyCommands``)."""
        self.lists.pop((self.scope_key(scope), language_code), None)

    def visible(self, user: FakeUser, chat: FakeChat) -> list[tuple[str, str]]:
        """The ``(command, description)`` menu a user's app shows in a chat."""
        lang = (user.language_code or "")[:2]
        admin = chat.is_group and chat.members.get(user.id) in ("creator", "administrator")
        keys: list[ScopeKey]
        if not chat.is_group:
            keys = [("chat", chat.id, None), ("all_private_chats", None, None)]
        else:
            keys = [("chat_member", chat.id, user.id)]
            if admin:
                keys.append(("chat_administrators", chat.id, None))
            keys.append(("chat", chat.id, None))
            if admin:
                keys.append(("all_chat_administrators", None, None))
            keys.append(("all_group_chats", None, None))
        keys.append(("default", None, None))
        for key in keys:
            for language in (lang, ""):
                found = self.lists.get((key, language))
                if found:
                    return [(c["command"], c["description"]) for c in found]
        return []


def _int_or(value: Any) -> int | str:
    text = str(value)
    try:
        return int(text)
    except ValueError:
        return text
