"""The core every concern of the game service builds on: loading a table (replayed once, then
kept in memory), the per-game lock, the one compare-and-set write of play with its turn timer,
and the view the presenter reads (``docs/design.md`` §3, §5).

No Telegram calls and no text: callers get :class:`~bot.outcome.Outcome` values.
"""

from __future__ import annotations

import inspect
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from bot.computer import ComputerPlayers
from bot.i18n import DEFAULT_LANGUAGE, reader_language, resolve_language
from bot.keyed import KeyedLocks, LruDict
from bot.outcome import Outcome
from bot.service.view import TableView
from bot.tables import Table, TableSettings
from bot.taps import new_link_token
from engine.actions import Action, Contra, Re
from engine.cards import Seat
from engine.game import GameState
from engine.klammern.play import CONTRA_UNTIL_CARDS, RE_UNTIL_CARDS, cards_played
from engine.record import replay_actions
from engine.round import Phase
from storage import Game, GameStatus, MessageRef, Repository, SeatKind, TurnTimer

Scheduler = Callable[[int, int, float], Awaitable[object] | None]
"""``schedule(game_id, version, at_epoch)``: wake the service's ``timer_fired`` then (a
JobQueue job in this process, or the wake time stored for every worker's sweep)."""

GAME_CACHE = 512
"""Open games whose engine state is kept in memory (the least recently used is replayed from
its log when it is needed again)."""

REMINDER_LEAD = 20
"""Seconds before the deadline at which the player is reminded (at most half the turn time)."""


class ServiceCore:
    """State and helpers shared by the service's concerns (see :class:`bot.service.GameService`).

    Args:
        repo: the storage repository.
        computers: the computer-player runner.
        default_timeout: turn time of new tables in seconds (0: none).
        default_language: the bot's language when nothing else decides (``bot.i18n``).
        clock: UTC epoch seconds (injectable for tests).
        seeds: source of new game seeds (injectable for tests).
    """

    def __init__(
        self,
        repo: Repository,
        computers: ComputerPlayers,
        *,
        default_timeout: int = 60,
        default_language: str = DEFAULT_LANGUAGE,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.repo = repo
        self.computers = computers
        self.default_timeout = default_timeout
        self.default_language = default_language
        self.clock = clock
        self._seeds = seeds or (lambda: random.SystemRandom().getrandbits(62))
        self._locks: KeyedLocks[int] = KeyedLocks()
        self._cache: LruDict[int, tuple[int, GameState]] = LruDict(GAME_CACHE)
        """game → (actions, engine state) of open games only, the most recently used
        :data:`GAME_CACHE` (a finished game is dropped at its end and never cached again)."""
        self.scheduler: Scheduler | None = None
        self.computer_watch = 0.0
        """Seconds after which a computer's pending turn counts as a timer (0: never). Set
        when several workers share the database: a worker that dies between a human's move
        and the computers' leaves that timer for another worker to run."""

    # --- loading -----------------------------------------------------------------------------

    @asynccontextmanager
    async def lock(self, game_id: int) -> AsyncIterator[None]:
        """Serialize work on one game (never a global lock): this process's lock, then the
        repository's lock across processes (:meth:`storage.Repository.game_lock`; several
        workers on one PostgreSQL). The lock is dropped once nobody holds or
        awaits it (:class:`bot.keyed.KeyedLocks`)."""
        async with self._locks(game_id), self.repo.game_lock(game_id):
            yield

    async def _arm(self, game_id: int, version: int, at: float) -> None:
        """Have the scheduler wake :meth:`timer_fired` for ``version`` at ``at``."""
        if self.scheduler is not None:
            armed = self.scheduler(game_id, version, at)
            if inspect.isawaitable(armed):
                await armed

    async def load(self, game_id: int) -> Table | None:
        """The game with its engine state, or None."""
        row = await self.repo.get_game(game_id)
        return await self._table(row) if row is not None else None

    async def open_table_of_chat(self, chat_id: int) -> Table | None:
        """The chat's lobby or running game."""
        row = await self.repo.open_game_of_chat(chat_id)
        return await self._table(row) if row is not None else None

    async def _table(self, row: Game) -> Table:
        """The engine state of a stored row: replayed from the log once, then kept in memory
        while the game runs (keyed by the number of actions, so a newer row replays again).
        A game that is over is replayed on every load and never cached (an old game's link
        or sheet must not fill the memory)."""
        settings = TableSettings.from_json(row.settings)
        if row.snapshot in (None, "{}"):  # never left the lobby
            return Table(row, settings, None)
        cached = self._cache.get(row.game_id) if row.status.is_open else None
        if cached is not None and cached[0] == row.action_count:
            return Table(row, settings, cached[1])
        actions = await self.repo.get_actions(row.game_id)
        state = replay_actions(settings.rules, row.seed, actions)
        if row.status.is_open:
            self._cache.put(row.game_id, (row.action_count, state))
        return Table(row, settings, state)

    def _forget(self, game_id: int) -> None:
        """Drop the in-memory state of a game that ended (keeps memory flat over time);
        the concerns that keep more per game extend it."""
        self._cache.pop(game_id)

    # --- the presenter's view and its message ids ------------------------------------------

    async def version_of(self, game_id: int) -> int | None:
        """The game's stored version (None: an unknown game): one read of its row, for the
        presenter's check before it sends a drawing (several workers)."""
        row = await self.repo.get_game(game_id)
        return row.version if row is not None else None

    async def view(self, game_id: int, also: Iterable[int] = ()) -> TableView | None:
        """Everything the presenter needs to show a game: the table, the group's language,
        every reader's language and name, the chat's title (``docs/design.md`` §3: the presenter
        does not read storage); ``also``: more users to name (who stopped the table). None
        for an unknown game."""
        table = await self.load(game_id)
        if table is None:
            return None
        return await self.view_of(table, also)

    async def view_of(self, table: Table, also: Iterable[int] = ()) -> TableView:
        """:meth:`view` of an already loaded table."""
        chat = await self.repo.get_chat(table.row.chat_id)
        ids = {table.row.creator_id, *also}
        for s in table.row.seats:
            ids.update(uid for uid in (s.user_id, s.former_user_id) if uid is not None)
        users = await self.repo.get_users(ids)
        creator = users.get(table.row.creator_id)
        private = chat is not None and chat.chat_type == "private"
        chosen = table.row.language or (chat.language if chat else None)
        group = resolve_language(
            chosen,
            None,
            creator.telegram_language if creator else None,
            self.default_language,
            private=False,
        )
        chat_language = chosen if private else group
        languages = {
            uid: reader_language(u.language, u.telegram_language, chat_language)
            for uid, u in users.items()
        }
        if private and creator is not None:  # a private table (the daily) reads as its player
            group = languages[creator.user_id]
        title = (chat.title or "") if chat is not None and chat.chat_type != "private" else ""
        names = {uid: u.display_name for uid, u in users.items()}
        link = "" if table.is_private else await self.link_token(table.game_id)
        places = {} if table.is_private else await self.repo.hand_places(users)
        tips = await self.tips_on(table)
        return TableView(table, group, languages, names, title, tips, link, places)

    async def set_hand_place(self, user_id: int, place: str | None) -> None:
        """Where ``user_id`` wants their hand at group tables from now on (``"group"``,
        ``"private"``, None: as the table says; :mod:`bot.presenter.ephemeral`)."""
        await self.repo.set_hand_place(user_id, place, now=self.clock())

    async def link_token(self, game_id: int) -> str:
        """The game's random deep-link token (made and stored when first asked; the same in
        every worker). Links carry it instead of the game's number, which is guessable."""
        token = await self.repo.link_token(game_id, new_link_token())
        return token or ""

    async def record_stop_prompt(self, game_id: int, message_id: int) -> None:
        """The message that now asks ``/stop``'s question (stored: any worker may take the
        answer; a newer question replaces the older)."""
        await self.repo.set_stop_prompt(game_id, message_id)

    async def stop_prompt(self, game_id: int) -> int | None:
        """The message id of the game's ``/stop`` question, if any."""
        return await self.repo.stop_prompt(game_id)

    async def game_of_link(self, token: str) -> int | None:
        """The game a deep-link token belongs to, if any."""
        return await self.repo.game_of_link(token)

    async def record_table_message(self, game_id: int, message_id: int | None) -> None:
        """The message that now shows the game's table (None: forget it)."""
        await self.repo.set_table_message(game_id, message_id, expected_version=None)

    async def record_hand_message(self, game_id: int, seat: int, ref: MessageRef | None) -> None:
        """The private message that now shows ``seat``'s hand (or its offer to take the seat
        back)."""
        await self.repo.set_hand_message(game_id, seat, ref, expected_version=None)

    # --- writing -----------------------------------------------------------------------------

    async def _commit(
        self,
        table: Table,
        state: GameState,
        actions: Sequence[Action],
        out: Outcome,
        timeouts: Mapping[int, int] | None = None,
    ) -> None:
        """Save ``actions`` (one transaction, version compare-and-set) with the seats' new
        timeout counts, and arm the turn timer the new state needs.

        Raises:
            StaleVersion: another process wrote the game first (nothing was saved).
        """
        status = GameStatus.FINISHED if state.is_over else GameStatus.ACTIVE
        timer = None if state.is_over else self._timer_for(table, state)
        version = await self.repo.append_actions(
            table.game_id,
            table.version,
            [a.notation() for a in actions],
            snapshot=json.dumps(snapshot(state)),
            status=status,
            timer=timer,
            now=self.clock(),
            timeouts=timeouts,
        )
        self._cache.put(table.game_id, (table.row.action_count + len(actions), state))
        out.ended = out.ended or state.is_over
        if state.is_over:
            self._forget(table.game_id)
            await self._ended(table.game_id)
        if timer is not None:
            await self._arm(table.game_id, version, self._wake_at(timer, table.settings))

    async def _ended(self, game_id: int) -> None:
        """A game just finished or was abandoned (its last write is stored; lock held). The
        statistics concern records it (:class:`~bot.service.stats.StatsOps`); never
        raises."""

    async def tips_on(self, table: Table) -> bool:
        """Whether ``table``'s players get the tip button (💡): in a solo game (one
        person, the rest computers: the private table, or a group table where nobody else
        ever sat), and in a group game with several people only when its ``tips`` setting is
        on. A daily decides otherwise (:class:`~bot.service.daily.DailyOps`: never in a
        ranked attempt)."""
        if table.is_private:
            return True
        people = {
            uid for s in table.row.seats for uid in (s.user_id, s.former_user_id) if uid is not None
        }
        return len(people) <= 1 or table.settings.tips

    def computer_kind(self, table: Table) -> tuple[str | None, bool]:
        """``(level, deterministic)`` of ``table``'s computer players: the pool's level and
        its clocked budget (``(None, False)``); the daily's differ
        (:class:`~bot.service.daily.DailyOps`)."""
        return None, False

    def _timer_for(self, table: Table, state: GameState) -> TurnTimer | None:
        """The turn timer ``state`` needs at ``table`` (None: nobody human is awaited, or the
        table has no turn time)."""
        to_act = state.to_act
        timeout = table.settings.turn_timeout
        if to_act is None:
            return None
        waiting = awaited_seats(table, state)
        if waiting and timeout > 0:  # the computers wait for this human's contra / re
            return TurnTimer(self.clock() + timeout, int(waiting[0]))
        if table.kind(to_act) is not SeatKind.HUMAN:
            if waiting or self.computer_watch <= 0:
                return None
            # A watch, not a turn time: no reminder; any worker runs the computers when the
            # one that should have did not (it died), see timer_fired.
            return TurnTimer(self.clock() + self.computer_watch, int(to_act), reminded=True)
        if timeout <= 0:
            return None
        return TurnTimer(self.clock() + timeout, int(to_act))

    @staticmethod
    def _wake_at(timer: TurnTimer, settings: TableSettings) -> float:
        """When the timer's job should run next: the reminder first, then the deadline."""
        lead = min(REMINDER_LEAD, settings.turn_timeout / 2)
        return timer.deadline_at if timer.reminded else timer.deadline_at - lead


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


def active_seats(state: GameState, table: Table) -> set[int]:
    """Human seats with something to do now."""
    return {int(s) for s, _ in table.humans() if state.legal_actions(s)}


def snapshot(state: GameState) -> dict[str, Any]:
    """A small JSON summary stored with every write (the log is the source of truth; replaying
    it gives the same summary, see tests)."""
    return {
        "format": 1,
        "actions": len(state.log),
        "round": state.round_number,
        "phase": state.current.phase.value if state.current else "over",
        "to_act": int(state.to_act) if state.to_act is not None else None,
        "totals": {t.value: v for t, v in state.totals().items()},
    }
