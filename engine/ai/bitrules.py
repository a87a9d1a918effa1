"""Bitmask rules for the computer players: points, trick order, legal moves, trick winner, roem.

Everything here works on the project's card index (:mod:`engine.cards`): ``index = suit * 8 +
rank`` with suits S, H, D, C = 0..3 and ranks in natural order 7, 8, 9, 10, J, Q, K, A = 0..7.
A set of cards is a 32-bit int mask (bit ``index``). Seats are 0..3 clockwise; North–South
(seats 0 and 2) play against East–West (1 and 3). Points are card points (``rules.md`` §1).

Per trump suit (0..3) the module precomputes, once at import:

* :data:`POINTS` ``[trump][card]`` – card points (§1.2, §1.3);
* :data:`STRENGTH` ``[trump][card]`` – 0..7 position in the trick order of the card's own suit
  (0 = weakest): trump J 9 A 10 K Q 8 7, plain A 10 K Q J 9 8 7 (§1.2, §1.3);
* :data:`ABOVE` ``[trump][card]`` – mask of the cards of the same suit that beat the card;
* the roem table keyed by the 4-card mask of a trick (§5), built lazily per
  ``(trump, four_low_cards)``.

Play rules (``rules.md`` §4.5 and §9.4), as small ints in the solver and names here:
``amsterdam`` = :data:`AMSTERDAM`, ``rotterdam`` = :data:`ROTTERDAM`, ``klammern`` =
:data:`KLAMMERN`.

Public functions (all pure): :func:`legal_mask`, :func:`trick_winner`, :func:`trick_points`,
:func:`trick_roem`, :func:`roem_of_mask`, :func:`roem_of_cards`,
:func:`beats`, :func:`play_rule_id`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations

AMSTERDAM = 0
ROTTERDAM = 1
KLAMMERN = 2
PLAY_RULES: dict[str, int] = {"amsterdam": AMSTERDAM, "rotterdam": ROTTERDAM, "klammern": KLAMMERN}
"""Play-rule names (``rules.md`` §4.3, §4.4, §9.4) to the ids used by the solver."""

SUIT_MASKS: tuple[int, ...] = tuple(0xFF << (8 * s) for s in range(4))
"""Mask of the eight cards of each suit."""

# Natural ranks 7 8 9 10 J Q K A = 0..7.
_TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)  # §1.2
_PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)  # §1.3
_TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)  # 7 8 Q K 10 A 9 J, weakest first
_PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # 7 8 9 J Q K 10 A, weakest first

RANK_JACK = 4
RANK_QUEEN = 5
RANK_KING = 6
LAST_TRICK_BONUS = 10
"""The winner of the last trick gets 10 more points (§1.4)."""
PIT_BONUS = 100
"""Roem for a team that wins all 8 tricks (§6.4)."""


def _points_table(trump: int) -> tuple[int, ...]:
    return tuple((_TRUMP_POINTS if c >> 3 == trump else _PLAIN_POINTS)[c & 7] for c in range(32))


def _strength_table(trump: int) -> tuple[int, ...]:
    return tuple(
        (_TRUMP_STRENGTH if c >> 3 == trump else _PLAIN_STRENGTH)[c & 7] for c in range(32)
    )


def _above_table(trump: int) -> tuple[int, ...]:
    st = _strength_table(trump)
    out = []
    for c in range(32):
        s = c >> 3
        m = 0
        for d in range(8 * s, 8 * s + 8):
            if st[d] > st[c]:
                m |= 1 << d
        out.append(m)
    return tuple(out)


POINTS: tuple[tuple[int, ...], ...] = tuple(_points_table(t) for t in range(4))
"""``POINTS[trump][card]``: card points (``rules.md`` §1.2, §1.3)."""
STRENGTH: tuple[tuple[int, ...], ...] = tuple(_strength_table(t) for t in range(4))
"""``STRENGTH[trump][card]``: 0..7 rank in the trick order of the card's suit, 7 strongest."""
ABOVE: tuple[tuple[int, ...], ...] = tuple(_above_table(t) for t in range(4))
"""``ABOVE[trump][card]``: mask of the same-suit cards that beat ``card`` (§1.2, §1.3)."""


def play_rule_id(play_rule: str | int) -> int:
    """The solver id of a play rule name (``"amsterdam"``, ``"rotterdam"``, ``"klammern"``).

    Ints 0..2 are passed through. Raises ``ValueError`` for anything else.
    """
    if isinstance(play_rule, int) and not isinstance(play_rule, bool):
        if play_rule in (AMSTERDAM, ROTTERDAM, KLAMMERN):
            return play_rule
    elif play_rule in PLAY_RULES:
        return PLAY_RULES[play_rule]
    raise ValueError(f"unknown play rule: {play_rule!r}")


def beats(card: int, winning: int, trump: int) -> bool:
    """Whether ``card`` played now beats the card ``winning`` the trick so far (§4.6).

    A card beats the winner if it is a higher card of the winner's suit, or a trump on a plain
    winner. (The winner is always a trump or of the led suit, so this is the §4.6 rule.)
    """
    cs = card >> 3
    ws = winning >> 3
    if cs == ws:
        return STRENGTH[trump][card] > STRENGTH[trump][winning]
    return cs == trump


def winning_index(trick_cards: Sequence[int], trump: int) -> int:
    """Position (0-based, in play order) of the card that wins the (partial) trick (§4.6)."""
    best = 0
    for i in range(1, len(trick_cards)):
        if beats(trick_cards[i], trick_cards[best], trump):
            best = i
    return best


def trick_winner(trick_cards: Sequence[int], trick_seats: Sequence[int], trump: int) -> int:
    """Seat (0..3) that wins the trick: highest trump, else highest card of the led suit (§4.6).

    ``trick_cards`` are card indices in play order (the first is the lead), ``trick_seats`` the
    seats that played them. Also works for a partial trick (the seat winning it so far).
    """
    return trick_seats[winning_index(trick_cards, trump)]


def legal_mask(
    hand_mask: int,
    trick_cards: Sequence[int],
    trick_seats: Sequence[int],
    seat: int,
    trump: int,
    play_rule: str | int,
) -> int:
    """Mask of the cards of ``hand_mask`` that ``seat`` may play (``rules.md`` §4.5, §9.4).

    Args:
        hand_mask: the player's hand (32-bit mask).
        trick_cards: the cards already in the current trick, in play order (empty when leading).
        trick_seats: the seats that played them (same length).
        seat: the player to move, 0..3.
        trump: trump suit 0..3.
        play_rule: ``"amsterdam"``, ``"rotterdam"``, ``"klammern"`` or its id.

    Returns:
        The legal sub-mask; the first non-empty set of the §4.5 decision table (H = hand,
        TR = trumps, HT = trumps beating the winning card W (all trumps if W is plain),
        NT = non-trumps). Klammern (§9.4): void → HT, NT, H whoever is winning.
    """
    if not trick_cards:
        return hand_mask
    w = winning_index(trick_cards, trump)
    partner_winning = (trick_seats[w] - seat) % 2 == 0
    return legal_mask_fast(
        hand_mask,
        trick_cards[0] >> 3,
        trick_cards[w],
        partner_winning,
        trump,
        play_rule_id(play_rule),
    )


def legal_mask_fast(
    hand: int, led_suit: int, winning: int, partner_winning: bool, trump: int, rule: int
) -> int:
    """:func:`legal_mask` for a non-empty trick from precomputed facts (the solver's form).

    Args:
        hand: the player's hand mask.
        led_suit: suit 0..3 of the first card of the trick.
        winning: the card index now winning the trick.
        partner_winning: whether the player's partner played ``winning``.
        trump: trump suit 0..3.
        rule: play-rule id (:data:`AMSTERDAM`, :data:`ROTTERDAM`, :data:`KLAMMERN`).
    """
    tmask = SUIT_MASKS[trump]
    tr = hand & tmask
    if led_suit == trump:  # §4.2: HT, TR, H
        ht = tr & ABOVE[trump][winning]
        return ht or tr or hand
    follow = hand & SUIT_MASKS[led_suit]
    if follow:  # §4.1
        return follow
    if not tr:  # void, no trumps: H
        return hand
    w_is_trump = winning >> 3 == trump
    ht = tr & ABOVE[trump][winning] if w_is_trump else tr
    if rule == ROTTERDAM:  # §4.3: HT, TR
        return ht or tr
    nt = hand & ~tmask
    if rule == KLAMMERN:  # §9.4: HT, NT, H regardless of partner
        return ht or nt or hand
    # Amsterdam §4.4
    if not partner_winning:
        return ht or nt or hand
    if not w_is_trump:
        return hand
    return (nt | ht) or hand


def trick_points(trick_mask: int, trump: int) -> int:
    """Card points (§1.2, §1.3) of the cards in ``trick_mask`` (no last-trick bonus, no roem)."""
    pts = POINTS[trump]
    total = 0
    m = trick_mask
    while m:
        low = m & -m
        total += pts[low.bit_length() - 1]
        m ^= low
    return total


def roem_of_mask(trick_mask: int, trump: int, four_low_cards: int = 0) -> int:
    """Roem (§5) of a completed trick given as a 4-card mask, computed directly from the rules.

    Runs of three in one suit in natural order (§1.5, no wrap) score 20, runs of four 50 (§5.2);
    K and Q of trump (stuk) add 20 (§5.3); four J 200, four A/K/Q/10 100, four 9/8/7
    ``four_low_cards`` (0 by default, 100 in some clubs; §5.4).
    """
    m = trick_mask
    four = m & (m >> 8) & (m >> 16) & (m >> 24) & 0xFF
    if four:
        rank = four.bit_length() - 1
        if rank == RANK_JACK:
            return 200
        return 100 if rank >= 3 else four_low_cards
    total = 0
    for s in range(4):
        b = (m >> (8 * s)) & 0xFF
        run3 = b & (b >> 1) & (b >> 2)
        if run3:
            total += 50 if run3 & (b >> 3) else 20
            break
    stuk = (1 << (8 * trump + RANK_KING)) | (1 << (8 * trump + RANK_QUEEN))
    if m & stuk == stuk:
        total += 20
    return total


def roem_of_cards(cards: Sequence[int], trump: int, four_low_cards: int = 0) -> int:
    """:func:`roem_of_mask` of the card indices of one completed trick."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return roem_of_mask(mask, trump, four_low_cards)


@cache
def roem_table(trump: int, four_low_cards: int = 0) -> dict[int, int]:
    """``{4-card trick mask: roem}`` for every trick with non-zero roem (§5), built once."""
    table: dict[int, int] = {}
    for a, b, c, d in combinations(range(32), 4):
        mask = (1 << a) | (1 << b) | (1 << c) | (1 << d)
        r = roem_of_mask(mask, trump, four_low_cards)
        if r:
            table[mask] = r
    return table


def trick_roem(trick_mask: int, trump: int, four_low_cards: int = 0) -> int:
    """Roem (§5) of a completed trick given as a 4-card mask, by table lookup."""
    return roem_table(trump, four_low_cards).get(trick_mask, 0)
