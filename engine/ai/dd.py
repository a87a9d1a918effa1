"""Double-dummy (perfect-information) solver for Klaverjassen and Klammern.

All four hands are known. Every value is from **North–South's point of view**: NS (seats 0
and 2) maximise, EW (seats 1 and 3) minimise; multiply by :func:`side_sign` for the side to
move. Cards, masks and seats follow :mod:`engine.cards` (card index = suit*8 + rank, suits
S H D C = 0..3, ranks 7 8 9 10 J Q K A = 0..7; a hand is a 32-bit int mask; seats 0..3
clockwise). Values are points (``rules.md`` §1), exact (no approximation anywhere).

API::

    solve(hands, trump, leader, trick=(), **options) -> SolveResult(value, best_card, nodes)
    solve_moves(hands, trump, leader, trick=(), **options)
        -> MovesResult(seat, values: dict[card, value], nodes)
    null_window(hands, trump, leader, trick=(), *, threshold, team=0, **options)
        -> NullResult(exceeds: bool, bound, nodes)
    exceeds(hands, trump, leader, trick=(), *, threshold, team=0, **options) -> bool
    made(hands, trump, leader, trick=(), **options) -> bool    # needs options playing_team
    round_scores(ns_total, ew_total, playing_team) -> (ns_score, ew_score)
    side_sign(seat) -> +1 | -1;  available_backends() -> ("c", "python") or ("python",)

Positional arguments:
    hands: ``(north, east, south, west)`` remaining hands as masks. At a trick boundary all
        hands have the same size; players who already played to the current trick hold one
        card fewer.
    trump: trump suit 0..3.
    leader: the seat that led (or is to lead) the current trick.
    trick: the current trick as ``((seat, card), ...)`` in play order (empty at a boundary);
        the seats must be ``leader, leader+1, ...`` (mod 4), at most 3 cards.

``options`` (:class:`Options`, all optional; an unknown name raises ``TypeError``):
    play_rule: ``"amsterdam"`` (default), ``"rotterdam"`` (§4.5) or ``"klammern"`` (§9.4).
    roem: score trick roem (§5) for the trick's winner (default True). Klammern has no trick
        roem (§9): pass False and put declarations and bella (fixed by the hands) in ``taken``.
    four_low_cards: roem of four 9s, 8s or 7s in one trick (0 default, or 100; §5.4).
    taken: points already taken ``(NS, EW)`` (card points + roem + declarations); default 0, 0.
    tricks_taken: tricks already won ``(NS, EW)``, for pit (§6.4). Default ``None``: ``(0, 0)``
        when no trick is complete yet, otherwise unknown and pit is not scored.
    pit: score pit, 100 roem for the team taking all 8 tricks (§6.4; default True). False for
        Klammern.
    defender_pit: whether the defenders can win pit too (§6.4; default True; needs
        ``playing_team`` to have an effect).
    playing_team: 0 = NS, 1 = EW, ``None`` (default) = not known.
    objective: ``"diff"`` (default): final NS − EW points, i.e. card points + last trick 10 +
        roem + pit (§1.4, §5, §6.4). ``"score"``: final NS − EW *round score* after the nat
        rule (§6.2, §6.3: unless the playing team has strictly more, it scores 0 and the
        defenders score all points of both teams); needs ``playing_team``; Klaverjassen only
        (for Klammern §9.8 use :func:`made`).
    backend: ``"c"`` or ``"python"``; default the C core when it is built (env var
        ``KLAVERJAS_DD_BACKEND`` overrides).

How: a backend ``search`` function (:mod:`engine.ai._ddpy`, and its C twin ``engine.ai._dd``,
identical results) runs fail-soft alpha-beta with a transposition table at trick boundaries.
This module validates, plays root cards and drives the searches: exact values come from
null-window searches (MTD-style: gallop, then bisect, inside a-priori point bounds). The
``"score"`` objective first solves the point difference D; if the playing team makes it the
round score difference is exactly D (each team scores its own total), else a second search on
the round score runs inside the nat region. The transposition table is reset at each public
call, so results and node counts are deterministic.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypedDict, Unpack

from engine.ai import _ddpy
from engine.ai.bitrules import (
    KLAMMERN,
    LAST_TRICK_BONUS,
    PIT_BONUS,
    POINTS,
    legal_mask,
    play_rule_id,
    roem_of_mask,
    trick_points,
    trick_winner,
)

SearchFn = Callable[..., tuple[int, int, int]]
"""``search(hands, trump, rule, roem, four_low, pit, leader, trick, ns, ew, mode, playing,
alpha, beta, new_tt, limit=0, budget_ms=0.0) -> (value, best_card, nodes)``; see
:func:`engine.ai._ddpy.search`."""

_BACKENDS: dict[str, SearchFn] = {"python": _ddpy.search}
try:  # pragma: no cover - depends on the build
    from engine.ai import _dd

    _BACKENDS["c"] = _dd.search
except ImportError:  # pragma: no cover
    pass


def dd_backends() -> frozenset[str]:
    """The solver backends this install has: ``"python"`` always, ``"c"`` when the C core
    (``engine.ai._dd``) was built."""
    return frozenset(_BACKENDS)


DEFAULT_BACKEND = os.environ.get("KLAVERJAS_DD_BACKEND") or ("c" if "c" in _BACKENDS else "python")
INF = 30000
MODE_DIFF = _ddpy.MODE_DIFF
MODE_SCORE = _ddpy.MODE_SCORE
_OBJECTIVES = {"diff": MODE_DIFF, "score": MODE_SCORE}


class Options(TypedDict, total=False):
    """Keyword options of the solver functions (see the module docstring)."""

    play_rule: str | int
    roem: bool
    four_low_cards: int
    taken: tuple[int, int]
    tricks_taken: tuple[int, int] | None
    pit: bool
    defender_pit: bool
    playing_team: int | None
    objective: str
    backend: str | None


class SolveResult(NamedTuple):
    """``value``: exact value (points, NS − EW, see ``objective``); ``best_card``: a card of
    the player to move achieving it (-1 when no card is left); ``nodes``: search nodes."""

    value: int
    best_card: int
    nodes: int


class MovesResult(NamedTuple):
    """Exact value (NS − EW) after each legal card of ``seat``, the player to move:
    ``values`` maps card index → value; ``nodes`` searched in total."""

    seat: int
    values: dict[int, int]
    nodes: int


class NullResult(NamedTuple):
    """A null-window answer: ``exceeds``; ``bound``, a fail-soft bound on the NS − EW value
    (see :func:`null_window`); ``nodes`` searched."""

    exceeds: bool
    bound: int
    nodes: int


class _State(NamedTuple):
    hands: tuple[int, int, int, int]
    trump: int
    rule: int
    roem: bool
    four_low: int
    pit: int  # bit 0: NS can still win pit; bit 1: EW can
    leader: int
    trick: tuple[int, ...]
    ns: int
    ew: int
    playing: int  # -1 unknown
    mode: int
    backend: SearchFn


def available_backends() -> tuple[str, ...]:
    """Names of the usable search backends: ``"python"`` always, ``"c"`` when built."""
    return tuple(sorted(_BACKENDS))


def side_sign(seat: int) -> int:
    """+1 for the NS seats 0 and 2, -1 for EW: ``value * side_sign(seat)`` is seat's view."""
    return 1 if seat % 2 == 0 else -1


def round_scores(ns_total: int, ew_total: int, playing_team: int) -> tuple[int, int]:
    """Round scores ``(NS, EW)`` from final totals (points + roem + pit), ``rules.md`` §6.2-6.3.

    The playing team (0 = NS, 1 = EW) must have strictly more than the defenders; otherwise it
    is nat: it scores 0 and the defenders score everything (162 + the roem of both teams).
    """
    if playing_team == 0:
        return (ns_total, ew_total) if ns_total > ew_total else (0, ns_total + ew_total)
    return (ns_total, ew_total) if ew_total > ns_total else (ns_total + ew_total, 0)


# ------------------------------------------------------------------ validation and moves


def _prepare(
    hands: Sequence[int], trump: int, leader: int, trick: Sequence[tuple[int, int]], o: Options
) -> _State:
    unknown = set(o) - set(Options.__annotations__)
    if unknown:
        raise TypeError(f"unknown solver option(s): {sorted(unknown)}")
    if len(hands) != 4 or trump not in range(4) or leader not in range(4):
        raise ValueError("need four hands, trump 0..3 and leader 0..3")
    playing = o.get("playing_team")
    if playing not in (None, 0, 1):
        raise ValueError("playing_team must be 0, 1 or None")
    hs = (int(hands[0]), int(hands[1]), int(hands[2]), int(hands[3]))
    seen = 0
    for h in hs:
        if h < 0 or h >> 32 or h & seen:
            raise ValueError("hands must be disjoint 32-bit masks")
        seen |= h
    cards = []
    for i, (seat, card) in enumerate(trick):
        if seat != (leader + i) % 4:
            raise ValueError("trick seats must follow the leader clockwise")
        if card not in range(32) or seen >> card & 1:
            raise ValueError(f"bad or repeated trick card {card}")
        seen |= 1 << card
        cards.append(card)
    k = len(cards)
    n = hs[(leader + k) % 4].bit_count()  # cards of the player to move = tricks left
    if k > 3 or any(hs[i].bit_count() != n - ((i - leader) % 4 < k) for i in range(4)):
        raise ValueError("hand sizes do not fit the trick")
    completed = 8 - n
    tricks = o.get("tricks_taken")
    if tricks is None and completed == 0:
        tricks = (0, 0)
    pit = 0
    if o.get("pit", True) and tricks is not None:
        if sum(tricks) != completed:
            raise ValueError("tricks_taken does not match the cards left")
        defender_pit = o.get("defender_pit", True)
        if tricks[1] == 0 and (playing != 1 or defender_pit):
            pit |= 1
        if tricks[0] == 0 and (playing != 0 or defender_pit):
            pit |= 2
    rule = play_rule_id(o.get("play_rule", "amsterdam"))
    objective = o.get("objective", "diff")
    if objective not in _OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}")
    mode = _OBJECTIVES[objective]
    if mode == MODE_SCORE and (playing is None or rule == KLAMMERN):
        raise ValueError("objective 'score' needs playing_team and Klaverjassen rules (§6)")
    name = o.get("backend") or DEFAULT_BACKEND
    if name not in _BACKENDS:
        raise ValueError(f"search backend not available: {name!r}")
    taken = o.get("taken", (0, 0))
    if not all(0 <= t <= 5000 for t in taken):  # the C table stores values as int16
        raise ValueError("taken points must be 0..5000 per team")
    return _State(
        hs, trump, rule, bool(o.get("roem", True)), int(o.get("four_low_cards", 0)), pit,
        leader, tuple(cards), int(taken[0]), int(taken[1]),
        -1 if playing is None else playing, mode, _BACKENDS[name],
    )  # fmt: skip


def _to_move(st: _State) -> int:
    return (st.leader + len(st.trick)) % 4


def _legal(st: _State) -> int:
    seat = _to_move(st)
    seats = tuple((st.leader + i) % 4 for i in range(len(st.trick)))
    return legal_mask(st.hands[seat], st.trick, seats, seat, st.trump, st.rule)


def _play(st: _State, card: int) -> _State:
    """The state after the player to move plays ``card`` (resolving a completed trick)."""
    seat = _to_move(st)
    h = list(st.hands)
    h[seat] &= ~(1 << card)
    hands = (h[0], h[1], h[2], h[3])
    trick = (*st.trick, card)
    if len(trick) < 4:
        return st._replace(hands=hands, trick=trick)
    winner = trick_winner(trick, tuple((st.leader + i) % 4 for i in range(4)), st.trump)
    mask = (1 << trick[0]) | (1 << trick[1]) | (1 << trick[2]) | (1 << trick[3])
    total = trick_points(mask, st.trump)
    if st.roem:
        total += roem_of_mask(mask, st.trump, st.four_low)
    if not (hands[0] | hands[1] | hands[2] | hands[3]):
        total += LAST_TRICK_BONUS
    done = st._replace(hands=hands, trick=(), leader=winner)
    if winner % 2 == 0:
        return done._replace(ns=st.ns + total, pit=st.pit & 1)
    return done._replace(ew=st.ew + total, pit=st.pit & 2)


# ------------------------------------------------------------------------------ bounds


def _roem_bound(st: _State, rest: int) -> int:
    """Upper bound on all roem still possible from the cards ``rest`` (§5)."""
    if not st.roem:
        return 0
    runs = 0
    best_run = 0
    for s in range(4):
        b = (rest >> (8 * s)) & 0xFF
        r3 = b & (b >> 1) & (b >> 2)
        if r3:
            runs += b.bit_count() // 3
            best_run = max(best_run, 50 if r3 & (b >> 3) else 20)
    total = min(runs, rest.bit_count() // 4) * best_run
    stuk = (1 << (8 * st.trump + 6)) | (1 << (8 * st.trump + 5))
    if rest & stuk == stuk and all(h & stuk != stuk for h in st.hands):
        total += 20
    four = rest & (rest >> 8) & (rest >> 16) & (rest >> 24) & 0xFF
    for r in range(8):
        if four >> r & 1:
            total += 200 if r == 4 else 100 if r >= 3 else st.four_low
    return total


def _total_bounds(st: _State) -> tuple[int, int]:
    """Smallest and largest possible final NS + EW total (points, roem, pit)."""
    rest = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
    for c in st.trick:
        rest |= 1 << c
    pts = POINTS[st.trump]
    least = st.ns + st.ew + sum(pts[c] for c in range(32) if rest >> c & 1)
    if rest:
        least += LAST_TRICK_BONUS
    return least, least + _roem_bound(st, rest) + (PIT_BONUS if st.pit else 0)


def _diff_bounds(st: _State) -> tuple[int, int]:
    """Bounds on the final NS − EW points: one side takes everything that is left."""
    most = _total_bounds(st)[1]
    left = most - st.ns - st.ew - (PIT_BONUS if st.pit else 0)
    base = st.ns - st.ew
    return (
        base - left - (PIT_BONUS if st.pit & 2 else 0),
        base + left + (PIT_BONUS if st.pit & 1 else 0),
    )


# ------------------------------------------------------------------------------ drivers


def _search(
    st: _State, mode: int, alpha: int, new_tt: bool, lim: _Limits | None = None, spent: int = 0
) -> tuple[int, int, int]:
    """One null-window search ``(alpha, alpha + 1)``: (fail-soft value, best card, nodes).

    With ``lim`` (``spent`` nodes already used), raises :class:`_Abandoned` with the nodes
    searched in total when a limit is reached, before or during the search.
    """
    limit, budget_ms = 0, 0.0
    if lim is not None:
        if lim.max_nodes is not None:
            limit = lim.max_nodes - spent
            if limit <= 0:
                raise _Abandoned(spent)
        if lim.deadline is not None:
            budget_ms = (lim.deadline - time.perf_counter()) * 1000
            if budget_ms <= 0:
                raise _Abandoned(spent)
    v, best, nodes = st.backend(
        st.hands, st.trump, st.rule, st.roem, st.four_low, st.pit, st.leader, st.trick,
        st.ns, st.ew, mode, st.playing, alpha, alpha + 1, new_tt, limit, budget_ms,
    )  # fmt: skip
    if best == _ddpy.ABANDONED:
        raise _Abandoned(spent + nodes)
    return v, best, nodes


class _Abandoned(Exception):
    """Raised inside a solve that ran into its :class:`_Limits` (``nodes`` searched so far)."""

    def __init__(self, nodes: int) -> None:
        super().__init__(nodes)
        self.nodes = nodes


class _Limits(NamedTuple):
    """Limits of one :func:`solve_moves` call: ``max_nodes`` in total (None: none) and a
    ``deadline`` in :func:`time.perf_counter` seconds (None: none)."""

    max_nodes: int | None
    deadline: float | None


def _mtd(
    st: _State,
    mode: int,
    guess: int,
    bounds: tuple[int, int],
    new_tt: bool,
    lim: _Limits | None = None,
    spent: int = 0,
) -> tuple[int, int, int]:
    """Exact value within the a-priori ``bounds`` (inclusive) by null-window searches.

    Each test "value > t?" moves the lower or upper bound to the fail-soft result; t gallops
    away from the failing side in steps 2, 4, 8, ... and bisects once bracketed. The best
    card of the player to move comes from a search that proved the value on their side
    (fail-high for NS, fail-low for EW); the root is always expanded, never cut by the table.

    ``lim`` (optional; ``spent`` nodes already used by the caller): raises
    :class:`_Abandoned` when a limit is reached.
    """
    maxing = _to_move(st) % 2 == 0
    lower, upper = bounds
    nodes = 0
    best = -1
    t = min(max(guess, lower), upper - 1)
    step, last = 2, 0
    while lower < upper:
        v, b, n = _search(st, mode, t, new_tt, lim, spent + nodes)
        new_tt = False
        nodes += n
        d = 1 if v > t else -1
        if d > 0:
            lower = v
        else:
            upper = v
        if (d > 0) == maxing:
            best = b
        step = step * 2 if d == last else 2
        last = d
        t = lower + step - 1 if d > 0 else upper - step
        if upper - lower <= 2 * step:
            t = (lower + upper) // 2
        t = max(lower, min(t, upper - 1))
    if best < 0 and (st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]):
        # The value sits on an a-priori bound, never proven from the mover's side.
        best, n = _search(st, mode, lower - 1 if maxing else lower, new_tt, lim, spent + nodes)[1:]
        nodes += n
    return lower, best, nodes


def _exact(
    st: _State,
    new_tt: bool,
    guess: int = 0,
    lim: _Limits | None = None,
    spent: int = 0,
) -> tuple[int, int, int]:
    """Exact value of ``st`` for its objective; see the module docstring for the nat phase.

    ``lim``/``spent``: as for :func:`_mtd` (raises :class:`_Abandoned`).
    """
    v, best, nodes = _mtd(st, MODE_DIFF, guess, _diff_bounds(st), new_tt, lim, spent)
    if st.mode == MODE_DIFF or ((v > 0) if st.playing == 0 else (v < 0)):
        return v, best, nodes  # made: the round-score difference equals the point difference
    # Nat for the playing team: the value is ∓ the final total of the best nat line, which
    # the defenders maximise (more roem) and the playing team minimises (§6.3).
    least, most = _total_bounds(st)
    if st.playing == 0:
        v2, best2, n2 = _mtd(st, MODE_SCORE, -least, (-most, -least), False, lim, spent + nodes)
    else:
        v2, best2, n2 = _mtd(st, MODE_SCORE, least, (least, most), False, lim, spent + nodes)
    return v2, best2, nodes + n2


# ------------------------------------------------------------------------------ public API


def solve(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    **options: Unpack[Options],
) -> SolveResult:
    """Exact value of the position (NS − EW, points or round score; module docstring)."""
    st = _prepare(hands, trump, leader, trick, options)
    return SolveResult(*_exact(st, True))


def solve_moves(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    max_nodes: int | None = None,
    deadline: float | None = None,
    **options: Unpack[Options],
) -> MovesResult:
    """Exact value (NS − EW) after each legal card of the player to move (PIMC input).

    The root value is the max (NS to move) or min (EW to move) of these values. Each value is
    a full solve of the position after the card; the table is shared between them.

    ``max_nodes`` (total search nodes) and ``deadline`` (a :func:`time.perf_counter` value):
    when either is reached, even inside a search, the call ends and ``values`` holds only the
    cards fully solved so far (each still exact; possibly none); ``nodes`` counts every node
    searched. Limits are checked every 1,024 nodes, so a node limit keeps the result
    deterministic and the time limit is kept to well under a millisecond; a search that ends
    between two checks may pass ``max_nodes`` by up to 1,023 nodes (its value still counts).
    """
    st = _prepare(hands, trump, leader, trick, options)
    values: dict[int, int] = {}
    nodes = 0
    legal = _legal(st)
    guess = 0
    lim = None if max_nodes is None and deadline is None else _Limits(max_nodes, deadline)
    for c in range(32):
        if legal >> c & 1:
            try:
                guess, _, n = _exact(_play(st, c), not values, guess, lim, nodes)
            except _Abandoned as e:
                nodes = e.nodes
                break
            values[c] = guess
            nodes += n
    return MovesResult(_to_move(st), values, nodes)


def null_window(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    threshold: int,
    team: int = 0,
    **options: Unpack[Options],
) -> NullResult:
    """Does ``team`` (0 = NS, 1 = EW) end with (own − other) > ``threshold``?

    ``objective="diff"``: one null-window search on the points (§1, §5, §6.4), much cheaper
    than :func:`solve`. ``"score"``: the round-score difference (§6.2, §6.3), by an exact
    solve. ``bound`` is a fail-soft bound on the NS − EW value: a lower bound if the NS-side
    test "NS − EW > t" succeeded, else an upper bound (t = threshold for team 0,
    -threshold - 1 for team 1).
    """
    st = _prepare(hands, trump, leader, trick, options)
    # EW − NS > t  <=>  NS − EW <= -t - 1  <=>  not (NS − EW > -t - 1).
    t = threshold if team == 0 else -threshold - 1
    if st.mode == MODE_DIFF:
        v, _, nodes = _search(st, MODE_DIFF, t, True)
    else:
        v, _, nodes = _exact(st, True)
    return NullResult(v > t if team == 0 else not v > t, v, nodes)


def exceeds(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    *,
    threshold: int,
    team: int = 0,
    **options: Unpack[Options],
) -> bool:
    """:func:`null_window`'s answer only."""
    return null_window(hands, trump, leader, trick, threshold=threshold, team=team, **options)[0]


def made(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    **options: Unpack[Options],
) -> bool:
    """Whether ``options["playing_team"]`` ends with strictly more points than the defenders.

    Klaverjassen: made rather than nat (``rules.md`` §6.2, §6.3); Klammern: the playing team
    wins the round (§9.8, equal points go to the defenders). One null-window search.
    """
    team = options.get("playing_team")
    if team not in (0, 1):
        raise ValueError("made() needs playing_team 0 or 1")
    o: Options = {**options, "objective": "diff"}
    return null_window(hands, trump, leader, trick, threshold=0, team=team, **o).exceeds
