"""Where a player's hand is shown at a group table: in their private chat (as ever), or in the
group itself as an ephemeral message that they alone see (:mod:`bot.telegram_ext`).

* **Choosing.** A table setting (:attr:`bot.tables.TableSettings.hands_in_group`) gives the
  default; a player's own choice (:meth:`storage.repository.Repository.set_hand_place`,
  made by tapping the table's "🂠 my cards" or opening the private hand from the table's
  link) wins over it. In a game, the seat's recorded hand message decides: a message in the
  group is an ephemeral hand, one in the private chat a private hand; so a restart, another
  worker or a kill -9 carries on where the hand is.
* **Opening.** Telegram takes a new ephemeral message only as the answer to a tap, within
  about 15 s: the table's "🂠 my cards" (:meth:`EphemeralOps.cards_in_group`). From then on
  the hand is edited as the game goes on, inside the group's message budget.
* **Falling back.** The private hand stays the source of truth: when an ephemeral send or
  edit fails (not delivered, gone, its tap too old), the player gets the private hand as
  before (:meth:`EphemeralOps.hand_lost`), and the table's "🃏 My hand" link always opens it.
"""

from __future__ import annotations

from typing import Literal, cast

from bot.outbox import Content, SurfaceKey
from bot.presenter.base import PresenterBase, hand_key
from bot.render import messages
from bot.service import TableView
from engine.cards import Seat
from storage import SeatKind

Place = Literal["group", "private"]
"""Where a hand is shown."""


class EphemeralOps(PresenterBase):
    """Hands in the group (see the module docstring; mixed into
    :class:`bot.presenter.Presenter`)."""

    def hand_place(self, view: TableView, seat: Seat) -> Place:
        """Where ``seat``'s hand is shown now: the choice made in this process (a tap on
        "my cards", a fallback, the private link), else the seat's recorded hand message,
        else the player's stored choice, else the table's setting. Always private at a
        private table."""
        table = view.table
        user_id = table.user_id(seat)
        if table.is_private or user_id is None:
            return "private"
        now = self._places.get((table.game_id, int(seat)))
        if now is not None:
            return now
        ref = table.row.seats[seat].hand_message
        if ref is not None:
            return "group" if ref.chat_id == table.row.chat_id else "private"
        chosen = view.hand_places.get(user_id)
        if chosen in ("group", "private"):
            return cast(Place, chosen)
        return "group" if table.settings.hands_in_group else "private"

    def _group_hand_shown(self, view: TableView, seat: Seat) -> int | None:
        """The ephemeral message that shows ``seat``'s hand in the group, if any."""
        table = view.table
        known = self.outbox.message_of(hand_key(table.game_id, int(seat)), table.row.chat_id)
        if known is not None:
            return known
        ref = table.row.seats[seat].hand_message
        return ref.message_id if ref is not None and ref.chat_id == table.row.chat_id else None

    async def cards_in_group(self, game_id: int, user_id: int, query_id: str) -> bool:
        """The player tapped the table's "🂠 my cards" (callback query ``query_id``): answer
        with their hand as an ephemeral message in the group (the old one deleted), and
        show it there from now on. False (nothing done) when they hold no human seat of
        the running game."""
        async with self._lock(game_id):
            view = await self.reader.view(game_id)
            if view is None or view.table.is_private:
                return False
            table = view.table
            seat = table.seat_of(user_id)
            if seat is None or table.kind(seat) is not SeatKind.HUMAN or table.state is None:
                return False
            self._warned.discard((game_id, int(seat)))  # no private chat needed here
            shown = self.hand_content(view, seat, user_id)
            if shown is None:
                return False
            self._places[(game_id, int(seat))] = "group"
            ref = table.row.seats[seat].hand_message
            if ref is not None and ref.chat_id == user_id:  # the private hand says where
                text = messages.hand_in_group(view.user_tr(user_id), view.title)
                self.outbox.edit(user_id, ref.message_id, Content(text))
            self.outbox.show(
                hand_key(game_id, int(seat)),
                table.row.chat_id,
                shown,
                message_id=self._group_hand_shown(view, seat),
                thread_id=table.row.thread_id,
                fresh=True,
                again=True,
                on_sent=self._record_hand(game_id, int(seat), table.row.chat_id),
                drawn_at=table.version,
                receiver=user_id,
                query=(query_id, self.outbox.budget.clock()),
            )
            return True

    async def cards_in_private(self, game_id: int, user_id: int) -> None:
        """The player opened their private hand from the table's link: show it there from
        now on (the caller sends it, :meth:`bot.presenter.hands.HandsOps.user_back`)."""
        async with self._lock(game_id):
            view = await self.reader.view(game_id)
            seat = view.table.seat_of(user_id) if view is not None else None
            if view is None or seat is None:
                return
            self._leave_group(view, seat, user_id)

    def _leave_group(self, view: TableView, seat: Seat, user_id: int) -> None:
        """From now on ``seat``'s hand is private; its ephemeral message (if any) goes."""
        game_id = view.game_id
        self._places[(game_id, int(seat))] = "private"
        old = self._group_hand_shown(view, seat)
        key = hand_key(game_id, int(seat))
        self.outbox.forget(key)
        if old is not None:
            self.outbox.delete(view.table.row.chat_id, old, receiver=user_id)

    async def hand_lost(self, key: SurfaceKey, receiver: int) -> None:
        """The outbox could not show an ephemeral hand (:attr:`bot.outbox.Outbox.on_lost`):
        the player gets their private hand, as a new message."""
        if key[:1] != ("hand",):
            return
        game_id, seat = cast(int, key[1]), Seat(cast(int, key[2]))
        async with self._lock(game_id):
            view = await self.reader.view(game_id)
            if view is None or view.table.user_id(seat) != receiver:
                return
            self._leave_group(view, seat, receiver)  # what is left of it goes
            self.send_hand(view, seat, receiver, fresh=True, again=True)

    def send_hand(
        self, view: TableView, seat: Seat, user_id: int, *, fresh: bool, again: bool = False
    ) -> None:
        """See :meth:`bot.presenter.hands.HandsOps.send_hand`."""
        raise NotImplementedError

    def hand_content(self, view: TableView, seat: Seat, user_id: int) -> Content | None:
        """See :meth:`bot.presenter.hands.HandsOps.hand_content`."""
        raise NotImplementedError
