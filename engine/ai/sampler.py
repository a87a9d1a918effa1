"""Deal the unknown cards to the other three seats, uniformly among the deals consistent with a
:class:`~engine.ai.knowledge.Knowledge` (hand sizes, ``must`` and ``cannot``).

Exact uniform sampling: the unknown cards fall into at most 7 *types* (the set of other seats
that may hold the card). The number of consistent deals is a small dynamic programme over the
types with the seats' remaining capacities as state (each type splits its ``k`` cards over its
allowed seats in ``k! / (a! b! c!)`` ways). A sample draws each type's split with probability
proportional to its count of completions, then shuffles the type's cards into the split.

When the constraints admit no deal (cannot happen with the engine's own rules, but a defensive
fallback), the ``cannot`` masks are dropped and the cards are dealt by hand size only.
"""

from __future__ import annotations

import random
from functools import lru_cache
from math import factorial

from engine.ai.knowledge import Knowledge
from engine.cards import iter_bits


@lru_cache(maxsize=4096)
def _splits(k: int, allowed: int) -> tuple[tuple[tuple[int, int, int], int], ...]:
    """Ways to split ``k`` cards over the seats in ``allowed`` (3-bit mask): ((a, b, c), ways)."""
    out = []
    for a in range(k + 1 if allowed & 1 else 1):
        for b in range(k - a + 1 if allowed & 2 else 1):
            c = k - a - b
            if c and not allowed & 4:
                continue
            ways = factorial(k) // (factorial(a) * factorial(b) * factorial(c))
            out.append(((a, b, c), ways))
    return tuple(out)


class WorldSampler:
    """Samples full deals consistent with a :class:`Knowledge`.

    Args:
        k: the viewer's knowledge.

    Attributes:
        total: the number of consistent deals (0 only when the fallback is in use).
    """

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        self.others = k.others()
        o = self.others
        self.need = (
            k.counts[o[0]] - k.must[o[0]].bit_count(),
            k.counts[o[1]] - k.must[o[1]].bit_count(),
            k.counts[o[2]] - k.must[o[2]].bit_count(),
        )
        types: dict[int, list[int]] = {}
        for c in iter_bits(k.unknown):
            allowed = 0
            for j, s in enumerate(self.others):
                if not k.cannot[s] >> c & 1:
                    allowed |= 1 << j
            types.setdefault(allowed, []).append(c)
        self.types = sorted(types.items())
        self._memo: dict[tuple[int, int, int, int], int] = {}
        self.total = self._count(0, *self.need) if min(self.need) >= 0 else 0
        if self.total == 0:
            cards = list(iter_bits(k.unknown))
            self.types = [(7, cards)]
            self._memo = {}
            self.total = self._count(0, *self.need) if min(self.need) >= 0 else 0

    def _count(self, i: int, a: int, b: int, c: int) -> int:
        if i == len(self.types):
            return 1 if a == b == c == 0 else 0
        key = (i, a, b, c)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        allowed, cards = self.types[i]
        total = 0
        for (x, y, z), ways in _splits(len(cards), allowed):
            if x <= a and y <= b and z <= c:
                total += ways * self._count(i + 1, a - x, b - y, c - z)
        self._memo[key] = total
        return total

    def sample(self, rng: random.Random) -> tuple[int, int, int, int]:
        """One deal: the four hands (masks, index = seat), the viewer's own hand included.

        Raises:
            ValueError: when the hand sizes cannot be met at all (inconsistent knowledge).
        """
        if self.total == 0:
            raise ValueError("no deal fits the knowledge")
        hands = list(self.k.must)
        a, b, c = self.need
        for i, (allowed, cards) in enumerate(self.types):
            r = rng.randrange(self._count(i, a, b, c))
            chosen = (0, 0, 0)
            for (x, y, z), ways in _splits(len(cards), allowed):
                if x <= a and y <= b and z <= c:
                    w = ways * self._count(i + 1, a - x, b - y, c - z)
                    if r < w:
                        chosen = (x, y, z)
                        break
                    r -= w
            pool = list(cards)
            rng.shuffle(pool)
            pos = 0
            for j, n in enumerate(chosen):
                s = self.others[j]
                for card in pool[pos : pos + n]:
                    hands[s] |= 1 << card
                pos += n
            a, b, c = a - chosen[0], b - chosen[1], c - chosen[2]
        return hands[0], hands[1], hands[2], hands[3]


def enumerate_worlds(sampler: WorldSampler, limit: int) -> list[tuple[int, int, int, int]] | None:
    """Every consistent deal of ``sampler``, each once, or None when there are more than
    ``limit`` (or the sampler is in its fallback mode).

    Used when few cards are left: averaging over all worlds is exact, not a sample.
    """
    if sampler.total > limit or sampler.total == 0:
        return None
    from itertools import combinations

    out: list[tuple[int, int, int, int]] = []
    others = sampler.others

    def rec(i: int, caps: tuple[int, int, int], hands: list[int]) -> None:
        if i == len(sampler.types):
            if caps == (0, 0, 0):
                out.append((hands[0], hands[1], hands[2], hands[3]))
            return
        allowed, cards = sampler.types[i]
        for (x, y, z), _ in _splits(len(cards), allowed):
            if x > caps[0] or y > caps[1] or z > caps[2]:
                continue
            for first in combinations(cards, x):
                rest = [c for c in cards if c not in first]
                for second in combinations(rest, y):
                    third = [c for c in rest if c not in second]
                    h = list(hands)
                    for j, part in enumerate((first, second, third)):
                        for c in part:
                            h[others[j]] |= 1 << c
                    rec(i + 1, (caps[0] - x, caps[1] - y, caps[2] - z), h)

    rec(0, sampler.need, list(sampler.k.must))
    return out
