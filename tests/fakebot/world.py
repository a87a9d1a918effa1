"""The state of the fake Telegram and its rules: who may write where, ids, migrations.

No HTTP and no asyncio here: the server and the method handlers call these functions.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from . import errors
from .errors import ApiError, bad_request, chat_migrated, forbidden
from .model import CallbackQueryRecord, ChatType, FakeChat, FakeMessage, FakeUser, MemberStatus

JSONDict = dict[str, Any]


class World:
    """Users, chats and messages, plus the bot itself (``bot``)."""

    def __init__(self, bot: FakeUser) -> None:
        self.bot = bot
        self.users: dict[int, FakeUser] = {bot.id: bot}
        self.chats: dict[int, FakeChat] = {}
        self.callback_queries: dict[str, CallbackQueryRecord] = {}
        self._next_user_id = 100_000_001
        self._next_group_id = 4_000_000_001
        self._next_supergroup_id = 1_001_000_000_001
        self._next_query_id = 10**18 + 1

    # --- creating things -------------------------------------------------------------------

    def new_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = None,
        user_id: int | None = None,
        is_bot: bool = False,
    ) -> FakeUser:
        """Create a user and the (empty) private chat between them and the bot."""
        if user_id is None:
            user_id = self._next_user_id
            self._next_user_id += 1
        if user_id in self.users:
            raise ValueError(f"user id {user_id} already exists")
        user = FakeUser(
            id=user_id,
            first_name=first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
            is_bot=is_bot,
        )
        self.users[user_id] = user
        self.chats[user_id] = FakeChat(id=user_id, type="private", user=user)
        return user

    def new_group(
        self,
        kind: ChatType,
        title: str,
        members: Iterable[FakeUser],
        admins: Iterable[FakeUser] = (),
        *,
        creator: FakeUser | None = None,
        bot_status: MemberStatus = "member",
        username: str | None = None,
    ) -> FakeChat:
        """Create a group or supergroup with the given members; the bot is already in it."""
        if kind == "group":
            chat_id = -self._next_group_id
            self._next_group_id += 1
        else:
            chat_id = -self._next_supergroup_id
            self._next_supergroup_id += 1
        chat = FakeChat(id=chat_id, type=kind, title=title, username=username)
        chat.bot_status = bot_status
        member_list = list(members)
        admin_ids = {a.id for a in admins}
        if creator is None and member_list:
            creator = next((m for m in member_list if m.id in admin_ids), member_list[0])
        for user in [*member_list, *admins]:
            chat.members[user.id] = "administrator" if user.id in admin_ids else "member"
        if creator is not None:
            chat.members[creator.id] = "creator"
        self.chats[chat_id] = chat
        return chat

    def new_query_id(self) -> str:
        """A fresh callback query id (a long decimal string, like Telegram's)."""
        query_id = str(self._next_query_id)
        self._next_query_id += 1
        return query_id

    def add_message(self, chat: FakeChat, sender: FakeUser | None, **fields: Any) -> FakeMessage:
        """Append a message to a chat with the next message id and return it."""
        message = FakeMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            date=int(time.time()),
            from_user=sender,
            **fields,
        )
        chat.next_message_id += 1
        chat.all_messages.append(message)
        return message

    def migrate(self, chat: FakeChat) -> FakeChat:
        """Turn a basic group into a new supergroup (members, admins and bot status kept)."""
        if chat.type != "group" or chat.migrated_to is not None:
            raise ValueError("only a basic group that was not migrated yet can be migrated")
        new = FakeChat(
            id=-self._next_supergroup_id,
            type="supergroup",
            title=chat.title,
            members=dict(chat.members),
            bot_status=chat.bot_status,
            migrated_from=chat.id,
        )
        self._next_supergroup_id += 1
        self.chats[new.id] = new
        chat.migrated_to = new.id
        return new

    # --- looking things up, with Telegram's errors -----------------------------------------

    def find_chat(self, ref: int | str) -> FakeChat:
        """The chat for a ``chat_id`` parameter; 400 if unknown or migrated."""
        chat: FakeChat | None
        if isinstance(ref, str):
            name = ref.removeprefix("@").lower()
            chat = next(
                (c for c in self.chats.values() if (c.username or "").lower() == name), None
            )
        else:
            chat = self.chats.get(ref)
        if chat is None:
            raise ApiError(400, errors.CHAT_NOT_FOUND)
        if chat.migrated_to is not None:
            raise chat_migrated(chat.migrated_to)
        return chat

    def writable_chat(self, ref: int | str) -> FakeChat:
        """The chat, if the bot may post or act in it; else Telegram's 400/403 error."""
        chat = self.find_chat(ref)
        if chat.type == "private":
            assert chat.user is not None
            if chat.user.blocked:
                raise forbidden(errors.BLOCKED_BY_USER)
            if not chat.user.started:
                raise forbidden(errors.CANT_INITIATE)
            return chat
        kind = "group chat" if chat.type == "group" else "supergroup chat"
        if chat.bot_status == "kicked":
            raise forbidden(f"Forbidden: bot was kicked from the {kind}")
        if chat.bot_status == "left":
            raise forbidden(f"Forbidden: bot is not a member of the {kind}")
        return chat

    def bot_is_admin(self, chat: FakeChat) -> bool:
        """True when the bot is an administrator of the chat."""
        return chat.bot_status in ("administrator", "creator")

    def find_message(self, chat: FakeChat, message_id: int | None, missing: str) -> FakeMessage:
        """A non-deleted message of the chat; 400 ``missing`` if there is none."""
        message = chat.message(message_id) if message_id is not None else None
        if message is None or message.deleted:
            raise bad_request(missing)
        return message

    def user_json(self, user_id: int) -> JSONDict | None:
        """The ``User`` object for a known user id (for ``tg://user?id=`` mentions)."""
        user = self.users.get(user_id)
        return user.to_api() if user is not None else None

    def member_status(self, chat: FakeChat, user_id: int) -> MemberStatus:
        """A user's status in a chat (``left`` when not a member)."""
        if user_id == self.bot.id:
            return chat.bot_status
        if chat.type == "private":
            return "member" if chat.id == user_id else "left"
        return chat.members.get(user_id, "left")
