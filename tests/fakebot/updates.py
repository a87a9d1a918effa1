"""The bot's update queue with Telegram's ``getUpdates`` semantics.

An update is confirmed (forgotten) once ``getUpdates`` is called with an ``offset`` higher than
its ``update_id``; a negative offset keeps only the last ``-offset`` updates.
``allowed_updates`` is remembered between calls and filters updates when they are created, as
Telegram does; by default ``chat_member``, ``message_reaction`` and
``message_reaction_count`` are not sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]

UPDATE_TYPES = (
    "message", "edited_message", "channel_post", "edited_channel_post", "business_connection",
    "business_message", "edited_business_message", "deleted_business_messages",
    "message_reaction", "message_reaction_count", "inline_query", "chosen_inline_result",
    "callback_query", "shipping_query", "pre_checkout_query", "purchased_paid_media", "poll",
    "poll_answer", "my_chat_member", "chat_member", "chat_join_request", "chat_boost",
    "removed_chat_boost",
)  # fmt: skip
DEFAULT_ALLOWED = frozenset(UPDATE_TYPES) - {
    "chat_member",
    "message_reaction",
    "message_reaction_count",
}


@dataclass(slots=True)
class QueuedUpdate:
    """One update: its id, kind (``message``, ``callback_query``...) and payload."""

    update_id: int
    kind: str
    payload: JSONDict
    deliveries: int = 0

    def to_api(self) -> JSONDict:
        """Return the Bot API ``Update`` object."""
        return {"update_id": self.update_id, self.kind: self.payload}


@dataclass(slots=True)
class HeldUpdates:
    """Updates kept back from the bot (:meth:`UpdateQueue.hold`): Telegram delivering some
    late. ``updates`` are the ones held so far (their ``update_id`` is given when released,
    since Telegram numbers updates in the order it delivers them)."""

    queue: UpdateQueue
    when: Callable[[str, JSONDict], bool]
    updates: list[QueuedUpdate] = field(default_factory=list)
    active: bool = True
    notify: Callable[[], None] | None = None
    """Called after a release (the server wakes a waiting ``getUpdates``)."""

    def release(self, *updates: QueuedUpdate) -> list[QueuedUpdate]:
        """Deliver the given held updates (all when none are given), in that order."""
        chosen = list(updates) or list(self.updates)
        for update in chosen:
            self.updates.remove(update)
            update.update_id = self.queue.next_id
            self.queue.next_id += 1
            self.queue.pending.append(update)
        if self.notify is not None:
            self.notify()
        return chosen

    def stop(self) -> None:
        """Hold no more (what is held stays held until released)."""
        self.active = False
        if self in self.queue.holds:
            self.queue.holds.remove(self)


@dataclass(slots=True)
class UpdateQueue:
    """Pending updates, the remembered ``allowed_updates`` and what was filtered out."""

    next_id: int = 500_000_001
    allowed: frozenset[str] = DEFAULT_ALLOWED
    pending: list[QueuedUpdate] = field(default_factory=list)
    dropped: list[QueuedUpdate] = field(default_factory=list)
    confirmed: list[QueuedUpdate] = field(default_factory=list)
    holds: list[HeldUpdates] = field(default_factory=list)

    def hold(self, when: Callable[[str, JSONDict], bool] | None = None) -> HeldUpdates:
        """Keep back the updates ``when(kind, payload)`` picks (default: all) until they are
        released (:meth:`HeldUpdates.release`), e.g. a message written before a migration
        that reaches the bot after it."""
        held = HeldUpdates(self, when or (lambda kind, payload: True))
        self.holds.append(held)
        return held

    def put(self, kind: str, payload: JSONDict) -> QueuedUpdate:
        """Create an update; it is queued if its kind is allowed, else kept in ``dropped``
        (or kept back by a :meth:`hold`)."""
        if kind in self.allowed:
            for held in self.holds:
                if held.when(kind, payload):
                    late = QueuedUpdate(0, kind, payload)
                    held.updates.append(late)
                    return late
        update = QueuedUpdate(self.next_id, kind, payload)
        self.next_id += 1
        (self.pending if kind in self.allowed else self.dropped).append(update)
        return update

    def set_allowed(self, kinds: Iterable[str]) -> None:
        """Remember ``allowed_updates``; an empty list means the default set."""
        wanted = frozenset(kinds)
        self.allowed = wanted if wanted else DEFAULT_ALLOWED

    def confirm(self, offset: int) -> bool:
        """Apply a ``getUpdates`` offset; return True if updates were confirmed."""
        if offset < 0:
            keep = self.pending[offset:]
        else:
            keep = [u for u in self.pending if u.update_id >= offset]
        gone = [u for u in self.pending if u not in keep]
        self.pending = keep
        self.confirmed.extend(gone)
        return bool(gone)

    def peek(self, limit: int) -> list[QueuedUpdate]:
        """The first ``limit`` pending updates, marked as delivered (not yet confirmed)."""
        batch = self.pending[:limit]
        for update in batch:
            update.deliveries += 1
        return batch

    def drop_pending(self) -> None:
        """Forget all pending updates (``drop_pending_updates=True``)."""
        self.dropped.extend(self.pending)
        self.pending = []
