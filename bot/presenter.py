"""The presenter (``design.md`` §1, §4): turns service outcomes into Telegram messages.

One table message per game in the group, edited (never a message per card); a private hand
message per human seat, sent fresh (so the phone notifies) when a player's turn begins and
edited otherwise; a round summary per round; the final sheet. Work is serialized per game.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from bot.callbacks import DeepLink
from bot.i18n import Translator, get_translator, resolve_language
from bot.outcome import Notice, Outcome
from bot.render import messages
from bot.render.common import Rendered
from bot.render.hand import render_hand
from bot.render.lobby import Lobby, render_lobby
from bot.render.sheet import render_sheet, round_summary
from bot.render.table import render_table
from bot.service import GameService, awaited_seats
from bot.tables import Table
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


class Presenter:
    """Renders tables, hands and summaries and keeps them in sync.

    Args:
        service: the game service (loads tables, records message ids).
        messenger: Telegram calls with the bot's error policy.
        default_language: the bot's default language.
        bot_username: for deep links ``t.me/<bot>?start=...``.
    """

    def __init__(
        self,
        service: GameService,
        messenger: Messenger,
        default_language: str,
        bot_username: str,
    ) -> None:
        self.service = service
        self.messenger = messenger
        self.default_language = default_language
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

    async def group_language(self, table: Table) -> str:
        """The language of the table's chat: the table's or chat's setting, else the Telegram
        language of the table's creator, else the default (issue 3)."""
        chat = await self.service.repo.get_chat(table.row.chat_id)
        creator = await self.service.repo.get_user(table.row.creator_id)
        return resolve_language(
            table.row.language or (chat.language if chat else None),
            None,
            creator.telegram_language if creator else None,
            self.default_language,
            private=False,
        )

    async def group_tr(self, table: Table) -> Translator:
        """The translator of the table's chat (:meth:`group_language`)."""
        return get_translator(await self.group_language(table))

    async def user_tr(self, user_id: int, table: Table | None = None) -> Translator:
        """The language of a user's private messages: their own choice, else their Telegram
        language, else (for a player of ``table``) the table's language, else the default
        (issue 9 item 5: one reader, one language)."""
        user = await self.service.repo.get_user(user_id)
        lang = resolve_language(
            await self.group_language(table) if table is not None else None,
            user.language if user else None,
            user.telegram_language if user else None,
            self.default_language,
            private=True,
        )
        return get_translator(lang)

    async def title(self, table: Table) -> str:
        """The group's title (empty for a private table): it labels the player's hand."""
        chat = await self.service.repo.get_chat(table.row.chat_id)
        return (chat.title or "") if chat and chat.chat_type != "private" else ""

    # --- entry points ------------------------------------------------------------------------

    async def present(self, out: Outcome) -> None:
        """Bring Telegram up to date after ``out``. Never raises for Telegram failures."""
        if out.game_id is None:
            return
        async with self._lock(out.game_id):
            table = await self.service.load(out.game_id)
            if table is None:
                return
            try:
                await self._present(table, out)
            except Exception:  # a presentation bug must never lose the game
                log.exception("presenting game %s failed", out.game_id)

    async def _present(self, table: Table, out: Outcome) -> None:
        if out.stopped:
            await self._stopped(table, await self.group_tr(table), out.actor)
            return
        if table.row.status is GameStatus.ABANDONED:
            return  # stopped meanwhile: the stop notice is the table's last word (issue 9)
        gtr = await self.group_tr(table)
        if table.row.status is GameStatus.LOBBY or (out.lobby and table.state is None):
            await self.show_lobby(table, gtr)
            return
        for notice in out.notices:
            await self._notice(table, gtr, notice, out)
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
            await self._game_over(table, gtr, fresh=bool(posts), keep_old=retired)
            return
        await self._table_message(table, gtr, fresh=bool(posts), keep_old=retired)
        if out.changed or out.acted or out.resync:
            await self._sync_hands(table, out)
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

    async def show_lobby(self, table: Table, tr: Translator | None = None) -> None:
        """Draw (edit or send) the lobby message."""
        tr = tr or await self.group_tr(table)
        seats = [
            p if s.kind is not SeatKind.EMPTY else None
            for p, s in zip(table.players(), table.row.seats, strict=True)
        ]
        creator = await self.service.repo.get_user(table.row.creator_id)
        lobby = Lobby(
            table.settings.rules,
            seats,
            table.settings.turn_timeout,
            creator.display_name if creator else "",
        )
        rendered = render_lobby(
            lobby, tr, private_chat_url=self.deep_link(DeepLink("h", table.game_id))
        )
        await self._show_table_message(table, rendered, "l")

    async def _show_table_message(
        self,
        table: Table,
        rendered: Rendered,
        scope: str,
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
        kb = markup(rendered.keyboard, scope, table.game_id, table.version)
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
        await self.service.repo.set_table_message(
            table.game_id, msg.message_id, expected_version=None
        )
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
        self, table: Table, tr: Translator, *, fresh: bool = False, keep_old: bool = False
    ) -> None:
        assert table.state is not None
        if table.state.is_over:
            return
        rendered = render_table(
            observe(table.state, None),
            table.players(),
            tr,
            hand_url=self.deep_link(DeepLink("h", table.game_id)),
            waiting=awaited_seats(table, table.state),
            left_by=await self._left_by(table),
            note=self._notes.get(table.game_id),
        )
        await self._show_table_message(table, rendered, "t", fresh=fresh, keep_old=keep_old)

    async def _left_by(self, table: Table) -> dict[Seat, str]:
        """Computer seats whose former player may take them back: seat → their name."""
        formers = {
            Seat(s.index): s.former_user_id
            for s in table.row.seats
            if s.kind is SeatKind.COMPUTER and s.former_user_id is not None
        }
        if not formers:
            return {}
        users = await self.service.repo.get_users(formers.values())
        return {
            seat: users[uid].display_name if uid in users else "?" for seat, uid in formers.items()
        }

    # --- hands -------------------------------------------------------------------------------

    async def _sync_hands(self, table: Table, out: Outcome) -> None:
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
                await self.send_hand(table, seat, user_id, fresh=True)
            elif int(seat) in out.acted or int(seat) in out.before or active or out.resync:
                await self.send_hand(table, seat, user_id, fresh=False)

    async def send_hand(self, table: Table, seat: Seat, user_id: int, *, fresh: bool) -> None:
        """Show ``seat``'s hand in the player's private chat: a new message (``fresh``, deleting
        the old one) or an edit of the current one."""
        state = table.state
        if state is None or state.is_over:
            return
        tr = await self.user_tr(user_id, table)
        obs = observe(state, seat)
        rendered = render_hand(
            obs,
            table.players(),
            tr,
            table_title=await self.title(table),
            awaited=seat in awaited_seats(table, state),
        )
        if not table.is_private:
            rendered = Rendered(
                rendered.text, (*rendered.keyboard, (messages.handover_button(tr),))
            )
        version = table.version if obs.legal else 0
        kb = markup(rendered.keyboard, "a", table.game_id, version)
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
            user = await self.service.repo.get_user(user_id)
            if user is not None and not user.can_message:  # Telegram said 403
                await self._unreachable(table, seat, user_id)
            return
        await self.service.repo.set_hand_message(
            table.game_id, int(seat), MessageRef(chat_id, msg.message_id), expected_version=None
        )
        if old is not None:
            await self.messenger.delete(old.chat_id, old.message_id)

    async def _unreachable(self, table: Table, seat: Seat, user_id: int) -> None:
        """Telegram refused the private message (403): say so in the group with a deep link,
        once until the player is back (the bot never fails silently, nor floods the group)."""
        if table.is_private or (table.game_id, int(seat)) in self._warned:
            return
        self._warned.add((table.game_id, int(seat)))
        tr = await self.group_tr(table)
        name = table.players()[seat].name
        rendered = messages.need_private_chat(
            tr, name, self.deep_link(DeepLink("h", table.game_id))
        )
        await self.messenger.send(
            table.row.chat_id, rendered.text, markup(rendered.keyboard, "t", table.game_id, 0)
        )

    async def user_back(self, user_id: int) -> None:
        """The user (re)started the private chat: send the hands of all their running games,
        and for every seat a computer plays for them the offer to take it back."""
        for row in await self.service.repo.games_of_user(user_id):
            table = await self.service.load(row.game_id)
            seat = table.seat_of(user_id) if table is not None else None
            if table is None or seat is None:
                continue
            self._warned.discard((table.game_id, int(seat)))
            await self.hand_hidden(table, seat, user_id)
        for row in await self.service.repo.games_left_by(user_id):
            async with self._lock(row.game_id):
                table = await self.service.load(row.game_id)
                if table is None:
                    continue
                utr = await self.user_tr(user_id, table)
                title = await self.title(table)
                for s in table.row.seats:
                    if s.kind is SeatKind.COMPUTER and s.former_user_id == user_id:
                        offer = messages.reclaim_offer(utr, Seat(s.index), title)
                        await self._offer_seat_back(
                            table, Seat(s.index), user_id, Rendered(offer), None
                        )

    async def hand_hidden(self, table: Table, seat: Seat, user_id: int) -> None:
        """After a stale tap: send the player's current hand again."""
        async with self._lock(table.game_id):
            fresh = await self.service.load(table.game_id)
            if fresh is not None:
                await self.send_hand(fresh, seat, user_id, fresh=True)

    # --- posts -------------------------------------------------------------------------------

    async def _notice(self, table: Table, tr: Translator, notice: Notice, out: Outcome) -> None:
        """Timeouts, hand-overs and take-backs become the table message's last line (one line,
        replaced by the next: issue 9 item 6); the player concerned hears it privately.
        Reminders go to the player's private chat and are deleted once obsolete."""
        players = table.players()
        if notice.kind == "timeout" and notice.seat is not None:
            card = next(
                (e.card for e in out.events if isinstance(e, CardPlayed) and e.seat == notice.seat),
                None,
            )
            self._notes[table.game_id] = messages.computer_played(
                tr, players, Seat(notice.seat), card
            )
        elif notice.kind in ("handover", "absent") and notice.seat is not None:
            user = await self.service.repo.get_user(notice.user_id) if notice.user_id else None
            name = user.display_name if user is not None else ""
            say = (
                messages.seat_handed_over if notice.kind == "handover" else messages.seat_taken_over
            )
            seat = Seat(notice.seat)
            if not table.is_private:
                self._notes[table.game_id] = say(tr, name, seat)
            if notice.user_id is not None:  # the old hand becomes the way back
                utr = await self.user_tr(notice.user_id, table)
                await self._offer_seat_back(
                    table, seat, notice.user_id, Rendered(say(utr, name, seat)), notice.hand
                )
        elif notice.kind == "back" and notice.seat is not None and notice.user_id is not None:
            user = await self.service.repo.get_user(notice.user_id)
            name = user.display_name if user is not None else ""
            seat = Seat(notice.seat)
            self._warned.discard((table.game_id, int(seat)))
            if not table.is_private:
                self._notes[table.game_id] = messages.seat_taken_back(tr, name, seat)
            if notice.hand is not None:  # the offer has done its job; the hand follows
                utr = await self.user_tr(notice.user_id, table)
                await self.messenger.edit(
                    notice.hand.chat_id, notice.hand.message_id, messages.ack_reclaimed(utr), None
                )
        elif notice.kind == "reminder" and notice.seat is not None:
            user_id = table.user_id(notice.seat)
            if user_id is None:
                return
            utr = await self.user_tr(user_id, table)
            left = table.row.timer.deadline_at - self.service.clock() if table.row.timer else 0
            text = messages.turn_reminder(utr, players, Seat(notice.seat), max(1, round(left)))
            chat_id = table.row.chat_id if table.is_private else user_id
            msg = await self.messenger.send(chat_id, text)
            if msg is not None:
                old = self._reminders.pop((table.game_id, notice.seat), None)
                self._reminders[(table.game_id, notice.seat)] = MessageRef(chat_id, msg.message_id)
                if old is not None:
                    await self.messenger.delete(old.chat_id, old.message_id)

    async def _offer_seat_back(
        self,
        table: Table,
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
        utr = await self.user_tr(user_id, table)
        keyboard = (*rendered.keyboard, (messages.reclaim_button(utr, seat),))
        kb = markup(keyboard, "a", table.game_id, table.version)
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
        await self.service.repo.set_hand_message(
            table.game_id, int(seat), ref, expected_version=None
        )
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
        self, table: Table, tr: Translator, *, fresh: bool = False, keep_old: bool = False
    ) -> None:
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
            table, Rendered(text), "t", fresh=fresh, final=True, keep_old=keep_old
        )
        await self._close_hands(table, messages.game_finished_notice)

    async def _stopped(self, table: Table, tr: Translator, actor: int | None) -> None:
        """The table was stopped (or the lobby cancelled) by ``actor``: say so on the table
        message, with the sheet so far, and in every player's hand message."""
        user = await self.service.repo.get_user(actor) if actor is not None else None
        name = user.display_name if user is not None else ""
        if table.state is None:
            await self._show_table_message(
                table, Rendered(messages.lobby_cancelled(tr, name)), "t", final=True
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
        await self._show_table_message(table, Rendered(text), "t", final=True)
        await self._close_hands(table, lambda utr: messages.game_stopped(utr, name))

    async def _close_hands(self, table: Table, text: Callable[[Translator], str]) -> None:
        """Replace every player's hand message, and every former player's offer to take their
        seat back, by ``text`` in their language (no buttons)."""
        for s in table.row.seats:
            user_id = s.user_id if s.user_id is not None else s.former_user_id
            ref = s.hand_message
            if ref is not None and user_id is not None:
                utr = await self.user_tr(user_id, table)
                await self.messenger.edit(ref.chat_id, ref.message_id, text(utr), None)

    async def score(self, table: Table, tr: Translator, viewer: Seat | None) -> str:
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
