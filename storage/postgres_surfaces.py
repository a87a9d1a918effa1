"""PostgreSQL: the claims on a game's table and hand messages (see
:meth:`storage.repository.Repository.claim_surface`); one statement each."""

from __future__ import annotations

from storage.errors import NotFound
from storage.postgres_rows import Conn
from storage.rows import MessageRef, SurfaceShown, SurfaceState, check_seat


def _where(seat: int | None) -> tuple[str, str, str]:
    """The surface's row: ``(table, condition on $1 game and $2 seat, column prefix)``."""
    if seat is None:
        return "games", "game_id = $1 AND $2::int IS NULL", "table"
    check_seat(seat)
    return "game_seats", "game_id = $1 AND seat = $2", "hand"


async def claim_surface(
    conn: Conn, game_id: int, seat: int | None, *, token: str, now: float, lease: float
) -> SurfaceState | None:
    """See :meth:`Repository.claim_surface`."""
    if lease <= 0:
        raise ValueError("lease must be > 0")
    table, where, p = _where(seat)
    chat = "chat_id" if seat is None else "hand_chat_id"
    message = "table_message_id" if seat is None else "hand_message_id"
    row = await conn.fetchrow(
        f"UPDATE {table} SET {p}_claim = $3, {p}_claimed_until = $4::float8 + $5::float8 "
        f"WHERE {where} AND ({p}_claim IS NULL OR {p}_claim = $3 OR {p}_claimed_until <= $4) "
        f"RETURNING {chat} AS chat, {message} AS message, {p}_shown_version AS shown_version, "
        f"{p}_shown AS shown, {p}_sent_version AS sent_version",
        game_id,
        seat,
        token,
        now,
        lease,
    )
    if row is None:
        held = await conn.fetchval(f"SELECT 1 FROM {table} WHERE {where}", game_id, seat)
        if held is None:
            raise NotFound("game", game_id)
        return None
    ref = (
        MessageRef(int(row["chat"]), int(row["message"]))
        if row["chat"] is not None and row["message"] is not None
        else None
    )
    return SurfaceState(ref, int(row["shown_version"]), row["shown"], int(row["sent_version"]))


async def release_surface(
    conn: Conn, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
) -> bool:
    """See :meth:`Repository.release_surface`."""
    table, where, p = _where(seat)
    if shown is None:
        done = await conn.fetchval(
            f"UPDATE {table} SET {p}_claim = NULL, {p}_claimed_until = NULL "
            f"WHERE {where} AND {p}_claim = $3 RETURNING 1",
            game_id,
            seat,
            token,
        )
        return done is not None
    message = shown.message.message_id if shown.message is not None else None
    if seat is None:
        target = "table_message_id = $4::bigint"
        args: tuple[object, ...] = (message,)
    else:
        target = "hand_message_id = $4::bigint, hand_chat_id = $8::bigint"
        args = (message,)
    done = await conn.fetchval(
        f"UPDATE {table} SET {p}_claim = NULL, {p}_claimed_until = NULL, {target}, "
        f"{p}_shown = $5, "
        f"{p}_shown_version = GREATEST({p}_shown_version, COALESCE($6::int, 0)), "
        f"{p}_sent_version = CASE WHEN $7::bool AND $6::int IS NOT NULL THEN $6::int "
        f"ELSE {p}_sent_version END "
        f"WHERE {where} AND {p}_claim = $3 RETURNING 1",
        game_id,
        seat,
        token,
        *args,
        shown.digest,
        shown.version,
        shown.sent,
        *(() if seat is None else (shown.message.chat_id if shown.message else None,)),
    )
    return done is not None
