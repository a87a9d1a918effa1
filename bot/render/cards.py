"""Cards, suits and hands in the reader's language (``rules.md`` §1).

Rank letters are translated with ``pgettext("card rank", ...)``: J is B(oer) / B(ube) / V(alet),
Q is V(rouw) / D(ame) / D(ame), K is H(eer) / K(önig) / R(oi), A stays A; 7 to 10 are digits.
Suits are the symbols ♠ ♥ ♦ ♣ everywhere, with names for sentences and alerts. On buttons a
card of a red suit (♥ ♦) is red (:func:`suit_colour`), a black one (♠ ♣) has the app's own
button colour, and a trump card carries :data:`TRUMP_MARK` (:func:`card_button_label`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise, permutations

from bot.i18n import Translator
from bot.render.common import Colour
from engine.cards import Card, Rank, Suit
from engine.rules import PLAIN_STRENGTH, TRUMP_STRENGTH

SUIT_SYMBOLS: dict[Suit, str] = {
    Suit.SPADES: "♠",
    Suit.HEARTS: "♥",
    Suit.DIAMONDS: "♦",
    Suit.CLUBS: "♣",
}

_RED = frozenset({Suit.HEARTS, Suit.DIAMONDS})
_BASE_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)
"""The display order before trump is known: black, red, black, red."""


TRUMP_MARK = "★"
"""Before a trump card's label on a button (hand, bella, declarations): "★B♥"."""


def suit_colour(suit: Suit) -> Colour | None:
    """The colour of a button about ``suit``: red for ♥ and ♦, None (the app's own colour,
    next to which the red ones stand out) for ♠ and ♣."""
    return Colour.RED if suit in _RED else None


def suit_symbol(suit: Suit) -> str:
    """♠ ♥ ♦ or ♣."""
    return SUIT_SYMBOLS[suit]


def suit_name(tr: Translator, suit: Suit) -> str:
    """The suit's name: schoppen / Pik / pique / spades, etc. Plain."""
    names = {
        Suit.SPADES: tr.pgettext("suit", "spades"),
        Suit.HEARTS: tr.pgettext("suit", "hearts"),
        Suit.DIAMONDS: tr.pgettext("suit", "diamonds"),
        Suit.CLUBS: tr.pgettext("suit", "clubs"),
    }
    return names[suit]


def suit_label(tr: Translator, suit: Suit) -> str:
    """Symbol and name: "♥ harten". Plain."""
    return f"{SUIT_SYMBOLS[suit]} {suit_name(tr, suit)}"


def rank_letter(tr: Translator, rank: Rank) -> str:
    """The short rank on a card label: 7 8 9 10, then J Q K A in the reader's language."""
    if rank is Rank.JACK:
        return tr.pgettext("card rank", "J")
    if rank is Rank.QUEEN:
        return tr.pgettext("card rank", "Q")
    if rank is Rank.KING:
        return tr.pgettext("card rank", "K")
    if rank is Rank.ACE:
        return tr.pgettext("card rank", "A")
    return rank.symbol


def rank_name(tr: Translator, rank: Rank) -> str:
    """The rank written out: boer / Bube / valet, negen / Neun / neuf, ... Plain."""
    names = (
        tr.pgettext("rank name", "seven"),
        tr.pgettext("rank name", "eight"),
        tr.pgettext("rank name", "nine"),
        tr.pgettext("rank name", "ten"),
        tr.pgettext("rank name", "jack"),
        tr.pgettext("rank name", "queen"),
        tr.pgettext("rank name", "king"),
        tr.pgettext("rank name", "ace"),
    )
    return names[rank]


def card_label(tr: Translator, card: Card) -> str:
    """The compact label of a card, as on a button: ``B♥`` (nl, de), ``V♥`` (fr), ``J♥`` (en),
    ``10♠``. Plain (safe in HTML: no markup characters)."""
    return f"{rank_letter(tr, card.rank)}{SUIT_SYMBOLS[card.suit]}"


def card_button_label(tr: Translator, card: Card, trump: Suit | None) -> str:
    """A card's label on a button: :func:`card_label`, with :data:`TRUMP_MARK` before a card
    of the ``trump`` suit (None: trump not known yet, nothing marked): "★B♥", "10♠". Plain."""
    label = card_label(tr, card)
    return TRUMP_MARK + label if card.suit is trump else label


def card_name(tr: Translator, card: Card) -> str:
    """The card written out for sentences: "harten boer", "Herz-Bube", "valet de cœur". Plain."""
    return tr.gettext("{rank} of {suit}").format(
        rank=rank_name(tr, card.rank), suit=suit_name(tr, card.suit)
    )


def cards_label(tr: Translator, cards: Iterable[Card]) -> str:
    """Card labels separated by spaces: "B♥ 9♥ A♠"."""
    return " ".join(card_label(tr, c) for c in cards)


def strength_key(card: Card, trump: Suit | None) -> int:
    """Strength of a card inside its own suit (``rules.md`` §1.2–1.3); higher is stronger."""
    table = TRUMP_STRENGTH if card.suit is trump else PLAIN_STRENGTH
    return table[card.rank]


def suit_order(suits: Iterable[Suit], trump: Suit | None) -> tuple[Suit, ...]:
    """Display order of the suits present in a hand: trump first once known, then colours
    alternating black / red as far as the suits present allow (♠ ♥ ♣ ♦ style)."""
    present = [s for s in _BASE_ORDER if s in set(suits)]
    first = [trump] if trump in present else []
    rest = [s for s in present if s is not trump]

    def score(order: Sequence[Suit]) -> tuple[int, tuple[int, ...]]:
        alternations = sum(1 for a, b in pairwise(order) if (a in _RED) != (b in _RED))
        start = _BASE_ORDER.index(trump) if trump is not None else 0
        rotation = tuple((_BASE_ORDER.index(s) - start) % 4 for s in order)
        return (-alternations, rotation)

    return min((tuple(first) + p for p in permutations(rest)), key=score)


def sort_hand(cards: Iterable[Card], trump: Suit | None) -> tuple[Card, ...]:
    """A hand in display order: grouped by suit (:func:`suit_order`), strongest first within
    each suit, trump order for the trump suit (``rules.md`` §1.2–1.3)."""
    cards = tuple(cards)
    order = suit_order({c.suit for c in cards}, trump)
    pos = {s: i for i, s in enumerate(order)}
    return tuple(sorted(cards, key=lambda c: (pos[c.suit], -strength_key(c, trump))))
