"""The private side of a table: every player's hand message, the offer to take a seat back,
turn reminders, and the notices about seats (``docs/design.md`` §3)."""

from __future__ import annotations

from collections.abc import Callable

from bot.i18n import Translator
from bot.outbox import Content
from bot.outcome import Notice, NoticeKind, Outcome
from bot.presenter.base import hand_key
from bot.presenter.ephemeral import EphemeralOps
from bot.render import messages
from bot.render.common import Button, Rendered
from bot.render.hand import playable_cards, render_hand
from bot.render.tip import tip_button
from bot.service import TableView, awaited_seats
from bot.tables import Table
from bot.taps import DeepLink
from bot.telegram_io import content
from engine.cards import Seat
from engine.events import CardPlayed, RoundDealt, TrickWon
from engine.observe import observe
from storage import GameStatus, SeatKind


class HandsOps(EphemeralOps):
    """Hands, offers, reminders and seat notices (see :class:`bot.presenter.Presenter`)."""

    def _sync_hands(self, view: TableView, out: Outcome) -> None:
        """Show every human's hand as the outcome left it: a fresh message (the phone
        notifies) when their turn begins or a round is dealt, else an edit (a hand in the
        group: always an edit, the hand of the player to act first)."""
        table = view.table
        state = table.state
        assert state is not None
        new_round = any(isinstance(e, RoundDealt) for e in out.events) or out.started
        # Klammern: a human the computers now wait for (contra / re) is notified anew.
        tricks_done = any(isinstance(e, TrickWon) for e in out.events)
        awaited = set(awaited_seats(table, state)) if tricks_done else set()
        for seat, user_id in table.humans():
            active = bool(state.legal_actions(seat))
            if (
                new_round
                or seat in awaited
                or (active and (int(seat) not in out.before or int(seat) in out.acted))
                or (active and out.remind)
            ):
                self.send_hand(view, seat, user_id, fresh=True)
            elif int(seat) in out.acted or int(seat) in out.before or active or out.resync:
                self.send_hand(view, seat, user_id, fresh=False)

    def _hand_chat(self, table: Table, user_id: int) -> int:
        """Where a player's hand lives: their private chat (the table's, when solo)."""
        return table.row.chat_id if table.is_private else user_id

    def _show_hand(
        self,
        view: TableView,
        seat: Seat,
        user_id: int,
        shown: Content,
        *,
        fresh: bool = False,
        final: bool = False,
        drawn_at: int | None = None,
        again: bool = False,
    ) -> None:
        """Show ``shown`` as the seat's private message (hand or offer); ``drawn_at``: the
        game version a hand was drawn at (it is drawn again at sending when the game moved
        on meanwhile and other workers draw it too, :meth:`refresh`); ``again``: ``fresh``
        even when another worker sent it anew since. An old message that cannot be deleted
        says it is no longer current."""
        table = view.table
        if table.user_id(seat) == user_id and self.hand_place(view, seat) == "group":
            # in the group, to the player alone: edited; opened only by their tap
            message_id = self._group_hand_shown(view, seat)
            state = table.state
            turn = state is not None and not state.is_over and bool(state.legal_actions(seat))
            if message_id is not None:
                self.outbox.show(
                    hand_key(table.game_id, int(seat)),
                    table.row.chat_id,
                    shown,
                    message_id=message_id,
                    thread_id=table.row.thread_id,
                    final=final,
                    on_sent=self._record_hand(table.game_id, int(seat), table.row.chat_id),
                    drawn_at=drawn_at,
                    receiver=user_id,
                    lobby=turn,  # the hand of the one to act goes first
                )
            return
        chat_id = self._hand_chat(table, user_id)
        ref = table.row.seats[seat].hand_message
        self.outbox.show(
            hand_key(table.game_id, int(seat)),
            chat_id,
            shown,
            message_id=ref.message_id if ref is not None and ref.chat_id == chat_id else None,
            fresh=fresh,
            final=final,
            on_sent=self._record_hand(table.game_id, int(seat), chat_id),
            drawn_at=drawn_at,
            outdated=Content(messages.hand_outdated(view.user_tr(user_id))),
            again=again,
        )

    def send_hand(
        self, view: TableView, seat: Seat, user_id: int, *, fresh: bool, again: bool = False
    ) -> None:
        """Show ``seat``'s hand in the player's private chat: a new message (``fresh``, the
        old one deleted; ``again``: even when another worker just sent one) or an edit of
        the current one, with the tip button (💡) on the turn to play a card where the table
        has tips and, in a group game, the hand-over button. Nothing for a player
        who blocked the bot until they are back."""
        shown = self.hand_content(view, seat, user_id)
        if shown is not None:
            self._show_hand(
                view,
                seat,
                user_id,
                shown,
                fresh=fresh,
                drawn_at=view.table.version,
                again=again,
            )

    def hand_content(self, view: TableView, seat: Seat, user_id: int) -> Content | None:
        """:meth:`send_hand`'s message as content (None: nothing to show)."""
        table = view.table
        state = table.state
        if state is None or state.is_over or (table.game_id, int(seat)) in self._warned:
            return None
        tr = view.user_tr(user_id)
        obs = observe(state, seat)
        rendered = render_hand(
            obs,
            table.players(),
            tr,
            table_title=view.title,
            awaited=seat in awaited_seats(table, state),
        )
        extra: list[tuple[Button, ...]] = []
        if view.tips and playable_cards(obs):  # on the turn to play a card
            extra.append((tip_button(tr),))
        if not table.is_private:
            extra.append((messages.handover_button(tr),))
        if extra:
            rendered = Rendered(rendered.text, (*rendered.keyboard, *extra))
        version = table.version if obs.legal else 0
        return content(rendered, table.game_id, version)

    def handover_prompt(self, view: TableView, seat: Seat, user_id: int) -> None:
        """The hand message asks "let the computer play for you?" (yes / no)."""
        rendered = messages.handover_confirm(view.user_tr(user_id))
        shown = content(rendered, view.game_id, view.table.version)
        self._show_hand(view, seat, user_id, shown)

    async def unreachable(self, user_id: int) -> None:
        """Telegram refused a private message to ``user_id`` (403): in every group where they
        play, say so once with a deep link (the bot never fails silently, nor floods)."""
        for game_id in await self.reader.games_of(user_id):
            async with self._lock(game_id):
                view = await self.reader.view(game_id)
                seat = view.table.seat_of(user_id) if view is not None else None
                if view is None or seat is None:
                    continue
                table = view.table
                if table.is_private or (game_id, int(seat)) in self._warned:
                    continue
                if self.hand_place(view, seat) == "group":
                    continue  # their cards are in the group: no private chat needed
                self._warned.add((game_id, int(seat)))
                name = table.players()[seat].name
                rendered = messages.need_private_chat(
                    view.group_tr(), name, self.deep_link(DeepLink("h", view.link))
                )
                self.outbox.post(
                    table.row.chat_id, content(rendered), thread_id=table.row.thread_id
                )

    async def user_back(self, user_id: int) -> None:
        """The user (re)started the private chat: send the hands of all their running games,
        and for every seat a computer plays for them the offer to take it back."""
        for game_id in await self.reader.games_of(user_id):
            async with self._lock(game_id):
                view = await self.reader.view(game_id)
                if view is None:
                    continue
                table = view.table
                seat = table.seat_of(user_id)
                if seat is not None:
                    self._warned.discard((game_id, int(seat)))
                    self.send_hand(view, seat, user_id, fresh=True, again=True)
                utr = view.user_tr(user_id)
                for s in table.row.seats:
                    if s.kind is SeatKind.COMPUTER and s.former_user_id == user_id:
                        offer = messages.reclaim_offer(utr, Seat(s.index), view.title)
                        self._offer_seat_back(view, Seat(s.index), user_id, offer, fresh=True)

    async def hand_again(self, game_id: int, user_id: int) -> None:
        """After a stale tap (or "no, I play on"): send the player's current hand again."""
        async with self._lock(game_id):
            view = await self.reader.view(game_id)
            seat = view.table.seat_of(user_id) if view is not None else None
            if view is not None and seat is not None:
                self.send_hand(view, seat, user_id, fresh=True, again=True)

    def _offer_seat_back(
        self, view: TableView, seat: Seat, user_id: int, text: str, *, fresh: bool = False
    ) -> None:
        """Show the former player of ``seat`` ``text`` with a "Take my seat back" button in
        their private chat, as the computer seat's message (their old hand message edited,
        or a new one when ``fresh``). Without the button when there is no way back (the game
        is over, or the seat is no longer theirs to take)."""
        table = view.table
        state = table.state
        in_group = self.outbox.message_of(hand_key(table.game_id, int(seat)), table.row.chat_id)
        if in_group is not None and table.user_id(seat) != user_id:
            # the hand they had in the group says so, without buttons; the offer is private
            self.outbox.forget(hand_key(table.game_id, int(seat)))
            self.outbox.edit(table.row.chat_id, in_group, Content(text), receiver=user_id)
        if (
            state is None
            or state.is_over
            or table.row.status is not GameStatus.ACTIVE
            or table.row.seats[seat].former_user_id != user_id
        ):
            self._show_hand(view, seat, user_id, Content(text), final=True)
            return
        keyboard = ((messages.reclaim_button(view.user_tr(user_id), seat),),)
        shown = content(Rendered(text, keyboard), table.game_id, table.version)
        self._show_hand(view, seat, user_id, shown, fresh=fresh)

    def _close_hands(self, view: TableView, text: Callable[[Translator], str]) -> None:
        """The last word of every player's hand message, and of every former player's offer
        to take their seat back: ``text`` in their language (no buttons)."""
        for s in view.table.row.seats:
            user_id = s.user_id if s.user_id is not None else s.former_user_id
            known = s.hand_message is not None or self.outbox.knows(hand_key(view.game_id, s.index))
            if user_id is not None and known:
                final = Content(text(view.user_tr(user_id)))
                self._show_hand(view, Seat(s.index), user_id, final, final=True)

    def _remove_hands(self, view: TableView) -> None:
        """Delete every player's hand message (a daily's end: its result says it all)."""
        table = view.table
        for s in table.row.seats:
            if s.user_id is None:
                continue
            key = hand_key(table.game_id, s.index)
            if self.hand_place(view, Seat(s.index)) == "group":
                shown_at = self._group_hand_shown(view, Seat(s.index))
                if shown_at is not None:
                    self.outbox.forget(key)
                    self.outbox.delete(table.row.chat_id, shown_at, receiver=s.user_id)
                continue
            chat_id = self._hand_chat(table, s.user_id)
            ref = s.hand_message
            if ref is not None or self.outbox.knows(key):
                mine = ref.message_id if ref is not None and ref.chat_id == chat_id else None
                self.outbox.remove(key, chat_id, message_id=mine)

    # --- notices -----------------------------------------------------------------------------

    def _notice(self, view: TableView, notice: Notice, out: Outcome) -> None:
        """Timeouts, hand-overs and take-backs become the table message's last line (one line,
        replaced by the next); the player concerned hears it privately.
        Reminders go to the player's private chat and are withdrawn once obsolete."""
        table, tr = view.table, view.group_tr()
        if notice.seat is None:
            return
        seat = Seat(notice.seat)
        if notice.kind is NoticeKind.TIMEOUT:
            card = next(
                (e.card for e in out.events if isinstance(e, CardPlayed) and e.seat == seat),
                None,
            )
            self._notes[table.game_id] = messages.computer_played(tr, table.players(), seat, card)
        elif notice.kind in (NoticeKind.HANDOVER, NoticeKind.ABSENT):
            name = view.name(notice.user_id)
            say = (
                messages.seat_handed_over
                if notice.kind is NoticeKind.HANDOVER
                else messages.seat_taken_over
            )
            if not table.is_private:
                self._notes[table.game_id] = say(tr, name, seat)
            if notice.user_id is not None:  # the old hand becomes the way back
                utr = view.user_tr(notice.user_id)
                self._offer_seat_back(view, seat, notice.user_id, say(utr, name, seat))
        elif notice.kind is NoticeKind.LEFT_GROUP:
            name = view.name(notice.user_id)
            self._notes[table.game_id] = messages.seat_left_group(tr, name, seat)
            if notice.user_id is not None:  # their hand's last word: no way back
                text = messages.you_left_group(view.user_tr(notice.user_id), view.title)
                self._show_hand(view, seat, notice.user_id, Content(text), final=True)
        elif notice.kind is NoticeKind.BACK and notice.user_id is not None:
            self._warned.discard((table.game_id, int(seat)))
            if not table.is_private:
                self._notes[table.game_id] = messages.seat_taken_back(
                    tr, view.name(notice.user_id), seat
                )
            # The offer has done its job and stays as a note; the hand follows below it.
            ack = Content(messages.ack_reclaimed(view.user_tr(notice.user_id)))
            chat_id = self._hand_chat(table, notice.user_id)
            ref = notice.hand
            self.outbox.retire(
                hand_key(table.game_id, int(seat)),
                chat_id,
                ack,
                message_id=ref.message_id if ref is not None and ref.chat_id == chat_id else None,
            )
        elif notice.kind is NoticeKind.REMINDER:
            self._remind(view, seat)

    def _remind(self, view: TableView, seat: Seat) -> None:
        """The turn reminder in the player's private chat (the previous one withdrawn)."""
        table = view.table
        user_id = table.user_id(seat)
        if user_id is None or self.hand_place(view, seat) == "group":
            return  # a hand in the group: the table's mention is the reminder
        left = table.row.timer.deadline_at - self.clock() if table.row.timer else 0
        text = messages.turn_reminder(
            view.user_tr(user_id), table.players(), seat, max(1, round(left))
        )
        key = (table.game_id, int(seat))
        old = self._reminders.pop(key, None)
        if old is not None:
            self.outbox.withdraw(old)
        job = self.outbox.post(self._hand_chat(table, user_id), Content(text))
        if job is not None:
            self._reminders[key] = job

    def _drop_reminders(self, table: Table, out: Outcome) -> None:
        """Withdraw the turn reminders that no longer hold: their seat acted (or the computer
        did for it), or the game waits for someone else, or is over."""
        timer = table.row.timer
        for key in [k for k in self._reminders if k[0] == table.game_id]:
            seat = key[1]
            if (
                table.row.status is not GameStatus.ACTIVE
                or timer is None
                or timer.seat != seat
                or seat in out.acted
            ):
                self.outbox.withdraw(self._reminders.pop(key))
