"""Strategy fusion at the root, measured (``bench/bench_fusion.py``, ``docs/ai-history.md``
§9): :func:`solve_next` follows every legal card one decision deep with the
double-dummy solver of :mod:`engine.ai.dd` (its private search, same table and limits).

    solve_next(hands, trump, leader, trick=(), **options)
        -> NextResult(seat, plays: dict[card, NextPlay(value, replies, next_values)], nodes)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Unpack

from engine.ai.dd import Options, _exact, _legal, _play, _prepare, _to_move


class NextPlay(NamedTuple):
    """One legal card of :func:`solve_next`: ``value`` as in :func:`solve_moves`; ``replies``,
    the other seats' double-dummy best cards after it until the same player is to move again,
    in play order (0 to 6: the rest of this trick, then the next trick's cards before its
    turn, which depends on who wins this one; none when its hand is then empty);
    ``next_values``, the value after each legal card of that player at
    its next decision (empty when it has none)."""

    value: int
    replies: tuple[int, ...]
    next_values: dict[int, int]


class NextResult(NamedTuple):
    """:func:`solve_next`'s answer: the ``seat`` to move, a :class:`NextPlay` per legal card,
    ``nodes`` searched in total."""

    seat: int
    plays: dict[int, NextPlay]
    nodes: int


def solve_next(
    hands: Sequence[int],
    trump: int,
    leader: int,
    trick: Sequence[tuple[int, int]] = (),
    **options: Unpack[Options],
) -> NextResult:
    """Every legal card of the player to move, followed one decision deep: its exact value,
    the other seats' replies of a double-dummy line after it, and the exact value of each card
    of the player's next decision at the end of that line.

    What it is for: measuring strategy fusion at the root (``bench/bench_fusion.py``). PIMC
    takes a card's value in a world as if the player chose its next card knowing that world;
    a player who must choose one card for every world that leads to the same next decision
    (the same replies) gets at most that. The value is kept along the line: ``value`` is the
    best of ``next_values`` for the player (the max for NS, the min for EW) whenever those
    exist. The replies are one best line of several when they tie (the solver's choice). One
    table is shared by all the searches of the call (no limits).

    Raises:
        ValueError, TypeError: as :func:`solve`.
    """
    st = _prepare(hands, trump, leader, trick, options)
    me = _to_move(st)
    legal = _legal(st)
    plays: dict[int, NextPlay] = {}
    nodes = 0
    first = True
    for a in range(32):
        if not legal >> a & 1:
            continue
        after = _play(st, a)
        value, _, n = _exact(after, first)
        first = False
        nodes += n
        replies: list[int] = []
        t = after
        while t.hands[me] and _to_move(t) != me:
            _, card, n = _exact(t, False, value)
            nodes += n
            replies.append(card)
            t = _play(t, card)
        next_values: dict[int, int] = {}
        if t.hands[me]:
            mine = _legal(t)
            for b in range(32):
                if mine >> b & 1:
                    next_values[b], _, n = _exact(_play(t, b), False, value)
                    nodes += n
        plays[a] = NextPlay(value, tuple(replies), next_values)
    return NextResult(me, plays, nodes)
