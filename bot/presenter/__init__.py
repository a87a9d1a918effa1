"""The presenter (``docs/design.md`` §3, §4): turns service outcomes into what the chats show.

One table message per game in the group, edited (never a message per card); a private hand
message per human seat, sent fresh (so the phone notifies) when a player's turn begins and
edited otherwise; a round summary per round; the final sheet.

The presenter never waits for Telegram: it renders and hands the result to the
:class:`~bot.outbox.Outbox` (surfaces for the table and the hands, posts for the rest). It
does not read storage either, nor call the service: every outcome carries the
:class:`~bot.service.view.TableView` the service built at the end of its call (the table,
every reader's language and name, the chat's title); the ids of the messages the outbox sends
go through the narrow :class:`~bot.presenter.base.MessageIds` port, and the few reads no
outcome can carry (a drawing checked before it is sent, a user's games) through
:class:`~bot.presenter.base.TableReader`. Work is serialized per game.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import cast

from telegram import Message

from bot.i18n import Translator
from bot.outbox import Content, SurfaceKey
from bot.outcome import Outcome
from bot.presenter.base import (
    MessageIds,
    PresenterBase,
    StoredMessageIds,
    TableReader,
    hand_key,
    table_key,
)
from bot.presenter.hands import HandsOps
from bot.render import messages
from bot.render.alerts import with_bell
from bot.render.common import Rendered, esc
from bot.render.lobby import Lobby, render_lobby
from bot.render.picture import render_sheet_png, sheet_caption, switch_button
from bot.render.rematch import final_keyboard, rematch_lobby, session_line
from bot.render.review import with_review_button
from bot.render.sheet import render_sheet, round_summary
from bot.render.sheet_view import SheetView, sheet_view_of
from bot.render.table import last_trick_html, passed_trick_html, render_table
from bot.service import TableView, awaited_seats
from bot.service.rematch import waiting_seats
from bot.tables import Table
from bot.taps import DeepLink
from bot.telegram_io import content, markup
from engine.cards import Seat
from engine.events import DealVoided, GameOver, KlammernRoundScored, RoundScored
from engine.game import GameState
from engine.observe import observe
from engine.settings import RoemMode
from storage import GameStatus, SeatKind

log = logging.getLogger(__name__)

__all__ = [
    "MessageIds",
    "Presenter",
    "PresenterBase",
    "StoredMessageIds",
    "TableReader",
    "hand_key",
    "table_key",
]


class Presenter(HandsOps):
    """Renders tables, hands and summaries and keeps them in sync (see the module docstring;
    the constructor is :class:`~bot.presenter.base.PresenterBase`'s)."""

    async def present(self, out: Outcome) -> None:
        """Bring the chats up to date after ``out`` from the view it carries (enqueued in the
        outbox; never raises). Without a view (an unknown game) nothing is shown."""
        view = out.view
        if out.game_id is None or view is None:
            return
        async with self._lock(out.game_id):
            try:
                await self._present(view, out)
            except Exception:  # a presentation bug must never lose the game
                log.exception("presenting game %s failed", out.game_id)

    async def _present(self, view: TableView, out: Outcome) -> None:
        table = view.table
        if out.stopped:
            await self._stopped(view, out.actor, out.details.get("idle_minutes"))
            return
        if table.row.status is GameStatus.ABANDONED:
            return  # stopped meanwhile: the stop notice is the table's last word
        gtr = view.group_tr()
        if table.row.status is GameStatus.LOBBY or (out.lobby and table.state is None):
            self.show_lobby(view)
            return
        for notice in out.notices:
            self._notice(view, notice, out)
        posts = [
            self._round_summary(table, gtr, e.number)
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
            if not retired and self._retire_table(table, text):
                retired = True
            else:
                self.outbox.post(table.row.chat_id, Content(text), thread_id=table.row.thread_id)
        if (
            any(isinstance(e, GameOver) for e in out.events)
            or table.row.status is GameStatus.FINISHED
        ):
            await self._game_over(view, keep_old=retired)
            return
        self._table_message(view, fresh=bool(posts), keep_old=retired)
        if out.changed or out.acted or out.resync:
            self._sync_hands(view, out)
        self._drop_reminders(table, out)

    def show_lobby(self, view: TableView) -> None:
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
            table.settings.tips,
            table.settings.hands_in_group,
        )
        url = self.deep_link(DeepLink("h", view.link))
        rendered = render_lobby(lobby, tr, private_chat_url=url)
        session = table.settings.session
        if session is not None:  # a rematch (bot.service.rematch)
            left = max(0, round(session.wait_until - self.clock()))
            waiting = waiting_seats(table)
            rendered = rematch_lobby(
                tr, lobby, table.players(), session, waiting, left, private_chat_url=url
            )
        if not table.is_private:  # a fourth wanted: the 🔔 (bot.handlers.alerts)
            rendered = with_bell(rendered, tr)
        shown = content(rendered, table.game_id, table.version)
        self._show_table_content(table, shown, lobby=True)

    def _show_table(
        self,
        table: Table,
        rendered: Rendered,
        *,
        fresh: bool = False,
        final: bool = False,
        keep_old: bool = False,
    ) -> None:
        """Show ``rendered`` as the table message: edited in place (within the table's share
        of the group's budget, newest content first), or ``fresh`` (sent anew below the
        latest posts, the old one deleted unless ``keep_old``). ``final``: the table's last
        word (a stopped or finished game), sealed: nothing shown later overwrites it."""
        shown = content(rendered, table.game_id, table.version)
        self._show_table_content(table, shown, fresh=fresh, final=final, keep_old=keep_old)

    def _retire_table(self, table: Table, text: str) -> bool:
        """Turn the table message into ``text`` (no buttons), to stay in the chat as a record;
        False when there is none."""
        return self.outbox.retire(
            table_key(table.game_id),
            table.row.chat_id,
            Content(text),
            message_id=table.row.table_message_id,
        )

    def _table_message(
        self, view: TableView, *, fresh: bool = False, keep_old: bool = False
    ) -> None:
        table = view.table
        shown = self.table_content(view)
        if shown is not None:
            self._show_table_content(
                table, shown, fresh=fresh, keep_old=keep_old, drawn_at=table.version
            )

    def table_content(self, view: TableView) -> Content | None:
        """The running game's table message as content (None: the game is over)."""
        table, tr = view.table, view.group_tr()
        assert table.state is not None
        if table.state.is_over:
            return None
        obs = observe(table.state, None)
        seen = self._tricks_seen(table.game_id, obs.number)
        rendered = render_table(
            obs,
            table.players(),
            tr,
            hand_url=self.deep_link(DeepLink("h", view.link)),
            waiting=awaited_seats(table, table.state),
            left_by=_left_by(view),
            note=self._notes.get(table.game_id),
            unseen=max(len(obs.tricks) - 1 - seen, 0) if seen is not None else 0,
            cards_button=not table.is_private,
        )
        shown = content(rendered, table.game_id, table.version)
        return replace(shown, mark=(obs.number, len(obs.tricks)))

    def _tricks_seen(self, game_id: int, number: int) -> int | None:
        """How many completed tricks of round ``number`` the group's table has shown (the
        last of them as the last trick; the :class:`~bot.outbox.Content` mark of the newest
        table shown); 0 when it showed an earlier round; None when nothing is known (the
        group is then shown the last trick only)."""
        mark = self.outbox.shown_mark(table_key(game_id))
        if not isinstance(mark, tuple):
            return None
        shown_round, tricks = mark
        return tricks if shown_round == number else 0

    async def refresh(self, key: SurfaceKey, drawn_at: int) -> tuple[Content | None, int] | None:
        """The outbox's question before it sends a table or hand drawn at game version
        ``drawn_at`` when other workers draw them too, so that a slower worker
        never shows an older state over a newer one: ``(content, version)`` drawn as of now
        when the game moved on; ``(None, version)`` when the drawing is of no use any more
        (the game ended or the seat is no longer a player's: another worker shows what
        replaces it); None to send what was drawn (nothing changed)."""
        game_id = cast(int, key[1])
        version = await self.reader.version_of(game_id)  # the cheap check first
        if version is not None and version <= drawn_at:
            return None
        view = await self.reader.view(game_id)
        if view is None:
            return (None, drawn_at)
        table = view.table
        if table.version <= drawn_at:
            return None
        if table.row.status is not GameStatus.ACTIVE or table.state is None:
            return (None, table.version)
        shown: Content | None = None
        if key[0] == "table":
            shown = self.table_content(view)
        elif key[0] == "hand":
            seat = Seat(cast(int, key[2]))
            user_id = table.user_id(seat)
            if user_id is not None and table.kind(seat) is SeatKind.HUMAN:
                shown = self.hand_content(view, seat, user_id)
        return (shown, table.version)

    def _round_summary(self, table: Table, tr: Translator, number: int) -> str:
        """The summary of round ``number`` with the totals after it."""
        state = table.state
        assert state is not None
        rows = [r for r in state.sheet() if r.number <= number]
        totals = {t: sum(r.total(t) for r in rows) for t in rows[0].result.score}
        text = round_summary(rows[-1], table.players(), tr, totals=totals)
        done = next((r for r in reversed(state.rounds) if r.number == number), None)
        if done is not None and done.tricks:  # the round's last tricks, seen in the group too
            auto = table.settings.rules.roem is RoemMode.AUTO
            seen = self._tricks_seen(table.game_id, number)
            first = len(done.tricks) - 1 if seen is None else min(seen, len(done.tricks) - 1)
            text += "".join(
                "\n" + passed_trick_html(tr, i + 1, done.tricks[i], table.players(), roem=auto)
                for i in range(first, len(done.tricks) - 1)
            )
            text += "\n" + last_trick_html(tr, done.tricks[-1], table.players(), roem=auto)
        return text

    async def _game_over(self, view: TableView, *, keep_old: bool = False) -> None:
        """The game's end: the sheet as a picture below the last round's summary, the winner
        and totals in its caption (the text sheet should Telegram refuse it).
        A daily's end is one message, the result with the board, posted by the daily
        (:class:`bot.daily_result.DailyResult`, the driver's game-end hook): no sheet here,
        no call to start a new game; the hand message is deleted."""
        table, tr = view.table, view.group_tr()
        state = table.state
        assert state is not None
        if table.settings.daily is not None:
            self._remove_hands(view)
            return
        players = table.players()
        over = messages.game_over(tr, state.totals(), players, klammern=state.is_klammern)
        # A rematch's running total of the session, and the "again" button (group games).
        session = table.settings.session
        extra = ""
        if session is not None:
            extra = "\n" + session_line(tr, session, state.totals(), players)
        again = None
        if not table.is_private:
            again = markup(final_keyboard(tr), table.game_id, table.version)
        text = over + extra + "\n\n" + self.score(table, tr, self._solo_viewer(table))
        sheet = sheet_view_of(state, players, viewer=self._solo_viewer(table))
        png = await self._picture(sheet, tr)
        caption = sheet_caption(sheet, tr, game_end=True) + extra
        last = Content(caption, again, photo=png, alt=text)
        shown = with_review_button(
            last if png is not None else Content(text, again), tr, table.game_id
        )
        self._show_table_content(table, shown, fresh=True, final=True, keep_old=keep_old)
        self._close_hands(view, messages.game_finished_notice)

    async def _stopped(
        self, view: TableView, actor: int | None, idle_minutes: int | None = None
    ) -> None:
        """The table was stopped (or the lobby cancelled) by ``actor``: say so on the table
        message (the sheet so far as a picture, without a winner) and in every player's hand
        message. Nothing shown later changes that last word.
        ``idle_minutes``: the bot closed a lobby nobody started in that time."""
        table, tr = view.table, view.group_tr()
        name = view.name(actor)
        if table.state is None:
            if idle_minutes is not None:
                # A new message (the old lobby goes): the group hears it.
                text = messages.lobby_idle_closed(tr, idle_minutes)
                self._show_table(table, Rendered(text), fresh=True, final=True)
                return
            self._show_table(table, Rendered(messages.lobby_cancelled(tr, name)), final=True)
            return
        text = messages.game_stopped(tr, name)
        shown = Content(text)
        if table.state.rounds:
            text += "\n\n" + self.score(table, tr, self._solo_viewer(table))
            viewer = self._solo_viewer(table)
            sheet = sheet_view_of(table.state, table.players(), viewer=viewer, stopped=True)
            png = await self._picture(sheet, tr)
            caption = sheet_caption(sheet, tr, stopped_by=name)
            shown = Content(caption, photo=png, alt=text) if png is not None else Content(text)
            # The live table says it is over (no turn, no card button) and the sheet follows
            # below as a new message: a picture cannot be edited into a text message.
            retired = self._retire_table(table, messages.game_stopped(tr, name))
            self._show_table_content(table, shown, fresh=True, final=True, keep_old=retired)
            self._close_hands(view, lambda utr: messages.game_stopped(utr, name))
            return
        self._show_table_content(table, shown, final=True)
        self._close_hands(view, lambda utr: messages.game_stopped(utr, name))

    @staticmethod
    def _solo_viewer(table: Table) -> Seat | None:
        """In a solo game the sheet reads Wij / Zij from the player's side."""
        humans = table.humans()
        return humans[0][0] if table.is_private and humans else None

    async def _picture(self, sheet: SheetView, tr: Translator) -> bytes | None:
        """The sheet as PNG, drawn in a worker thread (None when pictures are off or drawing
        failed: the text sheet goes instead)."""
        if not self.pictures:
            return None
        try:
            return await asyncio.to_thread(render_sheet_png, sheet, tr)
        except Exception:  # a drawing bug must not cost the game its last word
            log.exception("drawing the sheet failed")
            return None

    def _show_table_content(
        self, table: Table, shown: Content, *, fresh: bool = False, final: bool = False,
        keep_old: bool = False, drawn_at: int | None = None, lobby: bool = False,
    ) -> None:  # fmt: skip
        """:meth:`_show_table` for ready content (a picture); ``drawn_at``: as in
        :meth:`_show_hand`; ``lobby``: the lobby, redrawn ahead of the group's other edits
        (:meth:`~bot.outbox.Outbox.show`)."""
        self.outbox.show(
            table_key(table.game_id),
            table.row.chat_id,
            shown,
            message_id=table.row.table_message_id,
            thread_id=table.row.thread_id,
            fresh=fresh,
            keep_old=keep_old,
            final=final,
            table=True,
            lobby=lobby,
            on_sent=self._record_table(table.game_id),
            drawn_at=drawn_at,
        )

    def ask_stop(
        self, table: Table, rendered: Rendered, thread_id: int | None, command: Message | None
    ) -> None:
        """Post ``/stop``'s question in the table's chat; its buttons are valid on this message
        only, which is stored with the game so that any worker may take the answer
        (:meth:`~bot.presenter.base.MessageIds.stop_prompt`)."""
        game_id = table.game_id

        async def asked(message_id: int) -> None:
            await self.ids.stop_prompt(game_id, message_id)

        self.outbox.post(
            table.row.chat_id,
            content(rendered, game_id, table.version),
            thread_id=thread_id,
            reply_to=command.message_id if command is not None else None,
            on_sent=asked,
        )

    async def score_message(
        self, table: Table, tr: Translator, viewer: Seat | None, *, picture: bool, title: str = ""
    ) -> Content:
        """A ``/score`` answer: the sheet as a picture (the result in its caption) or as text,
        ``title`` (the group, in a private chat) above, and the button that switches to the
        other form."""
        text = self.score(table, tr, viewer)
        head = f"<b>{esc(title)}</b>\n" if title else ""
        png = None
        if picture and table.state is not None and table.state.rounds:
            stopped = table.row.status is GameStatus.ABANDONED
            sheet = sheet_view_of(table.state, table.players(), viewer=viewer, stopped=stopped)
            png = await self._score_picture(table, viewer, sheet, tr)
            caption = head + sheet_caption(sheet, tr)
        if png is None:
            switch = ((switch_button(tr, to_picture=True),),) if self.pictures else ()
            return content(Rendered(head + text, switch), table.game_id, table.version)
        button = markup(((switch_button(tr, to_picture=False),),), table.game_id, table.version)
        return Content(caption, button, photo=png, alt=head + text)

    async def _score_picture(
        self, table: Table, viewer: Seat | None, sheet: SheetView, tr: Translator
    ) -> bytes | None:
        """``sheet`` as PNG for ``/score``: drawn once per game version, viewer's side and
        language (requests meanwhile wait for the same drawing), kept in a bounded cache; a
        failed drawing (None) is not kept."""
        key = (table.game_id, table.version, None if viewer is None else int(viewer), tr.language)
        drawing = self._score_pictures.get(key)
        if drawing is None:
            drawing = asyncio.ensure_future(self._picture(sheet, tr))
            self._score_pictures.put(key, drawing)
        png = await asyncio.shield(drawing)
        if png is None:
            self._score_pictures.pop(key)
        return png

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
