"""Simulated users: what people do in Telegram, turned into updates for the bot.

``SimUser`` methods build the update Telegram would send (a message with ``bot_command``
entities, a callback query carrying the button's data, a ``my_chat_member`` change...) and
queue it; they return at once.  Wait for the bot with ``BotRunner.settle()`` or
``FakeBotApi.wait_for``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .html_parser import utf16_len
from .model import (
    Button,
    CallbackQueryRecord,
    FakeChat,
    FakeMessage,
    FakeUser,
    MemberStatus,
    member_object,
)
from .people import anonymous_sender, channel_sender
from .topics import user_thread

if TYPE_CHECKING:
    from .server import FakeBotApi

JSONDict = dict[str, Any]
ButtonSpec = str | Callable[[Button], bool]
# Telegram's bot command syntax: /name (1-64) with an optional @botname (3-32).
_COMMAND = re.compile(r"(?<![\w/<>])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/<>])")


def command_entities(text: str) -> list[JSONDict]:
    """The ``bot_command`` entities Telegram attaches to a text (UTF-16 offsets)."""
    return [
        {
            "type": "bot_command",
            "offset": utf16_len(text[: match.start()]),
            "length": utf16_len(match.group()),
        }
        for match in _COMMAND.finditer(text)
    ]


@dataclass(slots=True)
class Tap:
    """A button tap: the callback query sent to the bot and its answer, once given."""

    api: FakeBotApi
    query: CallbackQueryRecord

    @property
    def answered(self) -> bool:
        """True once the bot answered the callback query."""
        return self.query.answered

    @property
    def text(self) -> str | None:
        """The answer's toast or alert text."""
        return self.query.text

    @property
    def show_alert(self) -> bool:
        """True when the answer is an alert."""
        return self.query.show_alert

    async def wait_answered(self, timeout: float = 5.0) -> CallbackQueryRecord:  # noqa: ASYNC109
        """Wait until the bot answered; return the query record."""
        await self.api.wait_for(lambda: self.query.answered, timeout, what="callback answer")
        return self.query


class SimUser:
    """A person using Telegram, driven by a test.  ``record`` is the model ``FakeUser``."""

    def __init__(self, api: FakeBotApi, record: FakeUser) -> None:
        self.api = api
        self.record = record

    def __repr__(self) -> str:
        return f"SimUser({self.record.first_name!r}, id={self.record.id})"

    @property
    def id(self) -> int:
        """The user id (also the id of their private chat with the bot)."""
        return self.record.id

    @property
    def first_name(self) -> str:
        """The user's first name."""
        return self.record.first_name

    @property
    def private_chat(self) -> FakeChat:
        """The private chat between this user and the bot."""
        return self.api.world.chats[self.record.id]

    def _chat(self, chat: FakeChat | int | None) -> FakeChat:
        target = self.private_chat if chat is None else self.api.chat(chat)
        if target.migrated_to is not None:
            raise ValueError(f"chat {target.id} was migrated to {target.migrated_to}")
        if target.is_group and target.members.get(self.id) not in (
            "creator", "administrator", "member", "restricted",
        ):  # fmt: skip
            raise ValueError(f"{self} is not a member of chat {target.id}")
        if target.type == "private" and target.id != self.id:
            raise ValueError(f"{self} cannot write in the private chat of user {target.id}")
        return target

    async def send(
        self,
        chat: FakeChat | int | None,
        text: str,
        *,
        reply_to: FakeMessage | None = None,
        thread_id: int | None = None,
        anonymous: bool = False,
        channel: tuple[int, str] | None = None,
    ) -> FakeMessage:
        """Write ``text`` in a chat (None: the private chat with the bot); return the message.

        Commands get ``bot_command`` entities.  Writing to the bot privately counts as
        starting it.  In groups with privacy mode on (the default) the bot only receives
        commands and replies to its own messages, as on Telegram.  ``thread_id``: a forum
        topic (``api.add_topic``; a reply goes to the topic of the message it replies to).
        ``anonymous``: an administrator posting as the group (``people.py``); the stored
        message keeps the real author in ``from_user``, the bot sees GroupAnonymousBot.
        ``channel``: ``(channel id, title)``: sent on behalf of that channel; the bot sees
        Channel_Bot and the channel as ``sender_chat`` (``people.py``).
        """
        target = self._chat(chat)
        if target.type == "private":
            if self.record.blocked:
                raise ValueError(f"{self} blocked the bot; call start_bot() to unblock")
            self.record.started = True
        entities = command_entities(text)
        is_admin = target.members.get(self.id) in ("creator", "administrator")
        thread, extra = user_thread(target, thread_id, reply_to, is_admin=is_admin)
        fields: JSONDict = {"text": text, "entities": entities, "message_thread_id": thread}
        if reply_to is not None:
            fields["reply_to_message_id"] = reply_to.message_id
            extra["reply_to_message"] = reply_to.to_api(target)
        if anonymous:
            extra.update(anonymous_sender(self.api.world, target, self.record))
        if channel is not None:
            extra.update(channel_sender(self.api.world, *channel))
        fields["extra"] = extra
        message = self.api.world.add_message(target, self.record, **fields)
        if self._bot_sees(target, message, reply_to):
            self.api.enqueue("message", message.to_api(target))
        else:
            self.api.notify()
        return message

    async def edit(self, message: FakeMessage, text: str) -> FakeMessage:
        """Edit one of this user's text messages; the bot gets ``edited_message`` when it saw
        (or would now see) the message, as on Telegram."""
        if message.deleted or message.from_user is not self.record or message.text is None:
            raise ValueError(f"{self} cannot edit message {message.message_id}")
        chat = self._chat(message.chat_id)
        message.history.append((message.text, message.reply_markup))
        message.text, message.entities = text, command_entities(text)
        message.edit_date = int(time.time())
        reply_to = chat.message(message.reply_to_message_id or 0)
        if self._bot_sees(chat, message, reply_to):
            self.api.enqueue("edited_message", message.to_api(chat))
        else:
            self.api.notify()
        return message

    def _bot_sees(self, chat: FakeChat, message: FakeMessage, reply_to: FakeMessage | None) -> bool:
        if not chat.is_group:
            return True
        if chat.bot_status not in ("member", "administrator"):
            return False
        if not self.api.privacy_mode or self.api.world.bot_is_admin(chat):
            return True
        if reply_to is not None and reply_to.from_bot:
            return True
        bot_name = (self.api.bot.username or "").lower()
        for match in _COMMAND.finditer(message.text or ""):
            if match.group().partition("@")[2].lower() in ("", bot_name):
                return True
        return False

    async def start_bot(self, payload: str | None = None) -> FakeMessage:
        """Press Start (``/start payload`` from a deep link); unblocks a blocked bot."""
        if self.record.blocked:
            self.unblock_bot()
        return await self.send(None, f"/start {payload}" if payload else "/start")

    def _my_chat_member(self, chat: FakeChat, old: MemberStatus, new: MemberStatus) -> None:
        bot = self.api.bot.to_api()
        self.api.enqueue(
            "my_chat_member",
            {
                "chat": chat.to_api(),
                "from": self.record.to_api(),
                "date": int(time.time()),
                "old_chat_member": member_object(bot, old),
                "new_chat_member": member_object(bot, new),
            },
        )

    def block_bot(self) -> None:
        """Block the bot: private sends now fail with 403; the bot gets ``my_chat_member``."""
        if not self.record.blocked:
            self.record.blocked = True
            self._my_chat_member(self.private_chat, "member", "kicked")

    def unblock_bot(self) -> None:
        """Unblock the bot (the bot gets ``my_chat_member`` back to ``member``)."""
        if self.record.blocked:
            self.record.blocked = False
            self._my_chat_member(self.private_chat, "kicked", "member")

    def _find_button(self, message: FakeMessage, button: ButtonSpec) -> Button:
        matches = [
            b
            for b in message.buttons
            if (b.text == button if isinstance(button, str) else button(b))
        ]
        if len(matches) != 1:
            shown = message.keyboard_rows()
            problem = "no button" if not matches else f"{len(matches)} buttons"
            raise LookupError(f"{problem} matching {button!r} in keyboard {shown}")
        return matches[0]

    async def tap(self, message: FakeMessage, button: ButtonSpec) -> Tap:
        """Tap an inline button (by exact text or a predicate on ``Button``) of a message.

        Uses the message's current keyboard; returns a ``Tap`` to read the bot's answer. A
        disabled button (Bot API 10.3) does nothing when tapped: LookupError.
        """
        if message.deleted:
            raise LookupError(f"message {message.message_id} was deleted")
        found = self._find_button(message, button)
        if found.disabled:
            raise LookupError(f"button {found.text!r} is disabled")
        if found.callback_data is None:
            raise LookupError(f"button {found.text!r} has no callback_data ({found.raw})")
        return await self.tap_data(message, found.callback_data)

    async def tap_data(self, message: FakeMessage, data: str) -> Tap:
        """Send a callback query with arbitrary (possibly forged or stale) data.

        Always from this user, also for an admin who posts anonymously (Telegram has no
        anonymous taps); a deleted message has no buttons to tap, nor has somebody else's
        ephemeral message (LookupError: they do not see it).
        """
        if message.deleted:
            raise LookupError(f"message {message.message_id} was deleted")
        if message.receiver_id is not None and message.receiver_id != self.id:
            raise LookupError(f"{self} does not see ephemeral message {message.message_id}")
        chat = self._chat(message.chat_id)
        world = self.api.world
        query = CallbackQueryRecord(
            id=world.new_query_id(),
            user_id=self.id,
            chat_id=chat.id,
            message_id=message.message_id,
            data=data,
            created=self.api.clock(),
            ephemeral=message.receiver_id is not None,
        )
        world.callback_queries[query.id] = query
        self.api.enqueue(
            "callback_query",
            {
                "id": query.id,
                "from": self.record.to_api(),
                "message": message.to_api(chat),
                "chat_instance": str(abs(chat.id) * 31 + 7),
                "data": data,
            },
        )
        return Tap(self.api, query)

    async def join(self, chat: FakeChat) -> None:
        """Join a group: the bot sees a ``new_chat_members`` service message."""
        chat.members[self.id] = "member"
        note = self.api.world.add_message(
            chat, self.record, extra={"new_chat_members": [self.record.to_api()]}
        )
        self.api.enqueue("message", note.to_api(chat))

    async def leave(self, chat: FakeChat) -> None:
        """Leave a group: the bot sees a ``left_chat_member`` service message."""
        chat.members[self.id] = "left"
        note = self.api.world.add_message(
            chat, self.record, extra={"left_chat_member": self.record.to_api()}
        )
        self.api.enqueue("message", note.to_api(chat))

    async def add_bot(self, chat: FakeChat, *, admin: bool = False) -> None:
        """Add the bot to a group (``my_chat_member`` plus ``new_chat_members``)."""
        old = chat.bot_status
        chat.bot_status = "administrator" if admin else "member"
        self._my_chat_member(chat, old, chat.bot_status)
        note = self.api.world.add_message(
            chat, self.record, extra={"new_chat_members": [self.api.bot.to_api()]}
        )
        self.api.enqueue("message", note.to_api(chat))

    async def remove_bot(self, chat: FakeChat) -> None:
        """Remove the bot from a group; later sends there fail with 403."""
        old = chat.bot_status
        chat.bot_status = "kicked"
        self._my_chat_member(chat, old, "kicked")
