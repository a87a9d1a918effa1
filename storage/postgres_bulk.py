"""Verbatim imports for :mod:`storage.postgres` (a copy between databases), inside a
transaction the caller opened. The checks and the rows are shared with the SQLite backend
(:mod:`storage.imports`); the rows go in with ``COPY`` (asyncpg's binary copy), the fastest way
into PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.imports import ACTION_COLUMNS, GAME_COLUMNS, SEAT_COLUMNS, Row, plan_import
from storage.postgres_rows import Conn
from storage.rows import OPEN_STATUSES, GameHistory

_OPEN = sorted(s.value for s in OPEN_STATUSES)


async def import_rows(conn: Conn, table: str, columns: Sequence[str], rows: Sequence[Row]) -> None:
    """Insert ``rows`` (in the order of ``columns``; the first column is the key) into
    ``table``, overwriting rows with the same key: users and chats are last-writer-wins."""
    names = ", ".join(columns)
    values = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
    updates = ", ".join(f"{c} = excluded.{c}" for c in columns[1:])
    await conn.executemany(
        f"INSERT INTO {table} ({names}) VALUES ({values}) "
        f"ON CONFLICT ({columns[0]}) DO UPDATE SET {updates}",
        rows,
    )


async def import_games(conn: Conn, histories: Sequence[GameHistory]) -> None:
    """See :meth:`Repository.import_games`. Moves the ``game_id`` sequence past the imported
    ids, so the next ``create_game`` gets a new one."""
    plan = plan_import(histories)
    if not plan.game_ids:
        return
    existing = await conn.fetch(
        "SELECT game_id FROM games WHERE game_id = ANY($1::bigint[])", plan.game_ids
    )
    chats = await conn.fetch(
        "SELECT chat_id FROM chats WHERE chat_id = ANY($1::bigint[]) FOR KEY SHARE",
        sorted(plan.chat_ids),
    )
    users = await conn.fetch(
        "SELECT user_id FROM users WHERE user_id = ANY($1::bigint[]) FOR KEY SHARE",
        sorted(plan.user_ids),
    )
    open_rows = await conn.fetch(
        "SELECT chat_id, game_id FROM games WHERE chat_id = ANY($1::bigint[]) "
        "AND status = ANY($2::text[])",
        sorted(plan.open_games),
        _OPEN,
    )
    plan.check(
        existing=[r["game_id"] for r in existing],
        chats=[r["chat_id"] for r in chats],
        users=[r["user_id"] for r in users],
        open_in_target={r["chat_id"]: r["game_id"] for r in open_rows},
    )
    await conn.copy_records_to_table("games", records=plan.games, columns=GAME_COLUMNS)
    await conn.copy_records_to_table("game_seats", records=plan.seats, columns=SEAT_COLUMNS)
    if plan.actions:
        await conn.copy_records_to_table(
            "game_actions", records=plan.actions, columns=ACTION_COLUMNS
        )
    # games_game_id_seq: the identity sequence migration 1 made; never moved back.
    await conn.execute(
        "SELECT setval('games_game_id_seq', "
        "GREATEST(MAX(game_id), (SELECT last_value FROM games_game_id_seq))) FROM games"
    )
