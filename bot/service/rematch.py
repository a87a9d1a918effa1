"""A rematch: the "again" button of a finished group game opens a new table in the same chat
(and forum topic) with the same players in the same seats and the same rules, the first
dealer one seat on (``rules.md`` §2.2: the deal passes to the left). The games chained so are
one *session* (an evening), whose totals add up next to the sheet.

Each human of the finished game gets their seat back in the new lobby and confirms it with one
tap ("I'm in", :class:`~bot.taps.Ready`); the game starts as soon as all have, and after
:attr:`RematchService.wait` seconds the seats not confirmed go to computer players (the
table starts with the others; nobody confirmed: the lobby closes). Everything lives in the new
game's stored settings (:class:`~bot.tables.Session`), so a restart or another worker picks it
up where it was. No Telegram calls and no text: callers get :class:`~bot.outcome.Outcome`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.outcome import Outcome, Refusal, Toast, refused
from bot.service.core import IsAdmin, TableLimits, Tables
from bot.tables import Session, Table, TableSettings
from bot.taps import LobbyPayload, NextSetting, Start
from engine.cards import Seat, Team
from engine.game import GameState
from engine.settings import Settings
from storage import GameStatus, Occupant, OpenGameExists, Repository, SeatKind, StaleVersion

log = logging.getLogger(__name__)

IsMember = Callable[[int], Awaitable[bool]]
"""Asks Telegram whether a user is (still) a member of the game's group."""

SEED_TRIES = 64
"""New seeds drawn at most to find one whose first dealer is the wanted seat (each seat
comes up with chance 1/4, so 64 tries miss with chance below 1e-7)."""


def first_dealer(rules: Settings, seed: int) -> Seat:
    """The dealer of round 1 of a game of ``rules`` dealt from ``seed`` (``rules.md`` §2.2;
    :meth:`engine.game.GameState.new`)."""
    return GameState.new_with_events(rules, seed)[0].first_dealer


def waiting_seats(table: Table) -> list[int]:
    """The rematch lobby's seats (0–3) whose player has not confirmed yet: pending and still
    held by a person (a player who left gave the seat up). Empty for any other table."""
    session = table.settings.session
    if session is None or table.row.status is not GameStatus.LOBBY:
        return []
    return [s for s in session.pending if table.kind(s) is SeatKind.HUMAN]


def rematch_refusal(table: Table, tap: LobbyPayload) -> Outcome | None:
    """A rematch lobby keeps its rules, and starts by itself once everybody confirmed: its
    settings buttons are refused (``REMATCH_SAME_RULES``), and so is a start while a player is
    waited for (``REMATCH_WAITING``); None for everything else (as in any lobby)."""
    if table.settings.session is not None:
        if isinstance(tap, NextSetting):
            return refused(Refusal.REMATCH_SAME_RULES, table.game_id)
        if isinstance(tap, Start) and waiting_seats(table):
            return refused(Refusal.REMATCH_WAITING, table.game_id)
    return None


class RematchService:
    """Rematches (module docstring).

    Args:
        tables: the tables (the lock, loading, the deal, the end of a lobby, timers).
        repo: the storage repository.
        clock: UTC epoch seconds.
        seeds: source of new game seeds.
        limits: the caps on open tables and the lobby's idle time (``bot.config``).
        wait: seconds the players have to confirm (``bot.config``).
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        *,
        clock: Callable[[], float],
        seeds: Callable[[], int],
        limits: TableLimits,
        wait: float = 60.0,
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.clock = clock
        self.seeds = seeds
        self.limits = limits
        self.wait = wait

    async def rematch(
        self,
        game_id: int,
        version: int,
        user_id: int,
        message_id: int,
        is_admin: IsAdmin,
        is_member: IsMember,
    ) -> Outcome:
        """The "again" button of finished game ``game_id`` tapped by ``user_id`` on message
        ``message_id`` (the handler checked the chat and that the tapper is a member).

        Returns the new lobby's outcome (or the started game's, when nobody needs to
        confirm), with ``Toast.REMATCH_OPENED``. Refused: ``GAME_NOT_FOUND``; ``MALFORMED``
        for a game that has no such button (running, stopped, private, a daily);
        ``WRONG_CHAT`` when the message is not the game's final message; ``STALE_BUTTON``
        for another version; ``REMATCH_PLAYERS_ONLY`` for somebody who neither played nor is
        an admin; ``REMATCH_TOO_LATE`` when the chat had a newer table since;
        ``TABLE_EXISTS``, ``TOO_MANY_TABLES``, ``BOT_FULL`` as for ``/klaverjas``;
        ``NEED_A_PERSON`` when none of its players is still in the group. A second tap (from
        any worker) gets ``Toast.REMATCH_EXISTS`` and no second table."""
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None:
                return refused(Refusal.GAME_NOT_FOUND)
            row = table.row
            if (
                table.is_private
                or table.settings.daily is not None
                or row.status is not GameStatus.FINISHED
                or table.state is None
            ):
                return refused(Refusal.MALFORMED, game_id)
            if row.table_message_id is None or message_id != row.table_message_id:
                return refused(Refusal.WRONG_CHAT, game_id)
            if version != table.version:
                return refused(Refusal.STALE_BUTTON, game_id)
            played = {uid for s in row.seats for uid in (s.user_id, s.former_user_id) if uid}
            if user_id not in played and not await is_admin():
                return refused(Refusal.REMATCH_PLAYERS_ONLY, game_id)
            latest = await self.repo.latest_game_of_chat(row.chat_id)
            if latest is not None and latest.game_id != game_id:
                return self._later_table(game_id, latest.game_id, latest.settings)
            return await self._open_rematch(table, user_id, is_member)

    @staticmethod
    def _later_table(game_id: int, other_id: int, settings: str) -> Outcome:
        """The chat has a table newer than ``game_id``: its rematch (a toast) or another."""
        try:
            session = TableSettings.from_json(settings).session
        except ValueError:
            session = None
        if session is not None and session.previous == game_id:
            return Outcome(toast=Toast.REMATCH_EXISTS)
        return refused(Refusal.REMATCH_TOO_LATE, game_id)

    async def _open_rematch(self, table: Table, user_id: int, is_member: IsMember) -> Outcome:
        """Create the rematch's lobby (the finished game's lock held)."""
        row, state, now = table.row, table.state, self.clock()
        assert state is not None
        open_games = await self.repo.games_by_status({GameStatus.LOBBY, GameStatus.ACTIVE})
        if len(open_games) >= self.limits.total:
            return refused(Refusal.BOT_FULL)
        mine = [g for g in open_games if g.creator_id == user_id and g.chat_id < 0]
        if len(mine) >= self.limits.per_creator:
            return refused(Refusal.TOO_MANY_TABLES)
        people = [s.user_id if s.kind is SeatKind.HUMAN else s.former_user_id for s in row.seats]
        users = await self.repo.get_users(uid for uid in people if uid is not None)
        seats: list[Occupant] = []
        pending: list[int] = []
        for index, uid in enumerate(people):
            user = users.get(uid) if uid is not None else None
            if uid is None or user is None or not await is_member(uid):
                seats.append(Occupant.computer("computer"))
                continue
            seats.append(Occupant.human(uid, user.display_name))
            if uid != user_id:  # the tapper said "again": that is their confirmation
                pending.append(index)
        if all(o.kind is SeatKind.COMPUTER for o in seats):
            return refused(Refusal.NEED_A_PERSON, table.game_id)
        before = table.settings.session
        totals = state.totals()
        session = Session(
            previous=table.game_id,
            games=(before.games if before else 0) + 1,
            ns=(before.ns if before else 0) + totals.get(Team.NS, 0),
            ew=(before.ew if before else 0) + totals.get(Team.EW, 0),
            pending=tuple(pending),
            wait_until=now + self.wait,
        )
        settings = replace(table.settings, session=session)
        seed = self._seed_dealt_by(settings.rules, state.first_dealer.left)
        try:
            new = await self.repo.create_game(
                row.chat_id,
                user_id,
                settings.to_json(),
                seed,
                now=now,
                seats=seats,
                language=row.language,
                thread_id=row.thread_id,
            )
        except OpenGameExists as exc:  # another worker's tap, or a /klaverjas, came first
            other = await self.repo.get_game(exc.game_id)
            if other is None:
                return refused(Refusal.TABLE_EXISTS)
            out = self._later_table(table.game_id, other.game_id, other.settings)
            return refused(Refusal.TABLE_EXISTS) if out.refusal is not None else out
        if not pending:
            async with self.tables.lock(new.game_id):
                out = await self.tables.start(await self.tables.table(new))
            return replace(out, toast=Toast.REMATCH_OPENED)
        await self.tables.arm(new.game_id, new.version, session.wait_until)
        return Outcome(game_id=new.game_id, lobby=True, toast=Toast.REMATCH_OPENED)

    def _seed_dealt_by(self, rules: Settings, dealer: Seat) -> int:
        """A new game seed whose first dealer is ``dealer`` (the dealer moves on one seat
        from the finished game; the engine draws the first dealer from the seed)."""
        seed = self.seeds()
        for _ in range(SEED_TRIES):
            if first_dealer(rules, seed) is dealer:
                return seed
            seed = self.seeds()
        return seed  # pragma: no cover - a fixed seed source in a test

    async def rematch_ready(self, game_id: int, user_id: int, message_id: int) -> Outcome:
        """``user_id`` tapped "I'm in" on the rematch lobby ``game_id`` (message
        ``message_id``): their seat is confirmed; the last confirmation starts the game.

        Refused: ``GAME_NOT_FOUND``; ``MALFORMED`` for a table that is no rematch;
        ``GAME_ALREADY_STARTED`` / ``GAME_FINISHED`` after the lobby; ``WRONG_CHAT`` on
        another message; ``NOT_SEATED`` for somebody without a seat. A second tap gets
        ``Toast.REMATCH_ALREADY_READY``."""
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None:
                return refused(Refusal.GAME_NOT_FOUND)
            session = table.settings.session
            if session is None:
                return refused(Refusal.MALFORMED, game_id)
            if table.row.status is not GameStatus.LOBBY:
                return refused(
                    Refusal.GAME_ALREADY_STARTED if table.is_open else Refusal.GAME_FINISHED,
                    game_id,
                )
            if message_id != table.row.table_message_id:
                return refused(Refusal.WRONG_CHAT, game_id)
            seat = table.seat_of(user_id)
            if seat is None:
                return refused(Refusal.NOT_SEATED, game_id)
            waiting = waiting_seats(table)
            if int(seat) not in waiting:
                return Outcome(game_id=game_id, toast=Toast.REMATCH_ALREADY_READY)
            left = tuple(s for s in waiting if s != int(seat))
            try:
                out = await self._set_pending(table, session, left, {})
            except StaleVersion:
                return refused(Refusal.STALE_BUTTON, game_id)
            return replace(out, toast=Toast.REMATCH_READY)

    async def _set_pending(
        self,
        table: Table,
        session: Session,
        pending: tuple[int, ...],
        seats: dict[int, Occupant],
    ) -> Outcome:
        """Store the seats still to confirm (and seat changes), then start the table when
        nobody is waited for and all four seats are taken (lock held). A rematch lobby that
        lost a player meanwhile stays an ordinary lobby (its idle timer set again).

        Raises:
            StaleVersion: another process wrote the lobby first.
        """
        gid, now = table.game_id, self.clock()
        version = table.version
        if seats:
            version = await self.repo.set_seats(gid, version, seats, now=now)
        new = replace(table.settings, session=replace(session, pending=pending))
        version = await self.repo.set_settings(gid, version, new.to_json(), now=now)
        fresh = await self.tables.load(gid)
        assert fresh is not None
        if pending:
            await self.tables.arm(gid, version, session.wait_until)
            return Outcome(game_id=gid, lobby=True)
        if fresh.full and fresh.humans():
            return await self.tables.start(fresh)
        await self.tables.arm(gid, version, now + self.limits.lobby_idle)
        return Outcome(game_id=gid, lobby=True)

    async def close_waiting(self, table: Table) -> Outcome:
        """The timer of a rematch lobby still waiting for players woke (lock held; the lobby
        service asks, :meth:`~bot.service.lobby.LobbyService.close_idle_lobby`): at its
        ``wait_until`` the seats not confirmed go to computer players and the table starts
        (nobody confirmed: it closes, and the group is told)."""
        session = table.settings.session
        waiting = waiting_seats(table)
        assert session is not None
        gid = table.game_id
        if self.clock() < session.wait_until - 0.05:
            await self.tables.arm(gid, table.version, session.wait_until)
            return Outcome(game_id=gid)
        humans = {int(seat) for seat, _ in table.humans()}
        try:
            if humans <= set(waiting):  # nobody confirmed
                out = await self.tables.abandon(table, None)
                minutes = max(1, round(self.wait / 60))
                return replace(out, details={**out.details, "idle_minutes": minutes})
            computers = {s: Occupant.computer("computer") for s in waiting}
            return await self._set_pending(table, session, (), computers)
        except StaleVersion:  # changed meanwhile: its next timer decides
            return Outcome(game_id=gid)

    async def rearm(self) -> None:
        """After a restart (:meth:`~bot.service.timers.TimerService.resume`): every rematch
        lobby's confirmation timer set again for its ``wait_until``."""
        for row in await self.repo.games_by_status({GameStatus.LOBBY}):
            try:
                session = TableSettings.from_json(row.settings).session
            except ValueError:
                continue
            if session is not None and session.pending:
                await self.tables.arm(row.game_id, row.version, session.wait_until)
