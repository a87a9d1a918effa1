"""Whole-database reads and verbatim imports for :mod:`storage.sqlite` (a copy between
databases), each run inside a transaction the caller opened. The checks and the rows are
shared with the PostgreSQL backend (:mod:`storage.imports`).
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.imports import (
    ACTION_COLUMNS,
    CHAT_COLUMNS,
    GAME_COLUMNS,
    SEAT_COLUMNS,
    USER_COLUMNS,
    chat_row,
    plan_import,
    user_row,
)
from storage.rows import OPEN_STATUSES, Chat, GameHistory, RowCounts, User
from storage.sqlite_rows import Tx, load_games, placeholders
from storage.stats_rows import EXTRA_TABLES

_OPEN = tuple(sorted(s.value for s in OPEN_STATUSES))


async def row_counts(tx: Tx) -> RowCounts:
    """See :meth:`Repository.row_counts`."""
    row = await tx.one(
        "SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM chats), "
        "(SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM game_seats), "
        "(SELECT COUNT(*) FROM game_actions), "
        + ", ".join(f"(SELECT COUNT(*) FROM {table})" for table in EXTRA_TABLES)
    )
    assert row is not None
    return RowCounts(*(int(v) for v in row))


async def load_histories(tx: Tx, after: int, limit: int) -> list[GameHistory]:
    """See :meth:`Repository.game_histories`."""
    where = "g.game_id IN (SELECT game_id FROM games WHERE game_id > ? ORDER BY game_id LIMIT ?)"
    found = await load_games(tx, where, (after, limit), with_actions=True)
    if not found:
        return []
    times: dict[int, list[float]] = {g.game_id: [] for g in found}
    rows = await tx.all(
        "SELECT game_id, created_at FROM game_actions "
        f"WHERE game_id IN ({placeholders(len(times))}) ORDER BY game_id, seq",
        list(times),
    )
    for r in rows:
        times[int(r["game_id"])].append(float(r["created_at"]))
    return [GameHistory(g, tuple(times[g.game_id])) for g in found]


def _upsert(table: str, columns: Sequence[str]) -> str:
    """``INSERT`` of every column that overwrites an existing row (the first column is the
    key): users and chats are last-writer-wins."""
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))}) "
        f"ON CONFLICT ({columns[0]}) DO UPDATE SET {updates}"
    )


async def import_users(tx: Tx, users: Sequence[User]) -> None:
    """See :meth:`Repository.import_users`."""
    await tx.many(_upsert("users", USER_COLUMNS), [user_row(u) for u in users])


async def import_chats(tx: Tx, chats: Sequence[Chat]) -> None:
    """See :meth:`Repository.import_chats`."""
    await tx.many(_upsert("chats", CHAT_COLUMNS), [chat_row(c) for c in chats])


async def _ids(tx: Tx, sql: str, ids: Sequence[int]) -> list[int]:
    """The first column of ``sql`` (with ``{}`` for the IN list) over ``ids``, in chunks that
    stay below SQLite's parameter limit."""
    found: list[int] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = await tx.all(sql.format(placeholders(len(chunk))), chunk)
        found.extend(int(r[0]) for r in rows)
    return found


async def import_games(tx: Tx, histories: Sequence[GameHistory]) -> None:
    """See :meth:`Repository.import_games` (AUTOINCREMENT follows the imported ids)."""
    plan = plan_import(histories)
    if not plan.game_ids:
        return
    open_in_target: dict[int, int] = {}
    for start in range(0, len(plan.open_games), 500):
        chunk = sorted(plan.open_games)[start : start + 500]
        rows = await tx.all(
            f"SELECT chat_id, game_id FROM games WHERE chat_id IN ({placeholders(len(chunk))}) "
            f"AND status IN ({placeholders(len(_OPEN))})",
            (*chunk, *_OPEN),
        )
        open_in_target.update({int(r["chat_id"]): int(r["game_id"]) for r in rows})
    plan.check(
        existing=await _ids(tx, "SELECT game_id FROM games WHERE game_id IN ({})", plan.game_ids),
        chats=await _ids(
            tx, "SELECT chat_id FROM chats WHERE chat_id IN ({})", sorted(plan.chat_ids)
        ),
        users=await _ids(
            tx, "SELECT user_id FROM users WHERE user_id IN ({})", sorted(plan.user_ids)
        ),
        open_in_target=open_in_target,
    )
    for table, columns, values in (
        ("games", GAME_COLUMNS, plan.games),
        ("game_seats", SEAT_COLUMNS, plan.seats),
        ("game_actions", ACTION_COLUMNS, plan.actions),
    ):
        await tx.many(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders(len(columns))})",
            values,
        )
