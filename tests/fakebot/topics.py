"""Forum supergroups: topics, the thread a message lands in, and Telegram's errors for them.

A forum is a supergroup with ``is_forum: true`` in every ``Chat`` object.  A topic is the
thread of its creation message (``forum_topic_created``): its ``message_thread_id`` is that
message's id.  Messages in a topic carry ``message_thread_id`` and ``is_topic_message: true``
and, when they are no explicit reply, a ``reply_to_message`` that is the topic's creation
message (a Telegram quirk bots trip over).  A message sent without a thread id lands in the
General topic: no ``message_thread_id`` at all.  A reply lands in the thread of the message
it replies to.  A thread id the forum does not have answers
``Bad Request: message thread not found``; a closed topic answers
``Bad Request: TOPIC_CLOSED`` to a bot that is no administrator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .errors import bad_request
from .model import FakeChat, FakeMessage, ForumTopic

if TYPE_CHECKING:
    from .harness import SimUser
    from .updates import QueuedUpdate
    from .world import World

JSONDict = dict[str, Any]
THREAD_NOT_FOUND = "Bad Request: message thread not found"
TOPIC_CLOSED = "Bad Request: TOPIC_CLOSED"
DEFAULT_ICON_COLOR = 7322096  # the first of Telegram's six topic colours


def thread_of_post(
    chat: FakeChat, thread_id: int | None, replied: FakeMessage | None, *, may_post_closed: bool
) -> int | None:
    """The thread a new message goes to, or Telegram's 400 for a bad ``message_thread_id``.

    ``thread_id`` is the parameter as sent (None or <= 0: not given).
    """
    if thread_id is None or thread_id <= 0:
        return replied.message_thread_id if replied is not None else None
    topic = chat.topics.get(thread_id) if chat.is_forum else None
    if topic is None or topic.deleted:
        raise bad_request(THREAD_NOT_FOUND)
    if topic.closed and not may_post_closed:
        raise bad_request(TOPIC_CLOSED)
    return thread_id


def topic_root_reply(chat: FakeChat, thread_id: int | None) -> JSONDict:
    """``reply_to_message`` for a message in a topic that replies to nothing else."""
    root = chat.message(thread_id) if thread_id is not None else None
    return {"reply_to_message": root.to_api(chat)} if root is not None else {}


def user_thread(
    chat: FakeChat, thread_id: int | None, reply_to: FakeMessage | None, *, is_admin: bool
) -> tuple[int | None, JSONDict]:
    """The thread of a user's message and its implicit ``reply_to_message`` (harness)."""
    if thread_id is not None and not chat.is_forum:
        raise ValueError(f"chat {chat.id} is not a forum: no topics")
    try:
        thread = thread_of_post(chat, thread_id, reply_to, may_post_closed=is_admin)
    except Exception as exc:
        raise ValueError(f"cannot post in topic {thread_id} of chat {chat.id}: {exc}") from exc
    return thread, (topic_root_reply(chat, thread) if reply_to is None else {})


class TopicsMixin:
    """World-building for forums (methods of ``FakeBotApi``)."""

    world: World

    if TYPE_CHECKING:  # provided by FakeBotApi

        def add_supergroup(
            self,
            title: str,
            members: Iterable[SimUser] = (),
            admins: Iterable[SimUser] = (),
            *,
            creator: SimUser | None = None,
            bot_admin: bool = False,
            username: str | None = None,
        ) -> FakeChat: ...

        def enqueue(self, kind: str, payload: JSONDict) -> QueuedUpdate: ...

        def notify(self) -> None: ...

    def add_forum(
        self,
        title: str,
        members: Iterable[SimUser] = (),
        admins: Iterable[SimUser] = (),
        *,
        creator: SimUser | None = None,
        bot_admin: bool = False,
        username: str | None = None,
    ) -> FakeChat:
        """Create a forum supergroup (the bot already a member) with only its General topic."""
        chat = self.add_supergroup(
            title, members, admins, creator=creator, bot_admin=bot_admin, username=username
        )
        return self.make_forum(chat)

    def make_forum(self, chat: FakeChat) -> FakeChat:
        """Turn topics on in a supergroup (message id 1 stays the General topic's)."""
        if chat.type != "supergroup":
            raise ValueError("only supergroups can be forums")
        chat.is_forum = True
        chat.next_message_id = max(chat.next_message_id, 2)
        return chat

    def add_topic(
        self,
        chat: FakeChat,
        name: str,
        *,
        by: SimUser | None = None,
        icon_color: int = DEFAULT_ICON_COLOR,
    ) -> int:
        """Create a topic (by ``by``, default the owner) and return its ``message_thread_id``.

        The bot gets the ``forum_topic_created`` service message, as on Telegram.
        """
        if not chat.is_forum:
            raise ValueError(f"chat {chat.id} is not a forum (see add_forum / make_forum)")
        creator_id = by.id if by is not None else next(chat.member_ids("creator"), None)
        sender = self.world.users[creator_id] if creator_id is not None else None
        note = self.world.add_message(
            chat, sender, extra={"forum_topic_created": {"name": name, "icon_color": icon_color}}
        )
        note.message_thread_id = note.message_id
        chat.topics[note.message_id] = ForumTopic(note.message_id, name, icon_color)
        self._topic_service(chat, note)
        return note.message_id

    def close_topic(self, chat: FakeChat, thread_id: int, *, closed: bool = True) -> None:
        """Close (or reopen) a topic; the bot gets ``forum_topic_closed``/``_reopened``."""
        topic = chat.topics[thread_id]
        topic.closed = closed
        creator_id = next(chat.member_ids("creator"), None)
        sender = self.world.users[creator_id] if creator_id is not None else None
        kind = "forum_topic_closed" if closed else "forum_topic_reopened"
        note = self.world.add_message(chat, sender, extra={kind: {}})
        note.message_thread_id = thread_id
        self._topic_service(chat, note)

    def delete_topic(self, chat: FakeChat, thread_id: int) -> None:
        """Delete a topic and its messages (no update: Telegram tells bots nothing)."""
        chat.topics[thread_id].deleted = True
        for message in chat.all_messages:
            if message.message_thread_id == thread_id:
                message.deleted = True
        self.notify()

    def _topic_service(self, chat: FakeChat, note: FakeMessage) -> None:
        if chat.bot_status in ("member", "administrator"):
            self.enqueue("message", note.to_api(chat))
        else:
            self.notify()

    def topic_of(self, message: FakeMessage) -> int | None:
        """The ``message_thread_id`` of a message (None: General topic or no forum)."""
        return message.message_thread_id

    def topic_messages(
        self, chat: FakeChat, thread_id: int | None, *, from_bot: bool | None = True
    ) -> list[FakeMessage]:
        """Non-deleted messages of one topic (None: the General topic), oldest first."""
        return [
            m
            for m in chat.messages
            if m.message_thread_id == thread_id and (from_bot is None or m.from_bot == from_bot)
        ]
