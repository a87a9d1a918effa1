"""An independent, slow, list-based implementation of the play rules and a brute-force minimax.

Written straight from ``rules.md`` with explicit rank orders and no bit tricks, so that the
bitmask rules (:mod:`engine.ai.bitrules`) and the solver (:mod:`engine.ai.dd`) are checked
against something that shares no code with them. Cards are ``(suit, rank)`` pairs derived from
the card index (natural ranks 0..7 = 7 8 9 10 J Q K A).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import pairwise

from engine.ai._stack import call_with_fresh_stack

SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
TRUMP_ORDER = [JACK, NINE, ACE, TEN, KING, QUEEN, EIGHT, SEVEN]  # §1.2, high → low
PLAIN_ORDER = [ACE, TEN, KING, QUEEN, JACK, NINE, EIGHT, SEVEN]  # §1.3
TRUMP_POINTS = {JACK: 20, NINE: 14, ACE: 11, TEN: 10, KING: 4, QUEEN: 3, EIGHT: 0, SEVEN: 0}
PLAIN_POINTS = {ACE: 11, TEN: 10, KING: 4, QUEEN: 3, JACK: 2, NINE: 0, EIGHT: 0, SEVEN: 0}


def suit(c: int) -> int:
    return c // 8


def rank(c: int) -> int:
    return c % 8


def cards(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


def points(c: int, trump: int) -> int:
    return (TRUMP_POINTS if suit(c) == trump else PLAIN_POINTS)[rank(c)]


def power(c: int, trump: int, led: int) -> int:
    """Comparable strength of a card in a trick: trumps above the led suit, others nothing."""
    if suit(c) == trump:
        return 100 - TRUMP_ORDER.index(rank(c))
    if suit(c) == led:
        return 50 - PLAIN_ORDER.index(rank(c))
    return 0


def winner_pos(trick: list[int], trump: int) -> int:
    led = suit(trick[0])
    powers = [power(c, trump, led) for c in trick]
    return powers.index(max(powers))


def legal(
    hand: list[int], trick: list[tuple[int, int]], seat: int, trump: int, rule: str
) -> list[int]:
    """The §4.5 decision table (and §9.4 for klammern) written out literally."""
    if not trick:
        return list(hand)
    tcards = [c for _, c in trick]
    led = suit(tcards[0])
    wpos = winner_pos(tcards, trump)
    wseat, wcard = trick[wpos]
    trumps = [c for c in hand if suit(c) == trump]
    trumps_in_trick = [c for c in tcards if suit(c) == trump]
    higher = [
        t
        for t in trumps
        if all(power(t, trump, led) > power(x, trump, led) for x in trumps_in_trick)
    ]
    nontrumps = [c for c in hand if suit(c) != trump]

    def first(*options: list[int]) -> list[int]:
        for o in options:
            if o:
                return o
        raise AssertionError("no option")

    if led == trump:
        return first(higher, trumps, hand)
    follow = [c for c in hand if suit(c) == led]
    if follow:
        return follow
    if not trumps:
        return list(hand)
    partner = wseat == (seat + 2) % 4
    if rule == "rotterdam":
        return first(higher, trumps)
    if rule == "klammern":
        return first(higher, nontrumps, hand)
    if not partner:
        return first(higher, nontrumps, hand)
    if suit(wcard) != trump:
        return list(hand)
    return first(sorted(nontrumps + higher), hand)


def roem(trick: list[int], trump: int, four_low: int) -> int:
    """§5: runs (natural order), stuk, four of a kind."""
    ranks = [rank(c) for c in trick]
    if len(trick) == 4 and len(set(ranks)) == 1:
        r = ranks[0]
        if r == JACK:
            return 200
        if r in (ACE, KING, QUEEN, TEN):
            return 100
        return four_low
    total = 0
    for s in range(4):
        rs = sorted(rank(c) for c in trick if suit(c) == s)
        best = run = 1 if rs else 0
        for a, b in pairwise(rs):
            run = run + 1 if b == a + 1 else 1
            best = max(best, run)
        if best == 3:
            total += 20
        elif best >= 4:
            total += 50
    if trump * 8 + KING in trick and trump * 8 + QUEEN in trick:
        total += 20
    return total


def round_score_diff(ns: int, ew: int, playing: int) -> int:
    """§6.2/§6.3: NS round score minus EW round score."""
    if playing == 0:
        return ns - ew if ns > ew else -(ns + ew)
    return ns - ew if ew > ns else ns + ew


@dataclass
class Game:
    """A brute-force minimax game; values are NS − EW (points or round score)."""

    trump: int
    rule: str
    use_roem: bool
    four_low: int
    pit_ns: bool  # NS still gets pit if it wins every remaining trick
    pit_ew: bool
    objective: str = "diff"
    playing: int = 0
    memo: dict[tuple[object, ...], int] | None = None  # exact values only, no bounds

    def value(
        self,
        hands: list[list[int]],
        leader: int,
        trick: list[tuple[int, int]],
        ns: int,
        ew: int,
        ns_tricks: int,
        ew_tricks: int,
    ) -> int:
        if self.memo is None or trick:
            return self._value(hands, leader, trick, ns, ew, ns_tricks, ew_tricks)
        key = (tuple(map(tuple, hands)), leader, ns, ew, ns_tricks, ew_tricks)
        v = self.memo.get(key)
        if v is None:
            v = self.memo[key] = self._value(hands, leader, trick, ns, ew, ns_tricks, ew_tricks)
        return v

    def _value(
        self,
        hands: list[list[int]],
        leader: int,
        trick: list[tuple[int, int]],
        ns: int,
        ew: int,
        ns_tricks: int,
        ew_tricks: int,
    ) -> int:
        seat = (leader + len(trick)) % 4
        if not trick and not any(hands):
            if self.pit_ns and ew_tricks == 0:
                ns += 100
            if self.pit_ew and ns_tricks == 0:
                ew += 100
            if self.objective == "diff":
                return ns - ew
            return round_score_diff(ns, ew, self.playing)
        vals = [
            self.after(hands, leader, trick, ns, ew, ns_tricks, ew_tricks, c)
            for c in legal(hands[seat], trick, seat, self.trump, self.rule)
        ]
        return max(vals) if seat % 2 == 0 else min(vals)

    def after(
        self,
        hands: list[list[int]],
        leader: int,
        trick: list[tuple[int, int]],
        ns: int,
        ew: int,
        ns_tricks: int,
        ew_tricks: int,
        c: int,
    ) -> int:
        """Value after the player to move plays ``c`` (``hands``/``trick`` restored after)."""
        seat = (leader + len(trick)) % 4
        hand = hands[seat]
        pos = hand.index(c)
        del hand[pos]
        trick.append((seat, c))
        try:
            if len(trick) < 4:
                return self.value(hands, leader, trick, ns, ew, ns_tricks, ew_tricks)
            tcards = [x for _, x in trick]
            win_seat = trick[winner_pos(tcards, self.trump)][0]
            pts = sum(points(x, self.trump) for x in tcards)
            if self.use_roem:
                pts += roem(tcards, self.trump, self.four_low)
            if not any(hands):
                pts += 10
            if win_seat % 2 == 0:
                return self.value(hands, win_seat, [], ns + pts, ew, ns_tricks + 1, ew_tricks)
            return self.value(hands, win_seat, [], ns, ew + pts, ns_tricks, ew_tricks + 1)
        finally:
            trick.pop()
            hand.insert(pos, c)


@dataclass
class Endgame:
    """A random position: ``hands`` masks, current ``trick`` as (seat, card) pairs."""

    hands: tuple[int, int, int, int]
    trump: int
    leader: int
    trick: tuple[tuple[int, int], ...]
    rule: str
    roem: bool
    four_low: int
    taken: tuple[int, int]
    tricks_taken: tuple[int, int]


def random_endgame(
    rng: random.Random, tricks_left: int, rule: str | None = None, use_roem: bool | None = None
) -> Endgame:
    """Deal ``tricks_left`` cards each from a shuffled deck, then play 0..3 legal random cards."""
    deck = list(range(32))
    rng.shuffle(deck)
    hand_lists = [sorted(deck[i * tricks_left : (i + 1) * tricks_left]) for i in range(4)]
    trump = rng.randrange(4)
    leader = rng.randrange(4)
    rule = rule or rng.choice(["amsterdam", "rotterdam", "klammern"])
    if use_roem is None:
        use_roem = rng.random() < 0.6
    trick: list[tuple[int, int]] = []
    for _ in range(rng.randrange(4)):
        seat = (leader + len(trick)) % 4
        c = rng.choice(legal(hand_lists[seat], trick, seat, trump, rule))
        hand_lists[seat].remove(c)
        trick.append((seat, c))
    completed = 8 - tricks_left
    ns_tricks = rng.randint(0, completed)
    if rng.random() < 0.3:
        ns_tricks = rng.choice([0, completed])
    taken_ns = rng.randint(0, 20 * ns_tricks)
    taken_ew = rng.randint(0, 20 * (completed - ns_tricks))
    hands = tuple(sum(1 << c for c in h) for h in hand_lists)
    return Endgame(
        (hands[0], hands[1], hands[2], hands[3]),
        trump,
        leader,
        tuple(trick),
        rule,
        use_roem,
        rng.choice([0, 100]),
        (taken_ns, taken_ew),
        (ns_tricks, completed - ns_tricks),
    )


def brute_force(
    eg: Endgame,
    objective: str = "diff",
    playing: int = 0,
    *,
    pit_ns: bool = True,
    pit_ew: bool = True,
    memo: bool = False,
) -> tuple[int, dict[int, int]]:
    """Root value and per-card values by plain minimax (no pruning, no table).

    ``pit_ns``/``pit_ew``: whether that team scores pit for winning all 8 tricks (§6.4).
    ``memo``: cache exact values at trick boundaries (still no pruning), for bigger endgames.
    """
    game = Game(
        eg.trump, eg.rule, eg.roem, eg.four_low, pit_ns, pit_ew, objective, playing,
        {} if memo else None,
    )  # fmt: skip
    hands = [cards(h) for h in eg.hands]
    seat = (eg.leader + len(eg.trick)) % 4
    ns_tricks, ew_tricks = eg.tricks_taken
    vals = {
        c: call_with_fresh_stack(
            game.after,
            hands,
            eg.leader,
            list(eg.trick),
            eg.taken[0],
            eg.taken[1],
            ns_tricks,
            ew_tricks,
            c,
        )
        for c in legal(hands[seat], list(eg.trick), seat, eg.trump, eg.rule)
    }
    root = max(vals.values()) if seat % 2 == 0 else min(vals.values())
    return root, vals
