"""SQLite: the claims on a game's table and hand messages (see
:meth:`storage.repository.Repository.claim_surface`), each inside one write transaction."""

from __future__ import annotations

from storage.errors import NotFound
from storage.rows import MessageRef, SurfaceShown, SurfaceState, check_seat
from storage.sqlite_rows import Tx


def _where(game_id: int, seat: int | None) -> tuple[str, str, str, tuple[int, ...]]:
    """The surface's row: ``(table, condition, column prefix, its parameters)``."""
    if seat is None:
        return "games", "game_id = ?", "table", (game_id,)
    check_seat(seat)
    return "game_seats", "game_id = ? AND seat = ?", "hand", (game_id, seat)


async def claim_surface(
    tx: Tx, game_id: int, seat: int | None, *, token: str, now: float, lease: float
) -> SurfaceState | None:
    """See :meth:`Repository.claim_surface`."""
    if lease <= 0:
        raise ValueError("lease must be > 0")
    table, where, p, key = _where(game_id, seat)
    chat = "chat_id" if seat is None else "hand_chat_id"
    message = "table_message_id" if seat is None else "hand_message_id"
    row = await tx.one(
        f"SELECT {chat} AS chat, {message} AS message, {p}_shown_version AS shown_version, "
        f"{p}_shown AS shown, {p}_sent_version AS sent_version, {p}_claim AS claim, "
        f"{p}_claimed_until AS until FROM {table} WHERE {where}",
        key,
    )
    if row is None:
        raise NotFound("game", game_id)
    if row["claim"] is not None and row["claim"] != token and row["until"] > now:
        return None
    await tx.run(
        f"UPDATE {table} SET {p}_claim = ?, {p}_claimed_until = ? WHERE {where}",
        (token, now + lease, *key),
    )
    ref = (
        MessageRef(int(row["chat"]), int(row["message"]))
        if row["chat"] is not None and row["message"] is not None
        else None
    )
    return SurfaceState(ref, int(row["shown_version"]), row["shown"], int(row["sent_version"]))


async def release_surface(
    tx: Tx, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
) -> bool:
    """See :meth:`Repository.release_surface`."""
    table, where, p, key = _where(game_id, seat)
    if shown is None:
        done = await tx.run(
            f"UPDATE {table} SET {p}_claim = NULL, {p}_claimed_until = NULL "
            f"WHERE {where} AND {p}_claim = ?",
            (*key, token),
        )
        return done > 0
    message = shown.message.message_id if shown.message is not None else None
    args: tuple[int | None, ...]
    if seat is None:
        target, args = "table_message_id = ?", (message,)
    else:
        chat = shown.message.chat_id if shown.message is not None else None
        target, args = "hand_message_id = ?, hand_chat_id = ?", (message, chat)
    version = shown.version
    done = await tx.run(
        f"UPDATE {table} SET {p}_claim = NULL, {p}_claimed_until = NULL, {target}, "
        f"{p}_shown = ?, {p}_shown_version = MAX({p}_shown_version, COALESCE(?, 0)), "
        f"{p}_sent_version = CASE WHEN ? AND ? IS NOT NULL THEN ? ELSE {p}_sent_version END "
        f"WHERE {where} AND {p}_claim = ?",
        (*args, shown.digest, version, int(shown.sent), version, version, *key, token),
    )
    return done > 0
