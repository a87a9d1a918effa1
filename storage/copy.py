"""Copying a whole database to another one (any backend to any backend), and comparing two
databases row by row: the storage half of ``python -m bot.admin copy``.

A copy writes the users, then the chats (one transaction each), then the games page by page
(one transaction per page) with :meth:`Repository.import_games`, so ids, versions, timers,
message ids and action logs arrive as they are and the bot continues on the target where it
stopped on the source. Stop the bot while copying: a game that changes during the copy shows up
as a difference when the two are compared.

Every table is carried: users, chats, games, game_seats, game_actions, then the standings'
tables of migration 4 (:data:`storage.stats_rows.EXTRA_TABLES`: the daily's attempts and pars,
board choices, the bot's values, the statistics and ratings) in one transaction after the
games, verbatim (a new table must be added here, to :class:`storage.rows.RowCounts` and to
both backends' imports; ``tests/storage/test_copy.py`` fails until it is).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import fields

from storage.errors import StorageError
from storage.repository import Repository
from storage.rows import Game, GameHistory, RowCounts
from storage.stats_rows import EXTRA_TABLES

PAGE = 200
"""Games per page (per import transaction)."""


class TargetNotEmpty(StorageError):
    """The copy's target already holds rows (and no resume was asked for).

    Attributes:
        counts: what the target holds.
    """

    def __init__(self, counts: RowCounts) -> None:
        super().__init__(
            f"the target is not empty ({counts.users} users, {counts.chats} chats, "
            f"{counts.games} games)"
        )
        self.counts = counts


class CopyConflict(StorageError):
    """Resuming a copy found a game in the target that is not the source's.

    Attributes:
        game_id: the game.
    """

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} in the target differs from the source's")
        self.game_id = game_id


async def copy_database(
    source: Repository, target: Repository, *, resume: bool = False, page: int = PAGE
) -> RowCounts:
    """Copy every user, chat and game of ``source`` into ``target``; return the source's row
    counts as they were at the start.

    ``resume``: the target may hold what an earlier copy from the same source wrote before it
    stopped: users and chats are written again, games the target has already are checked to
    be identical and skipped.

    Raises:
        TargetNotEmpty: the target holds rows and ``resume`` is false (nothing written).
        CopyConflict: resuming, a game in the target differs from the source's.
        StorageError: an import was refused (see :meth:`Repository.import_games`).
    """
    counts = await source.row_counts()
    if not resume:
        held = await target.row_counts()
        if not held.is_empty:
            raise TargetNotEmpty(held)
    await target.import_users(await source.all_users())
    await target.import_chats(await source.all_chats())
    after = 0
    while histories := await source.game_histories(after=after, limit=page):
        last = histories[-1].game.game_id
        if resume:
            there = await _histories_between(target, after, last)
            for history in histories:
                found = there.get(history.game.game_id)
                if found is not None and found != history:
                    raise CopyConflict(history.game.game_id)
            histories = [h for h in histories if h.game.game_id not in there]
        await target.import_games(histories)
        after = last
    await target.import_standings(await source.standings_rows())
    return counts


async def _histories_between(repo: Repository, after: int, last: int) -> dict[int, GameHistory]:
    """``repo``'s games with ``after < game_id <= last``, by id."""
    found: dict[int, GameHistory] = {}
    while batch := await repo.game_histories(after=after, limit=PAGE):
        for history in batch:
            if history.game.game_id > last:
                return found
            found[history.game.game_id] = history
        after = batch[-1].game.game_id
    return found


async def paired_histories(
    a: Repository, b: Repository, *, page: int = PAGE
) -> AsyncIterator[tuple[int, GameHistory | None, GameHistory | None]]:
    """Walk both databases' games in id order, page by page: ``(game_id, a's, b's)`` with
    ``None`` where one of them has no game of that id."""
    after = 0
    while True:
        left = {h.game.game_id: h for h in await a.game_histories(after=after, limit=page)}
        right = {h.game.game_id: h for h in await b.game_histories(after=after, limit=page)}
        if not left and not right:
            return
        # Only ids below both pages' ends are complete on both sides.
        ends = [max(side) for side in (left, right) if len(side) == page]
        end = min(ends) if ends else max([*left, *right])
        for game_id in sorted({*left, *right}):
            if game_id <= end:
                yield game_id, left.get(game_id), right.get(game_id)
        after = end


def game_differences(a: Game, b: Game) -> list[str]:
    """The names of the fields in which two game rows differ."""
    return [f.name for f in fields(Game) if getattr(a, f.name) != getattr(b, f.name)]


async def row_differences(a: Repository, b: Repository) -> list[str]:
    """How ``a`` and ``b`` differ in their row counts, users, chats and the standings'
    tables, one line each (empty: the same). Games: :func:`paired_histories`."""
    out: list[str] = []
    counts_a, counts_b = await a.row_counts(), await b.row_counts()
    for f in fields(RowCounts):
        if getattr(counts_a, f.name) != getattr(counts_b, f.name):
            out.append(
                f"{f.name}: {getattr(counts_a, f.name)} rows in the source, "
                f"{getattr(counts_b, f.name)} in the target"
            )
    for kind, rows_a, rows_b in (
        ("user", await a.all_users(), await b.all_users()),
        ("chat", await a.all_chats(), await b.all_chats()),
    ):
        by_id_a = {getattr(r, f"{kind}_id"): r for r in rows_a}
        by_id_b = {getattr(r, f"{kind}_id"): r for r in rows_b}
        for key in sorted(by_id_a.keys() | by_id_b.keys()):
            if by_id_a.get(key) != by_id_b.get(key):
                out.append(f"{kind} {key} differs")
    extra_a, extra_b = await a.standings_rows(), await b.standings_rows()
    for table in EXTRA_TABLES:
        if extra_a.get(table) != extra_b.get(table):
            out.append(f"{table} rows differ")
    return out
