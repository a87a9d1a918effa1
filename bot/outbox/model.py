"""The outbox's values: what a message shows, the surfaces, the queued calls, and the
limits (see :mod:`bot.outbox`)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from telegram import InlineKeyboardMarkup, Message

from storage import SurfaceShown, SurfaceState

MAX_REPLIES = 30
"""Replies (dedupe-able posts) that may wait in one chat; more are dropped (a flood)."""

RECENT = 60.0
"""Seconds (budget clock) a reply's ``dedupe`` key is remembered after it was sent: the same
reply asked again meanwhile is not sent a second time (it is right above in the chat)."""

MAX_ATTEMPTS = 6
"""Tries of a call that keeps failing for a passing reason before a post is given up (a
surface is tried on, every :data:`SLOW_RETRY` seconds)."""

SLOW_RETRY = 30.0
"""Seconds between two tries of a surface after :data:`MAX_ATTEMPTS` failures."""

SHUTDOWN_GRACE = 5.0
"""Real seconds the workers go on sending (waiting for budget) once the bot stops."""

SURFACES_KEPT = 20_000
"""Surfaces remembered (the most recently shown)."""

CLAIM_LEASE = 15.0
"""Seconds a worker holds a surface it claimed (:class:`Claims`) at most: a worker that dies
holding one delays that surface this long."""

CLAIM_RETRY = 0.25
"""Seconds (budget clock) before a surface another worker holds is tried again."""

OnMigrated = Callable[[int, int], Awaitable[None]]
OnForbidden = Callable[[int], Awaitable[None]]
OnSent = Callable[[int], Awaitable[None]]
Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]
SurfaceKey = tuple[Hashable, ...]
OnLost = Callable[[SurfaceKey, int], Awaitable[None]]
"""``on_lost(key, receiver)``: an ephemeral surface could not be shown (not delivered, its
message gone, its tap too old): the caller shows it another way (the private hand)."""
Refresh = Callable[[SurfaceKey, int], Awaitable["tuple[Content | None, int] | None"]]
"""``refresh(key, drawn_at)``: the surface's content as of now (None: send nothing) and its
game version, when the game moved past ``drawn_at``; None: send what was drawn (shared
outbox, see :attr:`bot.outbox.Outbox.refresh`)."""


@dataclass(frozen=True, slots=True)
class Content:
    """What a message shows: HTML text and an inline keyboard (or none); with ``photo`` (PNG
    bytes) a picture whose caption is ``text``, and ``alt`` the text sent instead should
    Telegram refuse the picture. A picture is never edited: a surface shows a new one."""

    text: str
    markup: InlineKeyboardMarkup | None = None
    photo: bytes | None = field(default=None, repr=False)
    alt: str | None = None
    mark: object = None
    """The caller's note of what the content shows (a table: its round and tricks), kept by
    the surface once shown (:meth:`bot.outbox.Outbox.shown_mark`); not part of :attr:`key`."""

    @property
    def digest(self) -> str:
        """A digest of what the message shows, the same in every process (for
        :class:`Claims`: equal digests, an edit would change nothing)."""
        h = hashlib.sha256(self.text.encode())
        h.update(b"\0" + (self.markup.to_json().encode() if self.markup is not None else b""))
        h.update(b"\0" + (hashlib.sha256(self.photo).digest() if self.photo is not None else b""))
        return h.hexdigest()[:32]

    @property
    def key(self) -> tuple[str, object]:
        """Equal for equal contents (an edit to the same content is skipped)."""
        photo = hash(self.photo) if self.photo is not None else None
        # PTB compares keyboards by their buttons (text, url, callback data...): as exact as
        # their JSON, without serializing them on every redraw
        return self.text, (self.markup, photo)


@dataclass(eq=False, slots=True)
class Surface:
    """A message the bot keeps showing the newest state of (see the module docstring)."""

    key: SurfaceKey
    chat_id: int
    thread_id: int | None = None
    message_id: int | None = None
    desired: Content | None = None
    shown: tuple[str, object] | None = None
    fresh: bool = False
    keep_old: bool = False
    final: bool = False
    sealed: bool = False
    table: bool = False
    lobby: bool = False
    """A lobby: its edits go first and need only :attr:`bot.budget.Limits.lobby_gap`."""
    on_sent: OnSent | None = None
    recorded: int | None = None
    """The message id the caller's records hold (``on_sent`` brings them up to date; with
    :class:`Claims` storage's record, which the claim reads and its release writes)."""
    claimed: bool = False
    """This worker holds the surface's claim right now (its release records the message)."""
    latest: int | None = None
    """The newest message id the surface has had (a retired one included)."""
    drawn_at: int | None = None
    """The game version ``desired`` was drawn at (None: not a drawing of the game)."""
    shown_mark: object = None
    """The :attr:`Content.mark` of the newest content shown (None: none yet)."""
    outdated: Content | None = None
    """What an old message of the surface that cannot be deleted is edited to (None: it is
    left as it is)."""
    again: bool = False
    """A fresh message is asked even if another worker sent one since ``drawn_at``."""
    retire_as: Content | None = None
    """With :class:`Claims`: what the current message becomes once the next one is sent
    (:meth:`bot.outbox.Outbox.retire`)."""
    receiver: int | None = None
    """An ephemeral surface (:mod:`bot.telegram_ext`): the one user who sees its message in
    the group ``chat_id``; ``message_id`` is then the ephemeral message's id."""
    query: tuple[str, float] | None = None
    """An ephemeral surface's tap to answer with a new message: (callback query id, when it
    was tapped on the budget clock); a new message is only sent then (Telegram takes no
    other)."""


class Claims(Protocol):
    """One owner per surface across the bot's workers (several workers on one database): a
    surface's message is edited, sent or deleted only by the worker that claimed it, and
    what it showed is recorded before the claim is dropped (see
    :meth:`storage.repository.Repository.claim_surface`)."""

    def covers(self, key: SurfaceKey) -> bool:
        """Whether the surface ``key`` is claimed through storage (others are drawn as by
        one process)."""

    async def claim(self, key: SurfaceKey) -> SurfaceState | None:
        """Claim the surface for :data:`CLAIM_LEASE` seconds: what storage knows of it, or
        None when another worker holds it. Raises storage's errors."""

    async def release(self, key: SurfaceKey, shown: SurfaceShown | None) -> None:
        """Record what the surface shows now (None: unchanged) and drop the claim."""


class Kind(Enum):
    """What a queued call does."""

    POST = "post"
    SURFACE = "surface"
    EDIT = "edit"
    DELETE = "delete"
    UNBUTTON = "unbutton"


@dataclass(eq=False, slots=True)
class Job:
    """One call waiting in a chat's queue. A post's handle: :meth:`Outbox.withdraw` takes it
    back; ``message_id`` is set once it was sent."""

    kind: Kind
    chat_id: int
    content: Content | None = None
    surface: Surface | None = None
    message_id: int | None = None
    thread_id: int | None = None
    reply_to: int | None = None
    dedupe: Hashable | None = None
    on_sent: OnSent | None = None
    future: asyncio.Future[Message | None] | None = None
    attempts: int = 0
    timeouts: int = 0
    not_before: float = 0.0
    withdrawn: bool = False
    done: bool = False
    receiver: int | None = None
    """An edit or delete of an ephemeral message: the user who sees it."""


@dataclass(slots=True)
class ChatQueue:
    """One chat's queued calls and its worker."""

    jobs: list[Job] = field(default_factory=list)
    worker: asyncio.Task[None] | None = None
    sleeper: asyncio.Future[None] | None = None
    """The worker's sleep while it waits for budget (cancelled to wake it early)."""


class Gone(Exception):
    """The message a surface edits is gone (deleted, too old): send it anew."""
