"""Standings and daily boards for the picture tests and the bench, built directly as the
service's data objects (:class:`~bot.standings.Standing`, :class:`~bot.service.Board`), with
the hostile names."""

from __future__ import annotations

import random

from bot.daily import BoardLine
from bot.service import Board, DailySummary, NamedLine
from bot.standings import PlayerStats, Standing
from storage import GameStatus
from storage.stats_rows import DailyEntry, DailyPar, PlayerResult, Rating, ResultKind
from tests.render.helpers import HOSTILE
from tests.render.picture_views import LONG_NAME

DAY = "2025-03-14"
NAMES = (
    "Anna",
    LONG_NAME,
    "שרה כהן (Sara) 2",
    "محمد عبد الله",
    "李小龍 🐉",
    "Bert de Vries",
    HOSTILE,
    "",
    "Zoë Ñuñez",
)
"""Plain, 64 characters with emoji, Hebrew, Arabic, one the font cannot draw, HTML, none."""

PAR = DailyPar(DAY, 7, "{}", (96, 120, 162, 40, 131, 80, 102, 150), 0.0)
"""A day's par of 8 deals (881 points)."""


def standings(n: int, *, seed: int = 1) -> tuple[list[Standing], dict[int, str]]:
    """``n`` standings lines, best rating first (some negative, some without a win), and
    their names (cycling through :data:`NAMES`)."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        games = rng.randrange(1, 40)
        wins = rng.randrange(0, games + 1)
        rating = Rating(30 - 1.9 * i + rng.random(), 2 + rng.random() * 4, games)
        lines.append(Standing(100 + i, rating, PlayerStats(games=games, wins=wins)))
    lines.sort(key=lambda s: -(s.rating.mu - 3 * s.rating.sigma))
    names = {s.user_id: NAMES[i % len(NAMES)] for i, s in enumerate(lines)}
    return lines, names


def board(
    n: int,
    *,
    entries: int | None = None,
    me: int | None = None,
    own_place: int | None = None,
    group: str | None = None,
    hidden: tuple[int, ...] = (3,),
    seed: int = 2,
) -> Board:
    """A board of ``n`` top lines (``entries`` lines in all, default ``n``), ordered as the
    service orders it (equal results share a place). ``me``: the index of the reader's line
    among the top; ``own_place``: the reader's place below the top instead. Lines at
    ``hidden`` indexes are hidden people."""
    rng = random.Random(seed)
    results = sorted(
        ((rng.randrange(500, 1800) // 10 * 10, rng.randrange(300, 1500)) for _ in range(n)),
        key=lambda r: (-r[0], r[1]),
    )
    if n > 5:
        results[5] = results[4]  # a shared place
    top: list[NamedLine] = []
    for i, (points, against) in enumerate(results):
        tied = top and (top[-1].line.points, top[-1].line.against) == (points, against)
        place = top[-1].line.place if tied else i + 1
        line = BoardLine(place, 200 + i, points, against, float(i))
        secret = i in hidden and i != me
        name = "" if secret else NAMES[i % len(NAMES)]
        top.append(NamedLine(line, name, secret, i == me))
    own = top[me] if me is not None else None
    if own_place is not None:
        low = min((x.line.points for x in top), default=900)
        own = NamedLine(BoardLine(own_place, 999, low - 30, 1400, 99.0), "Ik zelf", me=True)
    total = entries if entries is not None else max(n, own_place or 0)
    return Board(DAY, total, tuple(top), own, group)


def summary(b: Board, *, par: DailyPar | None = PAR, rounds: int = 8) -> DailySummary:
    """The summary of the reader's ranked, finished attempt on board ``b`` (their own line's
    points; the deals' points add up to them)."""
    assert b.own is not None
    own = b.own.line
    per = [own.points // rounds] * rounds
    per[-1] += own.points - sum(per)
    entry = DailyEntry(1, b.day, own.user_id, True, 1e12, 0.0, GameStatus.FINISHED)
    result = PlayerResult(
        1, own.user_id, GameStatus.FINISHED, 1.0, own.user_id, 2, ResultKind.NONE,
        rounds=rounds, points=own.points, against=own.against,
    )  # fmt: skip
    return DailySummary(entry, result, tuple(per), par, True, False, b, False)
