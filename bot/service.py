"""The game service (``design.md`` §1): every state change of a table goes through here, under
that game's lock, as load → engine → one compare-and-set write. No Telegram calls and no text:
callers get an :class:`~bot.outcome.Outcome` and hand it to the presenter.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.callbacks import DeepLink
from bot.computer import ComputerPlayers
from bot.outcome import Notice, Outcome, refused
from bot.render.bids import DECLARE_ALL
from bot.tables import PRESET_CYCLE, TARGET_CHOICES, TIMEOUT_CHOICES, Table, TableSettings
from engine.actions import Action, ClaimRoem, Contra, Declare, Pass, Re, parse_action
from engine.cards import SEATS, Seat
from engine.errors import IllegalAction, NotationError, Reason, SettingsError
from engine.game import GameState
from engine.klammern.play import CONTRA_UNTIL_CARDS, RE_UNTIL_CARDS, cards_played
from engine.observe import observe
from engine.record import replay_actions
from engine.round import Phase
from engine.settings import PRESETS, Settings, Variant
from storage import (
    Game,
    GameStatus,
    Occupant,
    OpenGameExists,
    Repository,
    SeatKind,
    StaleVersion,
    TurnTimer,
)

IsAdmin = Callable[[], Awaitable[bool]]
Scheduler = Callable[[int, int, float], None]
"""``schedule(game_id, version, at_epoch)``: wake :meth:`GameService.timer_fired` then."""

REMINDER_LEAD = 20
"""Seconds before the deadline at which the player is reminded (at most half the turn time)."""

MAX_TIMEOUTS = 3
"""Turn timeouts in a row after which an absent player's seat goes to a computer for good."""


class GameService:
    """All table and game operations.

    Args:
        repo: the storage repository.
        computers: the computer-player runner.
        default_timeout: turn time of new tables in seconds (0: none).
        clock: UTC epoch seconds (injectable for tests).
        seeds: source of new game seeds (injectable for tests).
    """

    def __init__(
        self,
        repo: Repository,
        computers: ComputerPlayers,
        *,
        default_timeout: int = 60,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.repo = repo
        self.computers = computers
        self.default_timeout = default_timeout
        self.clock = clock
        self._seeds = seeds or (lambda: random.SystemRandom().getrandbits(62))
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, tuple[int, GameState]] = {}
        self._timeouts: dict[tuple[int, int], int] = {}
        self.scheduler: Scheduler | None = None

    # --- loading -----------------------------------------------------------------------------

    def lock(self, game_id: int) -> asyncio.Lock:
        """The lock that serializes work on one game (never a global lock)."""
        lk = self._locks.get(game_id)
        if lk is None:
            lk = self._locks[game_id] = asyncio.Lock()
        return lk

    async def load(self, game_id: int) -> Table | None:
        """The game with its engine state, or None."""
        row = await self.repo.get_game(game_id)
        return await self._table(row) if row is not None else None

    async def open_table_of_chat(self, chat_id: int) -> Table | None:
        """The chat's lobby or running game."""
        row = await self.repo.open_game_of_chat(chat_id)
        return await self._table(row) if row is not None else None

    async def score_tables(self, chat_id: int, user_id: int | None, private: bool) -> list[Table]:
        """The tables ``/score`` shows: the chat's running game; in a private chat without one
        the user's running games elsewhere; else the chat's most recent (finished) game."""
        row = await self.repo.open_game_of_chat(chat_id)
        if row is not None:
            return [await self._table(row)]
        if private and user_id is not None:
            rows = await self.repo.games_of_user(user_id)
            if rows:
                return [await self._table(r) for r in rows]
        latest = await self.repo.latest_game_of_chat(chat_id)
        return [await self._table(latest)] if latest is not None else []

    async def _table(self, row: Game) -> Table:
        settings = TableSettings.from_json(row.settings)
        if row.snapshot in (None, "{}"):  # never left the lobby
            return Table(row, settings, None)
        cached = self._cache.get(row.game_id)
        if cached is not None and cached[0] == row.action_count:
            return Table(row, settings, cached[1])
        actions = await self.repo.get_actions(row.game_id)
        state = replay_actions(settings.rules, row.seed, actions)
        self._cache[row.game_id] = (row.action_count, state)
        return Table(row, settings, state)

    # --- users and chats ---------------------------------------------------------------------

    async def touch_user(self, user_id: int, name: str, language: str | None) -> None:
        """Record a user's Telegram facts."""
        await self.repo.upsert_user(user_id, name, language, now=self.clock())

    async def user_started(self, user_id: int) -> None:
        """The user wrote to the bot in private: it may message them."""
        await self.repo.set_can_message(user_id, True, now=self.clock())

    async def user_unreachable(self, user_id: int) -> None:
        """Telegram refused a private message to the user (403)."""
        if await self.repo.get_user(user_id) is not None:
            await self.repo.set_can_message(user_id, False, now=self.clock())

    async def set_chat_language(
        self, chat_id: int, chat_type: str, title: str | None, language: str
    ) -> list[Outcome]:
        """``/language`` in a group (by an admin): the chat's texts; its table is redrawn."""
        now = self.clock()
        await self.repo.upsert_chat(chat_id, chat_type, title, now=now)
        await self.repo.set_chat_language(chat_id, language, now=now)
        row = await self.repo.open_game_of_chat(chat_id)
        if row is None:
            return []
        return [Outcome(game_id=row.game_id, resync=True, lobby=row.status is GameStatus.LOBBY)]

    async def set_user_language(self, user_id: int, language: str) -> list[Outcome]:
        """``/language`` in private: the user's own texts; their hands are redrawn."""
        await self.repo.set_user_language(user_id, language, now=self.clock())
        rows = await self.repo.games_of_user(user_id)
        return [Outcome(game_id=row.game_id, resync=True) for row in rows]

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> Outcome:
        """A group became a supergroup (new chat id): move its games (one UPDATE) and forget
        the table message, which lives in the old chat; the presenter draws it anew."""
        moved = await self.repo.migrate_chat(old_chat_id, new_chat_id, now=self.clock())
        row = await self.repo.open_game_of_chat(new_chat_id)
        if row is None or not moved.games_moved:  # nothing here, or moved already
            return Outcome()
        await self.repo.set_table_message(row.game_id, None, expected_version=None)
        return Outcome(game_id=row.game_id, resync=True, lobby=row.status is GameStatus.LOBBY)

    # --- opening a table ---------------------------------------------------------------------

    async def open_table(
        self,
        chat_id: int,
        chat_type: str,
        title: str | None,
        user_id: int,
        name: str,
        preset: str | None = None,
    ) -> Outcome:
        """``/klaverjas [preset]``: open a lobby in a group, or start a game alone with three
        computers in a private chat, with the chat's last settings or ``preset`` (``rules.md``
        §7). Refused with ``table_exists`` when the chat has one open."""
        now = self.clock()
        chat = await self.repo.upsert_chat(chat_id, chat_type, title, now=now)
        existing = await self.repo.open_game_of_chat(chat_id)
        if existing is not None:
            return refused("table_exists", existing.game_id)
        settings = self._defaults(chat.table_defaults)
        if preset in PRESETS and preset != settings.rules.preset:
            settings = TableSettings(Settings.from_preset(preset), settings.turn_timeout)
        try:
            if chat_type == "private":
                # Alone with three computers: nobody waits for the player, so no turn timer.
                solo = TableSettings(settings.rules, 0)
                seats = [
                    Occupant.computer("N"),
                    Occupant.computer("E"),
                    Occupant.human(user_id, name),
                    Occupant.computer("W"),
                ]
                row = await self.repo.create_game(
                    chat_id, user_id, solo.to_json(), self._seeds(), now=now, seats=seats
                )
                async with self.lock(row.game_id):
                    return await self._start(await self._table(row))
            row = await self.repo.create_game(
                chat_id, user_id, settings.to_json(), self._seeds(), now=now
            )
        except OpenGameExists as exc:  # two /klaverjas at the same moment
            return refused("table_exists", exc.game_id)
        return Outcome(game_id=row.game_id, lobby=True)

    def _defaults(self, stored: str | None) -> TableSettings:
        data: dict[str, Any] = {}
        if stored:
            try:
                data = json.loads(stored)
            except ValueError:
                data = {}
        timeout = data.get("turn_timeout", self.default_timeout)
        try:
            return TableSettings(Settings.from_dict(data.get("rules") or {}), int(timeout))
        except (SettingsError, ValueError, TypeError):
            return TableSettings(Settings(), self.default_timeout)

    # --- lobby -------------------------------------------------------------------------------

    async def lobby_action(
        self, game_id: int, version: int, user_id: int, action: str, is_admin: IsAdmin
    ) -> Outcome:
        """A lobby button: ``sit:N``, ``leave``, ``bot:add``, ``bot:remove``, ``preset:next``,
        ``rounds:toggle`` (Klammern: the target big points), ``auto_declare:toggle``
        (Klammern), ``timeout:next``, ``start``, ``cancel``."""
        async with self.lock(game_id):
            table = await self.load(game_id)
            if table is None:
                return refused("game_not_found")
            if table.row.status is not GameStatus.LOBBY:
                return refused(
                    "game_already_started" if table.is_open else "game_finished", game_id
                )
            # Seat taps are judged on the table as it is now (a group fills a table in a rush);
            # start, cancel and settings need the lobby the tapper saw.
            if version != table.version and action.split(":", maxsplit=1)[0] not in (
                "sit",
                "leave",
                "bot",
            ):
                out = refused("stale_button", game_id)
                out.lobby = True
                return out
            try:
                return await self._lobby(table, user_id, action, is_admin)
            except StaleVersion:
                return refused("stale_button", game_id)

    async def _lobby(self, table: Table, user_id: int, action: str, is_admin: IsAdmin) -> Outcome:
        gid, now = table.game_id, self.clock()
        seat = table.seat_of(user_id)
        seated = seat is not None

        async def may_manage() -> bool:  # asks Telegram only when needed
            return user_id == table.row.creator_id or await is_admin()

        if action.startswith("sit:"):
            try:
                target = Seat.parse(action[4:])
            except NotationError:
                return refused("malformed", gid)
            if seat == target:
                return Outcome(game_id=gid, toast="already_seated")
            if table.kind(target) is not SeatKind.EMPTY:
                return refused("seat_taken", gid)
            user = await self.repo.get_user(user_id)
            if user is None or not user.can_message:
                return Outcome(game_id=gid, url=DeepLink("j", gid, int(target)).encode())
            changes = {int(target): Occupant.human(user_id, user.display_name)}
            if seat is not None:
                changes[int(seat)] = Occupant.empty()
            await self.repo.set_seats(gid, table.version, changes, now=now)
            return Outcome(game_id=gid, lobby=True, toast="seated", details={"seat": int(target)})
        if action == "leave":
            if seat is None:
                return refused("not_seated", gid)
            await self.repo.set_seats(gid, table.version, {int(seat): Occupant.empty()}, now=now)
            return Outcome(game_id=gid, lobby=True, toast="left")
        if action in ("bot:add", "bot:remove"):
            if not (seated or await may_manage()):
                return refused("not_in_game", gid)
            return await self._computer_seat(table, action == "bot:add")
        if action in ("preset:next", "rounds:toggle", "timeout:next", "auto_declare:toggle"):
            if not await may_manage():
                return refused("creator_or_admin_only", gid)
            new = _next_setting(table.settings, action)
            await self.repo.set_settings(gid, table.version, new.to_json(), now=now)
            return Outcome(game_id=gid, lobby=True)
        if action == "start":
            if not (seated or await may_manage()):
                return refused("not_in_game", gid)
            if not table.full:
                return refused("need_four_players", gid)
            return await self._start(table)
        if action == "cancel":
            if not await may_manage():
                return refused("creator_or_admin_only", gid)
            return await self._abandon(table, user_id)
        return refused("malformed", gid)

    async def _computer_seat(self, table: Table, add: bool) -> Outcome:
        gid = table.game_id
        if add:
            empty = [s.index for s in table.row.seats if s.kind is SeatKind.EMPTY]
            if not empty:
                return refused("table_full", gid)
            change = {empty[0]: Occupant.computer("computer")}
        else:
            bots = [s.index for s in table.row.seats if s.kind is SeatKind.COMPUTER]
            if not bots:
                return refused("no_computer_to_remove", gid)
            change = {bots[-1]: Occupant.empty()}
        await self.repo.set_seats(gid, table.version, change, now=self.clock())
        return Outcome(game_id=gid, lobby=True)

    async def join_link(self, link: DeepLink, user_id: int) -> Outcome:
        """``/start j<game>_<seat>``: the user opened the private chat from a seat button and
        takes that seat (or the first free one)."""
        async with self.lock(link.game_id):
            table = await self.load(link.game_id)
            if table is None or not table.is_open:
                return refused("game_not_found")
            gid = table.game_id
            seat = table.seat_of(user_id)
            if seat is not None:
                return Outcome(game_id=gid, toast="already_seated")
            if table.row.status is not GameStatus.LOBBY:
                return refused("game_already_started", gid)
            free = [s.index for s in table.row.seats if s.kind is SeatKind.EMPTY]
            if not free:
                return refused("table_full", gid)
            target = link.seat if link.seat in free else free[0]
            user = await self.repo.get_user(user_id)
            name = user.display_name if user else "?"
            try:
                await self.repo.set_seats(
                    gid, table.version, {target: Occupant.human(user_id, name)}, now=self.clock()
                )
            except StaleVersion:
                return refused("stale_button", gid)
            return Outcome(
                game_id=gid,
                lobby=True,
                toast="seated",
                details={"seat": target},
                notices=[Notice("seated", target)],
            )

    # --- the game ----------------------------------------------------------------------------

    async def _start(self, table: Table) -> Outcome:
        if not table.is_private:  # the group's next table starts with these settings
            await self.repo.set_chat_defaults(
                table.row.chat_id, table.settings.to_json(), now=self.clock()
            )
        state, events = GameState.new_with_events(table.settings.rules, table.row.seed)
        out = Outcome(game_id=table.game_id, started=True, changed=True, events=list(events))
        await self._commit(table, state, [], out)
        return out

    async def act(self, game_id: int, version: int, user_id: int, token: str) -> Outcome:
        """A tap in a player's hand: ``play:JH``, ``choose:H``, ``pass``, ``accept``, ``roem``,
        Klammern ``declare:...``, ``declare:all`` (every sequence the seat may declare now),
        ``bella:KH``, ``contra``, ``re``, ... The button's ``version`` must be the current one
        (double taps and stale buttons lose cleanly)."""
        async with self.lock(game_id):
            table = await self.load(game_id)
            if table is None:
                return refused("game_not_found")
            if table.row.status is not GameStatus.ACTIVE or table.state is None:
                return refused("game_finished", game_id)
            seat = table.seat_of(user_id)
            if seat is None:
                return refused("not_in_game", game_id)
            state = table.state
            if version != table.version:
                if not state.legal_actions(seat):
                    return refused("not_your_turn", game_id, to_act=_int(state.to_act))
                out = refused("stale_button", game_id)
                out.acted.add(int(seat))
                return out
            try:
                actions = _expand(state, seat, token)
                new_state, events = state, []
                for action in actions:
                    new_state, more = new_state.apply(action)
                    events.extend(more)
            except NotationError:
                return refused("malformed", game_id)
            except IllegalAction as exc:
                return refused(exc.reason.value, game_id, **exc.details)
            out = Outcome(game_id=game_id, changed=True, events=list(events), acted={int(seat)})
            out.before = _active(state, table)
            try:
                await self._commit(table, new_state, actions, out)
            except StaleVersion:
                return refused("stale_button", game_id)
            self._timeouts.pop((game_id, int(seat)), None)  # the player is here
            return out

    async def run_computers(self, game_id: int, limit: int | None = None) -> Outcome:
        """Let computer seats act while it is their turn (and claim roem for their team), then
        save all their actions in one write. ``limit``: at most that many actions (the
        driver shows computer moves one at a time)."""
        async with self.lock(game_id):
            table = await self.load(game_id)
            if table is None or table.state is None or table.row.status is not GameStatus.ACTIVE:
                return Outcome(game_id=game_id)
            return await self._run_computers(table, limit=limit)

    async def _run_computers(
        self, table: Table, takeover: int | None = None, limit: int | None = None
    ) -> Outcome:
        """:meth:`run_computers` with the game's lock held. ``takeover``: a human seat whose
        turn timed out; the computer plays that one turn for them."""
        assert table.state is not None
        state = table.state
        out = Outcome(game_id=table.game_id, before=_active(state, table))
        actions: list[Action] = []
        while not state.is_over and (limit is None or len(actions) < limit):
            action = await self._computer_action(table, state, actions, takeover)
            if action is None:
                break
            if takeover is not None and action.seat == takeover:
                out.notices.append(Notice("timeout", takeover))
                out.acted.add(takeover)
                takeover = None
            state, events = state.apply(action)
            actions.append(action)
            out.events.extend(events)
        if not actions:
            return out
        out.changed = True
        try:
            await self._commit(table, state, actions, out)
        except StaleVersion:
            return Outcome(game_id=table.game_id)
        return out

    async def _computer_action(
        self, table: Table, state: GameState, done: Sequence[Action], takeover: int | None
    ) -> Action | None:
        for seat in SEATS:
            if table.kind(seat) is SeatKind.COMPUTER and ClaimRoem(seat) in state.legal_actions(
                seat
            ):
                return ClaimRoem(seat)
        to_act = state.to_act
        if to_act is None:
            return None
        waiting = awaited_seats(table, state)
        if waiting:  # a human's contra/re: decline it for a timed-out human, else wait
            return Pass(Seat(takeover)) if takeover in waiting else None
        if table.kind(to_act) is not SeatKind.COMPUTER and to_act != takeover:
            return None
        seed = (table.row.seed * 1_000_003 + len(state.log)) & (2**62 - 1)
        return await self.computers.choose(observe(state, to_act), seed)

    async def _commit(
        self, table: Table, state: GameState, actions: Sequence[Action], out: Outcome
    ) -> None:
        """Save ``actions`` (one transaction, version compare-and-set) and re-arm the timer."""
        status = GameStatus.FINISHED if state.is_over else GameStatus.ACTIVE
        timer = None if state.is_over else self._timer_for(table, state)
        version = await self.repo.append_actions(
            table.game_id,
            table.version,
            [a.notation() for a in actions],
            snapshot=json.dumps(_snapshot(state)),
            status=status,
            timer=timer,
            now=self.clock(),
        )
        self._cache[table.game_id] = (table.row.action_count + len(actions), state)
        out.ended = out.ended or state.is_over
        if state.is_over:
            self._forget(table.game_id)
        if timer is not None and self.scheduler is not None:
            self.scheduler(table.game_id, version, self._wake_at(timer, table.settings))

    def _timer_for(self, table: Table, state: GameState) -> TurnTimer | None:
        to_act = state.to_act
        timeout = table.settings.turn_timeout
        if to_act is None or timeout <= 0:
            return None
        waiting = awaited_seats(table, state)
        if waiting:  # the computers wait for this human's contra / re (or its pass)
            return TurnTimer(self.clock() + timeout, int(waiting[0]))
        if table.kind(to_act) is not SeatKind.HUMAN:
            return None
        return TurnTimer(self.clock() + timeout, int(to_act))

    @staticmethod
    def _wake_at(timer: TurnTimer, settings: TableSettings) -> float:
        lead = min(REMINDER_LEAD, settings.turn_timeout / 2)
        return timer.deadline_at if timer.reminded else timer.deadline_at - lead

    async def timer_fired(self, game_id: int, version: int) -> Outcome:
        """A turn timer woke up: remind the player first, then let the computer play for them;
        after :data:`MAX_TIMEOUTS` timeouts in a row the seat goes to a computer for good. A
        timer of an older version (the player acted meanwhile) does nothing."""
        async with self.lock(game_id):
            table = await self.load(game_id)
            if (
                table is None
                or table.state is None
                or table.row.status is not GameStatus.ACTIVE
                or table.version != version
                or table.row.timer is None
            ):
                return Outcome(game_id=game_id)
            timer = table.row.timer
            if self.clock() < timer.deadline_at - 0.05:
                if not timer.reminded:
                    await self.repo.mark_reminded(game_id, version)
                if self.scheduler is not None:
                    self.scheduler(game_id, version, timer.deadline_at)
                if timer.reminded:
                    return Outcome(game_id=game_id)
                return Outcome(game_id=game_id, notices=[Notice("reminder", timer.seat)])
            key = (game_id, timer.seat)
            self._timeouts[key] = self._timeouts.get(key, 0) + 1
            if self._timeouts[key] < MAX_TIMEOUTS or table.kind(timer.seat) is not SeatKind.HUMAN:
                return await self._run_computers(table, takeover=timer.seat)
            del self._timeouts[key]
            return await self._to_computer(table, timer.seat, "absent", None)

    async def handover(self, game_id: int, user_id: int) -> Outcome:
        """A seated player hands their seat to a computer player, which plays it until they
        take it back (:meth:`reclaim`) or the game ends. When no human is left the table is
        stopped."""
        async with self.lock(game_id):
            table = await self.load(game_id)
            if table is None or table.state is None or table.row.status is not GameStatus.ACTIVE:
                return refused("game_finished", game_id)
            seat = table.seat_of(user_id)
            if seat is None:
                return refused("not_in_game", game_id)
            try:
                return await self._to_computer(table, int(seat), "handover", user_id)
            except StaleVersion:
                return refused("stale_button", game_id)

    async def _to_computer(self, table: Table, seat: int, kind: str, actor: int | None) -> Outcome:
        """(Lock held.) The human in ``seat`` leaves it to a computer player, remembered as its
        former player (:meth:`reclaim`): ``kind`` ``"handover"`` (they asked; ``actor`` is
        them) or ``"absent"`` (:data:`MAX_TIMEOUTS` timeouts). With no human left the table
        closes (a hand-over reads as the player stopping it). Otherwise the turn timer is set
        for the table as it is now (Klammern: the computers may still wait for the partner's
        contra or re) and the computers move.

        Raises:
            StaleVersion: another process wrote the game first.
        """
        assert table.state is not None
        gone = table.row.seats[seat]
        before = _active(table.state, table)
        await self.repo.set_seats(
            table.game_id,
            table.version,
            {seat: Occupant.computer("computer", former_user_id=gone.user_id)},
            now=self.clock(),
        )
        fresh = await self.load(table.game_id)
        assert fresh is not None
        notice = Notice(kind, seat, gone.user_id, gone.hand_message)
        out = Outcome(game_id=table.game_id, changed=True, notices=[notice], before=before)
        out.acted.add(seat)
        if not fresh.humans():
            closed = await self._abandon(fresh, actor)
            return closed if kind == "handover" else out.merge(closed)
        fresh = await self._retime(fresh, out)
        return out.merge(await self._run_computers(fresh))

    async def reclaim(self, game_id: int, version: int, user_id: int, token: str) -> Outcome:
        """The "Take my seat back" button (``token`` ``reclaim:<seat>``): a player whose seat
        went to a computer (:meth:`handover`, or :data:`MAX_TIMEOUTS` timeouts in a row) sits
        there again, in the same game only.

        The button is a claim, never an authority (``design.md`` §4): it stays valid while the
        computer plays on (any ``version`` up to the current one; a later one is forged). Under
        the game's lock: the game must be active and the seat a computer seat whose stored
        former player is ``user_id``. The seat becomes the user's again, their timeout count
        starts anew and the turn timer is set for the table as it is now (a fresh one when it
        is their turn). Refusals, with nothing changed:
        ``malformed``, ``game_not_found``, ``game_finished``, ``already_seated`` (taken back
        already), ``not_your_seat`` (somebody else's, or no former player), ``stale_button``
        (another process wrote first)."""
        action, _, seat_text = token.partition(":")
        if action != "reclaim" or seat_text not in ("0", "1", "2", "3"):
            return refused("malformed", game_id)
        seat = int(seat_text)
        async with self.lock(game_id):
            table = await self.load(game_id)
            if table is None:
                return refused("game_not_found")
            if table.row.status is not GameStatus.ACTIVE or table.state is None:
                return refused("game_finished", game_id)
            if version > table.version:
                return refused("malformed", game_id)
            if table.seat_of(user_id) is not None:
                return refused("already_seated", game_id)
            left = table.row.seats[seat]
            if left.kind is not SeatKind.COMPUTER or left.former_user_id != user_id:
                return refused("not_your_seat", game_id)
            user = await self.repo.get_user(user_id)
            name = user.display_name if user is not None else "?"
            before = _active(table.state, table)
            try:
                await self.repo.set_seats(
                    game_id,
                    table.version,
                    {seat: Occupant.human(user_id, name)},
                    now=self.clock(),
                )
            except StaleVersion:
                return refused("stale_button", game_id)
            self._timeouts.pop((game_id, seat), None)  # a clean slate
            table = await self.load(game_id)
            assert table is not None and table.state is not None
            notice = Notice("back", seat, user_id, left.hand_message)
            out = Outcome(
                game_id=game_id,
                changed=True,
                toast="reclaimed",
                notices=[notice],
                acted={seat},
                before=before,
            )
            table = await self._retime(table, out)
            return out.merge(await self._run_computers(table))

    async def _retime(self, table: Table, out: Outcome) -> Table:
        """After a seat changed hands (lock held): keep the running turn timer when it still
        waits for the right seat (re-armed at the new version), else store the one the table
        needs now (a fresh deadline, or none). Returns the table as stored afterwards."""
        assert table.state is not None
        stored, wanted = table.row.timer, self._timer_for(table, table.state)
        if stored is not None and wanted is not None and stored.seat == wanted.seat:
            if self.scheduler is not None:
                self.scheduler(table.game_id, table.version, self._wake_at(stored, table.settings))
            return table
        if stored is None and wanted is None:
            return table
        await self._commit(table, table.state, [], out)
        fresh = await self.load(table.game_id)
        assert fresh is not None
        return fresh

    async def stop(self, game_id: int, user_id: int, is_admin: IsAdmin) -> Outcome:
        """``/stop`` confirmed: the creator or a group admin ends the table (abandoned)."""
        async with self.lock(game_id):
            table = await self.load(game_id)
            if table is None or not table.is_open:
                return refused("game_finished", game_id)
            if user_id != table.row.creator_id and not await is_admin():
                return refused("creator_or_admin_only", game_id)
            return await self._abandon(table, user_id)

    async def _abandon(self, table: Table, user_id: int | None) -> Outcome:
        """End an open table (lock held); ``user_id``: who ended it."""
        await self.repo.append_actions(
            table.game_id,
            table.version,
            [],
            snapshot=table.row.snapshot or "{}",
            status=GameStatus.ABANDONED,
            timer=None,
            now=self.clock(),
        )
        self._forget(table.game_id)
        return Outcome(
            game_id=table.game_id,
            stopped=True,
            ended=True,
            changed=True,
            lobby=table.row.status is GameStatus.LOBBY,
            actor=user_id,
        )

    def _forget(self, game_id: int) -> None:
        """Drop the in-memory state of a game that ended (keeps memory flat over time)."""
        self._cache.pop(game_id, None)
        for key in [k for k in self._timeouts if k[0] == game_id]:
            del self._timeouts[key]

    async def resume(self) -> list[Outcome]:
        """After a restart: re-arm every running timer (storing the turn timer a table needs if
        it has none, e.g. after a crash between a seat change and its timer), let computers
        finish their turns, and
        have every running table redrawn (the process may have died between saving a move
        and showing it). Returns one outcome per active game, for the presenter."""
        outcomes = []
        for row in await self.repo.games_by_status({GameStatus.ACTIVE}):
            out = Outcome(game_id=row.game_id, resync=True)
            async with self.lock(row.game_id):
                table = await self.load(row.game_id)
                if table is not None and table.state is not None:
                    # Re-arms the stored timer, or stores the one the table needs if the
                    # process died between a seat change and its timer write.
                    await self._retime(table, out)
            outcomes.append(out.merge(await self.run_computers(row.game_id)))
        return outcomes


def awaited_seats(table: Table, state: GameState) -> list[Seat]:
    """Klammern (``rules.md`` §9.7): the human seats the computers wait for.

    A contra window closes when the first card of the second trick is played, a re window with
    the first card of the third. When that card is a computer's, a human who may still call
    contra or re (and is not to play) gets a fair chance: the computer does not play it until
    the human has called or said no (``Pass``); on a timeout the computer says no for them.
    Empty for Klaverjassen and whenever the next card closes no human's window.
    """
    cur = state.current
    if cur is None or cur.klammern is None or cur.phase is not Phase.PLAY:
        return []
    to_act = cur.to_act
    if to_act is None or table.kind(to_act) is SeatKind.HUMAN:
        return []
    n = cards_played(cur)
    closing = Contra if n == CONTRA_UNTIL_CARDS else Re if n == RE_UNTIL_CARDS else None
    if closing is None:
        return []
    return [
        seat
        for seat, _ in table.humans()
        if seat != to_act and any(isinstance(a, closing) for a in cur.legal_actions(seat))
    ]


def _expand(state: GameState, seat: Seat, token: str) -> list[Action]:
    """The actions of a hand button: one, or for ``declare:all`` every declaration the seat
    may make now (in the engine's order).

    Raises:
        NotationError: for a token that is not an action.
        IllegalAction: ``declare:all`` with nothing to declare (``NOT_ALLOWED``).
    """
    if token != DECLARE_ALL:
        return [parse_action(token, seat=seat)]
    declares: list[Action] = [a for a in state.legal_actions(seat) if isinstance(a, Declare)]
    if not declares:
        raise IllegalAction(Reason.NOT_ALLOWED, action="declare")
    return declares


def _int(seat: Seat | None) -> int | None:
    return int(seat) if seat is not None else None


def _active(state: GameState, table: Table) -> set[int]:
    """Human seats with something to do now."""
    return {int(s) for s, _ in table.humans() if state.legal_actions(s)}


def _snapshot(state: GameState) -> dict[str, Any]:
    """A small JSON summary stored with every write (the log is the source of truth; replaying
    it gives the same summary, see tests)."""
    return {
        "format": 1,
        "actions": len(state.log),
        "round": state.round_number,
        "phase": state.current.phase.value if state.current else "over",
        "to_act": _int(state.to_act),
        "totals": {t.value: v for t, v in state.totals().items()},
    }


def _next_setting(settings: TableSettings, action: str) -> TableSettings:
    rules = settings.rules
    klammern = rules.variant is Variant.KLAMMERN
    if action == "preset:next":
        i = PRESET_CYCLE.index(rules.preset) if rules.preset in PRESET_CYCLE else -1
        preset = PRESET_CYCLE[(i + 1) % len(PRESET_CYCLE)]
        kept: dict[str, Any] = {"rounds": rules.rounds}
        if preset == "klammern":
            kept |= {"target_big_points": rules.target_big_points}
            kept |= {"auto_declare": rules.auto_declare}
        return TableSettings(Settings.from_preset(preset, **kept), settings.turn_timeout)
    if action == "rounds:toggle" and klammern:
        t = rules.target_big_points
        i = TARGET_CHOICES.index(t) if t in TARGET_CHOICES else -1
        target = TARGET_CHOICES[(i + 1) % len(TARGET_CHOICES)]
        return TableSettings(rules.replace(target_big_points=target), settings.turn_timeout)
    if action == "rounds:toggle":
        return TableSettings(
            rules.replace(rounds=8 if rules.rounds == 16 else 16), settings.turn_timeout
        )
    if action == "auto_declare:toggle":
        if not klammern:
            return settings
        return TableSettings(
            rules.replace(auto_declare=not rules.auto_declare), settings.turn_timeout
        )
    i = (
        TIMEOUT_CHOICES.index(settings.turn_timeout)
        if settings.turn_timeout in TIMEOUT_CHOICES
        else -1
    )
    return TableSettings(rules, TIMEOUT_CHOICES[(i + 1) % len(TIMEOUT_CHOICES)])
