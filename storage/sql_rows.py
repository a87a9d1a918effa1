"""Database rows → :mod:`storage.rows` values, for both backends (``sqlite3.Row`` and
``asyncpg.Record`` are read alike, by column name; SQLite's 0/1 become ``bool``)."""

from __future__ import annotations

from typing import Any

from storage.rows import (
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


def user_from(row: Any) -> User:
    """Decode a ``users`` row."""
    return User(
        user_id=int(row["user_id"]),
        display_name=str(row["display_name"]),
        telegram_language=row["telegram_language"],
        language=row["language"],
        can_message=bool(row["can_message"]),
        updated_at=float(row["updated_at"]),
    )


def chat_from(row: Any) -> Chat:
    """Decode a ``chats`` row."""
    return Chat(
        chat_id=int(row["chat_id"]),
        chat_type=str(row["chat_type"]),
        title=row["title"],
        language=row["language"],
        table_defaults=row["table_defaults"],
        updated_at=float(row["updated_at"]),
    )


def seat(
    index: int,
    kind: str,
    user_id: int | None,
    name: str | None,
    former: int | None,
    hand_chat: int | None,
    hand_message: Any,
    timeouts: int,
) -> Seat:
    """A seat from the columns of its ``game_seats`` row."""
    hand = MessageRef(int(hand_chat), int(hand_message)) if hand_chat is not None else None
    occupant = Occupant(SeatKind(kind), user_id, name, former)
    return Seat(index=int(index), occupant=occupant, hand_message=hand, timeouts=int(timeouts))


def seat_from(row: Any) -> Seat:
    """Decode a ``game_seats`` row."""
    return seat(
        row["seat"], row["kind"], row["user_id"], row["display_name"], row["former_user_id"],
        row["hand_chat_id"], row["hand_message_id"], row["timeouts"],
    )  # fmt: skip


def game_from(row: Any, seats: tuple[Seat, ...], actions: tuple[str, ...] | None) -> Game:
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
