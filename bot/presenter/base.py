"""What the presenter's parts share: its two narrow ports (:class:`TableReader` for the few
reads an outcome cannot carry, :class:`MessageIds` where the ids of sent messages go), the
outbox, deep links, the surfaces' keys and the little state kept between outcomes
(``docs/design.md`` §3)."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Literal, Protocol, cast

from bot.keyed import KeyedLocks, LruDict
from bot.outbox import CLAIM_LEASE, Job, Outbox, SurfaceKey
from bot.service import TableView
from bot.taps import DeepLink
from storage import MessageRef, SurfaceShown, SurfaceState


class TableReader(Protocol):
    """The presenter's one read port, for what no outcome carries (an outcome carries its
    game's view, :attr:`bot.outcome.Outcome.view`): the check before a drawing is sent when
    several workers draw (:meth:`~bot.presenter.Presenter.refresh`), and the games of a user
    who blocked or (re)started the bot, or whose tap was stale. The service's tables
    (:class:`bot.service.core.Tables`) implement it."""

    async def view(self, game_id: int, also: Iterable[int] = ()) -> TableView | None:
        """The game as the presenter shows it, naming the users ``also`` too (None: an
        unknown game)."""

    async def games_of(self, user_id: int) -> list[int]:
        """The running games where the user plays or may take a seat back."""

    async def version_of(self, game_id: int) -> int | None:
        """The game's stored version (None: an unknown game); one cheap read."""


class MessageIds(Protocol):
    """Where the ids of the messages the outbox sent for a game are recorded: the one port of
    message ids, written by the presenter's ``on_sent`` callbacks straight to storage
    (:class:`StoredMessageIds`), never through the service. Bookkeeping writes: they never
    bump the game's version (``docs/design.md`` §5)."""

    async def table_message(self, game_id: int, message_id: int | None) -> None:
        """The message that now shows the game's table (None: forget it)."""

    async def hand_message(self, game_id: int, seat: int, ref: MessageRef | None) -> None:
        """The private message that now shows the seat's hand (or its offer)."""

    async def stop_prompt(self, game_id: int, message_id: int) -> None:
        """The message that now asks ``/stop``'s question for the game (any worker may
        take the answer; a newer question replaces the older)."""


class MessageStore(Protocol):
    """The bookkeeping writes of message ids (:class:`storage.Repository` is one)."""

    async def set_table_message(
        self, game_id: int, message_id: int | None, *, expected_version: int | None
    ) -> None:
        """See :meth:`storage.repository.Repository.set_table_message`."""

    async def set_hand_message(
        self, game_id: int, seat: int, message: MessageRef | None, *, expected_version: int | None
    ) -> None:
        """See :meth:`storage.repository.Repository.set_hand_message`."""

    async def set_stop_prompt(self, game_id: int, message_id: int) -> None:
        """See :meth:`storage.repository.Repository.set_stop_prompt`."""


class StoredMessageIds:
    """:class:`MessageIds` in storage (a thin adapter over the repository's bookkeeping
    writes, no version check)."""

    def __init__(self, store: MessageStore) -> None:
        self.store = store

    async def table_message(self, game_id: int, message_id: int | None) -> None:
        """See :meth:`MessageIds.table_message`."""
        await self.store.set_table_message(game_id, message_id, expected_version=None)

    async def hand_message(self, game_id: int, seat: int, ref: MessageRef | None) -> None:
        """See :meth:`MessageIds.hand_message`."""
        await self.store.set_hand_message(game_id, seat, ref, expected_version=None)

    async def stop_prompt(self, game_id: int, message_id: int) -> None:
        """See :meth:`MessageIds.stop_prompt`."""
        await self.store.set_stop_prompt(game_id, message_id)


def table_key(game_id: int) -> SurfaceKey:
    """The surface of a game's table message (the lobby first, the sheet last)."""
    return ("table", game_id)


def hand_key(game_id: int, seat: int) -> SurfaceKey:
    """The surface of a seat's private hand message (or the offer to take the seat back)."""
    return ("hand", game_id, seat)


SCORE_PICTURES = 32
"""``/score`` pictures kept drawn (a sheet picture is some tens of kB)."""

ScoreKey = tuple[int, int, int | None, str]
"""(game id, game version, viewer's seat or None, language) of a ``/score`` picture."""


class SurfaceStore(Protocol):
    """Where surfaces are claimed (:class:`storage.Repository` is one)."""

    async def claim_surface(
        self, game_id: int, seat: int | None, *, token: str, now: float, lease: float
    ) -> SurfaceState | None:
        """See :meth:`storage.repository.Repository.claim_surface`."""

    async def release_surface(
        self, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
    ) -> bool:
        """See :meth:`storage.repository.Repository.release_surface`."""


class SurfaceClaims:
    """:class:`bot.outbox.Claims` in storage: a game's table (:func:`table_key`) and its
    seats' hands (:func:`hand_key`) have one owner at a time across the bot's workers.

    Args:
        store: the shared database.
        clock: UTC epoch seconds (the leases' clock).
    """

    def __init__(self, store: SurfaceStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock
        self.token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """This worker's name on its claims (unique per process)."""

    def covers(self, key: SurfaceKey) -> bool:
        """Tables and hands."""
        return key[:1] in (("table",), ("hand",))

    @staticmethod
    def _where(key: SurfaceKey) -> tuple[int, int | None]:
        return cast(int, key[1]), (cast(int, key[2]) if key[0] == "hand" else None)

    async def claim(self, key: SurfaceKey) -> SurfaceState | None:
        """See :meth:`bot.outbox.Claims.claim`."""
        game_id, seat = self._where(key)
        return await self.store.claim_surface(
            game_id, seat, token=self.token, now=self.clock(), lease=CLAIM_LEASE
        )

    async def release(self, key: SurfaceKey, shown: SurfaceShown | None) -> None:
        """See :meth:`bot.outbox.Claims.release`."""
        game_id, seat = self._where(key)
        await self.store.release_surface(game_id, seat, token=self.token, shown=shown)


class PresenterBase:
    """State and helpers of the presenter (see :class:`bot.presenter.Presenter`).

    Args:
        reader: the few reads an outcome cannot carry (:class:`TableReader`).
        ids: where the ids of sent messages are recorded (:class:`MessageIds`).
        outbox: every Telegram message goes through it.
        bot_username: for deep links ``t.me/<bot>?start=...``.
        clock: UTC epoch seconds (a rematch's countdown, a reminder's time left).
        pictures: send the score sheet as a picture at a game's end.
    """

    def __init__(
        self,
        reader: TableReader,
        ids: MessageIds,
        outbox: Outbox,
        bot_username: str,
        *,
        clock: Callable[[], float] = time.time,
        pictures: bool = True,
    ) -> None:
        self.reader = reader
        self.ids = ids
        self.clock = clock
        self.pictures = pictures
        self.outbox = outbox
        self.bot_username = bot_username
        self._locks: KeyedLocks[int] = KeyedLocks()
        self._warned: set[tuple[int, int]] = set()
        """(game, seat) whose player blocked the bot and was told so in the group."""
        self._places: dict[tuple[int, int], Literal["group", "private"]] = {}
        """(game, seat) → where this process shows the seat's hand since a choice or a
        fallback (:mod:`bot.presenter.ephemeral`; storage's record takes over once sent)."""
        self._notes: dict[int, str] = {}
        """game → the latest notice about a seat, the table message's last line."""
        self._reminders: dict[tuple[int, int], Job] = {}
        """(game, seat) → the turn reminder sent to that seat's player, withdrawn once it is
        obsolete."""
        self._score_pictures: LruDict[ScoreKey, asyncio.Future[bytes | None]] = LruDict(
            SCORE_PICTURES
        )
        """``/score``'s sheet pictures by (game, version, viewer's seat, language): drawn once
        for every request of the same sheet, the most recent :data:`SCORE_PICTURES` kept."""

    def deep_link(self, link: DeepLink) -> str:
        """``https://t.me/<bot>?start=<payload>``."""
        return self.start_link(link.encode())

    def start_link(self, payload: str) -> str:
        """The link that opens the private chat with ``/start <payload>``."""
        return f"https://t.me/{self.bot_username}?start={payload}"

    def _lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Serialize the drawing of one game (the lock goes when nobody holds it)."""
        return self._locks(game_id)

    def forget(self, game_id: int) -> None:
        """Drop what is kept in memory about ``game_id`` once its end was shown: its notes,
        warnings and turn reminders (a reminder still queued is
        withdrawn). Memory stays flat however many games were played."""
        self._notes.pop(game_id, None)
        self._warned = {k for k in self._warned if k[0] != game_id}
        self._places = {k: v for k, v in self._places.items() if k[0] != game_id}
        for key in [k for k in self._reminders if k[0] == game_id]:
            self.outbox.withdraw(self._reminders.pop(key))

    def _record_table(self, game_id: int) -> Callable[[int], Awaitable[None]]:
        async def record(message_id: int) -> None:
            await self.ids.table_message(game_id, message_id)

        return record

    def _record_hand(
        self, game_id: int, seat: int, chat_id: int
    ) -> Callable[[int], Awaitable[None]]:
        async def record(message_id: int) -> None:
            await self.ids.hand_message(game_id, seat, MessageRef(chat_id, message_id))

        return record
