"""The daily deal, pure: which day it is, the day's deal seed, the daily's table
settings, and the day's board (places, names on it, streaks).

Rules (README "The daily deal"):

* The day turns at midnight in the daily's time zone (``DAILY_TIMEZONE``, default
  Europe/Amsterdam); a day is written ``YYYY-MM-DD``.
* Everybody gets the same deals on the same day: the game's seed is derived from the day and
  the bot's secret (HMAC-SHA256; ``DAILY_SECRET`` or one drawn once and stored), so nobody can
  compute a date's hands in advance, and every attempt of a date has the same hands (the
  deal of round *n* depends only on the seed and *n*, ``rules.md`` §2.2; the player sits South
  with a computer partner North against two computers, as in seed 001).
* One ranked attempt per person and day: the first one started. Starting again is allowed
  and unranked. A ranked attempt finished after its day ended, or stopped, is not on the
  board (the board of a day is final at midnight).
* The board orders by the points of the player's team (more is better), then by the other
  team's points (fewer is better); equal on both share a place; then the earlier finish
  comes first on the list.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.tables import TableSettings
from engine.settings import Settings
from storage import Occupant
from storage.stats_rows import DailyResult

SECRET_KEY = "daily_secret"
"""The ``bot_state`` key of the secret drawn when ``DAILY_SECRET`` is not set."""

PLAYER_SEAT = 2
"""The player's seat (South), partner North, opponents East and West (seed 001)."""

BOARD_SIZE = 10
"""Lines at the top of a board."""


@dataclass(frozen=True, slots=True)
class DailyConfig:
    """The operator's settings of the daily (``bot.config.BotConfig``).

    Attributes:
        rounds: rounds of the deal set (8 or 16, ``rules.md`` §2.3).
        preset: a Klaverjassen preset (``rules.md`` §7).
        timezone: IANA zone whose midnight turns the day.
        level: the computers' level (``strong``: fixed node budget, no clock).
        secret: the seed secret; None: the stored one.
    """

    rounds: int = 8
    preset: str = "amsterdam"
    timezone: str = "Europe/Amsterdam"
    level: str = "strong"
    secret: str | None = None

    def settings(self, day: str) -> TableSettings:
        """The table settings of ``day``'s daily: the preset with the rounds, no turn time
        (alone with computers nobody waits), marked as that day's daily."""
        rules = Settings.from_preset(self.preset, rounds=self.rounds)
        return TableSettings(rules, 0, daily=day)


def day_of(now: float, timezone: str) -> str:
    """The day (``YYYY-MM-DD``) at UTC epoch seconds ``now`` in ``timezone``."""
    return datetime.fromtimestamp(now, ZoneInfo(timezone)).date().isoformat()


def day_bounds(day: str, timezone: str) -> tuple[float, float]:
    """``day``'s start and end in UTC epoch seconds (its midnights in ``timezone``; 23 or 25
    hours on the days the clocks change).

    Raises:
        ValueError: ``day`` is not ``YYYY-MM-DD``.
    """
    zone = ZoneInfo(timezone)
    first = date.fromisoformat(day)
    start = datetime.combine(first, time(0), zone)
    end = datetime.combine(first + timedelta(days=1), time(0), zone)
    return start.timestamp(), end.timestamp()


def month_start(now: float, timezone: str) -> float:
    """The first midnight of ``now``'s month in ``timezone`` (UTC epoch seconds)."""
    local = datetime.fromtimestamp(now, ZoneInfo(timezone))
    return datetime.combine(local.date().replace(day=1), time(0), ZoneInfo(timezone)).timestamp()


def daily_seed(secret: str, day: str) -> int:
    """The deal seed of ``day`` (a non-negative 62-bit int) from the bot's ``secret``."""
    digest = hmac.new(secret.encode(), f"daily:{day}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & (2**62 - 1)


def daily_seats(user_id: int, name: str) -> list[Occupant]:
    """The daily's seats: the player South, computers North, East and West."""
    return [
        Occupant.computer("N"),
        Occupant.computer("E"),
        Occupant.human(user_id, name),
        Occupant.computer("W"),
    ]


def board_name(display_name: str | None) -> str:
    """A name for the global board: the first name and the initial of the last word
    (``"Anna de Vries"`` → ``"Anna V."``); empty for no usable name (the renderer writes
    "a player")."""
    words = [w for w in (display_name or "").split() if visible(w)]
    if not words:
        return ""
    if len(words) == 1:
        return words[0][:32]
    return f"{words[0][:32]} {words[-1][0]}."


BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters that draw nothing (Hangul fillers, the blank Braille pattern): names made of them
look empty, a known way to have "no name" on Telegram."""


def visible(text: str) -> bool:
    """Whether ``text`` draws anything: a character that is not a separator, a control or
    format character, a combining mark or one of :data:`BLANK_LETTERS`."""
    return any(ch not in BLANK_LETTERS and unicodedata.category(ch)[0] not in "ZCM" for ch in text)


@dataclass(frozen=True, slots=True)
class BoardLine:
    """A line of a day's board.

    Attributes:
        place: 1 for the best; equal results share a place.
        user_id: the player.
        points, against: their team's and the other team's totals.
        ended_at: when they finished.
    """

    place: int
    user_id: int
    points: int
    against: int
    ended_at: float


def ranked_board(results: Iterable[DailyResult]) -> list[BoardLine]:
    """The board of a day's results (module docstring: order and shared places)."""
    ordered = sorted(results, key=lambda r: (-r.points, r.against, r.ended_at, r.game_id))
    lines: list[BoardLine] = []
    for i, r in enumerate(ordered):
        tied = lines and (lines[-1].points, lines[-1].against) == (r.points, r.against)
        place = lines[-1].place if tied else i + 1
        lines.append(BoardLine(place, r.user_id, r.points, r.against, r.ended_at))
    return lines


def streaks(days: Iterable[str], today: str) -> tuple[int, int]:
    """``(current, longest)`` runs of consecutive days in ``days``: the current run ends
    today, or yesterday while today is not played yet (it is still alive); else 0."""
    played = sorted({date.fromisoformat(d) for d in days})
    longest = run = 0
    previous: date | None = None
    for d in played:
        run = run + 1 if previous is not None and d - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = d
    last = date.fromisoformat(today)
    current = 0
    if previous is not None and (last - previous).days in (0, 1):
        current = run
    return current, longest


def local_now(now: float, timezone: str) -> datetime:
    """``now`` as a time in ``timezone`` (for texts that name the hour)."""
    return datetime.fromtimestamp(now, UTC).astimezone(ZoneInfo(timezone))


def pars_total(pars: Sequence[int]) -> int:
    """The par of a whole deal set."""
    return sum(pars)
