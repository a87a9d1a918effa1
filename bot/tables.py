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
class Session:
    """A table opened by the "again" button of a finished group game (a rematch): the games
    chained so are one session, whose boompjes add up (:mod:`bot.service.rematch`).

    Attributes:
        previous: the game this one is the rematch of.
        games: finished games of the session before this one (1 for the first rematch).
        ns: North–South's total over those games (Klaverjassen points, Klammern big points:
            :meth:`engine.game.GameState.totals`).
        ew: East–West's total over those games.
        pending: lobby seats (0–3) whose player has not confirmed yet; empty once all did.
        wait_until: UTC epoch seconds at which unconfirmed seats go to computer players.
    """

    previous: int
    games: int
    ns: int
    ew: int
    pending: tuple[int, ...] = ()
    wait_until: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON object stored in the table settings."""
        return {
            "previous": self.previous,
            "games": self.games,
            "ns": self.ns,
            "ew": self.ew,
            "pending": list(self.pending),
            "wait_until": self.wait_until,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Session:
        """Parse :meth:`to_dict`'s object.

        Raises:
            ValueError: for anything :meth:`to_dict` does not write.
        """
        if not isinstance(data, dict):
            raise ValueError("bad session")  # noqa: TRY004
        ints = [data.get(k) for k in ("previous", "games", "ns", "ew")]
        if any(isinstance(v, bool) or not isinstance(v, int) for v in ints):
            raise ValueError("bad session")
        pending = data.get("pending", [])
        if not isinstance(pending, list) or any(
            isinstance(v, bool) or v not in (0, 1, 2, 3) for v in pending
        ):
            raise ValueError("bad session pending")
        wait = data.get("wait_until", 0.0)
        if isinstance(wait, bool) or not isinstance(wait, int | float):
            raise ValueError("bad session wait")  # noqa: TRY004
        previous, games, ns, ew = (int(v) for v in ints if isinstance(v, int))
        return cls(previous, games, ns, ew, tuple(sorted(set(pending))), float(wait))


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
        hands_in_group: a group table shows the players' hands in the group, each to its
            player alone (an ephemeral message opened with the table's "🂠 my cards"),
            unless a player chose the private chat; default off (hands in private, unless a
            player chose the group).
    """

    rules: Settings
    turn_timeout: int
    daily: str | None = None
    tips: bool = False
    session: Session | None = None
    hands_in_group: bool = False

    def to_json(self) -> str:
        """JSON text for storage (``daily``, ``tips`` and ``session`` only when set: other
        games' JSON is as before)."""
        data: dict[str, Any] = {"rules": self.rules.to_dict(), "turn_timeout": self.turn_timeout}
        if self.daily is not None:
            data["daily"] = self.daily
        if self.tips:
            data["tips"] = True
        if self.session is not None:
            data["session"] = self.session.to_dict()
        if self.hands_in_group:
            data["hands_in_group"] = True
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
        raw = data.get("session")
        session = Session.from_dict(raw) if raw is not None else None
        in_group = data.get("hands_in_group", False)
        if not isinstance(in_group, bool):
            raise ValueError("bad hands_in_group")  # noqa: TRY004
        rules = Settings.from_dict(data.get("rules") or {})
        return cls(rules, timeout, daily, tips, session, in_group)

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
