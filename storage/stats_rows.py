"""The rows of the standings, the statistics and the daily deal (schema migration 4),
as storage hands them out and takes them in.

* **Primary data** (written once, never rebuilt): :class:`DailyEntry` (an attempt at the daily
  deal: which game, which day, whether it is the person's ranked one), :class:`DailyPar` (the
  par of a day's deals, computed once), the hidden-board choice of a person and the bot's
  derived values (``bot_state``: the daily secret when none is set).
* **Derived data** (rebuilt from the stored games by ``python -m bot.admin rebuild-stats``):
  :class:`GameRecord` (one per finished or abandoned game, the idempotency key: a game is
  recorded once) with one :class:`PlayerResult` per person, and :class:`Rating` per person
  per group.

Times are UTC epoch seconds, days ``YYYY-MM-DD`` in the daily's time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from storage.rows import GameStatus


class ResultKind(StrEnum):
    """How a game ended for one person: won, drawn or lost by their team (``rules.md`` §2.4,
    §9.9), or ``none`` for a game that was stopped or abandoned (played, neither won nor
    lost)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One person's part in one ended game.

    Attributes:
        game_id, chat_id: the game and the chat it was played in (a supergroup's new id after
            a migration: read through the game).
        status: ``finished`` or ``abandoned``.
        ended_at: when the game ended (UTC epoch seconds; the game's last state write).
        user_id, seat: the person and their seat 0–3 (a seat a computer took over from them
            counts as theirs).
        result: see :class:`ResultKind`.
        rounds: rounds scored while they sat (every scored round of the game).
        rounds_playing: of those, rounds their team chose trump (the playing team).
        made, nat: of those, rounds the playing team made / went nat (§6.2–6.3; Klammern:
            won / lost the round, §9.8).
        pits: rounds their team took every trick (§6.4).
        roem: roem their team scored (§5; Klammern: declarations and bella, §9.5–9.6).
        points: points written for their team (§6; Klammern: the round's points, §9.8).
        against: points written for the other team.
    """

    game_id: int
    chat_id: int
    status: GameStatus
    ended_at: float
    user_id: int
    seat: int
    result: ResultKind
    rounds: int = 0
    rounds_playing: int = 0
    made: int = 0
    nat: int = 0
    pits: int = 0
    roem: int = 0
    points: int = 0
    against: int = 0


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What one ended game adds to the statistics (:meth:`Repository.record_game`).

    Attributes:
        game_id, chat_id, status, ended_at: as in :class:`PlayerResult`.
        results: one per person who sat in the game (none for a lobby that never started).

    Raises:
        ValueError: a result of another game, or a status that is not an end.
    """

    game_id: int
    chat_id: int
    status: GameStatus
    ended_at: float
    results: tuple[PlayerResult, ...] = ()

    def __post_init__(self) -> None:
        if self.status not in (GameStatus.FINISHED, GameStatus.ABANDONED):
            raise ValueError(f"game {self.game_id} has not ended ({self.status.value})")
        for r in self.results:
            if (r.game_id, r.chat_id, r.status, r.ended_at) != (
                self.game_id,
                self.chat_id,
                self.status,
                self.ended_at,
            ):
                raise ValueError(f"a result of another game in game {self.game_id}'s record")
        users = [r.user_id for r in self.results]
        if len(set(users)) != len(users):
            raise ValueError(f"game {self.game_id}: a person twice in its record")


@dataclass(frozen=True, slots=True)
class Rating:
    """A person's rating in one group (OpenSkill's ``mu`` and ``sigma``; ``games``: rated
    games so far)."""

    mu: float
    sigma: float
    games: int = 0


@dataclass(frozen=True, slots=True)
class DailyEntry:
    """One attempt at a day's daily deal.

    Attributes:
        game_id: its game (a private game of the person, ``chat_id`` = their user id).
        day: the deal set's day, ``YYYY-MM-DD``.
        user_id: who plays it.
        ranked: the person's first attempt of that day (the only one on the boards).
        day_ends_at: the day's end (UTC epoch seconds): a ranked attempt finished later is
            not on that day's boards.
        created_at: when it started.
        status: the game's status now.
    """

    game_id: int
    day: str
    user_id: int
    ranked: bool
    day_ends_at: float
    created_at: float
    status: GameStatus


@dataclass(frozen=True, slots=True)
class DailyResult:
    """A ranked attempt of a day finished in time: a line of that day's board.

    Attributes:
        game_id, user_id: the attempt and its player.
        points, against: the totals of the player's team and of the other.
        ended_at: when it finished.
    """

    game_id: int
    user_id: int
    points: int
    against: int
    ended_at: float


@dataclass(frozen=True, slots=True)
class DailyPar:
    """The par of a day: what the strong computer scores in the player's seat on each of the
    day's deals (all four seats computers, the daily's settings and seed).

    Attributes:
        day: ``YYYY-MM-DD``.
        seed: the day's deal seed.
        settings: the daily's table settings (JSON text).
        pars: points of the player's team, one per round in order.
        computed_at: when it was stored.
    """

    day: str
    seed: int
    settings: str
    pars: tuple[int, ...]
    computed_at: float

    @property
    def total(self) -> int:
        """The par of the whole set."""
        return sum(self.pars)


EXTRA_TABLES: dict[str, tuple[tuple[str, type], ...]] = {
    "bot_state": (("key", str), ("value", str), ("updated_at", float)),
    "player_prefs": (
        ("user_id", int),
        ("board_hidden", bool),
        ("updated_at", float),
        ("hand_place", str),
    ),
    "daily_games": (
        ("game_id", int),
        ("day", str),
        ("user_id", int),
        ("ranked", bool),
        ("day_ends_at", float),
        ("created_at", float),
    ),
    "daily_pars": (
        ("day", str),
        ("seed", int),
        ("settings", str),
        ("pars", str),
        ("computed_at", float),
    ),
    "stats_games": (
        ("game_id", int),
        ("status", str),
        ("ended_at", float),
        ("recorded_at", float),
    ),
    "player_results": (
        ("game_id", int),
        ("user_id", int),
        ("seat", int),
        ("result", str),
        ("rounds", int),
        ("rounds_playing", int),
        ("made", int),
        ("nat", int),
        ("pits", int),
        ("roem", int),
        ("points", int),
        ("against", int),
    ),
    "ratings": (
        ("chat_id", int),
        ("user_id", int),
        ("mu", float),
        ("sigma", float),
        ("games", int),
        ("updated_at", float),
    ),
    "chat_migrations": (
        ("old_chat_id", int),
        ("new_chat_id", int),
        ("seq", int),
        ("migrated_at", float),
    ),
    "table_alerts": (("chat_id", int), ("user_id", int), ("created_at", float)),
    "alert_sends": (("user_id", int), ("sent_at", float)),
}
"""The tables of migration 4 with their columns and Python types, in the order a copy imports
them (after users, chats and games: their foreign keys point there)."""

EXTRA_KEYS: dict[str, tuple[str, ...]] = {
    "bot_state": ("key",),
    "player_prefs": ("user_id",),
    "daily_games": ("game_id",),
    "daily_pars": ("day",),
    "stats_games": ("game_id",),
    "player_results": ("game_id", "user_id"),
    "ratings": ("chat_id", "user_id"),
    "chat_migrations": ("old_chat_id",),
    "table_alerts": ("chat_id", "user_id"),
    "alert_sends": ("user_id",),
}
"""Each table's primary key (rows are read in its order, imports overwrite by it)."""

TableRows = dict[str, list[tuple[Any, ...]]]
"""Every row of the :data:`EXTRA_TABLES`, by table, each in column order with the column's
Python type (a copy between databases: :meth:`Repository.standings_rows`)."""


def typed_row(table: str, row: tuple[Any, ...] | list[Any]) -> tuple[Any, ...]:
    """``row`` of ``table`` with each value as its column's Python type (SQLite stores flags
    as 0/1, PostgreSQL as booleans; ``None`` stays).

    Raises:
        ValueError: an unknown table, or a row of the wrong length.
    """
    columns = EXTRA_TABLES.get(table)
    if columns is None:
        raise ValueError(f"no table {table!r} among the standings")
    if len(row) != len(columns):
        raise ValueError(f"{table}: {len(row)} values for {len(columns)} columns")
    return tuple(
        None if value is None else kind(value)
        for value, (_, kind) in zip(row, columns, strict=True)
    )
