"""Events: what an applied action caused, for presenters and logs. Frozen, JSON-able via
:func:`event_to_dict`. The engine never writes sentences; the bot renders these. Each has the
faster constructor of :mod:`engine.fastinit` (a :class:`TrickWon` on every trick)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.cards import Card, Seat, Suit, Team
from engine.fastinit import fast_init


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of all events."""

    @property
    def name(self) -> str:
        """Stable snake-case name, e.g. ``"card_played"``."""
        return _snake(type(self).__name__)


@fast_init
@dataclass(frozen=True, slots=True)
class RoundDealt(Event):
    """A new round was dealt (``rules.md`` §2.2). ``number`` is 1-based in the game."""

    number: int
    dealer: Seat


@fast_init
@dataclass(frozen=True, slots=True)
class SuitTurned(Event):
    """A suit was turned up for accept/pass (§3.3), or proposed in Klammern (§9.2)."""

    suit: Suit


@fast_init
@dataclass(frozen=True, slots=True)
class Passed(Event):
    """A seat passed in the bidding."""

    seat: Seat


@fast_init
@dataclass(frozen=True, slots=True)
class TrumpChosen(Event):
    """Bidding is over: ``maker`` plays with ``suit`` as trump; ``leader`` leads (§3)."""

    seat: Seat
    suit: Suit
    leader: Seat


@fast_init
@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """``seat`` played ``card``."""

    seat: Seat
    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class TrickWon(Event):
    """Trick ``number`` (1..8) went to ``winner``: card points (last-trick 10 included) and the
    roem it holds (§5.1; in claim mode it still has to be claimed)."""

    number: int
    winner: Seat
    points: int
    roem: int


@fast_init
@dataclass(frozen=True, slots=True)
class RoemClaimed(Event):
    """``seat`` claimed ``points`` roem of trick ``number`` for its team (§5.5)."""

    seat: Seat
    number: int
    points: int


@fast_init
@dataclass(frozen=True, slots=True)
class RoemLost(Event):
    """Roem of trick ``number`` was not claimed in time and is lost (§5.5)."""

    number: int
    points: int


@fast_init
@dataclass(frozen=True, slots=True)
class RoundScored(Event):
    """Round ``number`` is over; ``score`` per team as written on the sheet."""

    number: int
    nat: bool
    pit: Team | None
    score: dict[str, int]


@fast_init
@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended: totals per team, ``winner`` None for a draw (§2.4). Klammern: the
    totals are big points and ``winner`` is the team that reached the target (§9.9)."""

    totals: dict[str, int]
    winner: Team | None


def event_to_dict(event: Event) -> dict[str, Any]:
    """``{"event": name, ...fields}`` with enums and cards in notation."""
    out: dict[str, Any] = {"event": event.name}
    for f in dataclasses.fields(event):
        out[f.name] = _jsonable(getattr(event, f.name))
    return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, Card):
        return str(v)
    if isinstance(v, Seat):
        return int(v)
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, tuple | list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(_jsonable(k)): _jsonable(x) for k, x in v.items()}
    return v


def _snake(name: str) -> str:
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in name).lstrip("_")


# --- Klammern (rules.md §9) ---------------------------------------------------------------


@fast_init
@dataclass(frozen=True, slots=True)
class CardProposed(Event):
    """Klammern: the dealer's middle card of the last three lies face up; its suit is the
    proposed trump (§9.2). The card stays in ``seat``'s (the dealer's) hand and is public."""

    seat: Seat
    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class KleintjeCalled(Event):
    """Klammern: ``seat`` called a kleintje naming ``suit`` (§9.3)."""

    seat: Seat
    suit: Suit


@fast_init
@dataclass(frozen=True, slots=True)
class BeterCalled(Event):
    """Klammern: ``seat`` overbid the kleintje with beter; clubs become trump (§9.3). A
    :class:`TrumpChosen` follows."""

    seat: Seat


@fast_init
@dataclass(frozen=True, slots=True)
class DealVoided(Event):
    """Klammern: nobody accepted or called in round ``number``; ``dealer`` deals again (§9.3).
    A :class:`RoundDealt` with the same number follows."""

    number: int
    dealer: Seat


@fast_init
@dataclass(frozen=True, slots=True)
class Declared(Event):
    """Klammern: ``seat`` declared the sequence ``cards`` (lowest first), worth ``points``
    (20 terz, 50 fifty) if its team has the best declaration (§9.5)."""

    seat: Seat
    cards: tuple[Card, ...]
    points: int


@fast_init
@dataclass(frozen=True, slots=True)
class DeclarationsCompared(Event):
    """Klammern: after the first trick, ``team`` (None: nobody declared) scores ``points``, all
    of its declarations; the other team's declarations score nothing (§9.5)."""

    team: Team | None
    points: int


@fast_init
@dataclass(frozen=True, slots=True)
class BellaAnnounced(Event):
    """Klammern: ``seat`` announced bella playing ``card`` (K or Q of trump): 20 points (§9.6).
    Emitted before the :class:`CardPlayed` of that card."""

    seat: Seat
    card: Card


@fast_init
@dataclass(frozen=True, slots=True)
class ContraCalled(Event):
    """Klammern: defender ``seat`` called contra: the round counts double (§9.7)."""

    seat: Seat


@fast_init
@dataclass(frozen=True, slots=True)
class ReCalled(Event):
    """Klammern: ``seat`` of the playing team answered re: the round counts four times (§9.7)."""

    seat: Seat


@fast_init
@dataclass(frozen=True, slots=True)
class KlammernRoundScored(Event):
    """Klammern: round ``number`` is over (§9.8): ``points`` per team (cards, last trick,
    declarations, bella), ``winner`` gets ``small_points`` (1, 2 after contra, 4 after re)."""

    number: int
    winner: Team
    points: dict[str, int]
    small_points: dict[str, int]
    multiplier: int


@fast_init
@dataclass(frozen=True, slots=True)
class BigPointsWon(Event):
    """Klammern: ``team`` reached 5 small points (``small_points``: the standing that reached it)
    and wins ``big_points`` (1, or 2 when the other team had 0); both teams start again at 0
    small points (§9.9)."""

    team: Team
    big_points: int
    small_points: dict[str, int]
