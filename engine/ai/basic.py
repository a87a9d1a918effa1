"""The ``basic`` computer player: rules of thumb a club player learns first.

Bidding (``rules.md`` §3, §9.3): the suit with the highest
:func:`~engine.ai.handeval.rule_strength`, named or accepted when it reaches a threshold
(always when the rules force a choice).

Card play (§4): the playing team draws trumps with the top trump (or a low one from length);
otherwise lead a sure winner (the highest card left in a suit nobody is known to trump), else
a low card. Following: smear points (spekken, §8) on a trick the partner surely wins; take a
trick with the cheapest card that wins it when playing last, or with a sure winner earlier;
otherwise throw the cheapest card, counting as cost the points and the roem (§5) it would give
the opponents.

Also: claim roem (§5.5) unless the playing team is nat anyway; Klammern: declare every
sequence, announce bella (§9.5, §9.6), contra/re from the hand's strength in the trump suit
(§9.7).
"""

from __future__ import annotations

import random

from engine.actions import (
    Accept,
    Action,
    Bella,
    Beter,
    Choose,
    Contra,
    Kleintje,
    Pass,
    PlayCard,
    Re,
)
from engine.ai.bitrules import ABOVE, POINTS, STRENGTH, SUIT_MASKS, roem_of_mask
from engine.ai.handeval import rule_strength
from engine.ai.knowledge import Knowledge, knowledge
from engine.ai.view import TrickView, preliminary, trick_view
from engine.cards import SUITS, Suit, iter_bits
from engine.observe import Observation
from engine.phase import Phase
from engine.settings import RoemMode, TrumpSelection

FREE_THRESHOLD = 56.0
"""Name a suit in free bidding (§3.1) from this :func:`rule_strength` on."""
TURNED_THRESHOLD = 56.0
"""Accept the turned suit (§3.3)."""
KLAMMERN_ACCEPT = 54.0
"""Klammern: accept the proposed suit (§9.3)."""
KLAMMERN_KLEINTJE = 60.0
"""Klammern: call a kleintje in a free suit."""
KLAMMERN_BETER = 62.0
"""Klammern: overbid a kleintje with beter (clubs)."""
CONTRA_THRESHOLD = 48.0
"""Klammern: a defender calls contra with this much strength in the maker's trump (§9.7)."""
RE_THRESHOLD = 62.0
"""Klammern: the playing team answers re."""


def best_suit(hand: int, suits: tuple[Suit, ...] = SUITS) -> tuple[Suit, float]:
    """The suit of ``suits`` with the highest rule strength, and that strength."""
    scored = [(rule_strength(hand, s.ordinal), -s.ordinal, s) for s in suits]
    strength, _, suit = max(scored)
    return suit, strength


def _hand_mask(obs: Observation) -> int:
    m = 0
    for c in obs.hand:
        m |= c.bit
    return m


class BasicPlayer:
    """Rules of thumb (module docstring). Deterministic: ``rng`` is not used."""

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """Pick one of ``obs.legal`` (see :class:`engine.players.Player`).

        Raises:
            ValueError: when ``obs.legal`` is empty.
        """
        if not obs.legal:
            raise ValueError("no legal action")
        first = preliminary(obs)
        if first is not None:
            return first
        if obs.phase is Phase.BIDDING:
            return bid(obs)
        call = _call(obs)
        if call is not None:
            return call
        plays = [a for a in obs.legal if isinstance(a, PlayCard)]
        if not plays:
            return next((a for a in obs.legal if isinstance(a, Pass)), obs.legal[0])
        card = play_card(obs, knowledge(obs))
        return card_action(obs, card)


def card_action(obs: Observation, card: int) -> Action:
    """The legal action that plays ``card``: a :class:`Bella` play when offered (§9.6)."""
    plain: Action | None = None
    for a in obs.legal:
        if isinstance(a, Bella) and a.card.index == card:
            return a
        if isinstance(a, PlayCard) and a.card.index == card:
            plain = a
    if plain is None:
        raise ValueError(f"card {card} is not legal")
    return plain


def bid(obs: Observation) -> Action:
    """A bidding action by rule strength (module docstring)."""
    hand = _hand_mask(obs)
    legal = obs.legal
    mode = obs.settings.trump_selection
    chooses = [a for a in legal if isinstance(a, Choose)]
    can_pass = any(isinstance(a, Pass) for a in legal)
    if chooses:
        suit, strength = best_suit(hand, tuple(a.suit for a in chooses))
        if can_pass and strength < FREE_THRESHOLD:
            return next(a for a in legal if isinstance(a, Pass))
        return next(a for a in chooses if a.suit is suit)
    accept = next((a for a in legal if isinstance(a, Accept)), None)
    passing = next((a for a in legal if isinstance(a, Pass)), legal[0])
    if accept is not None:
        suit = obs.shown[-1]
        limit = KLAMMERN_ACCEPT if mode is TrumpSelection.KLAMMERN else TURNED_THRESHOLD
        return accept if rule_strength(hand, suit.ordinal) >= limit else passing
    kleintjes = [a for a in legal if isinstance(a, Kleintje)]
    if kleintjes:
        suit, strength = best_suit(hand)
        if strength >= KLAMMERN_KLEINTJE:
            return next(a for a in kleintjes if a.suit is suit)
        return passing
    beter = next((a for a in legal if isinstance(a, Beter)), None)
    if beter is not None:
        return beter if rule_strength(hand, Suit.CLUBS.ordinal) >= KLAMMERN_BETER else passing
    return legal[0]


def _call(obs: Observation) -> Action | None:
    """Klammern contra/re by the hand's strength in the trump suit (§9.7)."""
    assert obs.trump is not None
    for a in obs.legal:
        if isinstance(a, Contra) and rule_strength(_hand_mask(obs), obs.trump.ordinal) >= (
            CONTRA_THRESHOLD
        ):
            return a
        if isinstance(a, Re) and rule_strength(_hand_mask(obs), obs.trump.ordinal) >= (
            RE_THRESHOLD
        ):
            return a
    return None


# ------------------------------------------------------------------------------ card play


def legal_cards(obs: Observation) -> int:
    """Mask of the legal cards in ``obs``."""
    m = 0
    for a in obs.legal:
        if isinstance(a, PlayCard):
            m |= a.card.bit
    return m


def _lowest(mask: int, trump: int) -> int:
    """The card of ``mask`` with the fewest points, then the weakest (trumps last)."""
    return min(
        iter_bits(mask),
        key=lambda c: (c >> 3 == trump, POINTS[trump][c], STRENGTH[trump][c], c),
    )


def _strongest(mask: int, trump: int) -> int:
    return max(iter_bits(mask), key=lambda c: (c >> 3 == trump, STRENGTH[trump][c], -c))


def _beats(card: int, winning: int, trump: int) -> bool:
    if card >> 3 == winning >> 3:
        return bool(ABOVE[trump][winning] >> card & 1)
    return card >> 3 == trump


def _outstanding(k: Knowledge) -> int:
    """Cards not played and not in the viewer's hand."""
    return ((1 << 32) - 1) & ~k.played & ~k.hand


def _may_trump(k: Knowledge, seat: int, suit: int, trump: int) -> bool:
    """Whether ``seat`` is known void in ``suit`` and may still hold a trump."""
    if suit == trump:
        return False
    out = _outstanding(k)
    void = not (out & SUIT_MASKS[suit] & ~k.cannot[seat])
    trumps = out & SUIT_MASKS[trump] & ~k.cannot[seat]
    return void and bool(trumps)


def _is_master(card: int, k: Knowledge, trump: int, later: tuple[int, ...]) -> bool:
    """No outstanding card beats ``card`` in its suit and no seat in ``later`` may trump it."""
    out = _outstanding(k)
    if ABOVE[trump][card] & out:
        return False
    return not any(_may_trump(k, s, card >> 3, trump) for s in later)


def play_card(obs: Observation, k: Knowledge) -> int:
    """The basic player's card (index) for ``obs`` (play phase, its turn)."""
    assert obs.trump is not None and obs.maker is not None and obs.seat is not None
    trump = obs.trump.ordinal
    legal = legal_cards(obs)
    if legal.bit_count() == 1:
        return legal.bit_length() - 1
    me = int(obs.seat)
    opponents = ((me + 1) % 4, (me + 3) % 4)
    tv = trick_view(obs)
    if not tv.cards:
        return _lead(obs, k, legal, trump, opponents)
    return _follow(obs, k, legal, trump, tv)


def _lead(
    obs: Observation, k: Knowledge, legal: int, trump: int, opponents: tuple[int, int]
) -> int:
    assert obs.maker is not None and obs.seat is not None
    out = _outstanding(k)
    my_trumps = legal & SUIT_MASKS[trump]
    playing = obs.maker.team is obs.seat.team
    opp_trumps = any(out & SUIT_MASKS[trump] & ~k.cannot[s] for s in opponents)
    if playing and my_trumps and opp_trumps:
        top = _strongest(my_trumps, trump)
        if not ABOVE[trump][top] & out:
            return top
        if my_trumps.bit_count() >= 3 or int(obs.maker) == int(obs.seat):
            return _lowest(my_trumps, trump)
    masters = [
        c for c in iter_bits(legal & ~SUIT_MASKS[trump]) if _is_master(c, k, trump, opponents)
    ]
    if masters:
        return max(masters, key=lambda c: (POINTS[trump][c], -c))
    side = legal & ~SUIT_MASKS[trump]
    if not side:
        return _lowest(legal, trump)

    def lead_cost(c: int) -> tuple[int, int, int]:
        suit = legal & SUIT_MASKS[c >> 3]
        bare_ten_risk = int(POINTS[trump][c] >= 10)
        return (bare_ten_risk, POINTS[trump][c], -suit.bit_count())

    return min(iter_bits(side), key=lead_cost)


def _roem_cost(obs: Observation, tv: TrickView, card: int, trump: int) -> int:
    if obs.settings.roem is RoemMode.DECLARATIONS:
        return 0
    mask = 1 << card
    for c in tv.cards:
        mask |= 1 << c
    if mask.bit_count() < 3:
        return 0
    return roem_of_mask(mask, trump, obs.settings.four_low_cards)


def _follow(obs: Observation, k: Knowledge, legal: int, trump: int, tv: TrickView) -> int:
    assert obs.seat is not None
    me = int(obs.seat)
    later = tuple((me + i) % 4 for i in range(1, 4 - len(tv.cards)))
    later_opps = tuple(s for s in later if (s - me) % 2 == 1)
    win_card = tv.cards[tv.winner_pos]
    if tv.partner_winning:
        safe = tv.last or _is_master(win_card, k, trump, later_opps)
        if safe:
            # Spekken (§8): the most points, keep trumps, masters and aces guarding tens.
            def smear_key(c: int) -> tuple[int, int, int]:
                return (c >> 3 != trump, POINTS[trump][c] - _roem_cost(obs, tv, c, trump), -c)

            return max(iter_bits(legal), key=smear_key)
        losing = legal & ~sum(1 << c for c in iter_bits(legal) if _beats(c, win_card, trump))
        return _lowest(losing or legal, trump)
    winners = [c for c in iter_bits(legal) if _beats(c, win_card, trump)]
    if winners:
        if tv.last:
            return min(
                winners, key=lambda c: (c >> 3 == trump, STRENGTH[trump][c], POINTS[trump][c])
            )
        sure = [c for c in winners if _is_master(c, k, trump, later_opps)]
        if sure:
            return max(sure, key=lambda c: (c >> 3 != trump, POINTS[trump][c], -c))
    losers = legal & ~sum(1 << c for c in winners)
    pool = losers or legal

    def cost(c: int) -> tuple[int, int, int]:
        return (
            POINTS[trump][c] + _roem_cost(obs, tv, c, trump),
            c >> 3 == trump,
            STRENGTH[trump][c],
        )

    return min(iter_bits(pool), key=cost)
