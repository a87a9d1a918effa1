"""SQLite rows → :mod:`storage.rows` values, and the one query that loads games.

Internal to :mod:`storage.sqlite`; kept apart so the repository module reads as the list of
operations.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import aiosqlite

from storage.rows import (
    SEAT_COUNT,
    Chat,
    Game,
    GameStatus,
    MessageRef,
    Occupant,
    Seat,
    SeatKind,
    TurnTimer,
    User,
)

Params = Sequence[Any]


class Tx:
    """A thin typed wrapper over the connection while a transaction is open."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a query and return every row."""
        return list(await self._conn.execute_fetchall(sql, params))

    async def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """Run a query (or ``... RETURNING``) and return its first row, or ``None``."""
        rows = await self.all(sql, params)
        return rows[0] if rows else None

    async def run(self, sql: str, params: Params = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        async with self._conn.execute(sql, params) as cursor:
            return cursor.rowcount

    async def many(self, sql: str, rows: Sequence[Params]) -> None:
        """Run a statement once per parameter row."""
        if rows:
            async with self._conn.executemany(sql, rows):
                pass


def placeholders(count: int) -> str:
    """``"?, ?, ?"`` for ``count`` parameters (``count >= 1``)."""
    if count < 1:
        raise ValueError("an IN list needs at least one value")
    return ", ".join("?" * count)


def user_from(row: sqlite3.Row) -> User:
    """Decode a ``users`` row."""
    return User(
        user_id=int(row["user_id"]),
        display_name=str(row["display_name"]),
        telegram_language=row["telegram_language"],
        language=row["language"],
        can_message=bool(row["can_message"]),
        updated_at=float(row["updated_at"]),
    )


def chat_from(row: sqlite3.Row) -> Chat:
    """Decode a ``chats`` row."""
    return Chat(
        chat_id=int(row["chat_id"]),
        chat_type=str(row["chat_type"]),
        title=row["title"],
        language=row["language"],
        table_defaults=row["table_defaults"],
        updated_at=float(row["updated_at"]),
    )


def seat_from(row: sqlite3.Row) -> Seat:
    """Decode a ``game_seats`` row."""
    hand = None
    if row["hand_chat_id"] is not None:
        hand = MessageRef(int(row["hand_chat_id"]), int(row["hand_message_id"]))
    occupant = Occupant(
        SeatKind(row["kind"]), row["user_id"], row["display_name"], row["former_user_id"]
    )
    return Seat(
        index=int(row["seat"]),
        occupant=occupant,
        hand_message=hand,
        timeouts=int(row["timeouts"]),
    )


def game_from(row: sqlite3.Row, seats: tuple[Seat, ...], actions: tuple[str, ...] | None) -> Game:
    """Decode a ``games`` row with its (four) seats and optionally its action log."""
    timer = None
    if row["deadline_at"] is not None:
        timer = TurnTimer(
            float(row["deadline_at"]), int(row["deadline_seat"]), bool(row["reminded"])
        )
    return Game(
        game_id=int(row["game_id"]),
        chat_id=int(row["chat_id"]),
        status=GameStatus(row["status"]),
        settings=str(row["settings"]),
        seed=int(row["seed"]),
        creator_id=int(row["creator_id"]),
        language=row["language"],
        version=int(row["version"]),
        snapshot=row["snapshot"],
        action_count=int(row["action_count"]),
        table_message_id=row["table_message_id"],
        timer=timer,
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        seats=seats,
        actions=actions,
        thread_id=row["thread_id"],
    )


async def load_games(
    tx: Tx,
    where: str,
    params: Params,
    *,
    with_actions: bool,
    order_by: str = "g.game_id",
) -> list[Game]:
    """Load the games matching ``where`` (SQL over alias ``g`` for ``games``; trusted text from
    this package only) with their seats, and their actions if asked, in three queries."""
    game_rows = await tx.all(
        f"SELECT g.* FROM games AS g WHERE {where} ORDER BY {order_by}", params
    )
    if not game_rows:
        return []
    seats: dict[int, list[Seat]] = {int(r["game_id"]): [] for r in game_rows}
    seat_rows = await tx.all(
        "SELECT s.* FROM game_seats AS s JOIN games AS g ON g.game_id = s.game_id "
        f"WHERE {where} ORDER BY s.game_id, s.seat",
        params,
    )
    for r in seat_rows:
        seats[int(r["game_id"])].append(seat_from(r))
    actions: dict[int, list[str]] | None = None
    if with_actions:
        actions = {game_id: [] for game_id in seats}
        action_rows = await tx.all(
            "SELECT a.game_id, a.action FROM game_actions AS a "
            f"JOIN games AS g ON g.game_id = a.game_id WHERE {where} ORDER BY a.game_id, a.seq",
            params,
        )
        for r in action_rows:
            actions[int(r["game_id"])].append(str(r["action"]))
    games = []
    for r in game_rows:
        game_id = int(r["game_id"])
        game_seats = tuple(seats[game_id])
        if len(game_seats) != SEAT_COUNT:  # pragma: no cover - guarded by create_game
            raise AssertionError(f"game {game_id} has {len(game_seats)} seats")
        log = tuple(actions[game_id]) if actions is not None else None
        games.append(game_from(r, game_seats, log))
    return games
