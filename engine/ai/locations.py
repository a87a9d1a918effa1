"""A learned card-location model (``docs/design.md`` §7, ``docs/ai-history.md``): for every card the
viewer cannot see, how likely each other seat holds it, given the public bidding and play.

The strong player's worlds are drawn from it instead of uniformly (:class:`ModelSampler`):
what each seat's leads, follows, discards and ruffs say about the rest of its hand, its
partner's signals (``rules.md`` §8) included, as the players at the table actually play them.

**Features** (:func:`features`; a sparse list of active indices, all binary). Cards are put in
a trump-first order: the trump suit's eight cards first, then the three plain suits in their
natural order, each by rank (7 8 9 10 J Q K A). Seats are relative to the viewer: 1 = left,
2 = partner, 3 = right. Blocks of 32 cards:

* 0: the viewer's hand; 1: the viewer's played cards;
* 2–22: per other seat (``2 + 7 × (r − 1) + kind``) the cards it played, by kind of play:
  led the first trick (0), led a later trick (1), followed suit while its partner was
  winning the trick (2) or an opponent was (3), discarded a plain card of another suit while
  its partner (4) or an opponent (5) was winning, ruffed (6: a trump on a plain suit led);
* 23–25: per other seat, the cards it cannot hold any more (:mod:`engine.ai.knowledge`).

Then :data:`N_SCALARS` flags: the trump maker's relative seat (4), the play rule (amsterdam,
rotterdam), the tricks completed (8), the other seats that passed in the bidding (3), the
viewer's position in the current trick (4).

**Model**: one hidden layer (ReLU) and 96 outputs, a logit per (card, other seat); per card a
softmax over the seats that may hold it. Fitted offline on games of ``strong`` against the
``ismcts`` and ``basic`` players (``scripts/gen_location_data.py``, ``scripts/fit_locations.py``);
the weights are ``locations.bin`` beside this module (float32, little-endian: the header
``F H O`` as int32, then ``W1`` (F × H), ``b1`` (H), ``W2`` (O × H), ``b2`` (O)). Forward pass
in plain Python over the active features: about a millisecond.

**Sampling** (:class:`ModelSampler`): deals of the unknown cards drawn with probability
proportional to the product over cards of ``p(card at its seat) ** alpha``, exactly, among the
deals consistent with the knowledge (hand sizes, ``cannot``, ``must``): a dynamic programme
over the cards with the seats' remaining capacities as state.

The tables of the presets ``amsterdam`` and ``rotterdam`` only (:func:`supported`).
"""

from __future__ import annotations

import math
import random
import struct
import sys
from array import array
from functools import cache
from importlib import resources
from operator import add, mul

from engine.actions import Choose, Pass
from engine.ai.bitrules import winning_index
from engine.ai.knowledge import Knowledge
from engine.cards import iter_bits
from engine.observe import Observation
from engine.settings import FirstLead, PlayRule, RoemMode, TrumpSelection

CARD_BLOCKS = 26
"""Blocks of 32 card flags (module docstring)."""
N_SCALARS = 21
"""Flags after the card blocks."""
N_FEATURES = CARD_BLOCKS * 32 + N_SCALARS
"""Input width of the model."""
N_OUTPUTS = 96
"""A logit per (trump-first card, other seat): ``3 × card + (r − 1)``."""
_FIRST_LEAD, _LEAD, _FOLLOW_PW, _FOLLOW_OW, _DISCARD_PW, _DISCARD_OW, _RUFF = range(7)
MIN_WEIGHT = 1e-6
"""The least weight a seat that may hold a card gets (:meth:`LocationModel.seat_weights`):
the model makes a deal unlikely, never impossible."""
_SCALARS = CARD_BLOCKS * 32
_RULES = (PlayRule.AMSTERDAM, PlayRule.ROTTERDAM)


def supported(obs: Observation) -> bool:
    """Whether the model covers ``obs``'s table: the tables it was fitted on, Klaverjassen
    with free bidding (``rules.md`` §3.1), the amsterdam or rotterdam play rule (§4.3, §4.4),
    roem counted per trick and the forehand leading (the presets ``amsterdam`` and
    ``rotterdam``). Elsewhere the strong player deals its worlds uniformly."""
    s = obs.settings
    return (
        s.play_rule in _RULES
        and s.trump_selection is TrumpSelection.FREE
        and s.roem is RoemMode.AUTO
        and s.first_lead is FirstLead.FOREHAND
    )


@cache
def card_order(trump: int) -> tuple[int, ...]:
    """Card index → its trump-first index (module docstring), for trump suit ``trump``."""
    suits = [trump, *(s for s in range(4) if s != trump)]
    pos = {s: i for i, s in enumerate(suits)}
    return tuple(pos[c >> 3] * 8 + (c & 7) for c in range(32))


def features(obs: Observation, k: Knowledge) -> list[int]:
    """The active feature indices of ``obs`` (module docstring), ascending.

    Args:
        obs: a play-phase observation of a seat (trump and maker known).
        k: that seat's knowledge (:func:`engine.ai.knowledge.knowledge`).
    """
    assert obs.trump is not None and obs.maker is not None and obs.seat is not None
    trump = obs.trump.ordinal
    order = card_order(trump)
    me = int(obs.seat)
    out: list[int] = [order[c] for c in iter_bits(k.hand)]
    tricks = [(int(t.leader), tuple(c.index for c in t.cards)) for t in obs.tricks]
    tricks.append((int(obs.leader), tuple(c.index for c in obs.trick)))
    for n, (leader, cards) in enumerate(tricks):
        led = cards[0] >> 3 if cards else -1
        for i, c in enumerate(cards):
            seat = (leader + i) % 4
            r = (seat - me) % 4
            if r == 0:
                out.append(32 + order[c])
                continue
            if i == 0:
                kind = _LEAD if n else _FIRST_LEAD
            else:
                w = winning_index(cards[:i], trump)
                pw = (i - w) % 2 == 0
                suit = c >> 3
                if suit == led:
                    kind = _FOLLOW_PW if pw else _FOLLOW_OW
                elif suit == trump:
                    kind = _RUFF
                else:
                    kind = _DISCARD_PW if pw else _DISCARD_OW
            out.append((2 + 7 * (r - 1) + kind) * 32 + order[c])
    for r in (1, 2, 3):
        base = (22 + r) * 32
        out.extend(base + order[c] for c in iter_bits(k.cannot[(me + r) % 4]))
    out.append(_SCALARS + (int(obs.maker) - me) % 4)
    out.append(_SCALARS + 4 + _RULES.index(obs.settings.play_rule))
    out.append(_SCALARS + 6 + min(len(obs.tricks), 7))
    passed = {(int(b.seat) - me) % 4 for b in obs.bids if isinstance(b, Pass)}
    chose = {(int(b.seat) - me) % 4 for b in obs.bids if isinstance(b, Choose)}
    out.extend(_SCALARS + 13 + r for r in (1, 2, 3) if r in passed and r not in chose)
    out.append(_SCALARS + 17 + len(obs.trick))
    out.sort()
    return out


class LocationModel:
    """The fitted network (module docstring).

    Args:
        blob: the weights file's bytes; default the packaged ``locations.bin``.

    Raises:
        ValueError: when the bytes are not weights of :data:`N_FEATURES` inputs and
            :data:`N_OUTPUTS` outputs (wrong shape, too short or too long).
        OSError: when the packaged file cannot be read.
    """

    def __init__(self, blob: bytes | None = None) -> None:
        if blob is None:
            blob = resources.files("engine.ai").joinpath("locations.bin").read_bytes()
        if len(blob) < 12:
            raise ValueError("not a weights file: no header")
        f, h, o = struct.unpack_from("<3i", blob)
        if f != N_FEATURES or o != N_OUTPUTS or h < 1:
            raise ValueError(f"weights of shape {f}x{h}x{o}, expected {N_FEATURES}x?x{N_OUTPUTS}")
        vals = array("f")
        if vals.itemsize != 4:
            raise ValueError("this machine has no 4-byte float array")
        if (len(blob) - 12) % 4:
            raise ValueError("weights file cut inside a number")
        vals.frombytes(blob[12:])
        if len(vals) != f * h + h + o * h + o:
            raise ValueError(f"{len(vals)} weights, expected {f * h + h + o * h + o}")
        if sys.byteorder == "big":
            vals.byteswap()  # the file is little-endian
        w = vals.tolist()
        self.w1 = [w[i * h : (i + 1) * h] for i in range(f)]
        p = f * h
        self.b1 = w[p : p + h]
        p += h
        self.w2 = [w[p + i * h : p + (i + 1) * h] for i in range(o)]
        p += o * h
        self.b2 = w[p : p + o]

    def logits(self, active: list[int]) -> list[float]:
        """The 96 output logits for the active features ``active``."""
        h = self.b1
        for i in active:
            h = list(map(add, h, self.w1[i]))
        h = [x if x > 0.0 else 0.0 for x in h]
        return [b + sum(map(mul, row, h)) for row, b in zip(self.w2, self.b2, strict=True)]

    def seat_weights(self, obs: Observation, k: Knowledge) -> dict[int, tuple[float, float, float]]:
        """For every unknown card of ``k`` (index), the model's weights of the three other
        seats in ``k.others()`` order: the softmax over the seats that may hold it, scaled so
        that the most likely is 1 (never below :data:`MIN_WEIGHT`); 0 where ``k`` says the
        seat cannot hold it."""
        assert obs.trump is not None
        order = card_order(obs.trump.ordinal)
        z = self.logits(features(obs, k))
        others = k.others()
        out: dict[int, tuple[float, float, float]] = {}
        for c in iter_bits(k.unknown):
            j = 3 * order[c]
            allowed = [not k.cannot[s] >> c & 1 for s in others]
            top = max((z[j + r] for r in range(3) if allowed[r]), default=0.0)
            ws = [
                max(MIN_WEIGHT, math.exp(z[j + r] - top)) if allowed[r] else 0.0 for r in range(3)
            ]
            out[c] = (ws[0], ws[1], ws[2])
        return out


@cache
def model() -> LocationModel:
    """The packaged model, loaded once per process."""
    return LocationModel()


class ModelSampler:
    """Deals consistent with a :class:`Knowledge`, drawn with probability proportional to the
    product of the model's per-card seat weights raised to ``alpha`` (module docstring).

    Args:
        k: the viewer's knowledge.
        weights: per unknown card, the weights of ``k.others()``
            (:meth:`LocationModel.seat_weights`); a seat that ``k`` says cannot hold the card
            gets none whatever its weight.
        alpha: the exponent (1: the model as fitted; 0: uniform).

    Attributes:
        ok: False when no deal fits (then use :class:`engine.ai.sampler.WorldSampler`).
    """

    def __init__(
        self, k: Knowledge, weights: dict[int, tuple[float, float, float]], alpha: float = 1.0
    ) -> None:
        self.k = k
        self.others = k.others()
        o = self.others
        self.need = tuple(k.counts[s] - k.must[s].bit_count() for s in o)
        self.cards = sorted(weights)
        self.w = []
        for c in self.cards:
            ws = [
                0.0 if k.cannot[s] >> c & 1 else max(x, 0.0)
                for x, s in zip(weights[c], o, strict=True)
            ]
            m = max(ws)
            if m <= 0.0:  # the model rules out every seat that may hold it: ignore the model
                ws = [0.0 if k.cannot[s] >> c & 1 else 1.0 for s in o]
                m = 1.0
            self.w.append(tuple((x / m) ** alpha if x > 0.0 else 0.0 for x in ws))
        # table[i][(a, b)]: total weight of placing cards i.. with a, b cards still to go to
        # the first two other seats (the third takes the rest).
        n = len(self.cards)
        self.table: list[dict[tuple[int, int], float]] = [{} for _ in range(n + 1)]
        self.table[n][(0, 0)] = 1.0
        for i in range(n - 1, -1, -1):
            left = n - i
            wa, wb, wc = self.w[i]
            nxt = self.table[i + 1]
            cur = self.table[i]
            for a in range(min(self.need[0], left) + 1):
                for b in range(min(self.need[1], left - a) + 1):
                    c_ = left - a - b
                    if c_ > self.need[2]:
                        continue
                    t = 0.0
                    if a and wa:
                        t += wa * nxt.get((a - 1, b), 0.0)
                    if b and wb:
                        t += wb * nxt.get((a, b - 1), 0.0)
                    if c_ and wc:
                        t += wc * nxt.get((a, b), 0.0)
                    if t:
                        cur[(a, b)] = t
        self.ok = (
            min(self.need) >= 0
            and sum(self.need) == n
            and self.table[0].get((self.need[0], self.need[1]), 0.0) > 0.0
        )

    def sample(self, rng: random.Random) -> tuple[int, int, int, int]:
        """One deal: the four hands (masks, index = seat), the viewer's own hand included.

        Raises:
            ValueError: when :attr:`ok` is False.
        """
        if not self.ok:
            raise ValueError("no deal fits the knowledge")
        hands = list(self.k.must)
        a, b = self.need[0], self.need[1]
        for i, c in enumerate(self.cards):
            wa, wb, wc = self.w[i]
            nxt = self.table[i + 1]
            left = len(self.cards) - i
            pa = wa * nxt.get((a - 1, b), 0.0) if a else 0.0
            pb = wb * nxt.get((a, b - 1), 0.0) if b else 0.0
            pc = wc * nxt.get((a, b), 0.0) if left - a - b else 0.0
            r = rng.random() * (pa + pb + pc)
            if r < pa:
                j = 0
                a -= 1
            elif r < pa + pb:
                j = 1
                b -= 1
            else:
                j = 2
            hands[self.others[j]] |= 1 << c
        return hands[0], hands[1], hands[2], hands[3]

    @property
    def informative(self) -> bool:
        """Always True (the likelihood interface of :mod:`engine.ai.inference`)."""
        return True

    def log_weight(self, hands: tuple[int, int, int, int]) -> float:
        """Log of the product of the (exponentiated) weights of ``hands`` (for worlds that are
        enumerated rather than sampled)."""
        total = 0.0
        for i, c in enumerate(self.cards):
            for j, s in enumerate(self.others):
                if hands[s] >> c & 1:
                    x = self.w[i][j]
                    total += math.log(x) if x > 0.0 else -1e9
                    break
        return total


__all__ = [
    "N_FEATURES",
    "N_OUTPUTS",
    "LocationModel",
    "ModelSampler",
    "card_order",
    "features",
    "model",
    "supported",
]
