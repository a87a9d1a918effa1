"""Game, surface and chat-migration writes, written once for both backends (:mod:`storage.sql`).

Compare-and-set: every state write is ``UPDATE games SET ..., version = version + 1 WHERE
game_id = ? AND version = ? AND status IN (...) RETURNING version``. On PostgreSQL (READ
COMMITTED) a second writer of the same row waits for the first to commit, then re-checks the
``WHERE`` against the new row and matches nothing; on SQLite the write transaction
(``BEGIN IMMEDIATE``) serializes writers. Either way the second loses cleanly. When no row comes
back, :func:`_refuse` reads the row once to say why (missing, stale, or wrong status).

The writes of play are single statements where both backends allow it (one round trip on
PostgreSQL, atomic without a transaction): the bookkeeping writes check the version in the same
statement and read the row again only to explain a refusal. Functions marked "inside a
transaction" need the caller's :meth:`~storage.sql.Dialect.write`; the others run in
:meth:`~storage.sql.Dialect.single`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from storage.errors import (
    ChatMoved,
    NotFound,
    OpenGameExists,
    SeatConflict,
    StaleVersion,
    WrongStatus,
)
from storage.rows import (
    ALLOWED_TRANSITIONS,
    EMPTY_SEAT,
    OPEN_STATUSES,
    SEAT_COUNT,
    ChatMigration,
    Game,
    GameReaders,
    GameStatus,
    MessageRef,
    Occupant,
    SeatKind,
    SurfaceShown,
    SurfaceState,
    TurnTimer,
    check_int64,
    check_json,
    check_seat,
)
from storage.sql import Db, Dialect, Params, placeholders

OPEN = tuple(sorted(s.value for s in OPEN_STATUSES))
"""The open statuses' values, for ``status IN (...)``."""

IN_OPEN = f"status IN ({placeholders(len(OPEN))})"


async def _refuse(
    db: Db, game_id: int, expected_version: int | None, requested: GameStatus | None = None
) -> None:
    """Raise the error that explains why a compare-and-set matched no row."""
    row = await db.one("SELECT version, status FROM games WHERE game_id = ?", (game_id,))
    if row is None:
        raise NotFound("game", game_id)
    if expected_version is not None and int(row["version"]) != expected_version:
        raise StaleVersion(game_id, expected_version, int(row["version"]))
    raise WrongStatus(game_id, GameStatus(row["status"]), requested)


async def _bump(
    db: Db,
    game_id: int,
    expected_version: int,
    *,
    allowed_from: Collection[GameStatus | str],
    assignments: Sequence[str] = (),
    params: Params = (),
    now: float,
) -> int:
    """Compare-and-set a state write of ``assignments`` (``"column = ?"`` with ``params``) on a
    game in one of ``allowed_from``; return the new version."""
    statuses = [GameStatus(s).value for s in allowed_from]
    columns = ", ".join([*assignments, "version = version + 1", "updated_at = ?"])
    version = await db.val(
        f"UPDATE games SET {columns} "
        f"WHERE game_id = ? AND version = ? AND status IN ({placeholders(len(statuses))}) "
        "RETURNING version",
        (*params, now, game_id, expected_version, *statuses),
    )
    if version is None:
        await _refuse(db, game_id, expected_version)
    return int(version)


async def _check_version(db: Db, game_id: int, expected_version: int | None) -> None:
    """Raise unless the game exists (and is at ``expected_version``, if given)."""
    version = await db.val("SELECT version FROM games WHERE game_id = ?", (game_id,))
    if version is None:
        raise NotFound("game", game_id)
    if expected_version is not None and int(version) != expected_version:
        raise StaleVersion(game_id, expected_version, int(version))


async def _require_users(db: Db, d: Dialect, user_ids: Collection[int]) -> None:
    """Inside a transaction: raise ``NotFound`` unless every user row exists (share-locked
    where the backend locks rows)."""
    if not user_ids:
        return
    rows = await db.all(
        f"SELECT user_id FROM users WHERE user_id IN ({placeholders(len(user_ids))})" + d.key_share,
        tuple(user_ids),
    )
    missing = set(user_ids) - {int(r["user_id"]) for r in rows}
    if missing:
        raise NotFound("user", min(missing))


def _humans(game_id: int | None, occupants: Sequence[Occupant]) -> list[int]:
    """The user ids of human occupants. A repeated one raises :class:`SeatConflict` (or
    :class:`ValueError` while the game does not exist yet, ``game_id=None``)."""
    ids: list[int] = []
    for occupant in occupants:
        if occupant.user_id is not None:
            if occupant.user_id in ids:
                if game_id is None:
                    raise ValueError(f"user {occupant.user_id} is given two seats")
                raise SeatConflict(game_id, occupant.user_id)
            ids.append(occupant.user_id)
    return ids


def _formers(occupants: Sequence[Occupant]) -> set[int]:
    """The former players named by computer occupants (their user rows must exist)."""
    return {o.former_user_id for o in occupants if o.former_user_id is not None}


async def create_game(
    db: Db,
    d: Dialect,
    chat_id: int,
    creator_id: int,
    settings: str,
    seed: int,
    *,
    now: float,
    seats: Sequence[Occupant],
    language: str | None,
    thread_id: int | None = None,
) -> Game:
    """Inside a transaction. See :meth:`Repository.create_game`."""
    check_int64(seed, "seed")
    if thread_id is not None:
        check_int64(thread_id, "thread_id")
    check_int64(chat_id, "chat_id")
    check_int64(creator_id, "creator_id")
    check_json(settings, "settings")
    if len(seats) > SEAT_COUNT:
        raise ValueError(f"at most {SEAT_COUNT} seats, got {len(seats)}")
    occupants = [*seats, *[EMPTY_SEAT] * (SEAT_COUNT - len(seats))]
    humans = _humans(None, occupants)
    # KEY SHARE: a concurrent migrate_chat (which locks the chat FOR UPDATE) waits or wins.
    found = await db.val("SELECT 1 FROM chats WHERE chat_id = ?" + d.key_share, (chat_id,))
    moved = await successor(db, chat_id)  # after the lock: a migration committed is seen
    if moved is not None:
        raise ChatMoved(chat_id, moved)
    if found is None:
        raise NotFound("chat", chat_id)
    await _require_users(db, d, {creator_id, *humans, *_formers(occupants)})
    # The conflict target names the partial index games_one_open_per_chat; DO NOTHING keeps
    # a PostgreSQL transaction usable (an error would abort it). Twice: the open game found
    # in the way may have closed before it was looked up.
    for _ in range(2):
        game_id = await db.val(
            "INSERT INTO games (chat_id, status, settings, seed, creator_id, language, "
            "thread_id, created_at, updated_at) VALUES (?, 'lobby', ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (chat_id) WHERE status IN ('lobby', 'active') DO NOTHING "
            "RETURNING game_id",
            (chat_id, settings, seed, creator_id, language, thread_id, now, now),
        )
        if game_id is not None:
            break
        open_game = await db.val(
            f"SELECT game_id FROM games WHERE chat_id = ? AND {IN_OPEN}", (chat_id, *OPEN)
        )
        if open_game is not None:
            raise OpenGameExists(chat_id, int(open_game))
    else:  # pragma: no cover - two races in a row
        raise OpenGameExists(chat_id, 0)
    await db.run(
        "INSERT INTO game_seats (game_id, seat, kind, user_id, display_name, former_user_id) "
        "VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(occupants)),
        [
            value
            for index, o in enumerate(occupants)
            for value in (game_id, index, o.kind.value, o.user_id, o.display_name, o.former_user_id)
        ],
    )
    (game,) = await d.load_games(
        db, "g.game_id = ?", (game_id,), with_actions=True, order_by="g.game_id"
    )
    return game


async def set_seats(
    db: Db,
    d: Dialect,
    game_id: int,
    expected_version: int,
    seats: Mapping[int, Occupant],
    *,
    now: float,
) -> int:
    """Inside a transaction. See :meth:`Repository.set_seats`."""
    indices = sorted(check_seat(i) for i in seats)
    occupants = [seats[i] for i in indices]
    humans = _humans(game_id, occupants)
    # The compare-and-set also locks the game row: seat writes of one game are serialized.
    version = await _bump(db, game_id, expected_version, allowed_from=OPEN, now=now)
    if not indices:
        return version
    await _require_users(db, d, {*humans, *_formers(occupants)})
    if humans:
        elsewhere = await db.val(
            "SELECT user_id FROM game_seats WHERE game_id = ? "
            f"AND user_id IN ({placeholders(len(humans))}) "
            f"AND seat NOT IN ({placeholders(len(indices))})",
            (game_id, *humans, *indices),
        )
        if elsewhere is not None:
            raise SeatConflict(game_id, int(elsewhere))
    # Two statements: the unique index game_seats_one_per_user is checked row by row, so a
    # user moving seats must leave the old one (cleared here) before taking the new one.
    await db.run(
        "UPDATE game_seats SET kind = ?, user_id = NULL, display_name = NULL, "
        "former_user_id = NULL, hand_chat_id = NULL, hand_message_id = NULL, timeouts = 0 "
        f"WHERE game_id = ? AND seat IN ({placeholders(len(indices))})",
        (SeatKind.EMPTY.value, game_id, *indices),
    )
    await db.many(
        "UPDATE game_seats SET kind = ?, user_id = ?, display_name = ?, former_user_id = ? "
        "WHERE game_id = ? AND seat = ?",
        [(o.kind.value, o.user_id, o.display_name, o.former_user_id, game_id, i)
         for i, o in zip(indices, occupants, strict=True)],
    )  # fmt: skip
    return version


async def set_settings(
    db: Db, game_id: int, expected_version: int, settings: str, *, now: float
) -> int:
    """See :meth:`Repository.set_settings`."""
    check_json(settings, "settings")
    return await _bump(
        db,
        game_id,
        expected_version,
        allowed_from=(GameStatus.LOBBY,),
        assignments=["settings = ?"],
        params=(settings,),
        now=now,
    )


async def set_game_language(
    db: Db, game_id: int, expected_version: int, language: str | None, *, now: float
) -> int:
    """See :meth:`Repository.set_game_language`."""
    return await _bump(
        db,
        game_id,
        expected_version,
        allowed_from=OPEN,
        assignments=["language = ?"],
        params=(language,),
        now=now,
    )


async def append_actions(
    db: Db,
    d: Dialect,
    game_id: int,
    expected_version: int,
    actions: Sequence[str],
    *,
    snapshot: str,
    status: GameStatus,
    timer: TurnTimer | None,
    now: float,
    timeouts: Mapping[int, int] | None = None,
) -> tuple[int, GameReaders | None]:
    """See :meth:`Repository.append_actions`: the game's compare-and-set, the log's new rows
    (numbered from the ``action_count`` it returns) and the seats' timeout counts, as the
    dialect writes them (one statement on PostgreSQL). Returns the new version, and the new
    row with its readers where the dialect reads them back at once
    (:meth:`storage.sql.Dialect.written`)."""
    counts = {check_seat(seat): n for seat, n in (timeouts or {}).items()}
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts.values()):
        raise ValueError("timeouts must be counts >= 0")
    if isinstance(actions, str):
        raise TypeError("actions must be a sequence of strings, not one string")
    if not all(isinstance(a, str) for a in actions):
        raise TypeError("every action must be a string")
    check_json(snapshot, "snapshot")
    status = GameStatus(status)
    if timer is not None and not status.is_open:
        raise ValueError(f"a {status.value} game has no turn timer")
    values = {
        "snapshot": snapshot,
        "status": status.value,
        "deadline_at": timer.deadline_at if timer else None,
        "deadline_seat": timer.seat if timer else None,
        "reminded": timer.reminded if timer else False,
        "actions": list(actions),
        "now": now,
        "allowed_from": [s.value for s in GameStatus if status in ALLOWED_TRANSITIONS[s]],
        "timeouts": counts,
    }
    row = await d.append_actions(db, game_id, expected_version, values)
    if row is None:
        await _refuse(db, game_id, expected_version, status)
    assert row is not None
    return int(row["version"]), d.written(row)


async def set_table_message(
    db: Db, game_id: int, message_id: int | None, *, expected_version: int | None
) -> None:
    """See :meth:`Repository.set_table_message` (one statement; no version bump)."""
    done = await db.val(
        "UPDATE games SET table_message_id = CASE WHEN CAST(? AS BIGINT) IS NULL"
        " OR table_message_id IS NULL OR table_message_id < ? THEN CAST(? AS BIGINT)"
        " ELSE table_message_id END "
        "WHERE game_id = ? AND (CAST(? AS INTEGER) IS NULL OR version = ?) RETURNING 1",
        (message_id, message_id, message_id, game_id, expected_version, expected_version),
    )
    if done is None:  # versions only grow: the check below raises
        await _check_version(db, game_id, expected_version)


async def set_hand_message(
    db: Db,
    d: Dialect,
    game_id: int,
    seat: int,
    message: MessageRef | None,
    *,
    expected_version: int | None,
) -> None:
    """See :meth:`Repository.set_hand_message`: one statement; the game row is share-locked
    (PostgreSQL) while the version is checked, so no state write slips in between."""
    check_seat(seat)
    chat_id = message.chat_id if message else None
    message_id = message.message_id if message else None
    done = await db.val(
        "WITH game AS (SELECT game_id FROM games WHERE game_id = ? "
        f"AND (CAST(? AS INTEGER) IS NULL OR version = ?){d.for_share}) "
        "UPDATE game_seats SET hand_chat_id = CAST(? AS BIGINT), "
        "hand_message_id = CAST(? AS BIGINT) "
        "WHERE game_id = (SELECT game_id FROM game) AND seat = ?"
        " AND NOT COALESCE(CAST(? AS BIGINT) IS NOT NULL AND hand_chat_id = ?"
        " AND hand_message_id >= ?, FALSE) RETURNING 1",
        (game_id, expected_version, expected_version, chat_id, message_id, seat,
         message_id, chat_id, message_id),
    )  # fmt: skip
    if done is None:  # versions only grow: the check below raises
        await _check_version(db, game_id, expected_version)


async def mark_reminded(db: Db, game_id: int, expected_version: int) -> None:
    """See :meth:`Repository.mark_reminded` (one statement; no-op without a timer)."""
    done = await db.val(
        "UPDATE games SET reminded = TRUE, timer_wake_at = NULL, timer_claimed_until = NULL "
        "WHERE game_id = ? AND version = ? AND deadline_at IS NOT NULL RETURNING 1",
        (game_id, expected_version),
    )
    if done is None:
        await _check_version(db, game_id, expected_version)


async def arm_timer(db: Db, game_id: int, expected_version: int, wake_at: float) -> bool:
    """See :meth:`Repository.arm_timer` (one statement)."""
    done = await db.val(
        "UPDATE games SET timer_wake_at = ?, timer_claimed_until = NULL "
        "WHERE game_id = ? AND version = ? AND deadline_at IS NOT NULL RETURNING 1",
        (wake_at, game_id, expected_version),
    )
    return done is not None


async def claim_due_timers(
    db: Db, d: Dialect, now: float, *, lease: float, limit: int
) -> list[tuple[int, int]]:
    """See :meth:`Repository.claim_due_timers`: one statement; rows another worker is
    claiming right now are skipped (``FOR UPDATE SKIP LOCKED`` on PostgreSQL; SQLite's write
    lock makes the look-up and the claim one step), so two workers never claim one timer."""
    if lease <= 0 or limit < 1:
        raise ValueError("lease must be > 0 and limit >= 1")
    rows = await db.all(
        "WITH due AS (SELECT game_id FROM games WHERE status = ? AND deadline_at IS NOT NULL"
        " AND COALESCE(timer_wake_at, deadline_at) <= ?"
        " AND (timer_claimed_until IS NULL OR timer_claimed_until <= ?)"
        f" ORDER BY COALESCE(timer_wake_at, deadline_at), game_id LIMIT ?{d.skip_locked})"
        " UPDATE games SET timer_claimed_until = CAST(? AS DOUBLE PRECISION)"
        " WHERE game_id IN (SELECT game_id FROM due)"
        " RETURNING game_id, version, COALESCE(timer_wake_at, deadline_at) AS due_at",
        (GameStatus.ACTIVE.value, now, now, limit, now + lease),
    )
    ordered = sorted(rows, key=lambda r: (r["due_at"], r["game_id"]))
    return [(int(r["game_id"]), int(r["version"])) for r in ordered]


async def release_timer(db: Db, game_id: int, version: int) -> None:
    """See :meth:`Repository.release_timer` (one statement)."""
    await db.run(
        "UPDATE games SET timer_claimed_until = NULL WHERE game_id = ? AND version = ?",
        (game_id, version),
    )


def _surface(seat: int | None) -> tuple[str, str, str, str, str]:
    """The surface's row: ``(table, condition on the game and the seat, column prefix, chat
    column, message column)``; the condition takes ``(game_id, seat)``."""
    if seat is None:
        return (
            "games",
            "game_id = ? AND CAST(? AS INTEGER) IS NULL",
            "table",
            "chat_id",
            "table_message_id",
        )
    check_seat(seat)
    return "game_seats", "game_id = ? AND seat = ?", "hand", "hand_chat_id", "hand_message_id"


async def claim_surface(
    db: Db, game_id: int, seat: int | None, *, token: str, now: float, lease: float
) -> SurfaceState | None:
    """See :meth:`Repository.claim_surface` (one statement, which reads the game's version
    too; a second to explain a refusal)."""
    if lease <= 0:
        raise ValueError("lease must be > 0")
    table, where, p, chat, message = _surface(seat)
    key = (game_id, seat)
    row = await db.one(
        f"UPDATE {table} SET {p}_claim = ?, {p}_claimed_until = CAST(? AS DOUBLE PRECISION) "
        f"WHERE {where} AND ({p}_claim IS NULL OR {p}_claim = ? OR {p}_claimed_until <= ?) "
        f"RETURNING {chat} AS chat, {message} AS message, {p}_shown_version AS shown_version, "
        f"{p}_shown AS shown, {p}_sent_version AS sent_version, "
        "(SELECT v.version FROM games AS v WHERE v.game_id = ?) AS game_version",
        (token, now + lease, *key, token, now, game_id),
    )
    if row is None:
        if await db.val(f"SELECT 1 FROM {table} WHERE {where}", key) is None:
            raise NotFound("game", game_id)
        return None
    ref = (
        MessageRef(int(row["chat"]), int(row["message"]))
        if row["chat"] is not None and row["message"] is not None
        else None
    )
    version = row["game_version"]
    return SurfaceState(
        ref,
        int(row["shown_version"]),
        row["shown"],
        int(row["sent_version"]),
        int(version) if version is not None else None,
    )


async def release_surface(
    db: Db, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
) -> bool:
    """See :meth:`Repository.release_surface` (one statement)."""
    table, where, p, chat, message = _surface(seat)
    key = (game_id, seat)
    if shown is None:
        done = await db.val(
            f"UPDATE {table} SET {p}_claim = NULL, {p}_claimed_until = NULL "
            f"WHERE {where} AND {p}_claim = ? RETURNING 1",
            (*key, token),
        )
        return done is not None
    ref = shown.message
    target: list[str] = [f"{message} = CAST(? AS BIGINT)"]
    args: list[object] = [ref.message_id if ref is not None else None]
    if seat is not None:
        target.append(f"{chat} = CAST(? AS BIGINT)")
        args.append(ref.chat_id if ref is not None else None)
    version = shown.version
    done = await db.val(
        f"UPDATE {table} SET {p}_claim = NULL, {p}_claimed_until = NULL, {', '.join(target)}, "
        f"{p}_shown = ?, "
        f"{p}_shown_version = CASE WHEN COALESCE(CAST(? AS INTEGER), 0) > {p}_shown_version "
        f"THEN COALESCE(CAST(? AS INTEGER), 0) ELSE {p}_shown_version END, "
        f"{p}_sent_version = CASE WHEN ? AND CAST(? AS INTEGER) IS NOT NULL "
        f"THEN CAST(? AS INTEGER) ELSE {p}_sent_version END "
        f"WHERE {where} AND {p}_claim = ? RETURNING 1",
        (*args, shown.digest, version, version, shown.sent, version, version, *key, token),
    )
    return done is not None


async def migrate_chat(
    db: Db, d: Dialect, old_chat_id: int, new_chat_id: int, *, now: float
) -> ChatMigration:
    """Inside a transaction. See :meth:`Repository.migrate_chat`. Both chat rows are locked
    first (PostgreSQL), so a ``create_game`` in either chat waits for the move."""
    check_int64(new_chat_id, "new_chat_id")
    if old_chat_id == new_chat_id:
        return ChatMigration(chat_moved=False, games_moved=0)
    rows = await db.all(
        f"SELECT * FROM chats WHERE chat_id IN (?, ?) ORDER BY chat_id{d.for_update}",
        (old_chat_id, new_chat_id),
    )
    old = next((r for r in rows if int(r["chat_id"]) == old_chat_id), None)
    if old is None:
        await d.note_migration(db, old_chat_id, new_chat_id, now)
        return ChatMigration(chat_moved=False, games_moved=0)
    open_games = await db.all(
        f"SELECT chat_id, game_id FROM games WHERE chat_id IN (?, ?) AND {IN_OPEN} "
        "ORDER BY chat_id = ?",
        (old_chat_id, new_chat_id, *OPEN, old_chat_id),
    )
    if len(open_games) > 1:
        raise OpenGameExists(new_chat_id, int(open_games[0]["game_id"]))
    # The open table's message stays behind in the old chat: forget it (drawn anew).
    await db.run(
        f"UPDATE games SET table_message_id = NULL WHERE chat_id = ? AND {IN_OPEN}",
        (old_chat_id, *OPEN),
    )
    games_moved = int(await db.val("SELECT COUNT(*) FROM games WHERE chat_id = ?", (old_chat_id,)))
    if len(rows) == 1:
        # The one UPDATE: games follow through ON UPDATE CASCADE.
        await db.run(
            "UPDATE chats SET chat_id = ?, updated_at = ? WHERE chat_id = ?",
            (new_chat_id, now, old_chat_id),
        )
    else:
        await db.run("UPDATE games SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id))
        # Ratings follow (a person rated in both keeps the new chat's rating).
        await db.run(
            "UPDATE ratings SET chat_id = ? WHERE chat_id = ? AND user_id NOT IN "
            "(SELECT user_id FROM ratings WHERE chat_id = ?)",
            (new_chat_id, old_chat_id, new_chat_id),
        )
        await db.run("DELETE FROM ratings WHERE chat_id = ?", (old_chat_id,))
        await db.run(  # and so do the wishes to hear of a table that needs a player
            "UPDATE table_alerts SET chat_id = ? WHERE chat_id = ? AND user_id NOT IN "
            "(SELECT user_id FROM table_alerts WHERE chat_id = ?)",
            (new_chat_id, old_chat_id, new_chat_id),
        )
        await db.run("DELETE FROM table_alerts WHERE chat_id = ?", (old_chat_id,))
        await db.run(
            "UPDATE chats SET language = COALESCE(language, ?), "
            "table_defaults = COALESCE(table_defaults, ?), updated_at = ? WHERE chat_id = ?",
            (old["language"], old["table_defaults"], now, new_chat_id),
        )
        await db.run("DELETE FROM chats WHERE chat_id = ?", (old_chat_id,))
    await d.note_migration(db, old_chat_id, new_chat_id, now)
    return ChatMigration(chat_moved=True, games_moved=games_moved)


MAX_HOPS = 8
"""How many migrations :func:`successor` follows (a group migrates once; a chain longer
than this is a loop)."""


async def successor(db: Db, chat_id: int) -> int | None:
    """Where ``chat_id`` went (following later migrations of the new id too), or None when
    it was never migrated. See :meth:`Repository.chat_successor`."""
    found: int | None = None
    current = chat_id
    for _ in range(MAX_HOPS):
        new = await db.val(
            "SELECT new_chat_id FROM chat_migrations WHERE old_chat_id = ?", (current,)
        )
        if new is None or int(new) in (chat_id, current):
            break
        found = current = int(new)
    return found
