"""Seats changing hands during play: a player hands theirs to a computer and takes it back,
three timeouts in a row give it to a computer; and ending a table (``/stop``, cancel)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.outcome import Notice, NoticeKind, Outcome, Refusal, Toast, refused
from bot.service.core import Tables, active_seats
from bot.tables import Table
from storage import GameStatus, Occupant, Repository, SeatKind, StaleVersion

IsAdmin = Callable[[], Awaitable[bool]]


class SeatService:
    """Hand-over, take-back and the end of a table (module docstring).

    Args:
        tables: the tables (the lock, loading, retiming, the end of a table).
        repo: the storage repository (the seats).
        clock: UTC epoch seconds.
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        *,
        clock: Callable[[], float],
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.clock = clock

    async def handover(self, game_id: int, user_id: int) -> Outcome:
        """A seated player hands their seat to a computer player, which plays it until they
        take it back (:meth:`reclaim`) or the game ends. When no human is left the table is
        stopped."""
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None or table.state is None or table.row.status is not GameStatus.ACTIVE:
                return refused(Refusal.GAME_FINISHED, game_id)
            seat = table.seat_of(user_id)
            if seat is None:
                return refused(Refusal.NOT_IN_GAME, game_id)
            try:
                return await self.to_computer(table, int(seat), NoticeKind.HANDOVER, user_id)
            except StaleVersion:
                return refused(Refusal.STALE_BUTTON, game_id)

    async def member_left(self, chat_id: int, user_id: int) -> Outcome | None:
        """``user_id`` left (or was removed from) the group ``chat_id``: their lobby seat is
        freed; at a running table a computer player takes their seat for good (they cannot
        take it back: ``LEFT_GROUP`` notice, they are told) and a seat they left to a computer
        is no longer theirs to take back. None when they had no place at the chat's open
        table."""
        game = await self.repo.open_game_of_chat(chat_id)
        if game is None:
            return None
        async with self.tables.lock(game.game_id):
            table = await self.tables.load(game.game_id)
            if table is None or not table.is_open:
                return None
            gid, now = table.game_id, self.clock()
            seat = table.seat_of(user_id)
            try:
                if table.row.status is GameStatus.LOBBY:
                    if seat is None:
                        return None
                    await self.repo.set_seats(
                        gid, table.version, {int(seat): Occupant.empty()}, now=now
                    )
                    return Outcome(game_id=gid, lobby=True)
                if seat is not None:
                    return await self.to_computer(
                        table, int(seat), NoticeKind.LEFT_GROUP, None, former=False
                    )
                kept = {
                    s.index: Occupant.computer("computer")
                    for s in table.row.seats
                    if s.former_user_id == user_id
                }
                if not kept:
                    return None
                await self.repo.set_seats(gid, table.version, kept, now=now)
                return Outcome(game_id=gid, changed=True)
            except StaleVersion:
                return None

    async def to_computer(
        self,
        table: Table,
        seat: int,
        kind: NoticeKind,
        actor: int | None,
        *,
        former: bool = True,
    ) -> Outcome:
        """(Lock held.) The human in ``seat`` leaves it to a computer player, remembered as its
        former player (:meth:`reclaim`): ``kind`` ``HANDOVER`` (they asked; ``actor`` is them)
        or ``ABSENT`` (timeouts in a row). With no human left the table closes (a hand-over
        reads as the player stopping it). Otherwise the turn timer is set for the table as it
        is now (Klammern: the computers may still wait for the partner's contra or re); the
        outcome moved the game, so the table driver lets the computers move next.

        Raises:
            StaleVersion: another process wrote the game first.
        """
        assert table.state is not None
        gone = table.row.seats[seat]
        before = active_seats(table.state, table)
        keeper = Occupant.computer("computer", former_user_id=gone.user_id if former else None)
        await self.repo.set_seats(table.game_id, table.version, {seat: keeper}, now=self.clock())
        if kind is NoticeKind.HANDOVER:
            await self.repo.set_handed_round(table.game_id, seat, table.state.round_number)
        fresh = await self.tables.load(table.game_id)
        assert fresh is not None
        notice = Notice(kind, seat, gone.user_id, gone.hand_message)
        out = Outcome(
            game_id=table.game_id, changed=True, notices=[notice], acted={seat}, before=before
        )
        if not fresh.humans():
            closed = await self.tables.abandon(fresh, actor)
            return closed if kind is NoticeKind.HANDOVER else out.merge(closed)
        await self.tables.retime(fresh)
        return out

    async def reclaim(self, game_id: int, version: int, user_id: int, seat: int) -> Outcome:
        """The "Take my seat back" button: a player whose seat went to a computer
        (:meth:`handover`, or timeouts in a row) sits there again, in the same game only.

        The button is a claim, never an authority (``docs/design.md`` §3): it stays valid while the
        computer plays on (any ``version`` up to the current one; a later one is forged). Under
        the game's lock: the game must be active and the seat a computer seat whose stored
        former player is ``user_id``. The seat becomes the user's again, their timeout count
        starts anew and the turn timer is set for the table as it is now (a fresh one when it
        is their turn); the table driver lets the computers move next. Refusals, with nothing
        changed: ``MALFORMED``, ``GAME_NOT_FOUND``, ``GAME_FINISHED``, ``ALREADY_SEATED``
        (taken back already), ``NOT_YOUR_SEAT``
        (somebody else's, or no former player), ``RECLAIM_NEXT_ROUND`` (a table without tips:
        a seat handed over comes back from the next round on), ``STALE_BUTTON`` (another
        process wrote first)."""
        if seat not in range(4):
            return refused(Refusal.MALFORMED, game_id)
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None:
                return refused(Refusal.GAME_NOT_FOUND)
            if table.row.status is not GameStatus.ACTIVE or table.state is None:
                return refused(Refusal.GAME_FINISHED, game_id)
            if version > table.version:
                return refused(Refusal.MALFORMED, game_id)
            if table.seat_of(user_id) is not None:
                return refused(Refusal.ALREADY_SEATED, game_id)
            left = table.row.seats[seat]
            if left.kind is not SeatKind.COMPUTER or left.former_user_id != user_id:
                return refused(Refusal.NOT_YOUR_SEAT, game_id)
            if not await self.tables.tips_on(table):  # a hand-over for one card is no tip
                handed = await self.repo.handed_round(game_id, seat)
                if handed is not None and handed >= table.state.round_number:
                    return refused(Refusal.RECLAIM_NEXT_ROUND, game_id)
            user = await self.repo.get_user(user_id)
            name = user.display_name if user is not None else "?"
            before = active_seats(table.state, table)
            try:  # a rewritten seat starts with no timeouts: a clean slate
                await self.repo.set_seats(
                    game_id, table.version, {seat: Occupant.human(user_id, name)}, now=self.clock()
                )
            except StaleVersion:
                return refused(Refusal.STALE_BUTTON, game_id)
            table = await self.tables.load(game_id)
            assert table is not None and table.state is not None
            notice = Notice(NoticeKind.BACK, seat, user_id, left.hand_message)
            out = Outcome(
                game_id=game_id,
                changed=True,
                toast=Toast.RECLAIMED,
                notices=[notice],
                acted={seat},
                before=before,
            )
            await self.tables.retime(table)
            return out

    async def stop(self, game_id: int, user_id: int, is_admin: IsAdmin) -> Outcome:
        """``/stop`` confirmed: the creator or a group admin ends the table (abandoned)."""
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None or not table.is_open:
                return refused(Refusal.GAME_FINISHED, game_id)
            if user_id != table.row.creator_id and not await is_admin():
                return refused(Refusal.CREATOR_OR_ADMIN_ONLY, game_id)
            return await self.tables.abandon(table, user_id)
