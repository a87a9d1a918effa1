"""Opening a table and its lobby: seats, computer players, settings, start and cancel
(``rules.md`` §7 for the presets, §9.9 for Klammern's target)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any, assert_never

from bot.outcome import Notice, NoticeKind, Outcome, Refusal, Toast, refused
from bot.service.core import IsAdmin, TableLimits, Tables
from bot.service.rematch import RematchService, rematch_refusal, waiting_seats
from bot.tables import PRESET_CYCLE, TARGET_CHOICES, TIMEOUT_CHOICES, Table, TableSettings
from bot.taps import (
    Cancel,
    ComputerSeat,
    DeepLink,
    Leave,
    LobbyPayload,
    NextSetting,
    Setting,
    Sit,
    Start,
)
from engine.errors import SettingsError
from engine.settings import PRESETS, Settings, Variant
from storage import (
    ChatMoved,
    GameStatus,
    NotFound,
    Occupant,
    OpenGameExists,
    Repository,
    SeatKind,
    StaleVersion,
)


class LobbyService:
    """Opening tables and the lobby (module docstring).

    Args:
        tables: the tables (the lock, loading, the deal, the end of a lobby, timers).
        repo: the storage repository.
        rematch: a rematch lobby's own rules (its confirmation timer).
        clock: UTC epoch seconds.
        seeds: source of new game seeds.
        limits: the caps on open tables and the lobby's idle time (``bot.config``).
        default_timeout: turn time of new tables in seconds (0: none).
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        rematch: RematchService,
        *,
        clock: Callable[[], float],
        seeds: Callable[[], int],
        limits: TableLimits,
        default_timeout: int = 60,
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.rematch = rematch
        self.clock = clock
        self.seeds = seeds
        self.limits = limits
        self.default_timeout = default_timeout

    async def open_table(
        self,
        chat_id: int,
        chat_type: str,
        title: str | None,
        user_id: int,
        name: str,
        preset: str | None = None,
        *,
        thread_id: int | None = None,
    ) -> Outcome:
        """``/klaverjas [preset]``: open a lobby in a group (in the forum topic ``thread_id``,
        where the table then lives), or start a game alone with three computers in a private
        chat, with the chat's last settings or ``preset`` (``rules.md`` §7). Refused with
        ``TABLE_EXISTS`` when the chat has one open, ``TOO_MANY_TABLES`` when the user opened
        :attr:`TableLimits.per_creator` group tables that are still open, ``BOT_FULL`` when
        the bot has :attr:`TableLimits.total` open tables. A lobby closes itself after
        :attr:`TableLimits.lobby_idle` seconds without a change (:meth:`close_idle_lobby`), and
        ``CHAT_MOVED`` when the group became a supergroup (a late command from its old id)."""
        for attempt in range(2):
            try:
                return await self._open_table(
                    chat_id, chat_type, title, user_id, name, preset, thread_id
                )
            except ChatMoved:  # the group became a supergroup meanwhile
                return refused(Refusal.CHAT_MOVED)
            except NotFound as exc:  # the chat's row moved away between two writes
                if exc.kind != "chat" or attempt:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _open_table(
        self,
        chat_id: int,
        chat_type: str,
        title: str | None,
        user_id: int,
        name: str,
        preset: str | None,
        thread_id: int | None,
    ) -> Outcome:
        now = self.clock()
        chat = await self.repo.upsert_chat(chat_id, chat_type, title, now=now)
        existing = await self.repo.open_game_of_chat(chat_id)
        if existing is not None:
            return refused(Refusal.TABLE_EXISTS, existing.game_id)
        open_games = await self.repo.games_by_status({GameStatus.LOBBY, GameStatus.ACTIVE})
        if len(open_games) >= self.limits.total:
            return refused(Refusal.BOT_FULL)
        if chat_type != "private":
            mine = [g for g in open_games if g.creator_id == user_id and g.chat_id < 0]
            if len(mine) >= self.limits.per_creator:
                return refused(Refusal.TOO_MANY_TABLES)
        settings = self._defaults(chat.table_defaults)
        if preset in PRESETS and preset != settings.rules.preset:
            settings = replace(settings, rules=Settings.from_preset(preset))
        try:
            if chat_type == "private":
                # Alone with three computers: nobody waits for the player, so no turn timer.
                solo = TableSettings(settings.rules, 0)  # a solo game has tips anyway
                seats = [
                    Occupant.computer("N"),
                    Occupant.computer("E"),
                    Occupant.human(user_id, name),
                    Occupant.computer("W"),
                ]
                row = await self.repo.create_game(
                    chat_id, user_id, solo.to_json(), self.seeds(), now=now, seats=seats
                )
                async with self.tables.lock(row.game_id):
                    return await self.tables.start(await self.tables.table(row))
            row = await self.repo.create_game(
                chat_id, user_id, settings.to_json(), self.seeds(), now=now, thread_id=thread_id
            )
        except OpenGameExists as exc:  # two /klaverjas at the same moment
            return refused(Refusal.TABLE_EXISTS, exc.game_id)
        await self.tables.arm(row.game_id, row.version, now + self.limits.lobby_idle)
        return Outcome(game_id=row.game_id, lobby=True)

    def _defaults(self, stored: str | None) -> TableSettings:
        """The chat's last table settings (JSON written by
        :meth:`~bot.service.core.Tables.start`: rules, turn time, tips, hands in the group),
        else the bot's."""
        data: dict[str, Any] = {}
        if stored:
            try:
                data = json.loads(stored)
            except ValueError:
                data = {}
        timeout = data.get("turn_timeout", self.default_timeout)
        tips = data.get("tips") is True
        in_group = data.get("hands_in_group") is True
        try:
            rules = Settings.from_dict(data.get("rules") or {})
            return TableSettings(rules, int(timeout), tips=tips, hands_in_group=in_group)
        except (SettingsError, ValueError, TypeError):
            return TableSettings(Settings(), self.default_timeout)

    async def lobby_action(
        self, game_id: int, version: int, user_id: int, tap: LobbyPayload, is_admin: IsAdmin
    ) -> Outcome:
        """A lobby button (:data:`bot.taps.LobbyPayload`). Seat taps are judged on the lobby
        as it is now (a group fills a table in a rush); start, cancel and settings need the
        lobby the tapper saw (``version``), else ``STALE_BUTTON``."""
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None:
                return refused(Refusal.GAME_NOT_FOUND)
            if table.row.status is not GameStatus.LOBBY:
                return refused(
                    Refusal.GAME_ALREADY_STARTED if table.is_open else Refusal.GAME_FINISHED,
                    game_id,
                )
            if version != table.version and not isinstance(tap, Sit | Leave | ComputerSeat):
                return replace(refused(Refusal.STALE_BUTTON, game_id), lobby=True)
            try:
                return await self._lobby(table, user_id, tap, is_admin)
            except StaleVersion:
                return refused(Refusal.STALE_BUTTON, game_id)

    async def _lobby(
        self, table: Table, user_id: int, tap: LobbyPayload, is_admin: IsAdmin
    ) -> Outcome:
        refusal = rematch_refusal(table, tap)
        if refusal is not None:
            return refusal
        gid, now = table.game_id, self.clock()
        seat = table.seat_of(user_id)

        async def may_manage() -> bool:  # asks Telegram only when needed
            return user_id == table.row.creator_id or await is_admin()

        match tap:
            case Sit(target):
                return await self._sit(table, user_id, target)
            case Leave():
                if seat is None:
                    return refused(Refusal.NOT_SEATED, gid)
                await self.repo.set_seats(
                    gid, table.version, {int(seat): Occupant.empty()}, now=now
                )
                return Outcome(game_id=gid, lobby=True, toast=Toast.LEFT)
            case ComputerSeat(add):
                if seat is None and not await may_manage():
                    return refused(Refusal.NOT_IN_GAME, gid)
                return await self._computer_seat(table, add)
            case NextSetting(setting):
                if not await may_manage():
                    return refused(Refusal.CREATOR_OR_ADMIN_ONLY, gid)
                new = next_setting(table.settings, setting)
                await self.repo.set_settings(gid, table.version, new.to_json(), now=now)
                return Outcome(game_id=gid, lobby=True)
            case Start():
                if seat is None and not await may_manage():
                    return refused(Refusal.NOT_IN_GAME, gid)
                if not table.full:
                    return refused(Refusal.NEED_FOUR_PLAYERS, gid)
                if not table.humans():  # four computers: only the private practice table
                    return refused(Refusal.NEED_A_PERSON, gid)
                return await self.tables.start(table)
            case Cancel():
                if not await may_manage():
                    return refused(Refusal.CREATOR_OR_ADMIN_ONLY, gid)
                return await self.tables.abandon(table, user_id)
            case _:
                assert_never(tap)

    async def close_idle_lobby(self, table: Table) -> Outcome:
        """The lobby's timer woke (lock held): a lobby unchanged for
        :attr:`TableLimits.lobby_idle` seconds is closed by the bot (the outcome's
        ``details["idle_minutes"]`` for the group's message); a younger one sets its timer
        for the rest. Anything else than a lobby: nothing happens. A rematch lobby still
        waiting for players: :meth:`~bot.service.rematch.RematchService.close_waiting`."""
        gid = table.game_id
        if table.row.status is not GameStatus.LOBBY:
            return Outcome(game_id=gid)
        if table.settings.session is not None and waiting_seats(table):
            return await self.rematch.close_waiting(table)
        due = table.row.updated_at + self.limits.lobby_idle
        if self.clock() < due - 0.05:
            await self.tables.arm(gid, table.version, due)
            return Outcome(game_id=gid)
        try:
            out = await self.tables.abandon(table, None)
        except StaleVersion:  # changed meanwhile: its next timer decides
            return Outcome(game_id=gid)
        minutes = max(1, round(self.limits.lobby_idle / 60))
        return replace(out, details={**out.details, "idle_minutes": minutes})

    async def _sit(self, table: Table, user_id: int, target: int) -> Outcome:
        """``user_id`` takes ``target`` (moving from their seat, if they have one). A user the
        bot cannot write to in private gets the deep link that seats them
        (``docs/design.md`` §3), unless their hand will be shown in the group."""
        gid = table.game_id
        seat = table.seat_of(user_id)
        if seat == target:
            return Outcome(game_id=gid, toast=Toast.ALREADY_SEATED)
        if table.kind(target) is not SeatKind.EMPTY:
            return refused(Refusal.SEAT_TAKEN, gid)
        user = await self.repo.get_user(user_id)
        if user is None or not (user.can_message or await self.hand_in_group(table, user_id)):
            link = DeepLink("j", await self.tables.link_token(gid), target)
            return Outcome(game_id=gid, url=link.encode())
        changes = {target: Occupant.human(user_id, user.display_name)}
        if seat is not None:
            changes[int(seat)] = Occupant.empty()
        await self.repo.set_seats(gid, table.version, changes, now=self.clock())
        if seat is not None:  # say so
            details = {"seat": target, "old": int(seat)}
            return Outcome(game_id=gid, lobby=True, toast=Toast.MOVED, details=details)
        return Outcome(game_id=gid, lobby=True, toast=Toast.SEATED, details={"seat": target})

    async def hand_in_group(self, table: Table, user_id: int) -> bool:
        """Whether ``user_id``'s hand at this group table is shown in the group (their own
        choice, else the table's; :mod:`bot.presenter.ephemeral`)."""
        if table.is_private:
            return False
        default = "group" if table.settings.hands_in_group else "private"
        return (await self.repo.hand_places([user_id])).get(user_id, default) == "group"

    async def _computer_seat(self, table: Table, add: bool) -> Outcome:
        """A computer player into the first empty seat (``add``), or out of the last one."""
        gid = table.game_id
        if add:
            empty = [s.index for s in table.row.seats if s.kind is SeatKind.EMPTY]
            if not empty:
                return refused(Refusal.TABLE_FULL, gid)
            change = {empty[0]: Occupant.computer("computer")}
        else:
            bots = [s.index for s in table.row.seats if s.kind is SeatKind.COMPUTER]
            if not bots:
                return refused(Refusal.NO_COMPUTER_TO_REMOVE, gid)
            change = {bots[-1]: Occupant.empty()}
        await self.repo.set_seats(gid, table.version, change, now=self.clock())
        return Outcome(game_id=gid, lobby=True)

    async def join_link(self, game_id: int, wanted: int | None, user_id: int) -> Outcome:
        """``/start j<token>_<seat>``: the user opened the private chat from a seat button of
        game ``game_id`` (found by its link token; the caller checked that they are a member
        of its group) and takes seat ``wanted`` (or the first free one)."""
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None or not table.is_open:
                return refused(Refusal.GAME_NOT_FOUND)
            gid = table.game_id
            if table.seat_of(user_id) is not None:
                return Outcome(game_id=gid, toast=Toast.ALREADY_SEATED)
            if table.row.status is not GameStatus.LOBBY:
                return refused(Refusal.GAME_ALREADY_STARTED, gid)
            free = [s.index for s in table.row.seats if s.kind is SeatKind.EMPTY]
            if not free:
                return refused(Refusal.TABLE_FULL, gid)
            target = wanted if wanted in free else free[0]
            user = await self.repo.get_user(user_id)
            name = user.display_name if user else "?"
            try:
                await self.repo.set_seats(
                    gid, table.version, {target: Occupant.human(user_id, name)}, now=self.clock()
                )
            except StaleVersion:
                return refused(Refusal.STALE_BUTTON, gid)
            return Outcome(
                game_id=gid,
                lobby=True,
                toast=Toast.SEATED,
                details={"seat": target},
                notices=[Notice(NoticeKind.SEATED, target)],
            )


def next_setting(settings: TableSettings, setting: Setting) -> TableSettings:
    """The table settings after one tap on ``setting``'s lobby button: the preset cycles
    through :data:`~bot.tables.PRESET_CYCLE` (keeping the length), the length toggles 16 / 8
    rounds (Klammern: the target big points, §9.9), the turn time cycles through
    :data:`~bot.tables.TIMEOUT_CHOICES`, Klammern's automatic declaring and the tip button
    toggle. Every other setting is kept."""
    rules = settings.rules
    klammern = rules.variant is Variant.KLAMMERN
    timeout = settings.turn_timeout
    match setting:
        case Setting.PRESET:
            i = PRESET_CYCLE.index(rules.preset) if rules.preset in PRESET_CYCLE else -1
            preset = PRESET_CYCLE[(i + 1) % len(PRESET_CYCLE)]
            kept: dict[str, Any] = {"rounds": rules.rounds}
            if preset == "klammern":
                kept |= {"target_big_points": rules.target_big_points}
                kept |= {"auto_declare": rules.auto_declare}
            return replace(settings, rules=Settings.from_preset(preset, **kept))
        case Setting.ROUNDS if klammern:
            t = rules.target_big_points
            i = TARGET_CHOICES.index(t) if t in TARGET_CHOICES else -1
            target = TARGET_CHOICES[(i + 1) % len(TARGET_CHOICES)]
            return replace(settings, rules=rules.replace(target_big_points=target))
        case Setting.ROUNDS:
            return replace(settings, rules=rules.replace(rounds=8 if rules.rounds == 16 else 16))
        case Setting.AUTO_DECLARE:
            if not klammern:
                return settings
            return replace(settings, rules=rules.replace(auto_declare=not rules.auto_declare))
        case Setting.TIMEOUT:
            i = TIMEOUT_CHOICES.index(timeout) if timeout in TIMEOUT_CHOICES else -1
            return replace(settings, turn_timeout=TIMEOUT_CHOICES[(i + 1) % len(TIMEOUT_CHOICES)])
        case Setting.TIPS:
            return replace(settings, tips=not settings.tips)
        case Setting.HANDS:
            return replace(settings, hands_in_group=not settings.hands_in_group)
    assert_never(setting)
