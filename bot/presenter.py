"""The presenter (``design.md`` §1, §4): turns service outcomes into Telegram messages.

One table message per game in the group, edited (never a message per card); a private hand
message per human seat, sent fresh (so the phone notifies) when a player's turn begins and
edited otherwise; a round summary per round; the final sheet. Work is serialized per game.

The presenter does not read storage: the service hands it a
:class:`~bot.service.view.TableView` (the table, every reader's language and name, the chat's
title), and it records the ids of the messages it sends through the narrow
:class:`TableSource` port (issue 9).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from bot.i18n import Translator
from bot.outcome import Notice, NoticeKind, Outcome
from bot.render import messages
from bot.render.common import Rendered
from bot.render.hand import render_hand
from bot.render.lobby import Lobby, render_lobby
from bot.render.sheet import render_sheet, round_summary
from bot.render.table import render_table
from bot.service import TableView, awaited_seats
from bot.tables import Table
from bot.taps import DeepLink
from bot.telegram_io import Messenger, markup
from engine.cards import Seat
from engine.events import (
    CardPlayed,
    DealVoided,
    GameOver,
    KlammernRoundScored,
    RoundDealt,
    RoundScored,
    TrickWon,
)
from engine.game import GameState
from engine.observe import observe
from storage import GameStatus, MessageRef, SeatKind

log = logging.getLogger(__name__)


class TableSource(Protocol):
    """What the presenter needs from the service (:class:`bot.service.GameService` is one)."""

    def clock(self) -> float:
        """UTC epoch seconds."""

    async def view(self, game_id: int) -> TableView | None:
        """The game as the presenter shows it (None: unknown)."""

    async def games_of(self, user_id: int) -> list[int]:
        """The running games where the user plays or may take a seat back."""

    async def can_message(self, user_id: int) -> bool:
        """Whether the bot may write to the user in private."""

    async def record_table_message(self, game_id: int, message_id: int | None) -> None:
        """The message that now shows the game's table."""

    async def record_hand_message(self, game_id: int, seat: int, ref: MessageRef | None) -> None:
        """The private message that now shows the seat's hand (or its offer)."""


class Presenter:
    """Renders tables, hands and summaries and keeps them in sync.

    Args:
        source: views of the games, and where message ids are recorded.
        messenger: Telegram calls with the bot's error policy.
        bot_username: for deep links ``t.me/<bot>?start=...``.
    """

    def __init__(self, source: TableSource, messenger: Messenger, bot_username: str) -> None:
        self.source = source
        self.messenger = messenger
        self.bot_username = bot_username
        self._locks: dict[int, asyncio.Lock] = {}
        self._warned: set[tuple[int, int]] = set()
        """(game, seat) whose player blocked the bot and was told so in the group."""
        self._notes: dict[int, str] = {}
        """game → the latest notice about a seat, the table message's last line."""
        self._reminders: dict[tuple[int, int], MessageRef] = {}
        """(game, seat) → the turn reminder sent to that seat's player, deleted once it is
        obsolete."""

    # --- helpers -----------------------------------------------------------------------------

    def deep_link(self, link: DeepLink) -> str:
        """``https://t.me/<bot>?start=<payload>``."""
        return self.start_link(link.encode())

    def start_link(self, payload: str) -> str:
        """The link that opens the private chat with ``/start <payload>``."""
        return f"https://t.me/{self.bot_username}?start={payload}"

    def _lock(self, game_id: int) -> asyncio.Lock:
        lk = self._locks.get(game_id)
        if lk is None:
            lk = self._locks[game_id] = asyncio.Lock()
        return lk

    # --- entry points ------------------------------------------------------------------------

    async def present(self, out: Outcome) -> None:
        """Bring Telegram up to date after ``out``. Never raises for Telegram failures."""
        if out.game_id is None:
            return
        async with self._lock(out.game_id):
            view = await self.source.view(out.game_id)
            if view is None:
                return
            try:
                await self._present(view, out)
            except Exception:  # a presentation bug must never lose the game
                log.exception("presenting game %s failed", out.game_id)

    async def _present(self, view: TableView, out: Outcome) -> None:
        table = view.table
        if out.stopped:
            await self._stopped(view, out.actor)
            return
        if table.row.status is GameStatus.ABANDONED:
            return  # stopped meanwhile: the stop notice is the table's last word (issue 9)
        gtr = view.group_tr()
        if table.row.status is GameStatus.LOBBY or (out.lobby and table.state is None):
            await self.show_lobby(view)
            return
        for notice in out.notices:
            await self._notice(view, notice, out)
        posts = [
            await self._round_summary(table, gtr, e.number)
            for e in out.events
            if isinstance(e, RoundScored | KlammernRoundScored)
        ]
        posts += [  # Klammern: nobody played, the same dealer deals again (§9.3)
            messages.redeal(gtr, table.players(), e.dealer)
            for e in out.events
            if isinstance(e, DealVoided)
        ]
        # The table message becomes the record of what just ended (the round's summary) and
        # a new table message follows below: one edit and one send per round.
        if posts:
            self._notes.pop(table.game_id, None)
        retired = False
        for text in posts:
            if not retired and await self._retire_table_message(table, text):
                retired = True
            else:
                await self.messenger.send(table.row.chat_id, text)
        if (
            any(isinstance(e, GameOver) for e in out.events)
            or table.row.status is GameStatus.FINISHED
        ):
            await self._game_over(view, fresh=bool(posts), keep_old=retired)
            return
        await self._table_message(view, fresh=bool(posts), keep_old=retired)
        if out.changed or out.acted or out.resync:
            await self._sync_hands(view, out)
        await self._drop_reminders(table, out)

    async def _drop_reminders(self, table: Table, out: Outcome) -> None:
        """Delete the turn reminders that no longer hold: their seat acted (or the computer
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
                ref = self._reminders.pop(key)
                await self.messenger.delete(ref.chat_id, ref.message_id)

    async def show_lobby(self, view: TableView) -> None:
        """Draw (edit or send) the lobby message."""
        table, tr = view.table, view.group_tr()
        seats = [
            p if s.kind is not SeatKind.EMPTY else None
            for p, s in zip(table.players(), table.row.seats, strict=True)
        ]
        lobby = Lobby(
            table.settings.rules,
            seats,
            table.settings.turn_timeout,
            view.name(table.row.creator_id),
        )
        rendered = render_lobby(
            lobby, tr, private_chat_url=self.deep_link(DeepLink("h", table.game_id))
        )
        await self._show_table_message(table, rendered)

    async def _show_table_message(
        self,
        table: Table,
        rendered: Rendered,
        *,
        fresh: bool = False,
        final: bool = False,
        keep_old: bool = False,
    ) -> None:
        """Show ``rendered`` as the table message: edited in place (deferred and merged while
        the chat's budget is used up), or ``fresh`` (sent anew below the latest posts, the old
        one deleted unless ``keep_old``). ``final``: the table's last word (a stopped or
        finished game): the message is sealed, so nothing shown later can overwrite it."""
        chat_id, old = table.row.chat_id, table.row.table_message_id
        kb = markup(rendered.keyboard, table.game_id, table.version)
        if old is not None and fresh:
            self.messenger.cancel(chat_id, old)
        if old is not None and not fresh:
            if final:
                if await self.messenger.seal(chat_id, old, rendered.text, kb):
                    return
            elif await self.messenger.show(chat_id, old, rendered.text, kb):
                return
        msg = await self.messenger.send(chat_id, rendered.text, kb, final=final)
        if msg is None:
            return
        await self.source.record_table_message(table.game_id, msg.message_id)
        if old is not None and not keep_old:
            await self.messenger.delete(chat_id, old)

    async def _retire_table_message(self, table: Table, text: str) -> bool:
        """Edit the table message into ``text`` without buttons, to stay in the chat as a
        record (sealed); False when there is none (or it is gone)."""
        old = table.row.table_message_id
        if old is None:
            return False
        return await self.messenger.seal(table.row.chat_id, old, text, None)

    async def _table_message(
        self, view: TableView, *, fresh: bool = False, keep_old: bool = False
    ) -> None:
        table, tr = view.table, view.group_tr()
        assert table.state is not None
        if table.state.is_over:
            return
        rendered = render_table(
            observe(table.state, None),
            table.players(),
            tr,
            hand_url=self.deep_link(DeepLink("h", table.game_id)),
            waiting=awaited_seats(table, table.state),
            left_by=_left_by(view),
            note=self._notes.get(table.game_id),
        )
        await self._show_table_message(table, rendered, fresh=fresh, keep_old=keep_old)

    # --- hands -------------------------------------------------------------------------------

    async def _sync_hands(self, view: TableView, out: Outcome) -> None:
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
            ):
                await self.send_hand(view, seat, user_id, fresh=True)
            elif int(seat) in out.acted or int(seat) in out.before or active or out.resync:
                await self.send_hand(view, seat, user_id, fresh=False)

    async def send_hand(self, view: TableView, seat: Seat, user_id: int, *, fresh: bool) -> None:
        """Show ``seat``'s hand in the player's private chat: a new message (``fresh``, deleting
        the old one) or an edit of the current one."""
        table = view.table
        state = table.state
        if state is None or state.is_over:
            return
        tr = view.user_tr(user_id)
        obs = observe(state, seat)
        rendered = render_hand(
            obs,
            table.players(),
            tr,
            table_title=view.title,
            awaited=seat in awaited_seats(table, state),
        )
        if not table.is_private:
            rendered = Rendered(
                rendered.text, (*rendered.keyboard, (messages.handover_button(tr),))
            )
        version = table.version if obs.legal else 0
        kb = markup(rendered.keyboard, table.game_id, version)
        old = table.row.seats[seat].hand_message
        chat_id = table.row.chat_id if table.is_private else user_id
        if (
            not fresh
            and old is not None
            and await self.messenger.edit(old.chat_id, old.message_id, rendered.text, kb)
        ):
            return
        if (table.game_id, int(seat)) in self._warned:
            return  # the player blocked the bot: nothing to send until they are back
        msg = await self.messenger.send(chat_id, rendered.text, kb)
        if msg is None:
            if not await self.source.can_message(user_id):  # Telegram said 403
                await self._unreachable(view, seat)
            return
        await self.source.record_hand_message(
            table.game_id, int(seat), MessageRef(chat_id, msg.message_id)
        )
        if old is not None:
            await self.messenger.delete(old.chat_id, old.message_id)

    async def _unreachable(self, view: TableView, seat: Seat) -> None:
        """Telegram refused the private message (403): say so in the group with a deep link,
        once until the player is back (the bot never fails silently, nor floods the group)."""
        table = view.table
        if table.is_private or (table.game_id, int(seat)) in self._warned:
            return
        self._warned.add((table.game_id, int(seat)))
        name = table.players()[seat].name
        rendered = messages.need_private_chat(
            view.group_tr(), name, self.deep_link(DeepLink("h", table.game_id))
        )
        await self.messenger.send(
            table.row.chat_id, rendered.text, markup(rendered.keyboard, table.game_id, 0)
        )

    async def user_back(self, user_id: int) -> None:
        """The user (re)started the private chat: send the hands of all their running games,
        and for every seat a computer plays for them the offer to take it back."""
        for game_id in await self.source.games_of(user_id):
            async with self._lock(game_id):
                view = await self.source.view(game_id)
                if view is None:
                    continue
                table = view.table
                seat = table.seat_of(user_id)
                if seat is not None:
                    self._warned.discard((game_id, int(seat)))
                    await self.send_hand(view, seat, user_id, fresh=True)
                utr = view.user_tr(user_id)
                for s in table.row.seats:
                    if s.kind is SeatKind.COMPUTER and s.former_user_id == user_id:
                        offer = messages.reclaim_offer(utr, Seat(s.index), view.title)
                        await self._offer_seat_back(
                            view, Seat(s.index), user_id, Rendered(offer), None
                        )

    async def hand_again(self, game_id: int, user_id: int) -> None:
        """After a stale tap (or "no, I play on"): send the player's current hand again."""
        async with self._lock(game_id):
            view = await self.source.view(game_id)
            seat = view.table.seat_of(user_id) if view is not None else None
            if view is not None and seat is not None:
                await self.send_hand(view, seat, user_id, fresh=True)

    # --- posts -------------------------------------------------------------------------------

    async def _notice(self, view: TableView, notice: Notice, out: Outcome) -> None:
        """Timeouts, hand-overs and take-backs become the table message's last line (one line,
        replaced by the next: issue 9 item 6); the player concerned hears it privately.
        Reminders go to the player's private chat and are deleted once obsolete."""
        table, tr = view.table, view.group_tr()
        players = table.players()
        seat = Seat(notice.seat) if notice.seat is not None else None
        if seat is None:
            return
        if notice.kind is NoticeKind.TIMEOUT:
            card = next(
                (e.card for e in out.events if isinstance(e, CardPlayed) and e.seat == seat),
                None,
            )
            self._notes[table.game_id] = messages.computer_played(tr, players, seat, card)
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
                await self._offer_seat_back(
                    view, seat, notice.user_id, Rendered(say(utr, name, seat)), notice.hand
                )
        elif notice.kind is NoticeKind.BACK and notice.user_id is not None:
            self._warned.discard((table.game_id, int(seat)))
            if not table.is_private:
                self._notes[table.game_id] = messages.seat_taken_back(
                    tr, view.name(notice.user_id), seat
                )
            if notice.hand is not None:  # the offer has done its job; the hand follows
                utr = view.user_tr(notice.user_id)
                await self.messenger.edit(
                    notice.hand.chat_id, notice.hand.message_id, messages.ack_reclaimed(utr), None
                )
        elif notice.kind is NoticeKind.REMINDER:
            await self._remind(view, seat)

    async def _remind(self, view: TableView, seat: Seat) -> None:
        """The turn reminder in the player's private chat (the previous one deleted)."""
        table = view.table
        user_id = table.user_id(seat)
        if user_id is None:
            return
        utr = view.user_tr(user_id)
        left = table.row.timer.deadline_at - self.source.clock() if table.row.timer else 0
        text = messages.turn_reminder(utr, table.players(), seat, max(1, round(left)))
        chat_id = table.row.chat_id if table.is_private else user_id
        msg = await self.messenger.send(chat_id, text)
        if msg is not None:
            key = (table.game_id, int(seat))
            old = self._reminders.pop(key, None)
            self._reminders[key] = MessageRef(chat_id, msg.message_id)
            if old is not None:
                await self.messenger.delete(old.chat_id, old.message_id)

    async def _offer_seat_back(
        self,
        view: TableView,
        seat: Seat,
        user_id: int,
        rendered: Rendered,
        old: MessageRef | None,
    ) -> None:
        """Show the former player of ``seat`` ``rendered`` with a "Take my seat back" button
        in their private chat: their ``old`` hand message edited, else a new message. It is
        recorded as the computer seat's message (closed when the game ends, when they come
        back, or replaced by a new offer). Without the button when there is no way back (the
        game is over, or the seat is no longer theirs to take)."""
        table = view.table
        state = table.state
        chat_id = table.row.chat_id if table.is_private else user_id
        if (
            state is None
            or state.is_over
            or table.row.status is not GameStatus.ACTIVE
            or table.row.seats[seat].former_user_id != user_id
        ):
            if old is not None:
                await self.messenger.edit(old.chat_id, old.message_id, rendered.text, None)
            return
        keyboard = (*rendered.keyboard, (messages.reclaim_button(view.user_tr(user_id), seat),))
        kb = markup(keyboard, table.game_id, table.version)
        ref = old
        if old is None or not await self.messenger.edit(
            old.chat_id, old.message_id, rendered.text, kb
        ):
            msg = await self.messenger.send(chat_id, rendered.text, kb)
            if msg is None:
                return
            ref = MessageRef(chat_id, msg.message_id)
        assert ref is not None
        previous = table.row.seats[seat].hand_message
        await self.source.record_hand_message(table.game_id, int(seat), ref)
        if previous is not None and previous != ref:
            await self.messenger.delete(previous.chat_id, previous.message_id)

    async def _round_summary(self, table: Table, tr: Translator, number: int) -> str:
        """The summary of round ``number`` with the totals after it."""
        state = table.state
        assert state is not None
        rows = [r for r in state.sheet() if r.number <= number]
        totals = {t: sum(r.total(t) for r in rows) for t in rows[0].result.score}
        return round_summary(rows[-1], table.players(), tr, totals=totals)

    async def _game_over(
        self, view: TableView, *, fresh: bool = False, keep_old: bool = False
    ) -> None:
        table, tr = view.table, view.group_tr()
        state = table.state
        assert state is not None
        players = table.players()
        sheet = render_sheet(
            state.sheet(),
            state.totals(),
            players,
            tr,
            rounds_total=state.settings.rounds,
            final=True,
            klammern_target=_target(state),
        )
        over = messages.game_over(tr, state.totals(), players, klammern=state.is_klammern)
        text = over + "\n\n" + sheet
        # Below the last round summary (sent anew, the old table message deleted).
        await self._show_table_message(
            table, Rendered(text), fresh=fresh, final=True, keep_old=keep_old
        )
        await self._close_hands(view, messages.game_finished_notice)

    async def _stopped(self, view: TableView, actor: int | None) -> None:
        """The table was stopped (or the lobby cancelled) by ``actor``: say so on the table
        message, with the sheet so far, and in every player's hand message."""
        table, tr = view.table, view.group_tr()
        name = view.name(actor)
        if table.state is None:
            await self._show_table_message(
                table, Rendered(messages.lobby_cancelled(tr, name)), final=True
            )
            return
        text = messages.game_stopped(tr, name)
        if table.state.rounds:
            text += "\n\n" + render_sheet(
                table.state.sheet(),
                table.state.totals(),
                table.players(),
                tr,
                rounds_total=table.state.settings.rounds,
                stopped=True,
                klammern_target=_target(table.state),
            )
        await self._show_table_message(table, Rendered(text), final=True)
        await self._close_hands(view, lambda utr: messages.game_stopped(utr, name))

    async def _close_hands(self, view: TableView, text: Callable[[Translator], str]) -> None:
        """Replace every player's hand message, and every former player's offer to take their
        seat back, by ``text`` in their language (no buttons)."""
        for s in view.table.row.seats:
            user_id = s.user_id if s.user_id is not None else s.former_user_id
            ref = s.hand_message
            if ref is not None and user_id is not None:
                await self.messenger.edit(
                    ref.chat_id, ref.message_id, text(view.user_tr(user_id)), None
                )

    def score(self, table: Table, tr: Translator, viewer: Seat | None) -> str:
        """The boompje so far (``/score``)."""
        state = table.state
        if state is None:
            return render_sheet((), {}, table.players(), tr)
        return render_sheet(
            state.sheet(),
            state.totals(),
            table.players(),
            tr,
            viewer=viewer,
            rounds_total=state.settings.rounds,
            final=state.is_over,
            stopped=table.row.status is GameStatus.ABANDONED and not state.is_over,
            klammern_target=_target(state),
        )


def _target(state: GameState) -> int | None:
    """Klammern: the big points that end the game (the sheet's Klammern form); else None."""
    return state.settings.target_big_points if state.is_klammern else None


def _left_by(view: TableView) -> dict[Seat, str]:
    """Computer seats whose former player may take them back: seat → their name."""
    return {
        Seat(s.index): view.name(s.former_user_id) or "?"
        for s in view.table.row.seats
        if s.kind is SeatKind.COMPUTER and s.former_user_id is not None
    }
