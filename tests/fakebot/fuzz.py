"""A seeded fuzzer of plausible-but-odd updates, for robustness tests of a bot.

``UpdateFuzzer(api, random.Random(seed), groups=[...], users=[...])`` produces, one ``step()``
at a time, updates of every kind Telegram sends a bot in groups and private chats: commands
with garbage arguments or an ``@other_bot`` suffix, commands in photo captions, edited
messages, channel posts, ``my_chat_member``/``chat_member`` changes, joins and leaves, a group
migrating to a supergroup, callback queries with forged, truncated or oversized data or from
users outside the chat, inline queries, posts of anonymous admins, messages in forum topics,
stickers and photos without text, texts of exactly 4096 UTF-16 units, and users with RTL,
emoji, very long or markup-like names and no last name or username.

It only acts through the fake's public API (``SimUser``, ``api.enqueue``, the world-building
helpers) and follows Telegram's rules of who sees what: in a group with privacy mode a text
without a command reaches the bot only as a reply to it, so such content goes where the bot
sees everything (a private chat, or a group where it is admin).  Changes of chat state (the
bot promoted or kicked, a migration, an anonymous admin, a given member leaving) happen in
chats the fuzzer creates itself, unless ``destructive=True`` lets them hit the given groups
too; new people (made by the fuzzer) may join and leave the given groups.  Two fakes set up
alike and fuzzed with the same seed get the same updates (up to their ``date`` fields).

Beyond Telegram, on purpose: ``callback_oversized`` sends callback data longer than the
64 bytes a button can hold (a forged client could not), and inline queries arrive although
``getMe`` says the bot has no inline mode.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .harness import SimUser
from .html_parser import utf16_len
from .model import CallbackQueryRecord, FakeChat, FakeMessage, MemberStatus, member_object

if TYPE_CHECKING:
    from .server import FakeBotApi

JSONDict = dict[str, Any]

FUZZ_KINDS: tuple[str, ...] = (
    "command", "command_other_bot", "caption_command", "edited_message", "channel_post",
    "my_chat_member", "chat_member", "join", "leave", "migrate", "callback_forged",
    "callback_truncated", "callback_oversized", "callback_stranger", "inline_query",
    "anonymous", "topic", "sticker", "photo", "long_text", "odd_user",
)  # fmt: skip

GARBAGE = (
    "", " ", "  \n\t ", "0", "-1", "99999999999999999999999", "1e309", "NaN", "null", "@",
    "/", "//", "j:1:0", "a1.0.play:JH", "'; DROP TABLE games; --", "<b>vet</b>", "&amp;&lt;",
    "%s%n", "${HOME}", "\\", "\u202egnorw", "\u200b\u200b", "é\u0301\u0301", "ﷺ", "🂡🂱🃁🃑",
    "👨‍👩‍👧‍👦", "🏳️‍🌈", "ثلاثة", "שלום", "Ωμέγα", "漢字", "\ud7ff", "x" * 300, "🂡" * 40,
)  # fmt: skip
ODD_NAMES: tuple[tuple[str, str | None, str | None], ...] = (
    ("محمد", "العلي", None), ("אבי", None, None), ("🃏", None, None), ("ｚｅｎ", None, "zen_"),
    ("<b>Bob</b>", "&amp;", None), ("L" * 64, "W" * 64, None), ("\u202eAnna", None, None),
    ("Zoë", None, "zoe_kl"), ("\u202e", None, None), ("Ἀθηνᾶ", None, None),
)  # fmt: skip
CHANNEL_ID = -1009999999999


@dataclass(slots=True)
class FuzzEvent:
    """One fuzz step: its kind and the ids of the updates it created (queued or dropped)."""

    kind: str
    update_ids: list[int] = field(default_factory=list)


class UpdateFuzzer:
    """Seeded producer of odd updates (see the module docstring).

    ``groups``/``users``: the test's chats and people the fuzzer may write in and as (it adds
    its own); ``commands``: command names to misuse; ``weights``: relative frequency per kind
    (default: all equal; 0 switches a kind off).
    """

    def __init__(
        self,
        api: FakeBotApi,
        rng: random.Random,
        *,
        groups: Sequence[FakeChat] = (),
        users: Sequence[SimUser] = (),
        commands: Sequence[str] = ("start", "help", "klaverjas", "stop", "settings"),
        weights: dict[str, float] | None = None,
        destructive: bool = False,
    ) -> None:
        unknown = set(weights or {}) - set(FUZZ_KINDS)
        if unknown:
            raise ValueError(f"unknown fuzz kinds: {sorted(unknown)}")
        self.api = api
        self.rng = rng
        self.groups = list(groups)
        self.users = list(users)
        self.commands = list(commands)
        self.weights = {kind: (weights or {}).get(kind, 1.0) for kind in FUZZ_KINDS}
        self.destructive = destructive
        self.events: list[FuzzEvent] = []
        self._own_group: FakeChat | None = None
        self._own_supergroup: FakeChat | None = None
        self._own_forum: FakeChat | None = None
        self._strangers: list[SimUser] = []
        self._said: list[FakeMessage] = []
        self._channel_posts = 0
        self._odd = 0
        self._created: set[int] = set()  # users the fuzzer made (they may leave again)

    # --- driving ---------------------------------------------------------------------------

    async def step(self) -> FuzzEvent:
        """Produce the updates of one randomly chosen kind."""
        kinds = [k for k in FUZZ_KINDS if self.weights[k] > 0]
        kind = self.rng.choices(kinds, [self.weights[k] for k in kinds])[0]
        return await self.emit(kind)

    async def run(self, count: int) -> list[FuzzEvent]:
        """``count`` steps."""
        return [await self.step() for _ in range(count)]

    async def emit(self, kind: str) -> FuzzEvent:
        """Produce the updates of one given kind."""
        if kind not in FUZZ_KINDS:
            raise ValueError(f"unknown fuzz kind {kind!r}")
        first = self.api.updates.next_id
        await getattr(self, f"_{kind}")()
        event = FuzzEvent(kind, list(range(first, self.api.updates.next_id)))
        self.events.append(event)
        return event

    # --- material --------------------------------------------------------------------------

    def garbage(self) -> str:
        """An odd argument string."""
        parts = self.rng.sample(GARBAGE, self.rng.randint(1, 3))
        return " ".join(parts)

    def command_text(self, *, suffix: str | None = None) -> str:
        """A command with garbage arguments (``suffix``: ``@botname`` to append)."""
        name = self.rng.choice(self.commands)
        if self.rng.random() < 0.2:
            name = name.upper() if self.rng.random() < 0.5 else name + "_" + name
        args = self.garbage() if self.rng.random() < 0.8 else ""
        return f"/{name}{suffix or ''} {args}".rstrip() if args else f"/{name}{suffix or ''}"

    def long_text(self) -> str:
        """A text of exactly 4096 UTF-16 units (letters, emoji, RTL, combining marks)."""
        pieces = ("a", "é", "🂡", "ث", "\u0301", " ", "\n", "漢", "<", "&")
        text = ""
        while utf16_len(text) < 4096:
            text += self.rng.choice(pieces) * self.rng.randint(1, 40)
        while utf16_len(text) > 4096:
            text = text[:-1]
        if utf16_len(text) < 4096:  # the cut removed an emoji's two units at once
            text += "a" * (4096 - utf16_len(text))
        return text

    def _new_user(self, *, started: bool = False) -> SimUser:
        first, last, username = ODD_NAMES[self._odd % len(ODD_NAMES)]
        self._odd += 1
        language = self.rng.choice([None, "ar", "he", "nl", "xx", "en-US"])
        user = self.api.add_user(
            first, last_name=last, username=username, language_code=language, started=started
        )
        self._created.add(user.id)
        return user

    def _person(self) -> SimUser:
        if self.users and self.rng.random() < 0.8:
            return self.rng.choice(self.users)
        user = self._new_user()
        self.users.append(user)
        return user

    def _bot_in(self, chat: FakeChat) -> bool:
        return chat.migrated_to is None and chat.bot_status in ("member", "administrator")

    def _own(self) -> FakeChat:
        if self._own_group is None or not self._bot_in(self._own_group):
            members = [self._new_user(), self._new_user()]
            self._own_group = self.api.add_supergroup(
                "Fuzz 🃏", members=members, admins=members[:1]
            )
        return self._own_group

    def _group_for(self, user: SimUser) -> FakeChat:
        """A group with the bot in it where ``user`` is a member (joining the fuzzer's own)."""
        mine = [g for g in self.groups if self._bot_in(g) and g.members.get(user.id) in _PRESENT]
        if mine and self.rng.random() < 0.8:
            return self.rng.choice(mine)
        own = self._own()
        if own.members.get(user.id) not in _PRESENT:
            own.members[user.id] = "member"
        return own

    def _sees_all(self, chat: FakeChat) -> bool:
        return not self.api.privacy_mode or self.api.world.bot_is_admin(chat)

    def _content_chat(self, user: SimUser) -> FakeChat:
        """Where a message without a command reaches the bot: a group where it sees
        everything, else the user's private chat."""
        groups = [g for g in [*self.groups, self._own()] if self._bot_in(g) and self._sees_all(g)]
        groups = [g for g in groups if g.members.get(user.id) in _PRESENT]
        if groups and self.rng.random() < 0.5:
            return self.rng.choice(groups)
        if user.record.blocked:
            user.unblock_bot()
        user.record.started = True
        return user.private_chat

    def _post(self, user: SimUser, chat: FakeChat, **extra: Any) -> FakeMessage:
        message = self.api.world.add_message(chat, user.record, extra=extra)
        self.api.enqueue("message", message.to_api(chat))
        return message

    def _member_change(
        self, chat: FakeChat, actor: SimUser, subject: JSONDict, old: MemberStatus,
        new: MemberStatus, kind: str,
    ) -> None:  # fmt: skip
        self.api.enqueue(
            kind,
            {
                "chat": chat.to_api(), "from": actor.record.to_api(), "date": int(time.time()),
                "old_chat_member": member_object(subject, old),
                "new_chat_member": member_object(subject, new),
            },
        )  # fmt: skip

    # --- the kinds -------------------------------------------------------------------------

    async def _command(self) -> None:
        user = self._person()
        chat = self._group_for(user) if self.rng.random() < 0.6 else None
        suffix = None
        if self.rng.random() < 0.3:
            name = self.api.bot.username or ""
            suffix = "@" + (name.upper() if self.rng.random() < 0.5 else name)
        if chat is None and user.record.blocked:
            user.unblock_bot()
        message = await user.send(chat, self.command_text(suffix=suffix))
        self._said.append(message)

    async def _command_other_bot(self) -> None:
        user = self._person()
        chat = self._group_for(user) if self.rng.random() < 0.5 else None
        if chat is None and user.record.blocked:
            user.unblock_bot()
        text = self.command_text(suffix="@" + self.rng.choice(["other_bot", "GroupHelpBot", "x"]))
        self._said.append(await user.send(chat, text))

    async def _caption_command(self) -> None:
        user = self._person()
        chat = self._content_chat(user)
        caption = self.command_text()
        length = utf16_len(caption.split(" ", 1)[0])
        self._post(
            user, chat, photo=_photo_sizes(self.rng), caption=caption,
            caption_entities=[{"type": "bot_command", "offset": 0, "length": length}],
        )  # fmt: skip

    async def _edited_message(self) -> None:
        said = [m for m in self._said if not m.deleted and m.text is not None]
        if not said:
            await self._command()
            said = [self._said[-1]]
        message = self.rng.choice(said)
        author = self.api.user(message.from_user.id if message.from_user else 0)
        chat = self.api.chat(message.chat_id)
        if chat.migrated_to is not None or (
            chat.is_group and chat.members.get(author.id) not in _PRESENT
        ):
            await self._command()
            return
        if chat.type == "private" and author.record.blocked:
            author.unblock_bot()
        text = self.command_text() if self.rng.random() < 0.7 else self.garbage() or "…"
        await author.edit(message, text)

    async def _channel_post(self) -> None:
        self._channel_posts += 1
        channel = {"id": CHANNEL_ID, "type": "channel", "title": "Kanaal 📣", "username": "fuzzch"}
        text = self.command_text() if self.rng.random() < 0.5 else self.garbage() or "post"
        post: JSONDict = {
            "message_id": self._channel_posts, "date": int(time.time()), "chat": channel,
            "sender_chat": channel, "text": text,
        }  # fmt: skip
        if text.startswith("/"):
            post["entities"] = [
                {"type": "bot_command", "offset": 0, "length": utf16_len(text.split(" ")[0])}
            ]
        if self.rng.random() < 0.3:
            post["edit_date"] = post["date"]
            self.api.enqueue("edited_channel_post", post)
        else:
            self.api.enqueue("channel_post", post)

    async def _my_chat_member(self) -> None:
        pool = self.groups if self.destructive else []
        chat = self.rng.choice([g for g in pool if g.migrated_to is None] or [self._own()])
        actor = self.api.user(next(chat.member_ids("creator"), None) or self._own_admin(chat))
        old = chat.bot_status
        new: MemberStatus = self.rng.choice(
            [s for s in ("member", "administrator", "kicked", "left") if s != old]
        )
        chat.bot_status = new
        self._member_change(chat, actor, self.api.bot.to_api(), old, new, "my_chat_member")
        if new in ("kicked", "left") and chat is self._own_group:
            self._own_group = None  # the next own group gets the bot again

    def _own_admin(self, chat: FakeChat) -> int:
        admin = self._new_user()
        chat.members[admin.id] = "creator"
        return admin.id

    async def _chat_member(self) -> None:
        chat = self._own()
        user = self._new_user()
        old: MemberStatus = self.rng.choice(["left", "member"])
        new: MemberStatus = "administrator" if old == "member" else "member"
        chat.members[user.id] = new
        actor = self.api.user(next(chat.member_ids("creator"), None) or self._own_admin(chat))
        self._member_change(chat, actor, user.record.to_api(), old, new, "chat_member")

    async def _join(self) -> None:
        pool = [g for g in self.groups if self._bot_in(g)] + [self._own()]
        await self._new_user().join(self.rng.choice(pool))

    async def _leave(self) -> None:
        mine = self._created
        candidates = [
            (chat, uid)
            for chat in [g for g in self.groups if self._bot_in(g)] + [self._own()]
            for uid in chat.member_ids("member")
            if self.destructive or chat is self._own_group or uid in mine
        ]
        if not candidates:
            await self._join()
            return
        chat, uid = self.rng.choice(candidates)
        await self.api.user(uid).leave(chat)

    async def _migrate(self) -> None:
        """A group becomes a supergroup: the two notes in either order, and commands written
        before the move delivered before, between or after them (Telegram delivers late)."""
        members = [self._new_user(), self._new_user()]
        basic = self.api.add_group("Fuzz klein", members=members, admins=members[:1])
        await members[1].send(basic, self.command_text())
        held = self.api.hold_updates()
        for user in members:
            await user.send(basic, "/klaverjas" if self.rng.random() < 0.7 else self.command_text())
        self.api.migrate_group(basic, from_first=self.rng.random() < 0.5)
        held.stop()
        late = list(held.updates)
        self.rng.shuffle(late)
        held.release(*late)

    def _bot_messages(self) -> list[FakeMessage]:
        chats = [g for g in self.groups if g.migrated_to is None]
        chats += [u.private_chat for u in self.users]
        return [m for c in chats for m in c.bot_messages if m.buttons]

    async def _tap(self, data: str, *, stranger: bool = False) -> None:
        messages = self._bot_messages()
        if not messages:
            await self._command()
            return
        message = self.rng.choice(messages)
        chat = self.api.chat(message.chat_id)
        members = [uid for uid in chat.member_ids() if uid in self.api.world.users]
        if chat.type == "private":
            members = [chat.id]
        if stranger and chat.is_group:
            user = self._new_user()
            self._strangers.append(user)
            self._forged_query(user, chat, message, data)
            return
        if not members:
            return
        await self.api.user(self.rng.choice(members)).tap_data(message, data)

    def _forged_query(self, user: SimUser, chat: FakeChat, message: FakeMessage, data: str) -> None:
        world = self.api.world
        query = CallbackQueryRecord(
            id=world.new_query_id(), user_id=user.id, chat_id=chat.id,
            message_id=message.message_id, data=data, created=self.api.clock(),
        )  # fmt: skip
        world.callback_queries[query.id] = query
        self.api.enqueue(
            "callback_query",
            {
                "id": query.id, "from": user.record.to_api(), "message": message.to_api(chat),
                "chat_instance": str(abs(chat.id) * 31 + 7), "data": data,
            },
        )  # fmt: skip

    def _real_data(self) -> str:
        datas = [b.callback_data for m in self._bot_messages() for b in m.buttons]
        return self.rng.choice([d for d in datas if d] or ["j:1:0"])

    async def _callback_forged(self) -> None:
        data = self.garbage().encode()[: self.rng.randint(1, 64)].decode("utf-8", "ignore")
        await self._tap(data or "x")

    async def _callback_truncated(self) -> None:
        data = self._real_data()
        await self._tap(data[: self.rng.randint(1, max(len(data) - 1, 1))])

    async def _callback_oversized(self) -> None:
        await self._tap(self._real_data() + "x" * self.rng.randint(65, 300))

    async def _callback_stranger(self) -> None:
        await self._tap(self._real_data(), stranger=True)

    async def _inline_query(self) -> None:
        user = self._person()
        self.api.enqueue(
            "inline_query",
            {
                "id": self.api.world.new_query_id(), "from": user.record.to_api(),
                "query": self.garbage()[:256], "offset": self.rng.choice(["", "0", "junk"]),
                "chat_type": self.rng.choice(["sender", "private", "group", "supergroup"]),
            },
        )  # fmt: skip

    async def _anonymous(self) -> None:
        pool = [g for g in self.groups if g.type == "supergroup" and self._bot_in(g)]
        chats = [g for g in pool if self.destructive and next(g.member_ids("administrator"), 0)]
        if chats:
            chat = self.rng.choice(chats)
            admin = self.api.user(next(chat.member_ids("administrator")))
        else:
            chat = self._own()
            admin = self.api.user(next(chat.member_ids("creator", "administrator")))
        text = self.command_text() if self.rng.random() < 0.7 else self.garbage() or "anoniem"
        self._said.append(await admin.send(chat, text, anonymous=True))

    async def _topic(self) -> None:
        forum = next((g for g in self.groups if g.is_forum and self._bot_in(g)), None)
        if forum is None:
            if self._own_forum is None:
                members = [self._new_user(), self._new_user()]
                self._own_forum = self.api.add_forum("Fuzz forum", members, admins=members[:1])
            forum = self._own_forum
        topics = [t for t in forum.topics.values() if not t.deleted and not t.closed]
        if not topics or self.rng.random() < 0.2:
            self.api.add_topic(forum, self.garbage()[:128] or "Topic")
            topics = [t for t in forum.topics.values() if not t.deleted and not t.closed]
        topic = self.rng.choice(topics)
        ids = [uid for uid in forum.member_ids() if uid in self.api.world.users]
        user = self.api.user(self.rng.choice(ids))
        self._said.append(await user.send(forum, self.command_text(), thread_id=topic.thread_id))

    async def _sticker(self) -> None:
        user = self._person()
        file_id = f"CAACfake{self.rng.randrange(10**9)}"
        sticker = {
            "file_id": file_id, "file_unique_id": "u" + file_id, "type": "regular",
            "width": 512, "height": 512, "is_animated": self.rng.random() < 0.3,
            "is_video": False, "emoji": self.rng.choice(["🃏", "😀", "♠️"]),
        }  # fmt: skip
        self._post(user, self._content_chat(user), sticker=sticker)

    async def _photo(self) -> None:
        user = self._person()
        self._post(user, self._content_chat(user), photo=_photo_sizes(self.rng))

    async def _long_text(self) -> None:
        user = self._person()
        chat = self._content_chat(user)
        self._said.append(await user.send(chat if chat.is_group else None, self.long_text()))

    async def _odd_user(self) -> None:
        """A user with an odd name starts the bot or writes a command in a group."""
        user = self._new_user()
        self.users.append(user)
        if self.rng.random() < 0.5:
            await user.start_bot(payload=self.rng.choice([None, "g1", "x" * 64, "-1", "ثلاثة"]))
        else:
            self._said.append(await user.send(self._group_for(user), self.command_text()))


_PRESENT = ("creator", "administrator", "member")


def _photo_sizes(rng: random.Random) -> list[JSONDict]:
    file_id = f"AgACfake{rng.randrange(10**9)}"
    return [
        {"file_id": f"{file_id}s", "file_unique_id": f"u{file_id}s", "width": 90, "height": 60},
        {"file_id": file_id, "file_unique_id": f"u{file_id}", "width": 1280, "height": 853},
    ]
