"""Cards, suits, ranks, seats and teams, with the compact notation of the rule cases.

Notation (``rules.md`` preamble, ``shared/cases/README.md``): rank ``7 8 9 10 J Q K A`` followed
by suit ``S H D C``, e.g. ``JS``, ``10H``.

Every card has an index ``0..31`` = ``suit * 8 + rank`` with suits in the order S, H, D, C and
ranks in natural order 7, 8, 9, 10, J, Q, K, A (``rules.md`` §1.5). A set of cards is a 32-bit
int mask (bit ``index``); :func:`mask_of` and :func:`cards_of` convert.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from engine.errors import NotationError


class Suit(StrEnum):
    """The four suits, valued by their notation letter. ``index`` orders them S, H, D, C."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def ordinal(self) -> int:
        """0 for spades, 1 hearts, 2 diamonds, 3 clubs (the suit's block in a card mask)."""
        return _SUIT_INDEX[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse ``"S"``, ``"H"``, ``"D"`` or ``"C"`` (case-insensitive).

        Raises:
            NotationError: for anything else.
        """
        try:
            return cls(text.strip().upper())
        except (ValueError, AttributeError):
            raise NotationError(f"not a suit: {text!r}") from None


SUITS: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}


class Rank(IntEnum):
    """Ranks in natural order (``rules.md`` §1.5), the order of runs and declarations."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def symbol(self) -> str:
        """The notation symbol: ``7 8 9 10 J Q K A``."""
        return _RANK_SYMBOLS[self]


_RANK_SYMBOLS = ("7", "8", "9", "10", "J", "Q", "K", "A")
_RANK_BY_SYMBOL = {s: Rank(i) for i, s in enumerate(_RANK_SYMBOLS)}


@dataclass(frozen=True, slots=True)
class Card:
    """One of the 32 cards. Use :func:`card` or :data:`CARDS` to get the interned instance.

    Attributes:
        suit: the card's suit.
        rank: the card's rank (natural order).
    """

    suit: Suit
    rank: Rank
    index: int = field(init=False, compare=False, repr=False)
    """``suit.ordinal * 8 + rank``, 0..31."""
    bit: int = field(init=False, compare=False, repr=False)
    """``1 << index``: this card as a one-card mask."""

    def __post_init__(self) -> None:
        index = _SUIT_INDEX[self.suit] * 8 + int(self.rank)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "bit", 1 << index)

    def __str__(self) -> str:
        return f"{self.rank.symbol}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card({self})"

    @staticmethod
    def parse(text: str) -> Card:
        """Parse the notation ``JS``, ``10H`` (case-insensitive; ``T`` is accepted for 10).

        Raises:
            NotationError: when the text is not a card.
        """
        if not isinstance(text, str):
            raise NotationError(f"not a card: {text!r}")
        t = text.strip().upper()
        if len(t) < 2:
            raise NotationError(f"not a card: {text!r}")
        rank_text, suit_text = t[:-1], t[-1]
        if rank_text == "T":
            rank_text = "10"
        rank = _RANK_BY_SYMBOL.get(rank_text)
        if rank is None or suit_text not in "SHDC":
            raise NotationError(f"not a card: {text!r}")
        return CARDS[Suit(suit_text).ordinal * 8 + rank]


CARDS: tuple[Card, ...] = tuple(Card(s, Rank(r)) for s in SUITS for r in range(8))
"""All 32 cards, indexed by :attr:`Card.index`."""

FULL_MASK = (1 << 32) - 1
SUIT_MASKS: tuple[int, ...] = tuple(0xFF << (8 * i) for i in range(4))
"""Mask of all eight cards of a suit, by suit index."""


def card(text: str) -> Card:
    """Shorthand for :meth:`Card.parse`."""
    return Card.parse(text)


def mask_of(cards: Iterable[Card]) -> int:
    """The mask (32-bit int) of a collection of cards."""
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


def iter_bits(mask: int) -> Iterator[int]:
    """Yield the indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


_SUIT_BYTE_CARDS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(CARDS[8 * s + r] for r in range(8) if b >> r & 1) for b in range(256))
    for s in range(4)
)
"""``[suit][byte]``: the cards of one suit's 8-bit block of a mask, in rank order."""


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, in index order (suit S, H, D, C; then rank 7..A)."""
    t = _SUIT_BYTE_CARDS
    return (
        t[0][mask & 0xFF]
        + t[1][mask >> 8 & 0xFF]
        + t[2][mask >> 16 & 0xFF]
        + t[3][mask >> 24 & 0xFF]
    )


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse many cards; raises :class:`NotationError` on the first bad one or on a repeat."""
    out = tuple(Card.parse(t) for t in texts)
    if len(set(out)) != len(out):
        raise NotationError("a card appears twice")
    return out


class Seat(IntEnum):
    """Seats clockwise (``rules.md`` §2.1): North–South play against East–West."""

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    @property
    def team(self) -> Team:
        """The seat's team."""
        return _SEAT_TEAMS[self]

    @property
    def partner(self) -> Seat:
        """The seat opposite."""
        return SEATS[(self + 2) & 3]

    @property
    def left(self) -> Seat:
        """The next seat clockwise (the player who acts after this one)."""
        return SEATS[(self + 1) & 3]

    @classmethod
    def parse(cls, value: object) -> Seat:
        """Parse a seat number 0..3 (int or digit string) or a letter N, E, S, W.

        Raises:
            NotationError: for anything else.
        """
        if isinstance(value, str):
            v = value.strip().upper()
            if v in ("N", "E", "S", "W"):
                return cls("NESW".index(v))
            if v.isdigit():
                value = int(v)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
            return cls(value)
        raise NotationError(f"not a seat: {value!r}")


SEATS: tuple[Seat, ...] = (Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST)


class Team(StrEnum):
    """The two partnerships: ``NS`` (seats 0, 2) and ``EW`` (seats 1, 3)."""

    NS = "NS"
    EW = "EW"

    @property
    def other(self) -> Team:
        """The opposing team."""
        return Team.EW if self is Team.NS else Team.NS

    @property
    def seats(self) -> tuple[Seat, Seat]:
        """The team's two seats."""
        return (Seat.NORTH, Seat.SOUTH) if self is Team.NS else (Seat.EAST, Seat.WEST)

    @classmethod
    def parse(cls, text: str) -> Team:
        """Parse ``"NS"`` or ``"EW"``; raises :class:`NotationError` otherwise."""
        try:
            return cls(str(text).strip().upper())
        except ValueError:
            raise NotationError(f"not a team: {text!r}") from None


TEAMS: tuple[Team, ...] = (Team.NS, Team.EW)


_SEAT_TEAMS: tuple[Team, ...] = (Team.NS, Team.EW, Team.NS, Team.EW)
"""``[seat]``: the seat's team (:attr:`Seat.team` without arithmetic on the enum)."""
