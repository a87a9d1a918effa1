"""Dealing from a seed (``rules.md`` §2.2): shuffle, then 3-2-3 starting left of the dealer."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cards import CARDS, SUITS, Card, Seat, Suit
from engine.fastinit import fast_init


@fast_init
@dataclass(frozen=True, slots=True)
class Deal:
    """Four hands in the order the cards were received, plus the suits to turn up.

    Attributes:
        dealer: the dealer.
        hands: per seat (index = seat), 8 cards in the order dealt (3, then 2, then 3).
        turned: ``turned`` mode: the first and second suit to turn up (§3.3; clubs first in
            the first round of a game); empty in other modes.
    """

    dealer: Seat
    hands: tuple[tuple[Card, ...], ...]
    turned: tuple[Suit, ...] = ()

    @property
    def dealer_middle_card(self) -> Card:
        """Klammern: the middle card of the dealer's last three (§9.2)."""
        return self.hands[self.dealer][6]


def round_rng(seed: int, number: int, attempt: int = 0) -> random.Random:
    """The deterministic RNG for round ``number`` (1-based) of the game with ``seed``;
    ``attempt`` counts Klammern redeals of the same round (§9.3)."""
    return random.Random(f"klaverjas:{seed}:{number}:{attempt}")


def deal(
    rng: random.Random, dealer: Seat, first_round: bool = False, with_turned: bool = False
) -> Deal:
    """Shuffle and deal 3-2-3 clockwise starting left of ``dealer``.

    With ``with_turned``, also draw the two suits of §3.3 (first round of a game: clubs first).
    """
    deck = list(CARDS)
    _shuffle(rng, deck)
    hands: list[list[Card]] = [[], [], [], []]
    pos = 0
    for packet in (3, 2, 3):
        for k in range(1, 5):
            seat = (dealer + k) % 4
            hands[seat].extend(deck[pos : pos + packet])
            pos += packet
    turned: tuple[Suit, ...] = ()
    if with_turned:
        order = list(SUITS)
        rng.shuffle(order)
        if first_round:
            order.remove(Suit.CLUBS)
            order.insert(0, Suit.CLUBS)
        turned = (order[0], order[1])
    return Deal(dealer, tuple(tuple(h) for h in hands), turned)


def _shuffle(rng: random.Random, deck: list[Card]) -> None:
    """``rng.shuffle(deck)``, with CPython's own algorithm written out for a plain
    ``random.Random`` (the same draws, so the same deals; ``tests/engine/test_rules_core.py``
    checks it against ``rng.shuffle``): about twice as fast, once a round."""
    if type(rng) is not random.Random:
        rng.shuffle(deck)
        return
    getrandbits = rng.getrandbits
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
