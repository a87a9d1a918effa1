"""What people do besides writing: posting as the group (anonymous admins), deleting messages.

Anonymous administrators (supergroups only; Telegram upgrades a basic group when an admin
gets the right) post "as the group": the bot sees ``from`` = the service account
GroupAnonymousBot (id 1087968824, ``is_bot``, first name "Group") and ``sender_chat`` = the
group itself.  ``getChatAdministrators`` lists the real person with ``is_anonymous: true``;
``getChatMember(chat, 1087968824)`` answers ``status: "left"`` with that user (the Bot API
has no special case for it: it asks TDLib, which answers ``left`` for a known user who is no
participant).  Button taps always come from the real person: Telegram has no anonymous
callback queries.

A user deleting a message is silent for the bot (Telegram sends no update); afterwards
replies to it, edits and deletes answer Telegram's errors, and nobody can tap its buttons.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import FakeChat, FakeMessage, FakeUser

if TYPE_CHECKING:
    from .harness import SimUser
    from .world import World

JSONDict = dict[str, Any]
GROUP_ANONYMOUS_BOT_ID = 1087968824
CHANNEL_BOT_ID = 136817688
"""Telegram's "Channel_Bot": the ``from`` of every message sent on behalf of a channel."""


def register_anonymous_bot(world: World) -> FakeUser:
    """The GroupAnonymousBot account in the world's users (FakeBotApi adds it at once)."""
    user = world.users.get(GROUP_ANONYMOUS_BOT_ID)
    if user is None:
        user = FakeUser(
            id=GROUP_ANONYMOUS_BOT_ID, first_name="Group", username="GroupAnonymousBot",
            is_bot=True,
        )  # fmt: skip
        world.users[user.id] = user
    return user


def anonymous_sender(world: World, chat: FakeChat, user: FakeUser) -> JSONDict:
    """The ``from``/``sender_chat`` fields of a post as the group (marks the admin anonymous).

    Raises ValueError where Telegram offers no anonymous posting.
    """
    if chat.type != "supergroup":
        raise ValueError("anonymous admins exist in supergroups only (migrate the group first)")
    if chat.members.get(user.id) not in ("creator", "administrator"):
        raise ValueError(f"{user.first_name} is no administrator of chat {chat.id}")
    chat.anonymous_admins.add(user.id)
    return {"from": register_anonymous_bot(world).to_api(), "sender_chat": chat.to_api()}


def channel_sender(world: World, channel_id: int, title: str) -> JSONDict:
    """The ``from``/``sender_chat`` fields of a message a person sends in a group on behalf of
    a channel (their own channel, or the group's linked one): ``from`` is Channel_Bot (id
    136817688, shared by every channel), ``sender_chat`` the channel."""
    bot = world.users.get(CHANNEL_BOT_ID)
    if bot is None:
        bot = FakeUser(id=CHANNEL_BOT_ID, first_name="Channel", username="Channel_Bot", is_bot=True)
        world.users[bot.id] = bot
    channel = {"id": channel_id, "type": "channel", "title": title}
    return {"from": bot.to_api(), "sender_chat": channel}


def is_anonymous_post(message: FakeMessage) -> bool:
    """True for a message an administrator posted as the group."""
    return "sender_chat" in message.extra


class PeopleMixin:
    """Anonymous admins and deletions by users (methods of ``FakeBotApi``)."""

    world: World

    if TYPE_CHECKING:  # provided by FakeBotApi

        def notify(self) -> None: ...

    @property
    def anonymous_bot(self) -> FakeUser:
        """The GroupAnonymousBot user (id 1087968824) the bot sees as sender of anonymous posts."""
        return register_anonymous_bot(self.world)

    def set_anonymous_admin(self, chat: FakeChat, user: SimUser, anonymous: bool = True) -> None:
        """Give or take an administrator's "remain anonymous" right (``is_anonymous``)."""
        if anonymous:
            anonymous_sender(self.world, chat, user.record)
        else:
            chat.anonymous_admins.discard(user.id)

    def delete_message_by_user(
        self, chat: FakeChat, message: FakeMessage, *, by: SimUser | None = None
    ) -> None:
        """A person deletes a message (default: its author; the bot gets no update).

        ``by`` must be allowed to: their own message, anything in their private chat with
        the bot, or anyone's message in a group they administer.
        """
        if message.deleted:
            raise ValueError(f"message {message.message_id} is already deleted")
        if by is not None:
            own = message.from_user is not None and message.from_user.id == by.id
            if chat.type == "private":
                allowed = chat.id == by.id
            else:
                allowed = own or chat.members.get(by.id) in ("creator", "administrator")
            if not allowed:
                raise ValueError(f"{by} may not delete message {message.message_id}")
        message.deleted = True
        self.notify()
