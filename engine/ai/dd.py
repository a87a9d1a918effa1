"""Double-dummy (perfect-information) solver for Klaverjassen and Klammern.

All four hands are known. Every value is from **North–South's point of view** (NS = seats 0
and 2 maximise, EW = seats 1 and 3 minimise); for the side to move, multiply by
:func:`side_sign`. Cards, masks and seats follow :mod:`engine.cards` (index = suit*8 + rank,
ranks 7..A natural; hands are 32-bit int masks; seats 0..3 clockwise).

API (all functions keyword-compatible, pure apart from a reusable transposition table)::

    solve(hands, trump, leader, trick=(), *, play_rule="amsterdam", roem=True,
          four_low_cards=0, taken=(0, 0), tricks_taken=None, pit=True, defender_pit=True,
          playing_team=None, objective="diff", backend=None) -> SolveResult(value, best_card, nodes)
    solve_moves(<same arguments>) -> MovesResult(seat, values: dict[card, value], nodes)
    exceeds(<same arguments>, threshold, team=0) -> bool      # null-window
    made(<same arguments>, playing_team) -> bool               # §6.2 / §9.8
    round_scores(ns_total, ew_total, playing_team) -> (ns_score, ew_score)   # §6.2, §6.3

Arguments:
    hands: the four remaining hands as masks, by seat. At a trick boundary all hands have the
        same size; players who already played to the current trick hold one card fewer.
    trump: trump suit 0..3 (S, H, D, C).
    leader: the seat that led (or is to lead) the current trick.
    trick: the current trick as ``((seat, card), ...)`` in play order (empty at a boundary);
        the seats must be ``leader, leader+1, ...``.
    play_rule: ``"amsterdam"``, ``"rotterdam"`` (``rules.md`` §4.5) or ``"klammern"`` (§9.4).
    roem: score trick roem (§5) for the trick's winner. Klammern has no trick roem (§9): pass
        ``False`` there and put declarations and bella (fixed by the hands) into ``taken``.
    four_low_cards: roem for four 9s, 8s or 7s in one trick (0 or 100, §5.4).
    taken: points already taken (card points + roem + declarations), ``(NS, EW)``.
    tricks_taken: tricks already won ``(NS, EW)``, for pit (§6.4). ``None``: ``(0, 0)`` when no
        trick is complete yet, otherwise unknown and pit is not scored.
    pit: score pit (100 roem for all 8 tricks, §6.4); pass ``False`` for Klammern.
    defender_pit: whether the defenders can win pit too (§6.4; needs ``playing_team``).
    playing_team: 0 = NS, 1 = EW, ``None`` = unknown (only for ``objective="diff"``).
    objective: ``"diff"``: final NS − EW points (card points + last trick 10 + roem + pit,
        §1.4, §5, §6.4); ``"score"``: final NS − EW round score after the nat rule (§6.2, §6.3;
        nat: the playing team scores 0 and the defenders all points of both teams, i.e.
        162 + all roem). Klaverjassen only; for Klammern use :func:`made`.
    backend: ``"c"`` or ``"python"``; default: C if the extension is built.

Exactness: all values are exact game values under perfect information (no approximation).
The search itself lives in a backend ``search`` function (:mod:`engine.ai._ddpy`, and its C
twin ``engine.ai._dd``); this module validates, plays root moves and combines searches.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import NamedTuple

from engine.ai import _ddpy
from engine.ai.bitrules import (
    LAST_TRICK_BONUS,
    PIT_BONUS,
    POINTS,
    legal_mask,
    play_rule_id,
    trick_points,
    trick_roem,
    trick_winner,
)

SearchFn = Callable[
    [tuple[int, int, int, int], int, int, bool, int, int, int, tuple[int, ...], int, int, int,
     int, int, int, bool],
    tuple[int, int, int],
]

_BACKENDS: dict[str, SearchFn] = {"python": _ddpy.search}
try:  # pragma: no cover - depends on the build
    from engine.ai import _dd

    _BACKENDS["c"] = _dd.search
except ImportError:  # pragma: no cover
    pass

DEFAULT_BACKEND = os.environ.get("KLAVERJAS_DD_BACKEND") or ("c" if "c" in _BACKENDS else "python")
INF = 30000
MODE_DIFF = _ddpy.MODE_DIFF
MODE_SCORE = _ddpy.MODE_SCORE
_OBJECTIVES = {"diff": MODE_DIFF, "score": MODE_SCORE}


class SolveResult(NamedTuple):
    """Value of a position: ``value`` (points, NS − EW, see ``objective``), a ``best_card``
    (card index achieving it, -1 when no card is left) and the search ``nodes``."""

    value: int
    best_card: int
    nodes: int


class MovesResult(NamedTuple):
    """Exact value (NS − EW) of each legal card of ``seat`` (the player to move): ``values``
    maps card index → value; ``nodes`` searched in total."""

    seat: int
    values: dict[int, int]
    nodes: int


class _State(NamedTuple):
    hands: tuple[int, int, int, int]
    trump: int
    rule: int
    roem: bool
    four_low: int
    pit: int
    leader: int
    trick: tuple[int, ...]
    ns: int
    ew: int
    playing: int


def available_backends() -> tuple[str, ...]:
    """Names of the usable search backends (``"python"`` always, ``"c"`` when built)."""
    return tuple(sorted(_BACKENDS))


def side_sign(seat: int) -> int:
    """+1 for NS seats (0, 2), -1 for EW seats (1, 3): multiply a value to get the mover's view."""
    return 1 if seat % 2 == 0 else -1


def round_scores(ns_total: int, ew_total: int, playing_team: int) -> tuple[int, int]:
    """Round scores ``(NS, EW)`` from final totals (points + roem + pit), ``rules.md`` §6.2-6.3.

    The playing team (0 = NS, 1 = EW) must have strictly more than the defenders; otherwise it
    is nat: it scores 0 and the defenders score everything (162 + the roem of both teams).
    """
    if playing_team == 0:
        return (ns_total, ew_total) if ns_total > ew_total else (0, ns_total + ew_total)
    return (ns_total, ew_total) if ew_total > ns_total else (ns_total + ew_total, 0)


def _backend(name: str | None) -> SearchFn:
    key = name or DEFAULT_BACKEND
    if key not in _BACKENDS:
        raise ValueError(f"search backend not available: {key!r}")
    return _BACKENDS[key]


def _prepare(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]],
    play_rule: str | int,
    roem: bool,
    four_low_cards: int,
    taken: tuple[int, int],
    tricks_taken: tuple[int, int] | None,
    pit: bool,
    defender_pit: bool,
    playing_team: int | None,
) -> _State:
    if len(hands) != 4:
        raise ValueError("need four hands")
    if trump not in range(4) or leader not in range(4):
        raise ValueError("trump and leader must be 0..3")
    if playing_team not in (None, 0, 1):
        raise ValueError("playing_team must be 0, 1 or None")
    hs = (int(hands[0]), int(hands[1]), int(hands[2]), int(hands[3]))
    seen = 0
    for hm in hs:
        if hm < 0 or hm >> 32 or hm & seen:
            raise ValueError("hands must be disjoint 32-bit masks")
        seen |= hm
    cards = []
    for i, (s, c) in enumerate(trick):
        if s != (leader + i) % 4:
            raise ValueError("trick seats must follow the leader clockwise")
        if c not in range(32) or (seen >> c) & 1:
            raise ValueError(f"bad or repeated trick card {c}")
        seen |= 1 << c
        cards.append(c)
    if len(cards) > 3:
        raise ValueError("a trick in progress has at most 3 cards")
    k = len(cards)
    n = hs[(leader + k) % 4].bit_count()  # cards of the player to move = tricks left
    for i in range(4):
        if hs[i].bit_count() != (n - 1 if (i - leader) % 4 < k else n):
            raise ValueError("hand sizes do not fit the trick")
    completed = 8 - n
    if tricks_taken is None:
        tricks_taken = (0, 0) if completed == 0 else None
    pit_bits = 0
    if pit and tricks_taken is not None:
        if sum(tricks_taken) != completed:
            raise ValueError("tricks_taken does not match the cards left")
        ns_ok = playing_team != 1 or defender_pit
        ew_ok = playing_team != 0 or defender_pit
        if tricks_taken[1] == 0 and ns_ok:
            pit_bits |= 1
        if tricks_taken[0] == 0 and ew_ok:
            pit_bits |= 2
    return _State(hs, trump, play_rule_id(play_rule), bool(roem), int(four_low_cards), pit_bits,
                  leader, tuple(cards), int(taken[0]), int(taken[1]),
                  -1 if playing_team is None else playing_team)


def _to_move(st: _State) -> int:
    return (st.leader + len(st.trick)) % 4


def _legal(st: _State) -> int:
    seat = _to_move(st)
    seats = tuple((st.leader + i) % 4 for i in range(len(st.trick)))
    return legal_mask(st.hands[seat], st.trick, seats, seat, st.trump, st.rule)


def _play(st: _State, card: int) -> _State:
    """The state after the player to move plays ``card`` (resolving a completed trick)."""
    seat = _to_move(st)
    hands = list(st.hands)
    hands[seat] &= ~(1 << card)
    trick = (*st.trick, card)
    hs = (hands[0], hands[1], hands[2], hands[3])
    if len(trick) < 4:
        return st._replace(hands=hs, trick=trick)
    seats = tuple((st.leader + i) % 4 for i in range(4))
    winner = trick_winner(trick, seats, st.trump)
    mask = (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2]) | (1 << trick[3])
    total = trick_points(mask, st.trump)
    if st.roem:
        total += trick_roem(mask, st.trump, st.four_low)
    if not (hs[0] | hs[1] | hs[2] | hs[3]):
        total += LAST_TRICK_BONUS
    if winner % 2 == 0:
        return st._replace(hands=hs, trick=(), leader=winner, ns=st.ns + total, pit=st.pit & 1)
    return st._replace(hands=hs, trick=(), leader=winner, ew=st.ew + total, pit=st.pit & 2)


def _search(fn: SearchFn, st: _State, mode: int, alpha: int, beta: int,
            new_tt: bool) -> tuple[int, int, int]:
    return fn(st.hands, st.trump, st.rule, st.roem, st.four_low, st.pit, st.leader, st.trick,
              st.ns, st.ew, mode, st.playing, alpha, beta, new_tt)


def _rest(st: _State) -> int:
    """Mask of the cards not yet in a completed trick."""
    rest = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
    for c in st.trick:
        rest |= 1 << c
    return rest


def _total_bounds(st: _State) -> tuple[int, int]:
    """Smallest and largest possible final NS + EW total (points, roem, pit)."""
    rest = _rest(st)
    pts = POINTS[st.trump]
    least = st.ns + st.ew + sum(pts[c] for c in range(32) if rest >> c & 1) + LAST_TRICK_BONUS
    return least, least + _roem_bound(st, rest) + (PIT_BONUS if st.pit else 0)


def _mtdf(fn: SearchFn, st: _State, mode: int, guess: int, lower: int, upper: int,
          new_tt: bool) -> tuple[int, int, int]:
    """MTD(f): exact value in ``[lower, upper]`` by null-window searches sharing the TT.

    The best card of the player to move comes from a search that proved the final bound on
    their side (fail-high for NS, fail-low for EW).
    """
    maxing = _to_move(st) % 2 == 0
    nodes = 0
    best = -1
    t = min(max(guess, lower), upper - 1)
    step = 2
    last = 0
    while lower < upper:
        v, b, n = _search(fn, st, mode, t, t + 1, new_tt)
        new_tt = False
        nodes += n
        if v > t:
            lower = v
            if maxing:
                best = b
            d = 1
        else:
            upper = v
            if not maxing:
                best = b
            d = -1
        # Gallop away from the failed side (steps 2, 4, 8, ...), bisect once bracketed.
        step = step * 2 if d == last else 2
        last = d
        t = lower + step - 1 if d > 0 else upper - step
        if upper - lower <= 2 * step:
            t = (lower + upper) // 2
        t = max(lower, min(t, upper - 1))
    return lower, best, nodes


def _roem_bound(st: _State, rest: int) -> int:
    """Upper bound on all roem still possible from the cards ``rest`` (§5)."""
    if not st.roem:
        return 0
    total = 0
    runs = 0
    best_run = 0
    for s in range(4):
        b = (rest >> (8 * s)) & 0xFF
        r3 = b & (b >> 1) & (b >> 2)
        if r3:
            runs += b.bit_count() // 3
            best_run = max(best_run, 50 if r3 & (b >> 3) else 20)
    total += min(runs, rest.bit_count() // 4) * best_run
    stuk = (1 << (8 * st.trump + 6)) | (1 << (8 * st.trump + 5))
    if rest & stuk == stuk and all(h & stuk != stuk for h in st.hands):
        total += 20
    four = rest & (rest >> 8) & (rest >> 16) & (rest >> 24) & 0xFF
    for r in range(8):
        if four >> r & 1:
            total += 200 if r == 4 else 100 if r >= 3 else st.four_low
    return total


def _diff_bounds(st: _State) -> tuple[int, int]:
    """Bounds on the final NS − EW points: one side takes everything that is left."""
    least, most = _total_bounds(st)
    left = most - st.ns - st.ew - (PIT_BONUS if st.pit else 0)
    base = st.ns - st.ew
    return (base - left - (PIT_BONUS if st.pit & 2 else 0),
            base + left + (PIT_BONUS if st.pit & 1 else 0))


def _exact(fn: SearchFn, st: _State, mode: int, new_tt: bool,
           guess: int = 0) -> tuple[int, int, int]:
    """Exact value of ``st`` for ``mode``; the score mode uses the nat cliff (two phases).

    Phase 1 solves the point difference D. If the playing team makes it (D > 0 for NS playing),
    the round-score value equals D (§6.2: each team scores its total). Otherwise the value is
    ``-(NS + EW)`` of the best nat line (defenders maximise the total, i.e. roem, while keeping
    the playing team nat), found by null-window searches bounded by the nat region.
    """
    lo, hi = _diff_bounds(st)
    v, best, nodes = _mtdf(fn, st, MODE_DIFF, guess, lo, hi, new_tt)
    if mode == MODE_DIFF:
        return v, best, nodes
    if (v > 0) if st.playing == 0 else (v < 0):
        return v, best, nodes
    least, most = _total_bounds(st)
    if st.playing == 0:
        v2, best2, n2 = _mtdf(fn, st, MODE_SCORE, -least, -most, -least, False)
    else:
        v2, best2, n2 = _mtdf(fn, st, MODE_SCORE, least, least, most, False)
    return v2, best2, nodes + n2


def _mode(objective: str, st: _State) -> int:
    if objective not in _OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}")
    mode = _OBJECTIVES[objective]
    if mode == MODE_SCORE and st.playing not in (0, 1):
        raise ValueError("objective 'score' needs playing_team")
    if mode == MODE_SCORE and st.rule == play_rule_id("klammern"):
        raise ValueError("objective 'score' is Klaverjassen scoring (§6); use made() for §9.8")
    return mode


def solve(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    play_rule: str | int = "amsterdam",
    roem: bool = True,
    four_low_cards: int = 0,
    taken: tuple[int, int] = (0, 0),
    tricks_taken: tuple[int, int] | None = None,
    pit: bool = True,
    defender_pit: bool = True,
    playing_team: int | None = None,
    objective: str = "diff",
    backend: str | None = None,
) -> SolveResult:
    """Exact value of the position, NS − EW in points (see the module docstring)."""
    st = _prepare(hands, trump, leader, trick, play_rule, roem, four_low_cards, taken,
                  tricks_taken, pit, defender_pit, playing_team)
    mode = _mode(objective, st)
    v, best, nodes = _exact(_backend(backend), st, mode, True)
    return SolveResult(v, best, nodes)


def solve_moves(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    play_rule: str | int = "amsterdam",
    roem: bool = True,
    four_low_cards: int = 0,
    taken: tuple[int, int] = (0, 0),
    tricks_taken: tuple[int, int] | None = None,
    pit: bool = True,
    defender_pit: bool = True,
    playing_team: int | None = None,
    objective: str = "diff",
    backend: str | None = None,
) -> MovesResult:
    """Exact value (NS − EW) after each legal card of the player to move (PIMC input).

    The root value is the max (NS to move) or min (EW to move) of these values.
    """
    st = _prepare(hands, trump, leader, trick, play_rule, roem, four_low_cards, taken,
                  tricks_taken, pit, defender_pit, playing_team)
    mode = _mode(objective, st)
    fn = _backend(backend)
    values: dict[int, int] = {}
    nodes = 0
    legal = _legal(st)
    first = True
    guess = 0
    for c in range(32):
        if legal >> c & 1:
            v, _, n = _exact(fn, _play(st, c), mode, first, guess)
            first = False
            guess = v
            values[c] = v
            nodes += n
    return MovesResult(_to_move(st), values, nodes)


class NullResult(NamedTuple):
    """Outcome of a null-window test: ``exceeds`` (the answer), ``bound`` (a fail-soft bound on
    the NS − EW value: a lower bound when the NS value exceeds the threshold, else an upper
    bound; for team 1 the test is on NS − EW <= -threshold - 1) and the search ``nodes``."""

    exceeds: bool
    bound: int
    nodes: int


def null_window(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    threshold: int,
    team: int = 0,
    play_rule: str | int = "amsterdam",
    roem: bool = True,
    four_low_cards: int = 0,
    taken: tuple[int, int] = (0, 0),
    tricks_taken: tuple[int, int] | None = None,
    pit: bool = True,
    defender_pit: bool = True,
    playing_team: int | None = None,
    objective: str = "diff",
    backend: str | None = None,
) -> NullResult:
    """Null-window test: does ``team`` (0 = NS, 1 = EW) end with (own − other) > ``threshold``?

    For ``objective="diff"`` the difference is in points (§1, §5, §6.4) and this is one
    null-window search; for ``"score"`` it is the round-score difference (§6.2, §6.3), answered
    by an exact solve.
    """
    st = _prepare(hands, trump, leader, trick, play_rule, roem, four_low_cards, taken,
                  tricks_taken, pit, defender_pit, playing_team)
    mode = _mode(objective, st)
    fn = _backend(backend)
    # NS − EW > t for NS; EW − NS > t  <=>  NS − EW <= -t - 1  <=>  not (NS − EW > -t - 1).
    t = threshold if team == 0 else -threshold - 1
    if mode == MODE_DIFF:
        v, _, nodes = _search(fn, st, MODE_DIFF, t, t + 1, True)
    else:
        v, _, nodes = _exact(fn, st, mode, True)
    return NullResult(v > t if team == 0 else not v > t, v, nodes)


def exceeds(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    threshold: int,
    team: int = 0,
    play_rule: str | int = "amsterdam",
    roem: bool = True,
    four_low_cards: int = 0,
    taken: tuple[int, int] = (0, 0),
    tricks_taken: tuple[int, int] | None = None,
    pit: bool = True,
    defender_pit: bool = True,
    playing_team: int | None = None,
    objective: str = "diff",
    backend: str | None = None,
) -> bool:
    """:func:`null_window`'s answer only."""
    return null_window(hands, trump, leader, trick, threshold=threshold, team=team,
                       play_rule=play_rule, roem=roem, four_low_cards=four_low_cards,
                       taken=taken, tricks_taken=tricks_taken, pit=pit,
                       defender_pit=defender_pit, playing_team=playing_team,
                       objective=objective, backend=backend).exceeds


def made(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    playing_team: int,
    play_rule: str | int = "amsterdam",
    roem: bool = True,
    four_low_cards: int = 0,
    taken: tuple[int, int] = (0, 0),
    tricks_taken: tuple[int, int] | None = None,
    pit: bool = True,
    defender_pit: bool = True,
    backend: str | None = None,
) -> bool:
    """Whether the playing team ends with strictly more points than the defenders.

    Klaverjassen: made vs nat (``rules.md`` §6.2, §6.3); Klammern: the playing team wins the
    round (§9.8; equal points go to the defenders). One null-window search.
    """
    return exceeds(hands, trump, leader, trick, threshold=0, team=playing_team,
                   play_rule=play_rule, roem=roem, four_low_cards=four_low_cards, taken=taken,
                   tricks_taken=tricks_taken, pit=pit, defender_pit=defender_pit,
                   playing_team=playing_team, backend=backend)
