"""Likelihoods of the worlds from the play, measured and not kept (``docs/ai-history.md``
§6, §7): how likely a world makes the cards the other players have played
(:class:`PlayLikelihood`) and the partner's signals (:class:`SignalLikelihood`,
``rules.md`` §8). :class:`lab.strong.LabStrongPlayer` weighs its worlds by them.
"""

from __future__ import annotations

import math

from engine.ai.bitrules import ABOVE, POINTS, beats, legal_mask_fast, play_rule_id, winning_index
from engine.cards import iter_bits
from engine.observe import Observation

# ------------------------------------------------------------------------------ card play


def _tricks(obs: Observation) -> list[tuple[int, tuple[int, ...]]]:
    """The round's tricks so far, the current one last (possibly empty): ``(leader seat,
    card indices in play order)``."""
    out = [(int(t.leader), tuple(c.index for c in t.cards)) for t in obs.tricks]
    out.append((int(obs.leader), tuple(c.index for c in obs.trick)))
    return out


IMPOSSIBLE = -50.0
"""Log-likelihood of a world in which another seat played a card its hand did not allow."""
PLAY_BETA = 0.15
"""Play model: inverse temperature per point of a card's heuristic value
(:class:`PlayLikelihood`); 0 makes every legal card equally likely."""


def _follow_values(
    before: tuple[int, ...], seats: tuple[int, ...], seat: int, trump: int
) -> tuple[float, ...]:
    """Heuristic value (points) of each of the 32 cards for ``seat`` following ``before``.

    The club player's habits (``rules.md`` §8, and what the ``basic`` player does): on the
    partner's trick, smear points (spekken) and keep trumps; on the opponents' trick, take it
    with points when the card wins (surely when playing last, likely earlier), else give the
    fewest points and no trump.
    """
    w = winning_index(before, trump)
    win_card = before[w]
    partner = (seats[w] - seat) % 2 == 0
    last = len(before) == 3
    trick = sum(POINTS[trump][c] for c in before)
    led_trump = before[0] >> 3 == trump
    share = 1.0 if last else 0.5
    out = []
    for c in range(32):
        p = POINTS[trump][c]
        ruff = c >> 3 == trump and not led_trump
        if partner:
            u = share * p - (4.0 if ruff else 0.0)
        elif beats(c, win_card, trump):
            u = (trick + p) * (1.0 if last else 0.6)
        else:
            u = -p - (2.0 if ruff else 0.0)
        out.append(u)
    return tuple(out)


def _lead_value(c: int, hand: int, gone: int, trump: int) -> float:
    """Heuristic value (points) of leading ``c`` from ``hand`` with the cards ``gone`` played:
    cash a side-suit card nobody else can beat (its points and a little more), do not lead
    points into a higher card still out (``basic``'s lead, §8 habits); trumps are neutral."""
    if c >> 3 == trump:
        return 0.0
    p = POINTS[trump][c]
    if not ABOVE[trump][c] & ~gone & ~hand:
        return p + 2.0
    return -float(p)


class PlayLikelihood:
    """How likely a world makes the cards the other seats have played (card-location
    inference from the play, ``docs/design.md`` §7).

    For every card another seat played to a trick it did not lead, the seat's hand at that
    moment is reconstructed in the world (its hand now plus the cards it played from then on)
    and the card's probability is a softmax, over the cards that were legal with that hand
    (§4.5, §9.4), of :data:`PLAY_BETA` × the card's heuristic value (:func:`_follow_values`).
    A card that was the only legal one says nothing. Leads, with ``leads``, are modelled the
    same way over the whole hand by :func:`_lead_value`; else as uniform (no information).

    Args:
        obs: the viewer's observation (play phase).
        beta: the inverse temperature (per point).
        leads: model the leads too.
    """

    def __init__(self, obs: Observation, beta: float = PLAY_BETA, leads: bool = False) -> None:
        assert obs.seat is not None and obs.trump is not None
        me = int(obs.seat)
        trump = obs.trump.ordinal
        rule = play_rule_id(obs.settings.play_rule.value)
        tricks = _tricks(obs)
        gone = 0  # cards played before each trick (for the leads)
        gones = []
        for _leader, cards in tricks:
            gones.append(gone)
            for c in cards:
                gone |= 1 << c
        # (seat, card, cards played from then on, cards gone before the trick, cache)
        self.leads: list[tuple[int, int, int, int, dict[int, float]]] = []
        later = [0, 0, 0, 0]  # per seat: cards it played from this point of the play on
        # (seat, card, cards played from then on, led suit, winning card, partner winning,
        #  exp(beta * value) per card, log of the numerator, log-denominator per legal mask)
        self.events: list[
            tuple[int, int, int, int, int, bool, tuple[float, ...], float, dict[int, float]]
        ] = []
        for t in range(len(tricks) - 1, -1, -1):
            leader, cards = tricks[t]
            seats = tuple((leader + i) % 4 for i in range(len(cards)))
            for i in range(len(cards) - 1, -1, -1):
                seat, card = seats[i], cards[i]
                later[seat] |= 1 << card
                if seat == me:
                    continue
                if i == 0:
                    if leads:
                        self.leads.append((seat, card, later[seat], gones[t], {}))
                    continue
                before = cards[:i]
                values = _follow_values(before, seats[:i], seat, trump)
                top = max(values)
                weights = tuple(math.exp(beta * (v - top)) for v in values)
                w = winning_index(before, trump)
                self.events.append(
                    (
                        seat,
                        card,
                        later[seat],
                        before[0] >> 3,
                        before[w],
                        (seats[w] - seat) % 2 == 0,
                        weights,
                        math.log(weights[card]),
                        {},
                    )
                )
        self.trump = trump
        self.rule = rule
        self.beta = beta

    @property
    def informative(self) -> bool:
        """True when another seat followed to (or, with ``leads``, led) a trick."""
        return bool(self.events or self.leads)

    def _lead_log_p(self, hand: int, card: int, gone: int) -> float:
        """Log-probability of leading ``card`` from ``hand`` (:func:`_lead_value`)."""
        trump, beta = self.trump, self.beta
        values = [_lead_value(c, hand, gone, trump) for c in iter_bits(hand)]
        top = max(values)
        den = math.log(sum(math.exp(beta * (v - top)) for v in values))
        return beta * (_lead_value(card, hand, gone, trump) - top) - den

    def log_weight(self, hands: tuple[int, int, int, int]) -> float:
        """Log-likelihood of the other seats' followed cards with ``hands`` (now) dealt."""
        total = 0.0
        trump, rule = self.trump, self.rule
        for seat, card, later, led, win, partner, weights, num, cache in self.events:
            legal = legal_mask_fast(hands[seat] | later, led, win, partner, trump, rule)
            if not legal >> card & 1:
                total += IMPOSSIBLE  # a world against the rules (the sampler's fallback)
                continue
            den = cache.get(legal)
            if den is None:
                den = math.log(sum(weights[c] for c in iter_bits(legal)))
                cache[legal] = den
            total += num - den
        for seat, card, later, gone, cache in self.leads:
            hand = hands[seat] | later
            lp = cache.get(hand)
            if lp is None:
                lp = self._lead_log_p(hand, card, gone)
                cache[hand] = lp
            total += lp
        return total


# ------------------------------------------------------------------------------ signals

SIGNAL_STRENGTH = 2.0
"""Log-odds by which a partner's signal (:class:`SignalLikelihood`) favours the worlds that
agree with it: soft, because a discard may have been forced."""
_ACE, _TEN = 7, 3  # ranks (engine.cards.Rank: 7, 8, 9, 10, J, Q, K, A)


def signal_meaning(card: int, trump: int) -> tuple[int, bool] | None:
    """What discarding ``card`` on the partner's winning trick says (``rules.md`` §8, seed
    000): ``(card index, held)``, the card the signaller does (``held``) or does not hold;
    None for no signal (a trump, a 10: spekken).

    * 7, 8 or 9 of a plain suit: "I hold the ace there" (opseinen);
    * the ace: "I hold the 10 too" (from A-10);
    * J, Q or K: "I am weak there" (afseinen): no ace.
    """
    suit, rank = card >> 3, card & 7
    if suit == trump or rank == _TEN:
        return None
    if rank < _TEN:
        return (suit << 3 | _ACE, True)
    if rank == _ACE:
        return (suit << 3 | _TEN, True)
    return (suit << 3 | _ACE, False)


def signal_discards(obs: Observation) -> list[tuple[int, int]]:
    """The partner's signals so far: ``(card meant, held)`` pairs from every card the viewer's
    partner discarded (not the led suit, not trump) while the viewer was winning the trick,
    when the meant card was neither played before nor in the viewer's hand (§8)."""
    assert obs.seat is not None and obs.trump is not None
    me = int(obs.seat)
    partner = (me + 2) % 4
    trump = obs.trump.ordinal
    mine = sum(x.bit for x in obs.hand)
    gone = 0
    out: list[tuple[int, int]] = []
    for leader, cards in _tricks(obs):
        for i, c in enumerate(cards):
            seat = (leader + i) % 4
            if seat == partner and i > 0 and c >> 3 not in (cards[0] >> 3, trump):
                w = winning_index(cards[:i], trump)
                meaning = signal_meaning(c, trump)
                if (leader + w) % 4 == me and meaning is not None:
                    meant, held = meaning
                    if not (gone | mine) >> meant & 1:
                        out.append((meant, int(held)))
            gone |= 1 << c
    return out


class SignalLikelihood:
    """How well a world agrees with the partner's signals (:func:`signal_discards`): each
    signal whose meaning the world's partner hand (now, plus what it played since) does not
    match costs :data:`SIGNAL_STRENGTH`. The partnership's convention (§8):
    :class:`lab.strong.LabStrongPlayer` with ``signals`` gives these signals itself."""

    def __init__(self, obs: Observation, strength: float = SIGNAL_STRENGTH) -> None:
        assert obs.seat is not None
        self.partner = (int(obs.seat) + 2) % 4
        self.signals = signal_discards(obs)
        self.played = sum(
            1 << c
            for leader, cards in _tricks(obs)
            for i, c in enumerate(cards)
            if (leader + i) % 4 == self.partner
        )
        self.strength = strength

    @property
    def informative(self) -> bool:
        """True when the partner has signalled."""
        return bool(self.signals)

    def log_weight(self, hands: tuple[int, int, int, int]) -> float:
        """Minus :data:`SIGNAL_STRENGTH` per signal the world contradicts (0 when none)."""
        hand = hands[self.partner] | self.played
        return -self.strength * sum(
            1 for meant, held in self.signals if (hand >> meant & 1) != held
        )
