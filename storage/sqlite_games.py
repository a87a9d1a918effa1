"""Game and chat-migration writes for :mod:`storage.sqlite`, each run inside a transaction the
caller opened with ``BEGIN IMMEDIATE``. An exception raised here makes the caller roll back.

Compare-and-set: every state write is ``UPDATE games SET ..., version = version + 1 WHERE
game_id = ? AND version = ? AND status IN (...) RETURNING version``; when no row comes back,
:func:`_refuse` reads the row once to say why (missing, stale, or wrong status).
"""

from __future__ import annotations

import sqlite3
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
    GameStatus,
    MessageRef,
    Occupant,
    SeatKind,
    TurnTimer,
    check_int64,
    check_json,
    check_seat,
)
from storage.sqlite_rows import Params, Tx, load_games, placeholders

_OPEN = tuple(sorted(OPEN_STATUSES))


async def _refuse(
    tx: Tx, game_id: int, expected_version: int | None, requested: GameStatus | None = None
) -> None:
    """Raise the error that explains why a compare-and-set matched no row."""
    row = await tx.one("SELECT version, status FROM games WHERE game_id = ?", (game_id,))
    if row is None:
        raise NotFound("game", game_id)
    if expected_version is not None and int(row["version"]) != expected_version:
        raise StaleVersion(game_id, expected_version, int(row["version"]))
    raise WrongStatus(game_id, GameStatus(row["status"]), requested)


async def _bump(
    tx: Tx,
    game_id: int,
    expected_version: int,
    *,
    allowed_from: Collection[GameStatus],
    assignments: Sequence[str],
    params: Params,
    now: float,
) -> int:
    """Compare-and-set a state write of ``assignments`` (``"column = ?"`` with ``params``) on a
    game in one of ``allowed_from``; return the new version."""
    statuses = tuple(allowed_from)
    columns = ", ".join([*assignments, "version = version + 1", "updated_at = ?"])
    row = await tx.one(
        f"UPDATE games SET {columns} "
        f"WHERE game_id = ? AND version = ? AND status IN ({placeholders(len(statuses))}) "
        "RETURNING version",
        (*params, now, game_id, expected_version, *statuses),
    )
    if row is None:
        await _refuse(tx, game_id, expected_version)
    assert row is not None
    return int(row["version"])


async def _check_version(tx: Tx, game_id: int, expected_version: int | None) -> None:
    """Raise unless the game exists (and is at ``expected_version``, if given)."""
    row = await tx.one("SELECT version FROM games WHERE game_id = ?", (game_id,))
    if row is None:
        raise NotFound("game", game_id)
    if expected_version is not None and int(row["version"]) != expected_version:
        raise StaleVersion(game_id, expected_version, int(row["version"]))


async def _require_users(tx: Tx, user_ids: Collection[int]) -> None:
    if not user_ids:
        return
    rows = await tx.all(
        f"SELECT user_id FROM users WHERE user_id IN ({placeholders(len(user_ids))})",
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
    tx: Tx,
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
    """See :meth:`Repository.create_game`."""
    check_int64(seed, "seed")
    if thread_id is not None:
        check_int64(thread_id, "thread_id")
    check_json(settings, "settings")
    if len(seats) > SEAT_COUNT:
        raise ValueError(f"at most {SEAT_COUNT} seats, got {len(seats)}")
    occupants = [*seats, *[EMPTY_SEAT] * (SEAT_COUNT - len(seats))]
    humans = _humans(None, occupants)
    moved = await successor(tx, chat_id)
    if moved is not None:
        raise ChatMoved(chat_id, moved)
    if await tx.one("SELECT 1 FROM chats WHERE chat_id = ?", (chat_id,)) is None:
        raise NotFound("chat", chat_id)
    await _require_users(tx, {creator_id, *humans, *_formers(occupants)})
    try:
        row = await tx.one(
            "INSERT INTO games (chat_id, status, settings, seed, creator_id, language, "
            "thread_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING game_id",
            (
                chat_id,
                GameStatus.LOBBY.value,
                settings,
                seed,
                creator_id,
                language,
                thread_id,
                now,
                now,
            ),
        )
    except sqlite3.IntegrityError:
        # References were checked above, so this is the index games_one_open_per_chat.
        open_game = await tx.one(
            f"SELECT game_id FROM games WHERE chat_id = ? "
            f"AND status IN ({placeholders(len(_OPEN))})",
            (chat_id, *_OPEN),
        )
        if open_game is None:  # pragma: no cover - some other constraint
            raise
        raise OpenGameExists(chat_id, int(open_game["game_id"])) from None
    assert row is not None
    game_id = int(row["game_id"])
    await tx.many(
        "INSERT INTO game_seats (game_id, seat, kind, user_id, display_name, former_user_id) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (game_id, index, o.kind.value, o.user_id, o.display_name, o.former_user_id)
            for index, o in enumerate(occupants)
        ],
    )
    (game,) = await load_games(tx, "g.game_id = ?", (game_id,), with_actions=True)
    return game


async def set_seats(
    tx: Tx, game_id: int, expected_version: int, seats: Mapping[int, Occupant], *, now: float
) -> int:
    """See :meth:`Repository.set_seats`."""
    indices = sorted(check_seat(i) for i in seats)
    humans = _humans(game_id, [seats[i] for i in indices])
    version = await _bump(
        tx, game_id, expected_version, allowed_from=_OPEN, assignments=(), params=(), now=now
    )
    if not indices:
        return version
    await _require_users(tx, {*humans, *_formers([seats[i] for i in indices])})
    if humans:
        elsewhere = await tx.one(
            f"SELECT user_id FROM game_seats WHERE game_id = ? "
            f"AND user_id IN ({placeholders(len(humans))}) "
            f"AND seat NOT IN ({placeholders(len(indices))})",
            (game_id, *humans, *indices),
        )
        if elsewhere is not None:
            raise SeatConflict(game_id, int(elsewhere["user_id"]))
    await tx.many(
        "UPDATE game_seats SET kind = ?, user_id = NULL, display_name = NULL, "
        "former_user_id = NULL, hand_chat_id = NULL, hand_message_id = NULL, timeouts = 0 "
        "WHERE game_id = ? AND seat = ?",
        [(SeatKind.EMPTY.value, game_id, i) for i in indices],
    )
    await tx.many(
        "UPDATE game_seats SET kind = ?, user_id = ?, display_name = ?, former_user_id = ? "
        "WHERE game_id = ? AND seat = ?",
        [
            (
                seats[i].kind.value,
                seats[i].user_id,
                seats[i].display_name,
                seats[i].former_user_id,
                game_id,
                i,
            )
            for i in indices
        ],
    )
    return version


async def set_settings(
    tx: Tx, game_id: int, expected_version: int, settings: str, *, now: float
) -> int:
    """See :meth:`Repository.set_settings`."""
    check_json(settings, "settings")
    return await _bump(
        tx,
        game_id,
        expected_version,
        allowed_from=(GameStatus.LOBBY,),
        assignments=["settings = ?"],
        params=(settings,),
        now=now,
    )


async def set_game_language(
    tx: Tx, game_id: int, expected_version: int, language: str | None, *, now: float
) -> int:
    """See :meth:`Repository.set_game_language`."""
    return await _bump(
        tx,
        game_id,
        expected_version,
        allowed_from=_OPEN,
        assignments=["language = ?"],
        params=(language,),
        now=now,
    )


async def append_actions(
    tx: Tx,
    game_id: int,
    expected_version: int,
    actions: Sequence[str],
    *,
    snapshot: str,
    status: GameStatus,
    timer: TurnTimer | None,
    now: float,
    timeouts: Mapping[int, int] | None = None,
) -> int:
    """See :meth:`Repository.append_actions`."""
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
    allowed_from = [s for s in GameStatus if status in ALLOWED_TRANSITIONS[s]]
    row = await tx.one(
        "UPDATE games SET snapshot = ?, status = ?, deadline_at = ?, deadline_seat = ?, "
        "reminded = ?, action_count = action_count + ?, version = version + 1, updated_at = ?, "
        "timer_wake_at = NULL, timer_claimed_until = NULL "
        f"WHERE game_id = ? AND version = ? AND status IN ({placeholders(len(allowed_from))}) "
        "RETURNING version, action_count",
        (
            snapshot,
            status.value,
            timer.deadline_at if timer else None,
            timer.seat if timer else None,
            int(timer.reminded) if timer else 0,
            len(actions),
            now,
            game_id,
            expected_version,
            *allowed_from,
        ),
    )
    if row is None:
        await _refuse(tx, game_id, expected_version, status)
    assert row is not None
    first_seq = int(row["action_count"]) - len(actions)
    await tx.many(
        "INSERT INTO game_actions (game_id, seq, action, created_at) VALUES (?, ?, ?, ?)",
        [(game_id, first_seq + i, action, now) for i, action in enumerate(actions)],
    )
    await tx.many(
        "UPDATE game_seats SET timeouts = ? WHERE game_id = ? AND seat = ?",
        [(n, game_id, seat) for seat, n in sorted(counts.items())],
    )
    return int(row["version"])


async def set_table_message(
    tx: Tx, game_id: int, message_id: int | None, *, expected_version: int | None
) -> None:
    """See :meth:`Repository.set_table_message`."""
    await _check_version(tx, game_id, expected_version)
    await tx.run(
        "UPDATE games SET table_message_id = ? WHERE game_id = ? "
        "AND (? IS NULL OR table_message_id IS NULL OR table_message_id < ?)",
        (message_id, game_id, message_id, message_id),
    )


async def set_hand_message(
    tx: Tx,
    game_id: int,
    seat: int,
    message: MessageRef | None,
    *,
    expected_version: int | None,
) -> None:
    """See :meth:`Repository.set_hand_message`."""
    check_seat(seat)
    await _check_version(tx, game_id, expected_version)
    chat_id = message.chat_id if message else None
    message_id = message.message_id if message else None
    await tx.run(
        "UPDATE game_seats SET hand_chat_id = ?, hand_message_id = ? "
        "WHERE game_id = ? AND seat = ? AND (? IS NULL OR hand_chat_id IS NULL "
        "OR hand_chat_id != ? OR hand_message_id IS NULL OR hand_message_id < ?)",
        (chat_id, message_id, game_id, seat, message_id, chat_id, message_id),
    )


async def mark_reminded(tx: Tx, game_id: int, expected_version: int) -> None:
    """See :meth:`Repository.mark_reminded`."""
    await _check_version(tx, game_id, expected_version)
    await tx.run(
        "UPDATE games SET reminded = 1, timer_wake_at = NULL, timer_claimed_until = NULL "
        "WHERE game_id = ? AND deadline_at IS NOT NULL",
        (game_id,),
    )


async def arm_timer(tx: Tx, game_id: int, expected_version: int, wake_at: float) -> bool:
    """See :meth:`Repository.arm_timer`."""
    done = await tx.run(
        "UPDATE games SET timer_wake_at = ?, timer_claimed_until = NULL "
        "WHERE game_id = ? AND version = ? AND deadline_at IS NOT NULL",
        (wake_at, game_id, expected_version),
    )
    return done > 0


async def claim_due_timers(
    tx: Tx, now: float, *, lease: float, limit: int
) -> list[tuple[int, int]]:
    """See :meth:`Repository.claim_due_timers` (inside one write transaction: SQLite's write
    lock makes the look-up and the claim one step)."""
    if lease <= 0 or limit < 1:
        raise ValueError("lease must be > 0 and limit >= 1")
    rows = await tx.all(
        f"SELECT game_id, version FROM games WHERE {TIMER_DUE} "
        "ORDER BY COALESCE(timer_wake_at, deadline_at), game_id LIMIT ?",
        (GameStatus.ACTIVE.value, now, now, limit),
    )
    for row in rows:
        await tx.run(
            "UPDATE games SET timer_claimed_until = ? WHERE game_id = ?",
            (now + lease, row["game_id"]),
        )
    return [(int(row["game_id"]), int(row["version"])) for row in rows]


async def release_timer(tx: Tx, game_id: int, version: int) -> None:
    """See :meth:`Repository.release_timer`."""
    await tx.run(
        "UPDATE games SET timer_claimed_until = NULL WHERE game_id = ? AND version = ?",
        (game_id, version),
    )


TIMER_DUE = (
    "status = ? AND deadline_at IS NOT NULL AND COALESCE(timer_wake_at, deadline_at) <= ? "
    "AND (timer_claimed_until IS NULL OR timer_claimed_until <= ?)"
)
"""A game whose turn timer should run now and that no live lease holds (``?``: the active
status, now, now)."""


async def migrate_chat(tx: Tx, old_chat_id: int, new_chat_id: int, *, now: float) -> ChatMigration:
    """See :meth:`Repository.migrate_chat`."""
    check_int64(new_chat_id, "new_chat_id")
    if old_chat_id == new_chat_id:
        return ChatMigration(chat_moved=False, games_moved=0)
    old = await tx.one("SELECT * FROM chats WHERE chat_id = ?", (old_chat_id,))
    if old is None:
        await _note_migration(tx, old_chat_id, new_chat_id, now)
        return ChatMigration(chat_moved=False, games_moved=0)
    open_games = await tx.all(
        f"SELECT chat_id, game_id FROM games WHERE chat_id IN (?, ?) "
        f"AND status IN ({placeholders(len(_OPEN))}) ORDER BY chat_id = ?",
        (old_chat_id, new_chat_id, *_OPEN, old_chat_id),
    )
    if len(open_games) > 1:
        raise OpenGameExists(new_chat_id, int(open_games[0]["game_id"]))
    # The open table's message stays behind in the old chat: forget it (drawn anew).
    await tx.run(
        f"UPDATE games SET table_message_id = NULL WHERE chat_id = ? "
        f"AND status IN ({placeholders(len(_OPEN))})",
        (old_chat_id, *_OPEN),
    )
    count = await tx.one("SELECT COUNT(*) FROM games WHERE chat_id = ?", (old_chat_id,))
    games_moved = int(count[0]) if count is not None else 0
    if await tx.one("SELECT 1 FROM chats WHERE chat_id = ?", (new_chat_id,)) is None:
        # The one UPDATE: games follow through ON UPDATE CASCADE.
        await tx.run(
            "UPDATE chats SET chat_id = ?, updated_at = ? WHERE chat_id = ?",
            (new_chat_id, now, old_chat_id),
        )
    else:
        await tx.run("UPDATE games SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id))
        # Ratings follow (a person rated in both keeps the new chat's rating).
        await tx.run(
            "UPDATE ratings SET chat_id = ? WHERE chat_id = ? AND user_id NOT IN "
            "(SELECT user_id FROM ratings WHERE chat_id = ?)",
            (new_chat_id, old_chat_id, new_chat_id),
        )
        await tx.run("DELETE FROM ratings WHERE chat_id = ?", (old_chat_id,))
        await tx.run(  # and so do the wishes to hear of a table that needs a player
            "UPDATE table_alerts SET chat_id = ? WHERE chat_id = ? AND user_id NOT IN "
            "(SELECT user_id FROM table_alerts WHERE chat_id = ?)",
            (new_chat_id, old_chat_id, new_chat_id),
        )
        await tx.run("DELETE FROM table_alerts WHERE chat_id = ?", (old_chat_id,))
        await tx.run(
            "UPDATE chats SET language = COALESCE(language, ?), "
            "table_defaults = COALESCE(table_defaults, ?), updated_at = ? WHERE chat_id = ?",
            (old["language"], old["table_defaults"], now, new_chat_id),
        )
        await tx.run("DELETE FROM chats WHERE chat_id = ?", (old_chat_id,))
    await _note_migration(tx, old_chat_id, new_chat_id, now)
    return ChatMigration(chat_moved=True, games_moved=games_moved)


async def _note_migration(tx: Tx, old_chat_id: int, new_chat_id: int, now: float) -> None:
    """Remember for good where ``old_chat_id`` went (the first record wins; a group
    migrates once)."""
    await tx.run(
        "INSERT INTO chat_migrations (old_chat_id, new_chat_id, seq, migrated_at) "
        "SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ? FROM chat_migrations WHERE true "
        "ON CONFLICT (old_chat_id) DO NOTHING",
        (old_chat_id, new_chat_id, now),
    )


MAX_HOPS = 8
"""How many migrations :func:`successor` follows (a group migrates once; a chain longer
than this is a loop)."""


async def successor(tx: Tx, chat_id: int) -> int | None:
    """Where ``chat_id`` went (following later migrations of the new id too), or None when
    it was never migrated. See :meth:`Repository.chat_successor`."""
    found: int | None = None
    current = chat_id
    for _ in range(MAX_HOPS):
        row = await tx.one(
            "SELECT new_chat_id FROM chat_migrations WHERE old_chat_id = ?", (current,)
        )
        if row is None or int(row[0]) in (chat_id, current):
            break
        found = current = int(row[0])
    return found
