"""The card-level rules as pure functions on masks: order, points, legal cards, trick winner,
roem, round score. The round state machine and the computer players share these (one legality
path, ``docs/design.md`` §2).

Masks follow :mod:`engine.cards`: card index ``suit * 8 + rank`` (natural rank order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.cards import SUIT_MASKS, SUITS, Card, Rank, Seat, Suit, Team
from engine.errors import Reason
from engine.fastinit import fast_init, fast_new
from engine.settings import PlayRule

# Strength within a suit, by natural rank 7 8 9 10 J Q K A (higher wins), rules.md §1.2-1.3.
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)  # J 9 A 10 K Q 8 7
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # A 10 K Q J 9 8 7
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
LAST_TRICK_BONUS = 10
TOTAL_CARD_POINTS = 162
PIT_BONUS = 100

# Enum members read on every card, as module constants: a global is far cheaper than
# ``Phase.PLAY`` (an enum class attribute, ~100 ns in CPython 3.11).
_MAY_NOT_UNDERTRUMP, _MUST_FOLLOW_SUIT, _MUST_OVERTRUMP, _MUST_TRUMP, _NOT_ALLOWED = (
    Reason.MAY_NOT_UNDERTRUMP,
    Reason.MUST_FOLLOW_SUIT,
    Reason.MUST_OVERTRUMP,
    Reason.MUST_TRUMP,
    Reason.NOT_ALLOWED,
)
_RULE_KLAMMERN, _RULE_ROTTERDAM = PlayRule.KLAMMERN, PlayRule.ROTTERDAM


def _above(strength: tuple[int, ...]) -> tuple[int, ...]:
    """For each natural rank, the 8-bit mask of ranks that beat it in this order."""
    return tuple(sum(1 << r2 for r2 in range(8) if strength[r2] > strength[r]) for r in range(8))


_TRUMP_ABOVE = _above(TRUMP_STRENGTH)


_SUIT_ORDINAL: dict[Suit, int] = {suit: i for i, suit in enumerate(SUITS)}
_POINTS_BY_TRUMP: tuple[tuple[int, ...], ...] = tuple(
    tuple((TRUMP_POINTS if c >> 3 == t else PLAIN_POINTS)[c & 7] for c in range(32))
    for t in range(4)
)
"""``[trump][card index]``: card points (§1.2–1.3)."""
_TRUMPS_ABOVE_BY_INDEX: tuple[int, ...] = tuple(
    _TRUMP_ABOVE[c & 7] << (8 * (c >> 3)) for c in range(32)
)
"""``[card index]``: mask of the same-suit cards that beat it when its suit is trump."""


def _strength_table(t: int, led: int) -> tuple[int, ...]:
    return tuple(
        200 + TRUMP_STRENGTH[c & 7]
        if c >> 3 == t
        else (100 if c >> 3 == led else 0) + PLAIN_STRENGTH[c & 7]
        for c in range(32)
    )


_STRENGTH_BY_INDEX: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_strength_table(t, led) for led in range(4)) for t in range(4)
)
"""``[trump][led suit][card index]``: :func:`strength` as a table."""


def card_points(c: Card, trump: Suit) -> int:
    """Card points of ``c`` with ``trump`` as trump (``rules.md`` §1.2–1.3)."""
    return (TRUMP_POINTS if c.suit is trump else PLAIN_POINTS)[c.rank]


def mask_points(mask: int, trump: Suit) -> int:
    """Card points of all cards in ``mask``."""
    table = _POINTS_BY_TRUMP[_SUIT_ORDINAL[trump]]
    total = 0
    while mask:
        low = mask & -mask
        total += table[low.bit_length() - 1]
        mask ^= low
    return total


def strength(c: Card, trump: Suit, led: Suit) -> int:
    """A number that orders the cards of one trick (``rules.md`` §4.6): trumps above the led
    suit above everything else."""
    if c.suit is trump:
        return 200 + TRUMP_STRENGTH[c.rank]
    if c.suit is led:
        return 100 + PLAIN_STRENGTH[c.rank]
    return PLAIN_STRENGTH[c.rank]


def winning_position(cards: Sequence[Card], trump: Suit) -> int:
    """Position (0-based, in play order) of the card now winning the trick (``rules.md`` §4.6).

    Raises:
        ValueError: for an empty trick.
    """
    if not cards:
        raise ValueError("empty trick")
    return _winning_position(cards, _SUIT_ORDINAL[trump])


def _winning_position(cards: Sequence[Card], t: int) -> int:
    """:func:`winning_position` of a non-empty trick, with the trump as its ordinal."""
    key = _STRENGTH_BY_INDEX[t][cards[0].index >> 3]
    best_pos = 0
    best = key[cards[0].index]
    for pos in range(1, len(cards)):
        k = key[cards[pos].index]
        if k > best:
            best, best_pos = k, pos
    return best_pos


class Situation(StrEnum):
    """Where the trick stands for a player who is void in the led plain suit and holds trumps:
    the rows of ``rules.md`` §4.5 in which the play rules differ."""

    OPPONENT_WINNING = "opponent_winning"
    PARTNER_WINNING_PLAIN = "partner_winning_plain"
    PARTNER_WINNING_TRUMP = "partner_winning_trump"


_HT, _TR, _NT, _NT_HT, _H = "HT", "TR", "NT", "NT|HT", "H"

VOID_DUTIES: Mapping[PlayRule, Mapping[Situation, tuple[str, ...]]] = {
    PlayRule.ROTTERDAM: {  # §4.3
        Situation.OPPONENT_WINNING: (_HT, _TR),
        Situation.PARTNER_WINNING_PLAIN: (_HT, _TR),
        Situation.PARTNER_WINNING_TRUMP: (_HT, _TR),
    },
    PlayRule.AMSTERDAM: {  # §4.4
        Situation.OPPONENT_WINNING: (_HT, _NT, _H),
        Situation.PARTNER_WINNING_PLAIN: (_H,),
        Situation.PARTNER_WINNING_TRUMP: (_NT_HT, _H),
    },
    PlayRule.KLAMMERN: {  # §9.4: must trump also on the partner
        Situation.OPPONENT_WINNING: (_HT, _NT, _H),
        Situation.PARTNER_WINNING_PLAIN: (_HT, _NT, _H),
        Situation.PARTNER_WINNING_TRUMP: (_HT, _NT, _H),
    },
}
"""The duty table of ``rules.md`` §4.5 (and §9.4) where the play rules differ: void in the led
plain suit, holding trumps; the legal cards are the first non-empty set of the row. Sets: HT
the trumps that beat the winning card (all trumps when it is plain), TR all trumps, NT the
non-trumps, NT|HT their union, H the whole hand. The other rows are the same for every rule:
leading H; trump led HT, TR, H (§4.2); holding the led suit: that suit (§4.1); void without
trumps: H. :func:`legal_mask` reads this table; the bit rules and the solvers are proven equal
to it (``tests/engine/test_rules_core.py``)."""

_DUTY_REASONS: dict[str, Reason] = {
    _TR: Reason.MUST_TRUMP,
    _NT: Reason.MAY_NOT_UNDERTRUMP,
    _NT_HT: Reason.MAY_NOT_UNDERTRUMP,
    _H: Reason.NOT_ALLOWED,
}
"""The reason a card outside the chosen set breaks (HT: must trump, or must overtrump when a
trump is winning)."""


@fast_init
@dataclass(frozen=True, slots=True)
class Duty:
    """Why the legal set is what it is; the reason an illegal card is refused (§4.5)."""

    legal: int
    reason: Reason


_new_duty = fast_new(Duty)  # the Duty of every card's legal set (engine.fastinit.fast_new)


def legal_mask(
    hand: int, trick: Sequence[Card], seat: Seat, leader: Seat, trump: Suit, rule: PlayRule
) -> Duty:
    """The legal cards of ``hand`` for ``seat`` to play to ``trick`` (``rules.md`` §4.1–4.5,
    Klammern §9.4): the first non-empty set of the decision table of §4.5.

    This is the project's source of the duties: the players' bit rules
    (:mod:`engine.ai.bitrules`) and both solver cores are proven equal to it
    (``tests/engine/test_rules_core.py``).

    Args:
        hand: the player's cards as a mask (non-empty).
        trick: the cards already in the trick, in play order, led by ``leader``.
        seat: the player to play (``leader + len(trick)``).
        trump: the trump suit.
        rule: the play rule.

    Returns:
        The legal mask and the duty that applies: the :class:`Reason` a card outside it breaks.
    """
    if not trick:
        return _new_duty(hand, _NOT_ALLOWED)
    t = _SUIT_ORDINAL[trump]
    led = trick[0].index >> 3
    follow = hand & SUIT_MASKS[led]
    if follow and led != t:
        return _new_duty(follow, _MUST_FOLLOW_SUIT)  # §4.1, the common case
    win_pos = _winning_position(trick, t)
    winner_card = trick[win_pos].index
    if led == t:
        if follow:
            # Trump led: the card winning the trick is its highest trump (§4.2).
            higher = follow & _TRUMPS_ABOVE_BY_INDEX[winner_card]
            if higher:
                return _new_duty(higher, _MUST_OVERTRUMP)
            return _new_duty(follow, _MUST_FOLLOW_SUIT)
        return _new_duty(hand, _NOT_ALLOWED)
    trump_mask = SUIT_MASKS[t]
    trumps = hand & trump_mask
    if not trumps:
        return _new_duty(hand, _NOT_ALLOWED)
    trump_winning = winner_card >> 3 == t
    higher = trumps & _TRUMPS_ABOVE_BY_INDEX[winner_card] if trump_winning else trumps
    non_trumps = hand & ~trump_mask
    if (leader + win_pos - seat) & 3 != 2:
        situation = Situation.OPPONENT_WINNING
    elif trump_winning:
        situation = Situation.PARTNER_WINNING_TRUMP
    else:
        situation = Situation.PARTNER_WINNING_PLAIN
    sets = {_HT: higher, _TR: trumps, _NT: non_trumps, _NT_HT: non_trumps | higher, _H: hand}
    for name in VOID_DUTIES[rule][situation]:
        legal = sets[name]
        if legal:
            if name == _HT:
                return _new_duty(legal, _MUST_OVERTRUMP if trump_winning else _MUST_TRUMP)
            return _new_duty(legal, _DUTY_REASONS[name])
    raise AssertionError("the last set of every row is never empty")  # pragma: no cover


def legal_cards(
    hand: Sequence[Card],
    trick: Sequence[Card],
    seat: Seat,
    leader: Seat,
    trump: Suit,
    rule: PlayRule,
) -> tuple[Card, ...]:
    """Card-list convenience form of :func:`legal_mask`."""
    m = 0
    for c in hand:
        m |= c.bit
    legal = legal_mask(m, trick, seat, leader, trump, rule).legal
    return tuple(c for c in hand if legal & c.bit)


# --- Roem (rules.md §5) -------------------------------------------------------------------


def _run_roem(bits: int) -> int:
    """Roem of the ranks ``bits`` (8-bit mask, natural order) of one suit: a run of four 50,
    else a run of three 20 (§5.2)."""
    if bits & (bits >> 1) & (bits >> 2) & (bits >> 3):
        return 50
    if bits & (bits >> 1) & (bits >> 2):
        return 20
    return 0


_RUN_ROEM = tuple(_run_roem(b) for b in range(256))
_QK = (1 << Rank.QUEEN) | (1 << Rank.KING)
_FOUR_OF_A_KIND: dict[int, int] = {
    Rank.JACK: 200,
    Rank.ACE: 100,
    Rank.KING: 100,
    Rank.QUEEN: 100,
    Rank.TEN: 100,
}


def roem(cards: Sequence[Card], trump: Suit, four_low_cards: int = 0) -> int:
    """Roem in the cards of one trick (``rules.md`` §5.2–5.4), whoever played them.

    Runs use the natural order 7..A without wrap-around; stuk (K+Q of trump) adds 20 and
    combines with a run; four of a kind: J 200, A/K/Q/10 100, 9/8/7 ``four_low_cards``.
    """
    m = 0
    for c in cards:
        m |= c.bit
    return _mask_roem(m, _SUIT_ORDINAL[trump], four_low_cards)


def _mask_roem(m: int, t: int, four_low_cards: int) -> int:
    """:func:`roem` of the cards of ``m`` (at most one trick: four cards), trump ordinal ``t``."""
    four = m & (m >> 8) & (m >> 16) & (m >> 24) & 0xFF
    if four:  # four cards of one rank (§5.4)
        return _FOUR_OF_A_KIND.get(four.bit_length() - 1, four_low_cards)
    total = (
        _RUN_ROEM[m & 0xFF]
        + _RUN_ROEM[m >> 8 & 0xFF]
        + _RUN_ROEM[m >> 16 & 0xFF]
        + _RUN_ROEM[m >> 24 & 0xFF]
    )
    if (m >> (8 * t)) & _QK == _QK:
        total += 20
    return total


# --- Scoring (rules.md §6) ----------------------------------------------------------------


@fast_init
@dataclass(frozen=True, slots=True)
class RoundScore:
    """The outcome of a Klaverjassen round (``rules.md`` §6).

    Attributes:
        playing_team: the maker's team.
        card_points: card points won in tricks per team (with the last-trick 10), sum 162.
        roem: roem counted per team (claimed roem only in claim mode), without pit.
        tricks: tricks won per team.
        nat: the playing team failed (§6.3).
        pit: the team that took all 8 tricks and gets the bonus, or None (§6.4).
        points: card points written on the sheet per team (nat: defenders all of them).
        roem_scored: roem written on the sheet per team, pit bonus included.
        score: ``points + roem_scored`` per team.
    """

    playing_team: Team
    card_points: Mapping[Team, int]
    roem: Mapping[Team, int]
    tricks: Mapping[Team, int]
    nat: bool
    pit: Team | None
    points: Mapping[Team, int]
    roem_scored: Mapping[Team, int]
    score: Mapping[Team, int]

    def to_dict(self) -> dict[str, object]:
        """JSON-able form with team keys ``"NS"``/``"EW"``."""

        def d(m: Mapping[Team, int]) -> dict[str, int]:
            return {t.value: m[t] for t in (Team.NS, Team.EW)}

        return {
            "playing_team": self.playing_team.value,
            "card_points": d(self.card_points),
            "roem": d(self.roem),
            "tricks": d(self.tricks),
            "nat": self.nat,
            "pit": self.pit.value if self.pit else None,
            "points": d(self.points),
            "roem_scored": d(self.roem_scored),
            "score": d(self.score),
        }


def score_round(
    playing_team: Team,
    card_points: Mapping[Team, int],
    roem: Mapping[Team, int],
    tricks: Mapping[Team, int],
    defender_pit: bool = True,
) -> RoundScore:
    """Score a Klaverjassen round (``rules.md`` §6.1–6.4).

    The playing team must have strictly more than the defenders, card points plus roem of
    both (§6.2); otherwise it is nat and the defenders score all card points plus all roem
    (§6.3). A team with all 8 tricks gets 100 pit roem; defenders only if ``defender_pit``.
    """
    p, d = playing_team, playing_team.other
    pit: Team | None = None
    for t in (p, d):
        if tricks[t] == 8 and (t is p or defender_pit):
            pit = t
    nat = card_points[p] + roem[p] <= card_points[d] + roem[d]
    if nat:
        points = {p: 0, d: card_points[p] + card_points[d]}
        roem_scored = {p: 0, d: roem[p] + roem[d]}
    else:
        points = {p: card_points[p], d: card_points[d]}
        roem_scored = {p: roem[p], d: roem[d]}
    if pit is not None and not (nat and pit is p):
        roem_scored[pit] += PIT_BONUS
    score = {t: points[t] + roem_scored[t] for t in (p, d)}
    return RoundScore(
        playing_team=p,
        card_points=dict(card_points),
        roem=dict(roem),
        tricks=dict(tricks),
        nat=nat,
        pit=pit,
        points=points,
        roem_scored=roem_scored,
        score=score,
    )
