"""The score sheet as data: what the text sheet and the picture both show.

:class:`SheetView` is built once from the engine's sheet rows (``state.sheet()``) and holds,
per round and team, exactly the numbers a paper boompje carries: Klaverjassen card points and
roem apart, nat and pit marked (``rules.md`` §6.6), the running total; Klammern the small
points won, the small points reached and the big points (§9.8–9.9). Per round also the dealer,
who chose trump and the trump suit (§2.2, §3). Plus the column order (a private view puts the
reader's team first, §2.1), the game's length, whether it is over or stopped, and the result.

The text renderer (:func:`bot.render.sheet.render_sheet_view`) and the picture renderer
(:func:`bot.render.picture.render_sheet_png`) read nothing else, so their numbers cannot
disagree. Pure: no translator, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.render.common import Player
from engine.cards import TEAMS, Seat, Suit, Team
from engine.game import GameState, SheetRow
from engine.klammern.scoring import KlammernScore
from engine.rules import RoundScore

_ZERO: Mapping[Team, int] = {Team.NS: 0, Team.EW: 0}


class Mark(StrEnum):
    """What a Klaverjassen cell is marked with (``rules.md`` §6.3, §6.4, §6.6)."""

    NAT = "nat"
    """The playing team did not make it: it scores 0."""
    PIT = "pit"
    """The team took all eight tricks: 100 roem extra."""


class Status(StrEnum):
    """Where the game stands."""

    PLAYING = "playing"
    FINAL = "final"
    """The game is over: the sheet names the winner or the draw (§2.4, §9.9)."""
    STOPPED = "stopped"
    """Stopped before its end: the score at that moment and no winner."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One team's entry for one round.

    Attributes:
        points: Klaverjassen: the card points written (nat: 0 for the playing team, 162 for
            the defenders, §6.3). Klammern: the small points won this round (0, 1, 2 after
            contra, 4 after re; §9.8).
        roem: Klaverjassen: the roem written, pit bonus included (§6.4); Klammern: 0.
        mark: Klaverjassen: nat or pit, else None; Klammern: None.
        total: the running total after this round: Klaverjassen points plus roem of every
            round so far; Klammern the big points so far (§9.9).
        reached: Klammern: the small points after this round's were added, before a reset
            (what the sheet writes); Klaverjassen: 0.
        big_won: Klammern: big points won this round (0, 1 or 2); Klaverjassen: 0.
    """

    points: int
    roem: int
    mark: Mark | None
    total: int
    reached: int = 0
    big_won: int = 0

    @property
    def score(self) -> int:
        """What the round adds for the team: points plus roem (Klammern: small points)."""
        return self.points + self.roem


@dataclass(frozen=True, slots=True)
class SheetLine:
    """One round of the sheet.

    Attributes:
        number: the round number, 1-based.
        dealer: who dealt (§2.2).
        maker: who chose or accepted trump; the maker's team is the playing team (§3, §9.3).
        trump: the trump suit.
        cells: one :class:`Cell` per team.
        multiplier: Klammern: 1, 2 after contra, 4 after re (§9.7); Klaverjassen: 1.
    """

    number: int
    dealer: Seat
    maker: Seat
    trump: Suit
    cells: Mapping[Team, Cell]
    multiplier: int = 1

    @property
    def playing_team(self) -> Team:
        """The maker's team."""
        return self.maker.team


@dataclass(frozen=True, slots=True)
class SheetView:
    """The whole sheet as both renderers see it. Build with :func:`build_sheet_view` or
    :func:`sheet_view_of`.

    Attributes:
        players: the four seats, index = seat.
        lines: one :class:`SheetLine` per finished round, in order.
        totals: the totals the caller gave (``game.totals()``: Klaverjassen points, Klammern
            big points); the result (winner, stopped score) is read from these. May be empty
            when there is no round.
        viewer: the reader's seat in a private view ("Wij"/"Zij", §2.1); None for the group.
        rounds_total: the game's length (16 or 8, §2.3) when known.
        status: playing, final or stopped.
        klammern_target: Klammern: the big points that win (§9.9); None for Klaverjassen.
    """

    players: tuple[Player, ...]
    lines: tuple[SheetLine, ...]
    totals: Mapping[Team, int]
    viewer: Seat | None = None
    rounds_total: int | None = None
    status: Status = Status.PLAYING
    klammern_target: int | None = None

    @property
    def klammern(self) -> bool:
        """A Klammern sheet (small and big points)."""
        return self.klammern_target is not None

    @property
    def order(self) -> tuple[Team, Team]:
        """The teams left to right: the reader's team first in a private view, else N–S."""
        if self.viewer is not None:
            return (self.viewer.team, self.viewer.team.other)
        return (TEAMS[0], TEAMS[1])

    @property
    def played(self) -> int:
        """Rounds on the sheet."""
        return len(self.lines)

    def points_sum(self, team: Team) -> int:
        """Klaverjassen: the card points written for ``team`` over all rounds (Σ line)."""
        return sum(line.cells[team].points for line in self.lines)

    def roem_sum(self, team: Team) -> int:
        """Klaverjassen: the roem written for ``team`` over all rounds (Σ line)."""
        return sum(line.cells[team].roem for line in self.lines)

    def sum_total(self, team: Team) -> int:
        """Klaverjassen: points plus roem of all rounds (the sheet's last line)."""
        return self.points_sum(team) + self.roem_sum(team)

    @property
    def big(self) -> Mapping[Team, int]:
        """Klammern: the big points so far (0 and 0 before the first round, §9.9)."""
        if not self.lines:
            return _ZERO
        return {t: self.lines[-1].cells[t].total for t in TEAMS}

    @property
    def small(self) -> Mapping[Team, int]:
        """Klammern: the small points each team stands at now (0 after a big point)."""
        if not self.lines:
            return _ZERO
        last = self.lines[-1]
        if any(last.cells[t].big_won for t in TEAMS):
            return _ZERO
        return {t: last.cells[t].reached for t in TEAMS}

    @property
    def result(self) -> Mapping[Team, int]:
        """The numbers the result compares: big points for Klammern, else :attr:`totals`."""
        return self.big if self.klammern else self.totals

    @property
    def draw(self) -> bool:
        """The game is over and the result is equal (§2.4)."""
        res = self.result
        return self.status is Status.FINAL and res[Team.NS] == res[Team.EW]

    @property
    def winner(self) -> Team | None:
        """The winning team once the game is over (``status`` final); None while playing,
        when stopped, and for a draw."""
        if self.status is not Status.FINAL or self.draw:
            return None
        res = self.result
        return Team.NS if res[Team.NS] > res[Team.EW] else Team.EW


def _klaverjas_lines(rows: Sequence[SheetRow]) -> tuple[SheetLine, ...]:
    lines = []
    running = dict(_ZERO)
    for row in rows:
        res = row.result
        assert isinstance(res, RoundScore), "a Klaverjassen row"
        cells = {}
        for team in TEAMS:
            mark = None
            if res.nat and team is res.playing_team:
                mark = Mark.NAT
            elif res.pit is team:
                mark = Mark.PIT
            points, roem = res.points[team], res.roem_scored[team]
            running[team] += points + roem
            cells[team] = Cell(points, roem, mark, running[team])
        lines.append(SheetLine(row.number, row.dealer, row.maker, Suit(row.trump), cells))
    return tuple(lines)


def _klammern_lines(rows: Sequence[SheetRow]) -> tuple[SheetLine, ...]:
    lines = []
    for row in rows:
        res, tally = row.result, row.tally
        assert isinstance(res, KlammernScore) and tally is not None, "a Klammern row"
        cells = {
            t: Cell(
                res.small_points[t],
                0,
                None,
                tally.big[t],
                reached=tally.reached[t],
                big_won=tally.big_won[t],
            )
            for t in TEAMS
        }
        lines.append(
            SheetLine(row.number, row.dealer, row.maker, Suit(row.trump), cells, res.multiplier)
        )
    return tuple(lines)


def build_sheet_view(
    rows: Sequence[SheetRow],
    totals: Mapping[Team, int],
    players: Sequence[Player],
    *,
    viewer: Seat | None = None,
    rounds_total: int | None = None,
    final: bool = False,
    stopped: bool = False,
    klammern_target: int | None = None,
) -> SheetView:
    """The sheet's data from the engine's rows; the arguments of
    :func:`bot.render.sheet.render_sheet`.

    Args:
        rows: ``game.sheet()`` (Klaverjassen rows carry a ``RoundScore``, Klammern rows a
            ``KlammernScore`` and a tally).
        totals: ``game.totals()`` (may be empty when ``rows`` is).
        players: the four seats, index = seat.
        viewer: the reader's seat for a private view; None for the group.
        rounds_total: the game's length.
        final: the game is over; ``stopped``: stopped before its end (wins over ``final``).
        klammern_target: a Klammern game to this many big points.

    Raises:
        AssertionError: a row of the other variant (a Klammern row without a Klammern target,
            or the reverse).
    """
    status = Status.STOPPED if stopped else Status.FINAL if final else Status.PLAYING
    lines = _klammern_lines(rows) if klammern_target is not None else _klaverjas_lines(rows)
    return SheetView(
        players=tuple(players),
        lines=lines,
        totals=dict(totals),
        viewer=viewer,
        rounds_total=rounds_total,
        status=status,
        klammern_target=klammern_target,
    )


def sheet_view_of(
    state: GameState | None,
    players: Sequence[Player],
    *,
    viewer: Seat | None = None,
    stopped: bool = False,
) -> SheetView:
    """The view of a game as the presenter has it: its sheet, totals, length, Klammern target
    and ``final`` when the game is over. ``state`` None (a lobby): an empty sheet.

    ``stopped``: the table was stopped (``/stop``) before the game ended; ignored once the
    game is over, like the presenter's ``/score`` does.
    """
    if state is None:
        return build_sheet_view((), {}, players, viewer=viewer)
    return build_sheet_view(
        state.sheet(),
        state.totals(),
        players,
        viewer=viewer,
        rounds_total=state.settings.rounds,
        final=state.is_over,
        stopped=stopped and not state.is_over,
        klammern_target=state.settings.target_big_points if state.is_klammern else None,
    )
