"""A table as the bot sees it: the stored game row plus the engine state, and the bot-level
table settings (engine rules + turn time) stored together as the game's settings JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.render.common import Player
from engine.cards import Seat
from engine.game import GameState
from engine.settings import KLAVERJAS_PRESETS, Settings
from storage import Game, GameStatus, SeatKind

TIMEOUT_CHOICES = (30, 60, 120, 0)
"""The lobby's turn-time button cycles through these (0: no limit)."""

PRESET_CYCLE: tuple[str, ...] = (*KLAVERJAS_PRESETS, "klammern")
"""The lobby's preset button cycles through these (Klammern last, ``rules.md`` §9)."""

TARGET_CHOICES = (3, 5)
"""Klammern: the lobby's length button toggles the big points that end the game (§9.9)."""


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What a table was set up with.

    Attributes:
        rules: the engine settings (preset + overrides, ``rules.md`` §7).
        turn_timeout: seconds a human has to act; 0 for no limit.
        daily: the day (``YYYY-MM-DD``) of the daily deal this game plays (:mod:`bot.daily`),
            None for any other game.
        tips: the tip button (💡) in a group game with several humans (solo games
            and unranked dailies have it anyway, a ranked daily never); default off.
    """

    rules: Settings
    turn_timeout: int
    daily: str | None = None
    tips: bool = False

    def to_json(self) -> str:
        """JSON text for storage (``daily`` and ``tips`` only when set: other games' JSON is
        as before)."""
        data: dict[str, Any] = {"rules": self.rules.to_dict(), "turn_timeout": self.turn_timeout}
        if self.daily is not None:
            data["daily"] = self.daily
        if self.tips:
            data["tips"] = True
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> TableSettings:
        """Parse stored settings (written by :meth:`to_json`, also by older versions: a
        missing ``tips`` is off).

        Raises:
            ValueError / SettingsError: for text we did not write.
        """
        data: Any = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("table settings must be an object")  # noqa: TRY004
        timeout = data.get("turn_timeout", 60)
        if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0:
            raise ValueError("bad turn_timeout")
        daily = data.get("daily")
        if daily is not None and not isinstance(daily, str):
            raise ValueError("bad daily")
        tips = data.get("tips", False)
        if not isinstance(tips, bool):
            raise ValueError("bad tips")  # noqa: TRY004
        return cls(Settings.from_dict(data.get("rules") or {}), timeout, daily, tips)

    def export(self) -> dict[str, Any]:
        """The flat settings object of the admin export (``tips`` only when on, as in
        :meth:`to_json`)."""
        flat = {**self.rules.to_dict(), "turn_timeout": self.turn_timeout}
        return flat | {"tips": True} if self.tips else flat


@dataclass(frozen=True, slots=True)
class Table:
    """A loaded game.

    Attributes:
        row: the stored row (seats, version, message ids, timer).
        settings: the table settings.
        state: the engine state; None while in the lobby.
    """

    row: Game
    settings: TableSettings
    state: GameState | None

    @property
    def game_id(self) -> int:
        """The game id."""
        return self.row.game_id

    @property
    def version(self) -> int:
        """The stored state version."""
        return self.row.version

    @property
    def is_private(self) -> bool:
        """A one-human table in the player's private chat."""
        return self.row.chat_id > 0

    def seat_of(self, user_id: int) -> Seat | None:
        """The seat ``user_id`` holds, if any."""
        s = self.row.seat_of(user_id)
        return Seat(s.index) if s is not None else None

    def kind(self, seat: int) -> SeatKind:
        """Who sits in ``seat``."""
        return self.row.seats[seat].kind

    def user_id(self, seat: int) -> int | None:
        """The human in ``seat``, if any."""
        return self.row.seats[seat].user_id

    def humans(self) -> list[tuple[Seat, int]]:
        """``(seat, user_id)`` of every human seat."""
        return [(Seat(s.index), s.user_id) for s in self.row.seats if s.user_id is not None]

    def players(self) -> tuple[Player, ...]:
        """The four seats as the renderers need them."""
        out = []
        for s in self.row.seats:
            if s.kind is SeatKind.HUMAN:
                out.append(Player(s.occupant.display_name or "?", False, s.user_id))
            elif s.kind is SeatKind.COMPUTER:
                out.append(Player("", True, None))
            else:
                out.append(Player("", False, None))
        return tuple(out)

    @property
    def full(self) -> bool:
        """All four seats taken."""
        return all(s.kind is not SeatKind.EMPTY for s in self.row.seats)

    @property
    def is_open(self) -> bool:
        """Lobby or active."""
        return self.row.status in (GameStatus.LOBBY, GameStatus.ACTIVE)
