"""A plain list-based Klaverjassen engine: the yardstick for the engine's speed.

The engine's speed is judged against "a plain list-based engine in the same run". This is
one, written the straightforward way (cards as ``(suit, rank)`` tuples in lists, the legal cards
by list comprehensions, no tables, no bit masks, no memos), playing the same game as
``python -m engine.selfplay --preset amsterdam`` with random players: free trump choice
(``rules.md`` §3.1, the forehand chooses when all pass), forehand leads, the amsterdam duties
(§4.2, §4.4), the trick winner (§4.6), roem per trick (§5.1–5.4, automatic), nat and pit (§6),
16 rounds. A random player picks uniformly among the legal options of its turn.

It is a benchmark reference only (not the engine, not tested against it): ``bench/bench_plain.py``
runs it and the engine interleaved in one process, so the ratio between them does not depend
on how busy the machine is.
"""

from __future__ import annotations

import random
from itertools import pairwise

SUITS = ("S", "H", "D", "C")
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")  # natural order (§1.5)
TRUMP_ORDER = ("7", "8", "Q", "K", "10", "A", "9", "J")  # low → high (§1.2)
PLAIN_ORDER = ("7", "8", "9", "J", "Q", "K", "10", "A")  # low → high (§1.3)
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
DECK = [(s, r) for s in SUITS for r in RANKS]


def strength(card: tuple[str, str], trump: str, led: str) -> int:
    """Order of a card in a trick: trumps above the led suit, the rest never wins (§4.6)."""
    suit, rank = card
    if suit == trump:
        return 100 + TRUMP_ORDER.index(rank)
    if suit == led:
        return PLAIN_ORDER.index(rank)
    return -1


def points(card: tuple[str, str], trump: str) -> int:
    """Card points (§1.2–1.3)."""
    return TRUMP_POINTS[card[1]] if card[0] == trump else PLAIN_POINTS[card[1]]


def legal(
    hand: list[tuple[str, str]], trick: list[tuple[str, str]], trump: str
) -> list[tuple[str, str]]:
    """The amsterdam duty (§4.2, §4.4): the cards of ``hand`` that may be played on ``trick``."""
    if not trick:
        return list(hand)
    led = trick[0][0]
    best = max(range(len(trick)), key=lambda i: strength(trick[i], trump, led))
    top = strength(trick[best], trump, led)
    trumps = [c for c in hand if c[0] == trump]
    higher = [c for c in trumps if strength(c, trump, led) > top]
    if led == trump:
        return higher or trumps or list(hand)
    follow = [c for c in hand if c[0] == led]
    if follow:
        return follow
    if not trumps:
        return list(hand)
    partner_winning = best == len(trick) - 2
    others = [c for c in hand if c[0] != trump]
    if partner_winning and trick[best][0] != trump:
        return list(hand)
    if partner_winning:
        return (others + higher) or list(hand)
    return higher or others or list(hand)


def roem(trick: list[tuple[str, str]], trump: str) -> int:
    """Roem in one trick (§5.2–5.4): runs of three 20 or four 50, stuk 20, four of a kind."""
    ranks = [c[1] for c in trick]
    if len(set(ranks)) == 1:
        return {"J": 200, "A": 100, "K": 100, "Q": 100, "10": 100}.get(ranks[0], 0)
    total = 0
    for suit in SUITS:
        idx = sorted(RANKS.index(c[1]) for c in trick if c[0] == suit)
        longest = run = 1 if idx else 0
        for a, b in pairwise(idx):
            run = run + 1 if b == a + 1 else 1
            longest = max(longest, run)
        if longest >= 4:
            total += 50
        elif longest == 3:
            total += 20
    if (trump, "K") in trick and (trump, "Q") in trick:
        total += 20
    return total


def play_round(rng: random.Random, dealer: int) -> tuple[int, int]:
    """One round with random players; returns the score of (NS, EW)."""
    deck = list(DECK)
    rng.shuffle(deck)
    hands = [deck[8 * i : 8 * i + 8] for i in range(4)]
    forehand = (dealer + 1) % 4
    trump = None
    maker = forehand
    for i in range(4):  # free choice (§3.1): name a suit or pass
        seat = (forehand + i) % 4
        options = [*SUITS, None]
        choice = options[rng.randrange(len(options))]
        if choice is not None:
            trump, maker = choice, seat
            break
    if trump is None:
        trump = SUITS[rng.randrange(4)]
    won = [0, 0]
    rm = [0, 0]
    tricks = [0, 0]
    leader = forehand
    for n in range(8):
        trick: list[tuple[str, str]] = []
        for i in range(4):
            seat = (leader + i) % 4
            options = legal(hands[seat], trick, trump)
            card = options[rng.randrange(len(options))]
            hands[seat].remove(card)
            trick.append(card)
        led = trick[0][0]
        best = max(range(4), key=lambda i: strength(trick[i], trump, led))
        winner = (leader + best) % 4
        team = winner % 2
        won[team] += sum(points(c, trump) for c in trick) + (10 if n == 7 else 0)
        rm[team] += roem(trick, trump)
        tricks[team] += 1
        leader = winner
    for t in (0, 1):
        if tricks[t] == 8:
            rm[t] += 100  # pit (§6.4)
    playing = maker % 2
    total = [won[0] + rm[0], won[1] + rm[1]]
    if total[playing] <= total[1 - playing]:  # nat (§6.3)
        out = [0, 0]
        out[1 - playing] = 162 + rm[0] + rm[1]
        return out[0], out[1]
    return total[0], total[1]


def play_game(seed: int, rounds: int = 16) -> tuple[int, int]:
    """A whole game of ``rounds`` rounds; returns the totals of (NS, EW)."""
    rng = random.Random(seed)
    ns = ew = 0
    for r in range(rounds):
        a, b = play_round(rng, r % 4)
        ns += a
        ew += b
    return ns, ew
