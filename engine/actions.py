"""Actions (moves) and their compact notation ``SEAT:kind[:arg]`` (``shared/cases/README.md``).

Examples: ``0:pass``, ``1:choose:H``, ``3:accept``, ``2:play:JS``, ``0:roem``,
``0:kleintje:D``, ``1:beter``, ``2:declare:10D-JD-QD``, ``3:bella:KH``, ``1:contra``, ``0:re``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.cards import CARDS, SEATS, Card, Seat, Suit, parse_cards
from engine.errors import NotationError


@dataclass(frozen=True, slots=True)
class Action:
    """Base class: something a seat does. Subclasses add their argument."""

    seat: Seat
    kind: ClassVar[str] = ""

    def arg(self) -> str | None:
        """The notation of the argument, if any."""
        return None

    def notation(self, with_seat: bool = True) -> str:
        """``"SEAT:kind[:arg]"``; without the seat: ``"kind[:arg]"``."""
        a = self.arg()
        body = self.kind if a is None else f"{self.kind}:{a}"
        return f"{int(self.seat)}:{body}" if with_seat else body

    def __str__(self) -> str:
        return self.notation()


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Pass in bidding (§3, §9.3), or let roem go unclaimed in the last-trick window (§5.5);
    Klammern, during play by a seat not to play: say no to contra or re (§9.7)."""

    kind: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Choose(Action):
    """Name a trump suit (§3.1, §3.2, and the forehand's final choice in §3.3)."""

    suit: Suit
    kind: ClassVar[str] = "choose"

    def arg(self) -> str:
        return self.suit.value


@dataclass(frozen=True, slots=True)
class Accept(Action):
    """Play the turned (§3.3) or proposed (§9.3) suit: "ik speel" / "ik ga erin"."""

    kind: ClassVar[str] = "accept"


@dataclass(frozen=True, slots=True)
class PlayCard(Action):
    """Play a card to the current trick (§4)."""

    card: Card
    kind: ClassVar[str] = "play"

    def arg(self) -> str:
        return str(self.card)


@dataclass(frozen=True, slots=True)
class ClaimRoem(Action):
    """Claim the roem of the trick just won by one's team (``roem = claim``, §5.5)."""

    kind: ClassVar[str] = "roem"


@dataclass(frozen=True, slots=True)
class Kleintje(Action):
    """Klammern: name a trump suit after everybody passed the proposed suit (§9.3)."""

    suit: Suit
    kind: ClassVar[str] = "kleintje"

    def arg(self) -> str:
        return self.suit.value


@dataclass(frozen=True, slots=True)
class Beter(Action):
    """Klammern: overbid a kleintje; clubs become trump and this seat plays (§9.3)."""

    kind: ClassVar[str] = "beter"


@dataclass(frozen=True, slots=True)
class Bella(PlayCard):
    """Klammern: play the first of K and Q of trump and announce bella with it (§9.6).

    A card play like :class:`PlayCard` (``isinstance(bella, PlayCard)`` holds, ``card`` is the
    card played) that also announces bella. Legal only when ``PlayCard(seat, card)`` is legal,
    ``card`` is the K or Q of trump and the seat holds the other one too. Playing that card as a
    plain :class:`PlayCard` forgets bella: it is lost (seed 002). With ``auto_declare`` the
    engine announces bella itself and this action is not offered.
    """

    kind: ClassVar[str] = "bella"


@dataclass(frozen=True, slots=True)
class Declare(Action):
    """Klammern: declare a sequence from the hand with one's first card (§9.5).

    ``cards`` is kept in card order (suit, then natural rank), so the order given does not
    matter: ``Declare(s, (QD, JD, 10D)) == Declare(s, (10D, JD, QD))``.
    """

    cards: tuple[Card, ...]
    kind: ClassVar[str] = "declare"

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards, key=lambda c: c.index)))

    def arg(self) -> str:
        return "-".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class Contra(Action):
    """Klammern: a defender doubles (§9.7)."""

    kind: ClassVar[str] = "contra"


@dataclass(frozen=True, slots=True)
class Re(Action):
    """Klammern: the playing team redoubles after contra (§9.7)."""

    kind: ClassVar[str] = "re"


_SIMPLE: dict[str, type[Action]] = {
    cls.kind: cls for cls in (Pass, Accept, ClaimRoem, Beter, Contra, Re)
}
_SUITED: dict[str, type[Choose] | type[Kleintje]] = {"choose": Choose, "kleintje": Kleintje}

PLAY: tuple[tuple[PlayCard, ...], ...] = tuple(
    tuple(PlayCard(seat, c) for c in CARDS) for seat in SEATS
)
"""Interned :class:`PlayCard` actions: ``PLAY[seat][card.index]``."""


def parse_action(text: str, seat: Seat | None = None) -> Action:
    """Parse ``"SEAT:kind[:arg]"``, or ``"kind[:arg]"`` when ``seat`` is given.

    Raises:
        NotationError: for text that is not an action.
    """
    if not isinstance(text, str):
        raise NotationError(f"not an action: {text!r}")
    parts = text.strip().split(":")
    if seat is None:
        if len(parts) < 2:
            raise NotationError(f"not an action: {text!r}")
        seat = Seat.parse(parts[0])
        parts = parts[1:]
    kind, args = parts[0].lower(), parts[1:]
    if kind in _SIMPLE and not args:
        return _SIMPLE[kind](seat)
    if kind in _SUITED and len(args) == 1:
        return _SUITED[kind](seat, Suit.parse(args[0]))
    if kind == "play" and len(args) == 1:
        return PLAY[seat][Card.parse(args[0]).index]
    if kind == "bella" and len(args) == 1:
        return Bella(seat, Card.parse(args[0]))
    if kind == "declare" and len(args) == 1:
        return Declare(seat, parse_cards(args[0].replace(",", "-").split("-")))
    raise NotationError(f"not an action: {text!r}")
