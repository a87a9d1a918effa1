"""The fake server's model of the Telegram world: users, chats and messages.

Plain records, readable by tests; the server mutates them and ``to_api`` turns them into the
JSON the Bot API sends.  ``FakeMessage`` objects are live: an edit by the bot changes the object
a test already holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

JSONDict = dict[str, Any]
ChatType = Literal["private", "group", "supergroup"]
MemberStatus = Literal["creator", "administrator", "member", "restricted", "left", "kicked"]


_ADMIN_RIGHTS = (
    "can_manage_chat", "can_delete_messages", "can_manage_video_chats", "can_restrict_members",
    "can_promote_members", "can_change_info", "can_invite_users", "can_post_stories",
    "can_edit_stories", "can_delete_stories", "can_pin_messages",
)  # fmt: skip


_RESTRICTED_RIGHTS = (
    "can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos",
    "can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls",
    "can_send_other_messages", "can_add_web_page_previews", "can_change_info",
    "can_invite_users", "can_pin_messages", "can_manage_topics", "can_edit_tag",
    "can_react_to_messages",
)  # fmt: skip


def member_object(user: JSONDict, status: MemberStatus, *, is_anonymous: bool = False) -> JSONDict:
    """The Bot API ``ChatMember`` object for a user (``User`` dict) with a status.

    ``is_anonymous``: an owner or administrator who posts as the group.
    """
    data: JSONDict = {"status": status, "user": user}
    if status == "creator":
        data["is_anonymous"] = is_anonymous
    elif status == "administrator":
        data.update(dict.fromkeys(_ADMIN_RIGHTS, True))
        data.update(can_be_edited=False, is_anonymous=is_anonymous)
    elif status == "kicked":
        data["until_date"] = 0
    elif status == "restricted":  # a member who may not do everything: still a member
        data.update(dict.fromkeys(_RESTRICTED_RIGHTS, True))
        data.update(is_member=True, can_send_polls=False, until_date=0)
    return data


@dataclass(slots=True)
class FakeUser:
    """A Telegram account (a person, or the bot itself with ``is_bot=True``).

    ``started``: the user has written to the bot, so the bot may send private messages.
    ``blocked``: the user blocked the bot; private sends fail with 403.
    """

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False
    started: bool = False
    blocked: bool = False
    offline: bool = False
    """Offline: ephemeral messages and their edits are not delivered (``api_ephemeral.py``)."""

    @property
    def full_name(self) -> str:
        """First and last name joined by a space."""
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_api(self) -> JSONDict:
        """Return the Bot API ``User`` object."""
        data: JSONDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data


@dataclass(frozen=True, slots=True)
class Button:
    """One inline keyboard button as the bot sent it."""

    text: str
    callback_data: str | None = None
    url: str | None = None
    raw: JSONDict = field(default_factory=dict, compare=False)

    @property
    def style(self) -> str | None:
        """The button's ``style`` (Bot API 9.4: "danger", "success", "primary"), else None."""
        style = self.raw.get("style")
        return style if isinstance(style, str) else None

    @property
    def disabled(self) -> bool:
        """True for a disabled button (Bot API 10.3): greyed, a tap does nothing."""
        return "disabled" in self.raw

    @property
    def target(self) -> str | None:
        """The callback data, else the URL (what ``keyboard_rows`` shows next to the text)."""
        return self.callback_data if self.callback_data is not None else self.url


@dataclass(slots=True)
class FakeMessage:
    """A message in a chat, as the fake server keeps it.

    ``text`` is the text after entity parsing (what users see); ``source_text`` and
    ``parse_mode`` are what the bot sent.  A photo message has ``photo`` (the ``PhotoSize``
    list), ``photo_bytes`` (what was uploaded; empty for a URL) and ``caption`` (after entity
    parsing, its entities in ``entities``).  ``history`` keeps earlier ``(text or caption,
    reply_markup)`` versions, oldest first.
    """

    chat_id: int
    message_id: int
    date: int
    from_user: FakeUser | None
    text: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    source_text: str | None = None
    parse_mode: str | None = None
    reply_markup: JSONDict | None = None
    reply_to_message_id: int | None = None
    message_thread_id: int | None = None  # the forum topic (None: not in a topic, or General)
    caption: str | None = None
    photo: list[JSONDict] | None = None
    photo_bytes: bytes | None = None
    edit_date: int | None = None
    deleted: bool = False
    extra: JSONDict = field(default_factory=dict)
    history: list[tuple[str | None, JSONDict | None]] = field(default_factory=list)
    receiver_id: int | None = None
    """An ephemeral message (``api_ephemeral.py``): the one user who sees it. Its
    ``message_id`` is then its ``ephemeral_message_id``; the Bot API's ``message_id`` is 0."""

    @property
    def from_bot(self) -> bool:
        """True when the bot sent this message."""
        return self.from_user is not None and self.from_user.is_bot

    @property
    def body(self) -> str:
        """What the message says, for assertions: its ``text``, else its ``caption`` (a
        photo), else ""."""
        return self.text or self.caption or ""

    @property
    def edited(self) -> bool:
        """True once the message has been edited."""
        return self.edit_date is not None

    @property
    def keyboard(self) -> list[list[Button]]:
        """The current inline keyboard as rows of buttons (empty without one)."""
        if not self.reply_markup or "inline_keyboard" not in self.reply_markup:
            return []
        return [
            [
                Button(
                    text=str(b.get("text", "")),
                    callback_data=b.get("callback_data"),
                    url=b.get("url"),
                    raw=b,
                )
                for b in row
            ]
            for row in self.reply_markup["inline_keyboard"]
        ]

    @property
    def buttons(self) -> list[Button]:
        """All inline buttons, row by row."""
        return [button for row in self.keyboard for button in row]

    def keyboard_rows(self) -> list[list[tuple[str, str | None]]]:
        """The inline keyboard as rows of ``(text, callback_data or url)``."""
        return [[(b.text, b.target) for b in row] for row in self.keyboard]

    def to_api(self, chat: FakeChat) -> JSONDict:
        """Return the Bot API ``Message`` object for the message's current state."""
        data: JSONDict = {
            "message_id": self.message_id if self.receiver_id is None else 0,
            "date": self.date,
            "chat": chat.to_api(),
        }
        if self.from_user is not None:
            data["from"] = self.from_user.to_api()
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = self.entities
        if self.photo is not None:
            data["photo"] = self.photo
            if self.caption:
                data["caption"] = self.caption
                if self.entities:
                    data["caption_entities"] = self.entities
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.message_thread_id is not None:
            data.update(message_thread_id=self.message_thread_id, is_topic_message=True)
        data.update(self.extra)
        return data


@dataclass(slots=True)
class FakeChat:
    """A chat: the private chat of a user with the bot, a group or a supergroup.

    ``members`` maps user id to status (``creator``, ``administrator``, ``member``,
    ``restricted`` (a member with fewer rights), ``left``, ``kicked``); a user the group never
    had is not in it (``getChatMember`` answers "user not found", as Telegram does).
    ``bot_status`` is the bot's own status (``member``, ``administrator``, ``left``,
    ``kicked``).  ``migrated_to`` is set once a group became a supergroup.
    ``is_forum``: a supergroup with topics (``topics`` by thread id, see ``topics.py``);
    ``anonymous_admins``: ids of administrators who post as the group (``anonymous.py``).
    """

    id: int
    type: ChatType
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = None  # the other side of a private chat
    members: dict[int, MemberStatus] = field(default_factory=dict)
    bot_status: MemberStatus = "member"
    all_messages: list[FakeMessage] = field(default_factory=list)
    next_message_id: int = 1
    migrated_to: int | None = None
    migrated_from: int | None = None
    pinned: list[int] = field(default_factory=list)
    chat_actions: list[str] = field(default_factory=list)
    menu_button: JSONDict | None = None
    is_forum: bool = False
    topics: dict[int, ForumTopic] = field(default_factory=dict)
    anonymous_admins: set[int] = field(default_factory=set)
    ephemeral: list[FakeMessage] = field(default_factory=list)
    """Ephemeral messages (each seen by its ``receiver_id`` alone), never in ``messages``."""
    next_ephemeral_id: int = 1

    @property
    def is_group(self) -> bool:
        """True for groups and supergroups."""
        return self.type != "private"

    @property
    def messages(self) -> list[FakeMessage]:
        """Messages that are not deleted, oldest first (from users and from the bot)."""
        return [m for m in self.all_messages if not m.deleted]

    @property
    def bot_messages(self) -> list[FakeMessage]:
        """Non-deleted messages the bot sent, oldest first."""
        return [m for m in self.messages if m.from_bot]

    def last_message(self, *, from_bot: bool | None = True) -> FakeMessage | None:
        """The newest non-deleted message, by default the newest the bot sent."""
        for message in reversed(self.all_messages):
            if message.deleted or (from_bot is not None and message.from_bot != from_bot):
                continue
            return message
        return None

    def find_messages(
        self, contains: str | None = None, *, from_bot: bool | None = True
    ) -> list[FakeMessage]:
        """Non-deleted messages whose text or caption contains ``contains``."""
        found = []
        for message in self.messages:
            if from_bot is not None and message.from_bot != from_bot:
                continue
            shown = message.text if message.text is not None else (message.caption or "")
            if contains is None or contains in shown:
                found.append(message)
        return found

    def message(self, message_id: int) -> FakeMessage | None:
        """The message with this id, deleted or not."""
        for message in self.all_messages:
            if message.message_id == message_id:
                return message
        return None

    def member_ids(self, *statuses: MemberStatus) -> Iterator[int]:
        """Ids of members having one of ``statuses`` (default: present members)."""
        wanted = statuses or ("creator", "administrator", "member", "restricted")
        return (uid for uid, status in self.members.items() if status in wanted)

    def to_api(self) -> JSONDict:
        """Return the Bot API ``Chat`` object."""
        data: JSONDict = {"id": self.id, "type": self.type}
        if self.type == "private" and self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title or ""
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data


@dataclass(slots=True)
class ForumTopic:
    """A topic of a forum supergroup; its thread id is the id of its creation message."""

    thread_id: int
    name: str
    icon_color: int
    closed: bool = False
    deleted: bool = False


@dataclass(slots=True)
class CallbackQueryRecord:
    """A button tap sent to the bot, and how the bot answered it.

    ``answer`` holds the parameters of the accepted ``answerCallbackQuery`` (None while
    unanswered); ``refused_answers`` counts later answers, which Telegram refuses;
    ``delivered_at`` is when ``getUpdates`` first handed the tap to the bot, or the webhook
    first posted it (the fake's clock),
    so ``answered_at - delivered_at`` is the bot's own share of the answer's time.
    """

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    created: float
    answer: JSONDict | None = None
    answered_at: float | None = None
    refused_answers: int = 0
    delivered_at: float | None = None
    ephemeral: bool = False
    """The tapped message is an ephemeral message (``message_id`` is its ephemeral id)."""

    @property
    def answered(self) -> bool:
        """True once the bot answered the query."""
        return self.answer is not None

    @property
    def text(self) -> str | None:
        """The notification or alert text of the answer (None if none or unanswered)."""
        return self.answer.get("text") if self.answer else None

    @property
    def show_alert(self) -> bool:
        """True when the answer asked for an alert instead of a toast."""
        return bool(self.answer and self.answer.get("show_alert"))

    @property
    def url(self) -> str | None:
        """The URL of the answer, if any."""
        return self.answer.get("url") if self.answer else None
