"""What one seat knows about the hidden cards, from its :class:`~engine.observe.Observation` only.

The tracker replays the public play (``obs.tricks`` and ``obs.trick``) and derives, for every
other seat, which cards it cannot hold (``cannot``) and which it surely holds (``must``):

* not following the led suit → void in that suit (``rules.md`` §4.1);
* trump led, a trump that does not beat the highest trump in the trick → no higher trump (§4.2);
* void in a plain suit (§4.5 decision table, by play rule):

  - ``rotterdam`` (§4.3): a non-trump → no trumps at all; a trump below the winning trump
    (undertrump) → no trump above it;
  - ``amsterdam`` (§4.4): opponent winning, a non-trump → no trump that beats the winning card
    (all trumps if it is a plain card); an undertrump (opponent winning, or partner winning with
    a trump) → nothing but trumps below the winning one, so no non-trump; partner winning
    with a plain card → nothing (any card is legal);
  - ``klammern`` (§9.4): as Amsterdam with an opponent winning, whoever is winning;

* Klammern: declared sequences (§9.5) are in the declarer's hand until played, and the cards
  just below and above a declared run are not (a declaration is the whole maximal run); bella
  (§9.6): the announcer holds the other of trump K and Q; the proposed card (§9.2) is in the
  dealer's hand while it is shown.

Soft inferences (the trump maker's choice, passes) are not hard constraints: see
:mod:`engine.ai.sampler` for how worlds can be weighted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.ai.bitrules import ABOVE, SUIT_MASKS, winning_index
from engine.cards import CARDS
from engine.observe import Observation
from engine.settings import PlayRule

FULL = (1 << 32) - 1


def play_inference(
    rule: PlayRule, trump: int, trick: Sequence[int], seats: Sequence[int], seat: int, card: int
) -> int:
    """Cards ``seat`` cannot hold after playing ``card`` to the (non-empty) ``trick``.

    Args:
        rule: the play rule (``rules.md`` §4.5, §9.4).
        trump: trump suit 0..3.
        trick: the cards already in the trick before ``card``, in play order.
        seats: the seats that played them.
        seat: the player of ``card``.
        card: the card played (index 0..31).

    Returns:
        A mask of cards the player cannot hold any more (0 when nothing is learnt).
    """
    if not trick:
        return 0
    led = trick[0] >> 3
    suit = card >> 3
    tmask = SUIT_MASKS[trump]
    w = winning_index(trick, trump)
    win_card = trick[w]
    win_is_trump = win_card >> 3 == trump
    cannot = 0
    if suit != led:
        cannot |= SUIT_MASKS[led]
    if led == trump:
        if suit == trump and not ABOVE[trump][win_card] >> card & 1:
            cannot |= ABOVE[trump][win_card]
        return cannot
    if suit == led:
        return cannot
    # Void in a plain led suit (§4.5).
    higher = ABOVE[trump][win_card] if win_is_trump else tmask
    beats = suit == trump and (not win_is_trump or ABOVE[trump][win_card] >> card & 1)
    partner_winning = (seats[w] - seat) % 2 == 0
    if rule is PlayRule.ROTTERDAM:
        if suit != trump:
            cannot |= tmask
        elif not beats:
            cannot |= higher
        return cannot
    if rule is PlayRule.AMSTERDAM and partner_winning:
        if win_is_trump and suit == trump and not beats:
            cannot |= higher | (FULL & ~tmask)  # only lower trumps were left
        return cannot
    # Amsterdam with an opponent winning, or Klammern (§9.4): HT, NT, H.
    if suit != trump:
        cannot |= higher
    elif not beats:
        cannot |= higher | (FULL & ~tmask)
    return cannot


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The hidden-card picture of one seat.

    Attributes:
        seat: the viewer.
        hand: the viewer's cards (mask).
        played: every card played so far, current trick included (mask).
        counts: cards in hand per seat now.
        cannot: per seat, cards it surely does not hold (0 for the viewer).
        must: per seat, cards it surely holds (the viewer: its hand).
        unknown: cards whose holder the viewer does not know (not in ``must`` of anybody).
    """

    seat: int
    hand: int
    played: int
    counts: tuple[int, int, int, int]
    cannot: tuple[int, int, int, int]
    must: tuple[int, int, int, int]
    unknown: int

    def others(self) -> tuple[int, int, int]:
        """The other three seats, clockwise from the viewer's left."""
        s = self.seat
        return ((s + 1) % 4, (s + 2) % 4, (s + 3) % 4)


def _replay(obs: Observation, trump: int) -> tuple[int, list[int]]:
    """Played cards (mask) and per-seat ``cannot`` masks from the public play."""
    rule = obs.settings.play_rule
    cannot = [0, 0, 0, 0]
    played = 0
    tricks: list[tuple[int, tuple[int, ...]]] = [
        (int(t.leader), tuple(c.index for c in t.cards)) for t in obs.tricks
    ]
    tricks.append((int(obs.leader), tuple(c.index for c in obs.trick)))
    for leader, cards in tricks:
        seats = [(leader + i) % 4 for i in range(len(cards))]
        for i, c in enumerate(cards):
            cannot[seats[i]] |= play_inference(rule, trump, cards[:i], seats[:i], seats[i], c)
            played |= 1 << c
    return played, cannot


def knowledge(obs: Observation) -> Knowledge:
    """The :class:`Knowledge` of ``obs.seat`` (see the module docstring).

    Raises:
        ValueError: for a public view (``obs.seat`` is None).
    """
    if obs.seat is None:
        raise ValueError("a public view has no hand")
    me = int(obs.seat)
    hand = 0
    for c in obs.hand:
        hand |= c.bit
    counts = tuple(obs.hand_counts)
    if obs.trump is not None:
        played, cannot = _replay(obs, obs.trump.ordinal)
    else:
        played, cannot = 0, [0, 0, 0, 0]
    must = [0, 0, 0, 0]
    must[me] = hand
    if obs.proposed_card is not None and int(obs.dealer) != me:
        must[int(obs.dealer)] |= obs.proposed_card.bit
    km = obs.klammern
    if km is not None:
        for d in km.declarations:
            s = int(d.seat)
            for c in d.cards:
                must[s] |= c.bit
            lo, hi = d.cards[0], d.cards[-1]
            if lo.rank > 0:
                cannot[s] |= CARDS[lo.index - 1].bit
            if hi.rank < 7:
                cannot[s] |= CARDS[hi.index + 1].bit
        if km.bella is not None and obs.trump is not None:
            t = obs.trump.ordinal
            kq = (1 << (8 * t + 5)) | (1 << (8 * t + 6))
            must[int(km.bella)] |= kq
    for s in range(4):
        must[s] &= ~played
        if s != me:
            must[s] &= ~hand
            cannot[s] &= ~must[s]
    cannot[me] = 0
    known = must[0] | must[1] | must[2] | must[3]
    unknown = FULL & ~played & ~known
    # A seat that holds exactly as many surely-known cards as its hand size holds nothing else.
    for s in range(4):
        if s != me and must[s].bit_count() >= counts[s]:
            cannot[s] |= unknown
    return Knowledge(
        seat=me,
        hand=hand,
        played=played,
        counts=(counts[0], counts[1], counts[2], counts[3]),
        cannot=(cannot[0], cannot[1], cannot[2], cannot[3]),
        must=(must[0], must[1], must[2], must[3]),
        unknown=unknown,
    )
