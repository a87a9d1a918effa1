"""PostgreSQL rows → :mod:`storage.rows` values, and the one statement that loads games.

Internal to :mod:`storage.postgres`. A game is loaded in ONE statement (seats aggregated into
arrays by a lateral subquery, the action log as an array when asked), so a read is one round
trip and one consistent snapshot without an explicit transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from asyncpg import Record
from asyncpg.pool import PoolConnectionProxy

from storage.rows import (
    SEAT_COUNT,
    Chat,
    Game,
    GameHistory,
    GameStatus,
    MessageRef,
    Occupant,
    Seat,
    SeatKind,
    TurnTimer,
    User,
)

Conn: TypeAlias = "PoolConnectionProxy[Record]"  # generic only in the stubs
"""A connection of the repository's pool."""

Params = Sequence[Any]

_SEATS = """
CROSS JOIN LATERAL (
    SELECT array_agg(s.seat ORDER BY s.seat) AS seat_indices,
           array_agg(s.kind ORDER BY s.seat) AS seat_kinds,
           array_agg(s.user_id ORDER BY s.seat) AS seat_users,
           array_agg(s.display_name ORDER BY s.seat) AS seat_names,
           array_agg(s.former_user_id ORDER BY s.seat) AS seat_formers,
           array_agg(s.hand_chat_id ORDER BY s.seat) AS seat_hand_chats,
           array_agg(s.hand_message_id ORDER BY s.seat) AS seat_hand_messages,
           array_agg(s.timeouts ORDER BY s.seat) AS seat_timeouts
    FROM game_seats AS s WHERE s.game_id = g.game_id
) AS seats
"""

_ACTIONS = (
    ", array(SELECT a.action FROM game_actions AS a WHERE a.game_id = g.game_id "
    "ORDER BY a.seq) AS actions"
)

_ACTION_TIMES = (
    ", array(SELECT a.created_at FROM game_actions AS a WHERE a.game_id = g.game_id "
    "ORDER BY a.seq) AS action_times"
)


def user_from(row: Record) -> User:
    """Decode a ``users`` row."""
    return User(
        user_id=row["user_id"],
        display_name=row["display_name"],
        telegram_language=row["telegram_language"],
        language=row["language"],
        can_message=row["can_message"],
        updated_at=row["updated_at"],
    )


def chat_from(row: Record) -> Chat:
    """Decode a ``chats`` row."""
    return Chat(
        chat_id=row["chat_id"],
        chat_type=row["chat_type"],
        title=row["title"],
        language=row["language"],
        table_defaults=row["table_defaults"],
        updated_at=row["updated_at"],
    )


def _seats(row: Record) -> tuple[Seat, ...]:
    seats = []
    for index, kind, user_id, name, former, hand_chat, hand_message, timeouts in zip(
        row["seat_indices"] or (),
        row["seat_kinds"] or (),
        row["seat_users"] or (),
        row["seat_names"] or (),
        row["seat_formers"] or (),
        row["seat_hand_chats"] or (),
        row["seat_hand_messages"] or (),
        row["seat_timeouts"] or (),
        strict=True,
    ):
        hand = MessageRef(hand_chat, hand_message) if hand_chat is not None else None
        occupant = Occupant(SeatKind(kind), user_id, name, former)
        seats.append(Seat(index=index, occupant=occupant, hand_message=hand, timeouts=timeouts))
    if len(seats) != SEAT_COUNT:  # pragma: no cover - guarded by create_game
        raise AssertionError(f"game {row['game_id']} has {len(seats)} seats")
    return tuple(seats)


def game_from(row: Record, *, with_actions: bool) -> Game:
    """Decode a row of :func:`load_games` (the ``games`` columns plus the seat arrays, and the
    action array if it was asked for)."""
    timer = None
    if row["deadline_at"] is not None:
        timer = TurnTimer(row["deadline_at"], row["deadline_seat"], row["reminded"])
    return Game(
        game_id=row["game_id"],
        chat_id=row["chat_id"],
        status=GameStatus(row["status"]),
        settings=row["settings"],
        seed=row["seed"],
        creator_id=row["creator_id"],
        language=row["language"],
        version=row["version"],
        snapshot=row["snapshot"],
        action_count=row["action_count"],
        table_message_id=row["table_message_id"],
        timer=timer,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        seats=_seats(row),
        actions=tuple(row["actions"]) if with_actions else None,
        thread_id=row["thread_id"],
    )


def _query(where: str, *, extra: str, order_by: str, limit: str = "") -> str:
    return (
        f"SELECT g.*, seats.*{extra} FROM games AS g {_SEATS} "
        f"WHERE {where} ORDER BY {order_by}{limit}"
    )


async def load_games(
    conn: Conn,
    where: str,
    params: Params,
    *,
    with_actions: bool,
    order_by: str = "g.game_id",
) -> list[Game]:
    """The games matching ``where`` (SQL over alias ``g`` for ``games`` with ``$n``
    parameters; trusted text from this package only) with their seats, and their action logs
    if asked, in one statement."""
    extra = _ACTIONS if with_actions else ""
    rows = await conn.fetch(_query(where, extra=extra, order_by=order_by), *params)
    return [game_from(r, with_actions=with_actions) for r in rows]


async def load_histories(conn: Conn, after: int, limit: int) -> list[GameHistory]:
    """Up to ``limit`` games with ``game_id > after`` in id order, with their action logs and
    the time of every action, in one statement."""
    rows = await conn.fetch(
        _query(
            "g.game_id > $1",
            extra=_ACTIONS + _ACTION_TIMES,
            order_by="g.game_id",
            limit=" LIMIT $2",
        ),
        after,
        limit,
    )
    return [GameHistory(game_from(r, with_actions=True), tuple(r["action_times"])) for r in rows]
