"""Score sheets for the picture tests and the bench, built directly as
:class:`~bot.render.sheet_view.SheetView` (so a reference picture depends on the renderer
only, not on how the engine deals), plus the edge cases."""

from __future__ import annotations

import random

from bot.render.common import Player
from bot.render.sheet_view import Cell, Mark, SheetLine, SheetView, Status
from engine.cards import SEATS, TEAMS, Seat, Suit, Team

NAMES = (Player("Anna"), Player("Bert de Vries"), Player("Cas"), Player("", computer=True))

LONG_NAME = (
    "Maximiliaan 🎉👨\u200d👩\u200d👧 van der Wijngaarden-Oosterhuis 🇳🇱 Ælfrīc Þórsson 😀 Zoë Ñuñez"
)[:64]
"""64 characters (Telegram's first-name limit) with emoji, a ZWJ family and a flag."""

HARD = (
    Player(LONG_NAME),
    Player("שרה כהן (Sara) 2"),
    Player("محمد عبد الله"),
    Player("李小龍 🐉"),
)
"""A long name with emoji, Hebrew, Arabic, and a name the font cannot draw at all."""


def _klaverjas_lines(rounds: int, seed: int) -> tuple[SheetLine, ...]:
    """Plausible Klaverjassen rounds: 162 card points, roem, now and then nat or pit."""
    rng = random.Random(seed)
    running = {Team.NS: 0, Team.EW: 0}
    lines = []
    for i in range(rounds):
        maker = SEATS[(i + 1 + rng.randrange(4)) % 4]
        playing = maker.team
        points = {playing: rng.choice((48, 70, 92, 105, 114, 138, 157, 162))}
        points[playing.other] = 162 - points[playing]
        roem = {t: rng.choice((0, 0, 0, 20, 20, 50, 70)) for t in TEAMS}
        mark: dict[Team, Mark] = {}
        if points[playing] + roem[playing] <= points[playing.other] + roem[playing.other]:
            roem = {playing: 0, playing.other: roem[playing] + roem[playing.other]}
            points = {playing: 0, playing.other: 162}
            mark[playing] = Mark.NAT
        elif points[playing] == 162:  # all eight tricks: the defenders have no roem either
            roem = {playing: roem[playing] + roem[playing.other] + 100, playing.other: 0}
            mark[playing] = Mark.PIT
        cells = {}
        for t in TEAMS:
            running[t] += points[t] + roem[t]
            cells[t] = Cell(points[t], roem[t], mark.get(t), running[t])
        lines.append(SheetLine(i + 1, SEATS[i % 4], maker, list(Suit)[rng.randrange(4)], cells))
    return tuple(lines)


def klaverjas_view(
    rounds: int = 16,
    *,
    players: tuple[Player, ...] = NAMES,
    viewer: Seat | None = None,
    status: Status = Status.FINAL,
    seed: int = 3,
) -> SheetView:
    """A Klaverjassen sheet of ``rounds`` rounds (totals consistent with the lines)."""
    lines = _klaverjas_lines(rounds, seed)
    totals = {t: lines[-1].cells[t].total if lines else 0 for t in TEAMS}
    return SheetView(players, lines, totals, viewer, 16, status)


def all_nat_view(players: tuple[Player, ...] = HARD, viewer: Seat | None = None) -> SheetView:
    """16 rounds, every round nat, three-digit roem for the defenders (pit every third)."""
    running = {Team.NS: 0, Team.EW: 0}
    lines = []
    for i in range(16):
        maker = SEATS[(i + 1) % 4]
        cells = {}
        for t in TEAMS:
            mark: Mark | None = Mark.NAT
            if t is maker.team:
                points, roem = 0, 0
            else:
                points = 162
                roem = 100 + 20 * i + (300 if i % 5 == 0 else 0)
                mark = Mark.PIT if i % 3 == 0 else None
            running[t] += points + roem
            cells[t] = Cell(points, roem, mark, running[t])
        lines.append(SheetLine(i + 1, SEATS[i % 4], maker, list(Suit)[i % 4], cells))
    totals = {t: running[t] for t in TEAMS}
    return SheetView(players, tuple(lines), totals, viewer, 16, Status.FINAL)


def klammern_view(
    *, players: tuple[Player, ...] = NAMES, viewer: Seat | None = None, target: int = 3
) -> SheetView:
    """A finished Klammern game to ``target`` big points: small points with contra and re,
    big points (2 when the other team had none, ``rules.md`` §9.9)."""
    rng = random.Random(5)
    small = {Team.NS: 0, Team.EW: 0}
    big = {Team.NS: 0, Team.EW: 0}
    lines = []
    number = 0
    while max(big.values()) < target:
        number += 1
        maker = SEATS[(number + rng.randrange(4)) % 4]
        winner = maker.team if rng.random() < 0.6 else maker.team.other
        multiplier = rng.choice((1, 1, 1, 2, 4))
        won = {t: multiplier if t is winner else 0 for t in TEAMS}
        reached = {t: small[t] + won[t] for t in TEAMS}
        big_won = dict.fromkeys(TEAMS, 0)
        if reached[winner] >= 5:
            big_won[winner] = 2 if reached[winner.other] == 0 else 1
        for t in TEAMS:
            big[t] += big_won[t]
        small = dict.fromkeys(TEAMS, 0) if any(big_won.values()) else dict(reached)
        cells = {t: Cell(won[t], 0, None, big[t], reached[t], big_won[t]) for t in TEAMS}
        suit = Suit.CLUBS if rng.random() < 0.3 else list(Suit)[rng.randrange(4)]
        lines.append(SheetLine(number, SEATS[number % 4], maker, suit, cells, multiplier))
    return SheetView(players, tuple(lines), dict(big), viewer, None, Status.FINAL, target)


def stopped_view(players: tuple[Player, ...] = HARD) -> SheetView:
    """A game stopped after its first round."""
    return klaverjas_view(1, players=players, status=Status.STOPPED, seed=11)
