"""Play: a human's tap in their hand, and the computer players' moves (``rules.md`` §3–§5,
§9 for Klammern), each saved as one compare-and-set write."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from bot.computer import ComputerPlayers
from bot.outcome import Notice, NoticeKind, Outcome, Refusal, refused
from bot.service.core import Tables, active_seats, awaited_seats
from bot.tables import Table
from bot.taps import DECLARE_ALL, Move
from engine.actions import Action, ClaimRoem, Declare, Pass, parse_action
from engine.cards import SEATS, Seat
from engine.errors import IllegalAction, NotationError, Reason
from engine.events import Event
from engine.game import GameState
from engine.observe import observe
from storage import GameStatus, Repository, SeatKind, StaleVersion


class PlayService:
    """Human and computer moves (module docstring).

    Args:
        tables: the tables (the lock, loading, the write of play).
        repo: the storage repository (whether several workers share it).
        computers: the computer-player pool.
        daily_level: the level of a daily's computers (:class:`bot.daily.DailyConfig`).
    """

    def __init__(
        self,
        tables: Tables,
        repo: Repository,
        computers: ComputerPlayers,
        *,
        daily_level: str = "strong",
    ) -> None:
        self.tables = tables
        self.repo = repo
        self.computers = computers
        self.daily_level = daily_level

    def computer_kind(self, table: Table) -> tuple[str | None, bool]:
        """``(level, deterministic)`` of ``table``'s computer players: the pool's level and
        its clocked budget (``(None, False)``); a daily's computers play at the daily's level,
        deterministic (node budget, no clock)."""
        if table.settings.daily is not None:
            return self.daily_level, True
        return None, False

    async def act(
        self,
        game_id: int,
        version: int,
        user_id: int,
        tap: Move,
        accepted: Callable[[Outcome], object] | None = None,
    ) -> Outcome:
        """A tap in a player's hand (:class:`bot.taps.Move`): ``play:JH``, ``choose:H``,
        ``pass``, ``accept``, ``roem``, Klammern ``declare:...``, ``declare:all`` (every
        sequence the seat may declare now), ``bella:KH``, ``contra``, ``re``... The button's
        ``version`` must be the current one (double taps and stale buttons lose cleanly).

        ``accepted``: called with the outcome once the move is known to be legal, before it
        is written (so the tap can be answered before the write waits behind other games'
        database work); only where nothing but a failing database can stop that write (the
        game's lock in one process: not on a repository that several workers share, where
        another worker may have written first and the tap is then refused).

        Refusals: ``GAME_NOT_FOUND``, ``GAME_FINISHED``, ``NOT_IN_GAME``, ``STALE_BUTTON``
        (with ``acted``: the player's hand is sent again), ``MALFORMED``, and the engine's
        :class:`~engine.errors.Reason` with its details; ``NOT_YOUR_TURN`` also says what
        the seat to act is doing (``phase``).
        """
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None:
                return refused(Refusal.GAME_NOT_FOUND)
            if table.row.status is not GameStatus.ACTIVE or table.state is None:
                return refused(Refusal.GAME_FINISHED, game_id)
            seat = table.seat_of(user_id)
            if seat is None:
                return refused(Refusal.NOT_IN_GAME, game_id)
            state = table.state
            if version != table.version:
                if not state.legal_actions(seat):
                    return _not_your_turn(state, game_id)
                return replace(refused(Refusal.STALE_BUTTON, game_id), acted={int(seat)})
            try:
                actions = _expand(state, seat, tap.token)
                new_state, events = state, []
                for action in actions:
                    new_state, more = new_state.apply(action)
                    events.extend(more)
            except NotationError:
                return refused(Refusal.MALFORMED, game_id)
            except IllegalAction as exc:
                if exc.reason is Reason.NOT_YOUR_TURN:
                    return _not_your_turn(state, game_id)
                return refused(exc.reason, game_id, **exc.details)
            out = Outcome(
                game_id=game_id,
                changed=True,
                events=events,
                acted={int(seat)},
                before=active_seats(state, table),
                ended=new_state.is_over,
            )
            here = {int(seat): 0} if table.row.seats[seat].timeouts else None  # the player is here
            if accepted is not None and not self.repo.shared:
                accepted(out)
            try:
                await self.tables.commit(table, new_state, actions, here)
            except StaleVersion:
                return refused(Refusal.STALE_BUTTON, game_id)
            return await self.tables.with_view(out)

    async def run_computers(self, game_id: int, limit: int | None = None) -> Outcome:
        """Let computer seats act while it is their turn (and claim roem for their team), then
        save all their actions in one write. ``limit``: at most that many actions (the
        driver shows computer moves one at a time).

        The first computer's decision is made before the game's lock is taken (a search may
        wait for the pool, behind other tables' computers): meanwhile a person's tap on this
        game is answered at once (a refusal: it is not their turn). The decision is used
        only when the game has not changed since (same version), else it is made again.
        When no computer is to act in the game as stored now, nothing is locked (whoever
        changes that wakes them again)."""
        found = await self.tables.load(game_id)
        if found is None or not computers_due(found):
            return Outcome(game_id=game_id)
        ahead = await self._decide_ahead(found)
        async with self.tables.lock(game_id):
            table = await self.tables.load(game_id)
            if table is None or table.state is None or table.row.status is not GameStatus.ACTIVE:
                return Outcome(game_id=game_id)
            done = await self._run_computers(table, limit=limit, ahead=ahead)
            return await self.tables.with_view(done)

    async def _decide_ahead(self, table: Table) -> tuple[int, Action] | None:
        """``(version, action)``: the decision of the computer to act at ``table`` (as stored
        now, read without the game's lock); None when no computer's search is due (a person
        or nobody is to act, a roem claim comes first, the computers wait for a person)."""
        if table.state is None or table.row.status is not GameStatus.ACTIVE:
            return None
        state = table.state
        if state.is_over or _roem_claim(table, state) is not None:
            return None
        to_act = state.to_act
        if to_act is None or awaited_seats(table, state):
            return None
        if table.kind(to_act) is not SeatKind.COMPUTER:
            return None
        return table.version, await self._choose(table, state, to_act)

    async def _run_computers(
        self,
        table: Table,
        takeover: int | None = None,
        limit: int | None = None,
        timeouts: Mapping[int, int] | None = None,
        retries: int = 2,
        ahead: tuple[int, Action] | None = None,
    ) -> Outcome:
        """:meth:`run_computers` with the game's lock held. ``takeover``: a human seat whose
        turn timed out; the computer plays that one turn for them and stops there (the
        computers after it are the table driver's, :meth:`take_over`). ``timeouts``: the
        seats' new timeout counts, saved with the moves. ``retries``: how often a lost
        compare-and-set is decided again on the reloaded game (a timeout's takeover is not
        redone: its timer is stale then). ``ahead``: ``(version, action)``, the first
        computer's decision made before the lock (:meth:`run_computers`), used when
        ``table`` is still at that version and the action is legal for the seat to act."""
        assert table.state is not None
        state = table.state
        before = active_seats(state, table)
        actions: list[Action] = []
        events: list[Event] = []
        notices: list[Notice] = []
        acted: set[int] = set()
        if ahead is not None and ahead[0] != table.version:
            ahead = None
        while not state.is_over and (limit is None or len(actions) < limit):
            action = await self._computer_action(
                table, state, takeover, ahead[1] if ahead is not None and not actions else None
            )
            if action is None:
                break
            if takeover is not None and action.seat == takeover:
                notices.append(Notice(NoticeKind.TIMEOUT, takeover))
                acted.add(takeover)
                state, more = state.apply(action)
                actions.append(action)
                events.extend(more)
                break  # the computers' own moves: the driver's
            state, more = state.apply(action)
            actions.append(action)
            events.extend(more)
        out = Outcome(
            game_id=table.game_id, events=events, notices=notices, acted=acted, before=before
        )
        if not actions and not timeouts:
            return out
        try:
            await self.tables.commit(table, state, actions, timeouts)
        except StaleVersion:
            # Another writer was first (a worker without the lock, or an old row): decide
            # again on the game as it is now, so no computer turn is dropped (a timeout's
            # takeover is not redone: its timer is stale then).
            if retries <= 0 or takeover is not None:
                return Outcome(game_id=table.game_id)
            fresh = await self.tables.load(table.game_id)
            if fresh is None or fresh.state is None or fresh.row.status is not GameStatus.ACTIVE:
                return Outcome(game_id=table.game_id)
            return await self._run_computers(fresh, limit=limit, retries=retries - 1)
        return replace(out, changed=bool(actions), ended=state.is_over)

    async def take_over(self, table: Table, seat: int, timeouts: Mapping[int, int]) -> Outcome:
        """(Lock held.) ``seat``'s turn timed out: the computer plays that one turn for its
        player (after a roem claim of a computer's team, which comes first), saved with the
        seats' new ``timeouts`` counts (``TIMEOUT`` notice). The computers' moves after it
        are the table driver's (the outcome moved the game). A lost compare-and-set: an
        empty outcome (the timer is stale then)."""
        return await self._run_computers(table, takeover=seat, timeouts=timeouts)

    async def _computer_action(
        self, table: Table, state: GameState, takeover: int | None, ready: Action | None = None
    ) -> Action | None:
        """The next computer action at ``table``: a roem claim of a computer's team first,
        else the move of the computer (or the timed-out human ``takeover``) to act; None
        when a human is to act, or the computers wait for a human's contra / re. ``ready``:
        the computer's decision made already for this very state (:meth:`_decide_ahead`),
        used when it is the seat to act's and legal."""
        claim = _roem_claim(table, state)
        if claim is not None:
            return claim
        to_act = state.to_act
        if to_act is None:
            return None
        waiting = awaited_seats(table, state)
        if waiting:  # a human's contra/re: decline it for a timed-out human, else wait
            return Pass(Seat(takeover)) if takeover in waiting else None
        if table.kind(to_act) is not SeatKind.COMPUTER and to_act != takeover:
            return None
        if ready is not None and ready.seat == to_act and ready in state.legal_actions(to_act):
            return ready
        return await self._choose(table, state, to_act)

    async def _choose(self, table: Table, state: GameState, seat: Seat) -> Action:
        """The computer's decision for ``seat`` in ``state`` (the pool)."""
        level, fixed = self.computer_kind(table)
        return await self.computers.choose(
            observe(state, seat), computer_seed(table.row.seed, len(state.log)),
            level=level, deterministic=fixed, table=table.game_id,
        )  # fmt: skip


def computers_due(table: Table) -> bool:
    """Whether a computer acts next at ``table`` (a running game): its roem claim, or the
    move of the computer seat to act unless the computers wait for a person's contra / re
    (what :meth:`PlayOps._computer_action` would do without a timed-out person). The driver
    wakes the computers only then (``bot.driver``)."""
    state = table.state
    if state is None or state.is_over or table.row.status is not GameStatus.ACTIVE:
        return False
    if _roem_claim(table, state) is not None:
        return True
    to_act = state.to_act
    return (
        to_act is not None
        and table.kind(to_act) is SeatKind.COMPUTER
        and not awaited_seats(table, state)
    )


def _roem_claim(table: Table, state: GameState) -> Action | None:
    """The roem claim a computer seat may make now (its team's roem), if any."""
    for seat in SEATS:
        if table.kind(seat) is SeatKind.COMPUTER and ClaimRoem(seat) in state.legal_actions(seat):
            return ClaimRoem(seat)
    return None


def computer_seed(game_seed: int, actions: int) -> int:
    """The seed of a computer decision after ``actions`` actions of the game with
    ``game_seed`` (a daily's par game uses the same, so its computers decide alike)."""
    return (game_seed * 1_000_003 + actions) & (2**62 - 1)


def _not_your_turn(state: GameState, game_id: int) -> Outcome:
    """``NOT_YOUR_TURN`` naming the seat to act and what it does (bidding or
    playing)."""
    cur = state.current
    phase = cur.phase.value if cur is not None else None
    to_act = int(state.to_act) if state.to_act is not None else None
    return refused(Reason.NOT_YOUR_TURN, game_id, to_act=to_act, phase=phase)


def _expand(state: GameState, seat: Seat, token: str) -> Sequence[Action]:
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
