"""Pure-Python double-dummy search core: the reference for, and fallback of, the C core ``_dd``.

Both cores expose the same single function :func:`search` (see :mod:`engine.ai.dd` for the
public API and for what the arguments mean). The search is fail-soft alpha-beta over single card
plays with a transposition table at trick boundaries, move ordering (TT move, cheap winners,
smearing points on the partner's trick) and sound equivalent-card pruning.

Values are absolute: the final objective value of the deal given the points already taken,
North–South's point of view (NS maximises, EW minimises). Objectives (``mode``):

* :data:`MODE_DIFF` – final (NS points − EW points), card points + last trick 10 + roem + pit
  (``rules.md`` §1.4, §5, §6.4). Additive, so TT entries store values relative to the points
  taken so far and are reused across different point histories.
* :data:`MODE_SCORE` – final NS round score − EW round score with the nat rule (§6.2, §6.3) for
  ``playing`` team (0 = NS, 1 = EW). Not additive: the TT key includes the points so far.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from engine.ai._stack import call_with_fresh_stack
from engine.ai.bitrules import (
    ABOVE,
    KLAMMERN,
    LAST_TRICK_BONUS,
    PIT_BONUS,
    POINTS,
    ROTTERDAM,
    STRENGTH,
    SUIT_MASKS,
    roem_table,
)

MODE_DIFF = 0
MODE_SCORE = 1
ABANDONED = -2
"""``best_card`` of a search that a node or time limit ended (its value means nothing)."""
CHECK_EVERY = 1023
"""Limits are checked when ``nodes & CHECK_EVERY == 0`` (every 1,024 nodes, as in ``_dd``)."""

_TT: dict[tuple[int, ...], list[int]] = {}
_TT_SETTINGS: list[tuple[int, ...]] = [()]
_TT_LIMIT = 2_000_000
_LOCK = threading.Lock()


def _between_table(trump: int) -> tuple[tuple[int, ...], ...]:
    """``[c][d]`` mask of the same-suit cards strictly between c and d in trick strength."""
    st = STRENGTH[trump]
    rows = []
    for c in range(32):
        row = []
        for d in range(32):
            m = 0
            if c >> 3 == d >> 3:
                lo, hi = sorted((st[c], st[d]))
                for e in range(8 * (c >> 3), 8 * (c >> 3) + 8):
                    if lo < st[e] < hi:
                        m |= 1 << e
            row.append(m)
        rows.append(tuple(row))
    return tuple(rows)


_BETWEEN = tuple(_between_table(t) for t in range(4))


def _run_windows(card: int) -> tuple[int, ...]:
    """Masks of the other two cards of every natural-order 3-window containing ``card`` (§5.2)."""
    s, r = card >> 3, card & 7
    out = []
    for k in range(max(0, r - 2), min(r, 5) + 1):
        out.append(sum(1 << (8 * s + j) for j in range(k, k + 3)) & ~(1 << card))
    return tuple(out)


_RUN_WINDOWS = tuple(_run_windows(c) for c in range(32))
_RANK_OTHERS = tuple(sum(1 << (8 * s + (c & 7)) for s in range(4)) & ~(1 << c) for c in range(32))


def _roem_free(card: int, avail: int, four_low: int) -> bool:
    """Whether ``card`` can never be part of roem with cards from ``avail`` (other holders)."""
    for w in _RUN_WINDOWS[card]:
        if w & avail == w:
            return False
    others = _RANK_OTHERS[card]
    return not (four_low and others & avail == others)


def _legal_fn(trump: int, rule: int) -> Callable[[int, int, int, bool], int]:
    """The search's move generator for a non-empty trick (``rules.md`` §4.5, §9.4):
    ``legal(hand, led, wcard, partner_win)``; the lead (any card) is handled by the caller."""
    tmask = SUIT_MASKS[trump]
    above = ABOVE[trump]

    def legal(hand: int, led: int, wcard: int, partner_win: bool) -> int:
        tr = hand & tmask
        if led == trump:
            return (tr & above[wcard]) or tr or hand
        follow = hand & SUIT_MASKS[led]
        if follow:
            return follow
        if not tr:
            return hand
        w_trump = wcard >> 3 == trump
        ht = tr & above[wcard] if w_trump else tr
        if rule == ROTTERDAM:
            return ht or tr
        nt = hand & ~tmask
        if rule == KLAMMERN or not partner_win:
            return ht or nt or hand
        if not w_trump:
            return hand
        return (nt | ht) or hand

    return legal


def search(
    hands: tuple[int, int, int, int],
    trump: int,
    rule: int,
    roem: bool,
    four_low: int,
    pit: int,
    leader: int,
    trick: tuple[int, ...],
    ns: int,
    ew: int,
    mode: int,
    playing: int,
    alpha: int,
    beta: int,
    new_tt: bool,
    limit: int = 0,
    budget_ms: float = 0.0,
) -> tuple[int, int, int]:
    """Fail-soft alpha-beta value of a position (the backend contract, shared with ``_dd``).

    Args:
        hands: the four hands (masks) by seat 0..3.
        trump: trump suit 0..3. rule: play rule id (``bitrules.AMSTERDAM`` 0, ``ROTTERDAM`` 1,
            ``KLAMMERN`` 2). roem: score trick roem (§5). four_low: roem of four 9s/8s/7s.
        pit: bit 0: NS still wins pit by taking every remaining trick; bit 1: EW (§6.4).
        leader: the seat that led the current trick; trick: its cards in play order (0..3).
        ns, ew: points already taken by NS and EW.
        mode: :data:`MODE_DIFF` or :data:`MODE_SCORE`; playing: the playing team 0/1 for
            MODE_SCORE (-1 unknown).
        alpha, beta: the search window (NS − EW values).
        new_tt: clear the transposition table first. It is also cleared when trump, rule,
            roem, four_low or playing differ from the previous call; otherwise entries are
            reused (they are exact bounds for their key in any deal).
        limit: abandon the search after this many nodes (0: no limit); budget_ms: abandon it
            after this much wall-clock time (0: none). Both are checked every 1,024 nodes
            (when ``nodes % 1024 == 0``), so a node limit keeps results deterministic.

    Returns:
        ``(value, best_card, nodes)``. value v: v <= alpha → true value <= v; v >= beta →
        true value >= v; otherwise exact. best_card is the root card that produced v (a proof
        of v when it is a bound on the mover's side or exact; -1 when no card is left), or
        :data:`ABANDONED` (value 0) when a limit ended the search; the table then holds only
        entries of completed subtrees, all still valid.
    """
    check_position(hands, trick, leader, mode)
    with _LOCK:  # one search at a time: the table is module state
        return _search(
            hands,
            trump,
            rule,
            roem,
            four_low,
            pit,
            leader,
            trick,
            ns,
            ew,
            mode,
            playing,
            alpha,
            beta,
            new_tt,
            limit,
            budget_ms,
        )


def check_position(
    hands: tuple[int, int, int, int], trick: Sequence[int], leader: int, mode: int
) -> None:
    """The checks both backends make before a search (``_dd.c``'s ``check_position``): four
    hands of 32-bit masks with at most 8 cards each, no card twice in the hands and the trick
    (at most 3 cards, indices 0..31), the hands' sizes those of a real deal (the seats still
    to play to the trick hold one card more than those that played to it), ``leader`` 0..3,
    ``mode`` :data:`MODE_DIFF` or :data:`MODE_SCORE`.

    Raises:
        ValueError: the position breaks one of them.
    """
    if len(hands) != 4 or not 0 <= leader <= 3 or mode not in (MODE_DIFF, MODE_SCORE):
        raise ValueError("bad hands, leader or mode")
    if len(trick) > 3 or any(not 0 <= c <= 31 for c in trick):
        raise ValueError("at most 3 cards in the current trick, indices 0..31")
    seen = 0
    for hand in hands:
        if not 0 <= hand <= 0xFFFFFFFF:
            raise ValueError("a hand must be a mask of 32 bits")
        if hand.bit_count() > 8:
            raise ValueError("a hand has at most 8 cards")
        if seen & hand:
            raise ValueError("a card is in two hands")
        seen |= hand
    for c in trick:
        if seen >> c & 1:
            raise ValueError("a card of the trick is in a hand or twice in it")
        seen |= 1 << c
    nt = len(trick)
    to_play = hands[(leader + nt) & 3].bit_count()
    for k in range(4):
        if hands[(leader + k) & 3].bit_count() != (to_play - 1 if k < nt else to_play):
            raise ValueError("the hands' sizes do not fit the trick")


class _Abandon(Exception):
    """Unwinds a search that ran into its node or time limit."""


def _search(
    hands: tuple[int, int, int, int],
    trump: int,
    rule: int,
    roem: bool,
    four_low: int,
    pit: int,
    leader: int,
    trick: tuple[int, ...],
    ns: int,
    ew: int,
    mode: int,
    playing: int,
    alpha: int,
    beta: int,
    new_tt: bool,
    limit: int = 0,
    budget_ms: float = 0.0,
) -> tuple[int, int, int]:
    settings = (trump, rule, int(roem), four_low, playing)
    if new_tt or settings != _TT_SETTINGS[0] or len(_TT) > _TT_LIMIT:
        _TT.clear()
        _TT_SETTINGS[0] = settings
    tt = _TT
    h = list(hands)
    pts = POINTS[trump]
    above = ABOVE[trump]
    strength = STRENGTH[trump]
    between = _BETWEEN[trump]
    rtab = roem_table(trump, four_low) if roem else {}
    score_mode = mode == MODE_SCORE
    powers = [strength[c] + (8 if c >> 3 == trump else 0) for c in range(32)]
    suit_of = [SUIT_MASKS[c >> 3] for c in range(32)]
    nodes = 0
    root_best = -1
    bounded = limit > 0 or budget_ms > 0
    deadline = time.perf_counter() + budget_ms / 1000 if budget_ms > 0 else 0.0

    def over_limits() -> bool:
        if limit > 0 and nodes > limit:
            return True
        return deadline > 0 and time.perf_counter() > deadline

    def leaf(ns: int, ew: int, pit: int) -> int:
        if pit & 1:
            ns += PIT_BONUS
        if pit & 2:
            ew += PIT_BONUS
        if not score_mode:
            return ns - ew
        if playing == 0:
            return ns - ew if ns > ew else -(ns + ew)
        return ns - ew if ew > ns else ns + ew

    def last_trick(seat: int, ns: int, ew: int, pit: int) -> int:
        """The forced last trick (one card each) and the leaf value after it."""
        wc = h[seat].bit_length() - 1
        ws = seat
        total = pts[wc] + LAST_TRICK_BONUS
        m = h[seat]
        for j in (1, 2, 3):
            s2 = (seat + j) & 3
            c = h[s2].bit_length() - 1
            m |= h[s2]
            total += pts[c]
            if strength[c] > strength[wc] if c >> 3 == wc >> 3 else c >> 3 == trump:
                wc, ws = c, s2
        if roem:
            total += rtab.get(m, 0)
        if ws & 1:
            return leaf(ns, ew + total, pit & 2)
        return leaf(ns + total, ew, pit & 1)

    legal = _legal_fn(trump, rule)

    def order(
        cards: int, seat: int, ntr: int, wcard: int, wseat: int, others: int, ttm: int
    ) -> list[int]:
        """Cards by descending (key, card); keys encoded as ``key * 64 + card`` for speed."""
        if not cards & (cards - 1):
            return [cards.bit_length() - 1]
        keyed = []
        m = cards
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            p = pts[c]
            if c == ttm:
                k = 1000
            elif ntr == 0:
                k = 100 + p if not above[c] & others else -p
            else:
                cs = c >> 3
                ws = wcard >> 3
                win = strength[c] > strength[wcard] if cs == ws else cs == trump
                power = powers[c]
                if (wseat ^ seat) & 1 == 0:
                    k = p - 50 if win else p
                elif win:
                    k = 200 - power if ntr == 3 else 100 - power + p
                else:
                    k = -p
            keyed.append(k * 64 + c)
        keyed.sort(reverse=True)
        return [x & 63 for x in keyed]

    def ab(
        seat: int,
        ntr: int,
        tcards: int,
        led: int,
        wcard: int,
        wseat: int,
        tp: int,
        ns: int,
        ew: int,
        pit: int,
        alpha: int,
        beta: int,
    ) -> int:
        nonlocal nodes, root_best
        nodes += 1
        if bounded and not nodes & CHECK_EVERY and over_limits():
            raise _Abandon
        ttm = -1
        key: tuple[int, ...] = ()
        base = 0
        if ntr == 0:
            if not (h[0] | h[1] | h[2] | h[3]):
                root_best = -1
                return leaf(ns, ew, pit)
            hand = h[seat]
            if not hand & (hand - 1):
                root_best = hand.bit_length() - 1
                return last_trick(seat, ns, ew, pit)
            if score_mode:
                key = (h[0], h[1], h[2], h[3], seat, pit, ns, ew)
            else:
                key = (h[0], h[1], h[2], h[3], seat, pit)
                base = ns - ew
            e = tt.get(key)
            if e is not None and nodes == 1:
                ttm = e[2]  # the root is always searched: its best card must be proven
            elif e is not None:
                lo, hi, ttm = e[0] + base, e[1] + base, e[2]
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
                alpha = max(alpha, lo)
                beta = min(beta, hi)
        a0, b0 = alpha, beta
        hand = h[seat]
        partner_win = (wseat ^ seat) & 1 == 0
        if ntr == 0:
            moves = hand
        elif led != trump and hand & SUIT_MASKS[led]:
            moves = hand & SUIT_MASKS[led]  # follow suit (§4.1), the common case
        else:
            moves = legal(hand, led, wcard, partner_win)
        others = (h[0] | h[1] | h[2] | h[3]) & ~hand
        maxing = seat & 1 == 0
        best = -100000 if maxing else 100000
        best_card = -1
        searched = 0
        blocking = others | tcards
        for c in order(moves, seat, ntr, wcard, wseat, others, ttm):
            # Equivalent-card pruning: same suit, same points, nothing of another holder between
            # them in strength, and (with roem) neither can ever be part of roem.
            eq = searched & suit_of[c]
            if eq:
                skip = False
                while eq:
                    low = eq & -eq
                    d = low.bit_length() - 1
                    eq ^= low
                    if (
                        pts[d] == pts[c]
                        and not between[c][d] & blocking
                        and (
                            not roem
                            or (
                                _roem_free(c, blocking, four_low)
                                and _roem_free(d, blocking, four_low)
                            )
                        )
                    ):
                        skip = True
                        break
                if skip:
                    continue
            bit = 1 << c
            searched |= bit
            h[seat] = hand ^ bit
            if ntr == 0:
                v = ab((seat + 1) & 3, 1, bit, c >> 3, c, seat, pts[c], ns, ew, pit, alpha, beta)
            else:
                cs = c >> 3
                ws = wcard >> 3
                win = strength[c] > strength[wcard] if cs == ws else cs == trump
                nw, nws = (c, seat) if win else (wcard, wseat)
                if ntr < 3:
                    v = ab(
                        (seat + 1) & 3,
                        ntr + 1,
                        tcards | bit,
                        led,
                        nw,
                        nws,
                        tp + pts[c],
                        ns,
                        ew,
                        pit,
                        alpha,
                        beta,
                    )
                else:
                    total = tp + pts[c]
                    if roem:
                        total += rtab.get(tcards | bit, 0)
                    if not h[seat]:
                        total += LAST_TRICK_BONUS
                    if nws & 1:
                        v = ab(nws, 0, 0, 0, 0, 0, 0, ns, ew + total, pit & 2, alpha, beta)
                    else:
                        v = ab(nws, 0, 0, 0, 0, 0, 0, ns + total, ew, pit & 1, alpha, beta)
            h[seat] = hand
            if maxing:
                if v > best:
                    best, best_card = v, c
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            elif v < best:
                best, best_card = v, c
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        if ntr == 0:
            e = tt.get(key)
            lo, hi = (e[0], e[1]) if e is not None else (-100000, 100000)
            if best <= a0:
                hi = min(hi, best - base)
            elif best >= b0:
                lo = max(lo, best - base)
            else:
                lo = hi = best - base
            tt[key] = [lo, hi, best_card]
        root_best = best_card  # the root returns last, so this ends as the root's card
        return best

    try:
        v = _run(ab, trick, leader, pts, strength, trump, ns, ew, pit, alpha, beta)
    except _Abandon:
        return 0, ABANDONED, nodes
    return v, root_best, nodes


def _run(
    ab: Callable[..., int],
    trick: tuple[int, ...],
    leader: int,
    pts: Sequence[int],
    strength: Sequence[int],
    trump: int,
    ns: int,
    ew: int,
    pit: int,
    alpha: int,
    beta: int,
) -> int:
    """Start the search ``ab`` at the root (a trick boundary or inside ``trick``)."""
    if trick:
        tcards, wi, tp = _trick_facts(trick, pts, strength, trump)
        seat = (leader + len(trick)) & 3
        v = call_with_fresh_stack(
            ab,
            seat,
            len(trick),
            tcards,
            trick[0] >> 3,
            trick[wi],
            (leader + wi) & 3,
            tp,
            ns,
            ew,
            pit,
            alpha,
            beta,
        )
    else:
        v = call_with_fresh_stack(ab, leader, 0, 0, 0, 0, 0, 0, ns, ew, pit, alpha, beta)
    return v


def _trick_facts(
    trick: Sequence[int], pts: Sequence[int], strength: Sequence[int], trump: int
) -> tuple[int, int, int]:
    """The root's view of a partial trick: ``(card mask, position of the card now winning
    (§4.6), card points so far)``."""
    tcards = 0
    wi = 0
    tp = 0
    for i, c in enumerate(trick):
        tcards |= 1 << c
        tp += pts[c]
        if i and (
            strength[c] > strength[trick[wi]] if c >> 3 == trick[wi] >> 3 else c >> 3 == trump
        ):
            wi = i
    return tcards, wi, tp


def legal_mask(hand: int, trump: int, rule: int, leader: int, trick: Sequence[int]) -> int:
    """Test hook: the cards of ``hand`` the search generates as moves for the seat to play to
    ``trick`` (led by ``leader``), through the search's own root set-up and move generator
    (``rules.md`` §4.5, §9.4). ``tests/engine/test_rules_core.py`` proves it equal to the
    engine's :func:`engine.rules.legal_mask`."""
    if not trick:
        return hand  # ab: ntr == 0, any card
    _, wi, _ = _trick_facts(trick, POINTS[trump], STRENGTH[trump], trump)
    led = trick[0] >> 3
    wseat = (leader + wi) & 3
    seat = (leader + len(trick)) & 3
    partner_win = (wseat ^ seat) & 1 == 0
    # The same dispatch as in ab: the follow-suit fast path, then the generator.
    if led != trump and hand & SUIT_MASKS[led]:
        return hand & SUIT_MASKS[led]
    return _legal_fn(trump, rule)(hand, led, trick[wi], partner_win)
