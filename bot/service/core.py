"""The core every service builds on, :class:`Tables`: loading a table (replayed once, then kept
in memory), the per-game lock, the compare-and-set writes of play with its turn timer (a move,
the deal, the end of a table), the view the presenter reads and the records of its message ids
(``docs/design.md`` §3, §5).

No Telegram calls and no text: callers get :class:`~bot.outcome.Outcome` values.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

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
from storage import Chat, Game, GameStatus, Repository, SeatKind, TurnTimer, User
from storage.rows import reader_ids

Scheduler = Callable[[int, int, float], Awaitable[object] | None]
"""``schedule(game_id, version, at_epoch)``: wake the timer service's ``timer_fired`` then (a
JobQueue job in this process, or the wake time stored for every worker's sweep)."""

Ended = Callable[[int], Awaitable[None]]
"""Called with a game's id right after its last write (finished or abandoned; lock held): the
statistics record it (:meth:`bot.service.stats.StatsService.record_ended`); never raises."""

GAME_CACHE = 512
"""Open games whose engine state is kept in memory (the least recently used is replayed from
its log when it is needed again)."""

REMINDER_LEAD = 20
"""Seconds before the deadline at which the player is reminded (at most half the turn time)."""


@dataclass(frozen=True, slots=True)
class TableLimits:
    """How many tables may be open and how long a lobby waits (``bot.config``).

    Attributes:
        per_creator: open group tables one person may have opened (lobbies and running games).
        total: open tables of the whole bot (group and private tables, dailies included);
            ``/klaverjas`` beyond it is refused until one ends.
        lobby_idle: seconds after its last change at which a lobby nobody started closes
            itself (the group is told).
    """

    per_creator: int = 3
    total: int = 500
    lobby_idle: float = 1800.0


IsAdmin = Callable[[], Awaitable[bool]]
"""Asks Telegram (lazily, only when a permission depends on it) whether the tapper is an admin
of the chat."""


class Tables:
    """The tables every service works on: the per-game lock, loading (with the cache of open
    games' engine states), the writes of play with their turn timers, the presenter's view
    and the records of its message ids. Built once by :class:`bot.service.GameService` and
    handed to every service that needs it.

    Args:
        repo: the storage repository.
        clock: UTC epoch seconds (injectable for tests).
        default_language: the bot's language when nothing else decides (``bot.i18n``).
        scheduler: wakes the timer service for a game's version at a time (None: nowhere).
        computer_watch: seconds after which a computer's pending turn counts as a timer (0:
            never). Set when several workers share the database: a worker that dies between
            a human's move and the computers' leaves that timer for another worker to run.
        ended: called right after a game's last write (the statistics record it).
    """

    def __init__(
        self,
        repo: Repository,
        *,
        clock: Callable[[], float] = time.time,
        default_language: str = DEFAULT_LANGUAGE,
        scheduler: Scheduler | None = None,
        computer_watch: float = 0.0,
        ended: Ended | None = None,
    ) -> None:
        self.repo = repo
        self.clock = clock
        self.default_language = default_language
        self.scheduler = scheduler
        self.computer_watch = computer_watch
        self._ended = ended
        self.locks: KeyedLocks[int] = KeyedLocks()
        self.cache: LruDict[int, tuple[int, GameState]] = LruDict(GAME_CACHE)
        """game → (actions, engine state) of open games only, the most recently used
        :data:`GAME_CACHE` (a finished game is dropped at its end and never cached again)."""
        self._ranked: dict[int, bool] = {}
        """daily game → whether it is the ranked attempt (:meth:`tips_on`), while it runs."""

    # --- loading -----------------------------------------------------------------------------

    @asynccontextmanager
    async def lock(self, game_id: int) -> AsyncIterator[None]:
        """Serialize work on one game (never a global lock): this process's lock, then the
        repository's lock across processes (:meth:`storage.Repository.game_lock`; several
        workers on one PostgreSQL). The lock is dropped once nobody holds or
        awaits it (:class:`bot.keyed.KeyedLocks`)."""
        async with self.locks(game_id), self.repo.game_lock(game_id):
            yield

    async def arm(self, game_id: int, version: int, at: float) -> None:
        """Have the scheduler wake the timer service for ``version`` at ``at``."""
        if self.scheduler is not None:
            armed = self.scheduler(game_id, version, at)
            if inspect.isawaitable(armed):
                await armed

    async def load(self, game_id: int) -> Table | None:
        """The game with its engine state, or None."""
        row = await self.repo.get_game(game_id)
        return await self.table(row) if row is not None else None

    async def open_table_of_chat(self, chat_id: int) -> Table | None:
        """The chat's lobby or running game."""
        row = await self.repo.open_game_of_chat(chat_id)
        return await self.table(row) if row is not None else None

    async def table(self, row: Game) -> Table:
        """The engine state of a stored row: replayed from the log once, then kept in memory
        while the game runs (keyed by the number of actions, so a newer row replays again).
        A game that is over is replayed on every load and never cached (an old game's link
        or sheet must not fill the memory)."""
        settings = TableSettings.from_json(row.settings)
        if row.snapshot in (None, "{}"):  # never left the lobby
            return Table(row, settings, None)
        cached = self.cache.get(row.game_id) if row.status.is_open else None
        if cached is not None and cached[0] == row.action_count:
            return Table(row, settings, cached[1])
        actions = await self.repo.get_actions(row.game_id)
        state = replay_actions(settings.rules, row.seed, actions)
        if row.status.is_open:
            self.cache.put(row.game_id, (row.action_count, state))
        return Table(row, settings, state)

    def forget(self, game_id: int) -> None:
        """Drop the in-memory state of a game that ended (keeps memory flat over time)."""
        self.cache.pop(game_id)
        self._ranked.pop(game_id, None)

    async def games_of(self, user_id: int) -> list[int]:
        """The running games where ``user_id`` plays a seat, or may take one back from the
        computer (``/start`` sends them their hands and offers again)."""
        playing = await self.repo.games_of_user(user_id)
        left = await self.repo.games_left_by(user_id)
        return sorted({g.game_id for g in (*playing, *left)})

    # --- the presenter's view --------------------------------------------------------------

    async def with_view(self, out: Outcome) -> Outcome:
        """``out`` carrying the view of its game as stored now (:meth:`view`, naming who
        stopped it and the users its notices name too), for the presenter
        (``docs/design.md`` §3). The one place a view is attached to an outcome: at the end of
        a call that moves a game (its lock held, after the write), and by the table driver for
        any outcome that comes without one. ``out`` itself when it has one already, names no
        game, or the game is unknown."""
        if out.view is not None or out.game_id is None:
            return out
        also = [out.actor] if out.actor is not None else []
        also += [n.user_id for n in out.notices if n.user_id is not None]
        view = await self.view(out.game_id, also)
        return replace(out, view=view) if view is not None else out

    async def version_of(self, game_id: int) -> int | None:
        """The game's stored version (None: an unknown game): one read of its row, for the
        presenter's check before it sends a drawing (several workers)."""
        row = await self.repo.get_game(game_id)
        return row.version if row is not None else None

    async def view(self, game_id: int, also: Iterable[int] = ()) -> TableView | None:
        """Everything the presenter needs to show a game: the table, the group's language,
        every reader's language and name, the chat's title (``docs/design.md`` §3: the presenter
        does not read storage); ``also``: more users to name (who stopped the table). None
        for an unknown game. The game's row, its chat and its readers are one read
        (:meth:`storage.Repository.game_readers`)."""
        found = await self.repo.game_readers(game_id, also)
        if found is None:
            return None
        return await self._view(await self.table(found.game), found.chat, found.users)

    async def view_of(self, table: Table, also: Iterable[int] = ()) -> TableView:
        """:meth:`view` of an already loaded table."""
        chat = await self.repo.get_chat(table.row.chat_id)
        users = await self.repo.get_users(reader_ids(table.row, also))
        return await self._view(table, chat, users)

    async def _view(self, table: Table, chat: Chat | None, users: Mapping[int, User]) -> TableView:
        """The view of ``table`` from its chat's and readers' rows."""
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
        # a player's choice of hand surface matters only until their hand's message is
        # recorded (the message's chat says where it is from then on,
        # :meth:`bot.presenter.ephemeral.EphemeralOps.hand_place`): asked of storage only then
        undecided = [
            uid
            for seat in table.row.seats
            if seat.hand_message is None and (uid := seat.occupant.user_id) is not None
        ]
        places = (
            await self.repo.hand_places(undecided) if undecided and not table.is_private else {}
        )
        tips = await self.tips_on(table)
        return TableView(table, group, languages, names, title, tips, link, places)

    async def link_token(self, game_id: int) -> str:
        """The game's random deep-link token (made and stored when first asked; the same in
        every worker). Links carry it instead of the game's number, which is guessable."""
        token = await self.repo.link_token(game_id, new_link_token())
        return token or ""

    async def stop_prompt(self, game_id: int) -> int | None:
        """The message id of the game's ``/stop`` question, if any."""
        return await self.repo.stop_prompt(game_id)

    async def game_of_link(self, token: str) -> int | None:
        """The game a deep-link token belongs to, if any."""
        return await self.repo.game_of_link(token)

    # --- writing -----------------------------------------------------------------------------

    async def commit(
        self,
        table: Table,
        state: GameState,
        actions: Sequence[Action],
        timeouts: Mapping[int, int] | None = None,
    ) -> None:
        """Save ``actions`` (one transaction, version compare-and-set) with the seats' new
        timeout counts, and arm the turn timer the new state needs.

        Raises:
            StaleVersion: another process wrote the game first (nothing was saved).
        """
        status = GameStatus.FINISHED if state.is_over else GameStatus.ACTIVE
        timer = None if state.is_over else self.timer_for(table, state)
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
        self.cache.put(table.game_id, (table.row.action_count + len(actions), state))
        if state.is_over:
            self.forget(table.game_id)
            await self._end(table.game_id)
        if timer is not None:
            await self.arm(table.game_id, version, self.wake_at(timer, table.settings))

    async def _end(self, game_id: int) -> None:
        """A game just finished or was abandoned (its last write is stored; lock held): the
        ``ended`` callback (the statistics record it)."""
        if self._ended is not None:
            await self._ended(game_id)

    async def start(self, table: Table) -> Outcome:
        """Deal the first round (lock held); a group's next table starts with these
        settings."""
        if not table.is_private:
            defaults = replace(table.settings, session=None).to_json()  # no rematch's session
            await self.repo.set_chat_defaults(table.row.chat_id, defaults, now=self.clock())
        state, events = GameState.new_with_events(table.settings.rules, table.row.seed)
        await self.commit(table, state, [])
        return Outcome(
            game_id=table.game_id, started=True, changed=True, events=events, ended=state.is_over
        )

    async def abandon(self, table: Table, user_id: int | None) -> Outcome:
        """End an open table (lock held); ``user_id``: who ended it (None: the bot).

        Raises:
            StaleVersion: another process wrote the game first.
        """
        await self.repo.append_actions(
            table.game_id,
            table.version,
            [],
            snapshot=table.row.snapshot or "{}",
            status=GameStatus.ABANDONED,
            timer=None,
            now=self.clock(),
        )
        self.forget(table.game_id)
        await self._end(table.game_id)
        return Outcome(
            game_id=table.game_id,
            stopped=True,
            ended=True,
            changed=True,
            lobby=table.row.status is GameStatus.LOBBY,
            actor=user_id,
        )

    async def retime(self, table: Table) -> Table:
        """After a seat changed hands (lock held): keep the running turn timer when it still
        waits for the right seat (re-armed at the new version), else store the one the table
        needs now (a fresh deadline, or none). Returns the table as stored afterwards."""
        assert table.state is not None
        stored, wanted = table.row.timer, self.timer_for(table, table.state)
        if stored is not None and wanted is not None and stored.seat == wanted.seat:
            await self.arm(table.game_id, table.version, self.wake_at(stored, table.settings))
            return table
        if stored is None and wanted is None:
            return table
        await self.commit(table, table.state, [])
        fresh = await self.load(table.game_id)
        assert fresh is not None
        return fresh

    async def tips_on(self, table: Table) -> bool:
        """Whether ``table``'s players get the tip button (💡): in a solo game (one
        person, the rest computers: the private table, or a group table where nobody else
        ever sat), and in a group game with several people only when its ``tips`` setting is
        on. A daily has it in an unranked attempt only, never in the ranked one (the first
        of the day, whose result goes on the board)."""
        if table.settings.daily is not None:
            ranked = self._ranked.get(table.game_id)
            if ranked is None:
                entry = await self.repo.daily_entry(table.game_id)
                ranked = entry is None or entry.ranked  # unknown: as ranked (no tips)
                if entry is not None:
                    self._ranked[table.game_id] = ranked
            return not ranked
        if table.is_private:
            return True
        people = {
            uid for s in table.row.seats for uid in (s.user_id, s.former_user_id) if uid is not None
        }
        return len(people) <= 1 or table.settings.tips

    def timer_for(self, table: Table, state: GameState) -> TurnTimer | None:
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
            # one that should have did not (it died), see the timer service's timer_fired.
            return TurnTimer(self.clock() + self.computer_watch, int(to_act), reminded=True)
        if timeout <= 0:
            return None
        return TurnTimer(self.clock() + timeout, int(to_act))

    @staticmethod
    def wake_at(timer: TurnTimer, settings: TableSettings) -> float:
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
