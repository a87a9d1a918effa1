"""Game and chat-migration writes for :mod:`storage.postgres`.

Compare-and-set: every state write is ``UPDATE games SET ..., version = version + 1 WHERE
game_id = $n AND version = $m AND status = ANY(...) RETURNING version``. Under READ COMMITTED
a second writer of the same row waits for the first to commit, then re-checks the ``WHERE``
against the new row and matches nothing: it loses cleanly, in this process or another. When no
row comes back, :func:`_refuse` reads the row once to say why (missing, stale, wrong status).

The writes of play are single statements (one round trip, atomic without ``BEGIN``):
:func:`append_actions` updates the game and appends the log in one statement with a
data-modifying ``WITH``; the bookkeeping writes check the version in the same statement.
Functions taking ``conn`` inside a transaction say so; the others run in autocommit.
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
from storage.postgres_rows import Conn, load_games
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
    TurnTimer,
    check_int64,
    check_json,
    check_seat,
)

_OPEN_STATUSES = tuple(sorted(OPEN_STATUSES))
_OPEN = [s.value for s in _OPEN_STATUSES]


async def _refuse(
    conn: Conn, game_id: int, expected_version: int | None, requested: GameStatus | None = None
) -> None:
    """Raise the error that explains why a compare-and-set matched no row."""
    row = await conn.fetchrow("SELECT version, status FROM games WHERE game_id = $1", game_id)
    if row is None:
        raise NotFound("game", game_id)
    if expected_version is not None and row["version"] != expected_version:
        raise StaleVersion(game_id, expected_version, row["version"])
    raise WrongStatus(game_id, GameStatus(row["status"]), requested)


async def bump(
    conn: Conn,
    game_id: int,
    expected_version: int,
    *,
    allowed_from: Collection[GameStatus],
    assignments: Sequence[str] = (),
    params: Sequence[object] = (),
    now: float,
) -> int:
    """Compare-and-set a state write of ``assignments`` (``"column = $4"``, ``"column = $5"``
    ... numbered after the three fixed parameters, with ``params``) on a game in one of
    ``allowed_from``; return the new version."""
    columns = ", ".join([*assignments, "version = version + 1", "updated_at = $3"])
    version = await conn.fetchval(
        f"UPDATE games SET {columns} WHERE game_id = $1 AND version = $2 "
        f"AND status = ANY(${4 + len(params)}::text[]) RETURNING version",
        game_id,
        expected_version,
        now,
        *params,
        [GameStatus(s).value for s in allowed_from],
    )
    if version is None:
        await _refuse(conn, game_id, expected_version)
    assert version is not None
    return int(version)


async def _require_users(conn: Conn, user_ids: Collection[int]) -> None:
    """Inside a transaction: raise ``NotFound`` unless every user row exists."""
    if not user_ids:
        return
    rows = await conn.fetch(
        "SELECT user_id FROM users WHERE user_id = ANY($1::bigint[])", list(user_ids)
    )
    missing = set(user_ids) - {r["user_id"] for r in rows}
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
    return {o.former_user_id for o in occupants if o.former_user_id is not None}


async def create_game(
    conn: Conn,
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
    found = await conn.fetchval("SELECT 1 FROM chats WHERE chat_id = $1 FOR KEY SHARE", chat_id)
    moved = await successor(conn, chat_id)  # after the lock: a migration committed is seen
    if moved is not None:
        raise ChatMoved(chat_id, moved)
    if found is None:
        raise NotFound("chat", chat_id)
    await _require_users(conn, {creator_id, *humans, *_formers(occupants)})
    # The conflict target names the partial index games_one_open_per_chat; DO NOTHING keeps
    # the transaction usable (an error would abort it). Twice: the open game found in the way
    # may have closed before it was looked up.
    for _ in range(2):
        game_id = await conn.fetchval(
            "INSERT INTO games (chat_id, status, settings, seed, creator_id, language, "
            "thread_id, created_at, updated_at) VALUES ($1, 'lobby', $2, $3, $4, $5, $6, $7, $7) "
            "ON CONFLICT (chat_id) WHERE status IN ('lobby', 'active') DO NOTHING "
            "RETURNING game_id",
            chat_id,
            settings,
            seed,
            creator_id,
            language,
            thread_id,
            now,
        )
        if game_id is not None:
            break
        open_game = await conn.fetchval(
            "SELECT game_id FROM games WHERE chat_id = $1 AND status = ANY($2::text[])",
            chat_id,
            _OPEN,
        )
        if open_game is not None:
            raise OpenGameExists(chat_id, int(open_game))
    else:  # pragma: no cover - two races in a row
        raise OpenGameExists(chat_id, 0)
    await conn.execute(
        "INSERT INTO game_seats (game_id, seat, kind, user_id, display_name, former_user_id) "
        "SELECT $1, o.seat - 1, o.kind, o.user_id, o.display_name, o.former_user_id "
        "FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[]) "
        "WITH ORDINALITY AS o(kind, user_id, display_name, former_user_id, seat)",
        game_id,
        [o.kind.value for o in occupants],
        [o.user_id for o in occupants],
        [o.display_name for o in occupants],
        [o.former_user_id for o in occupants],
    )
    (game,) = await load_games(conn, "g.game_id = $1", (game_id,), with_actions=True)
    return game


async def set_seats(
    conn: Conn, game_id: int, expected_version: int, seats: Mapping[int, Occupant], *, now: float
) -> int:
    """Inside a transaction. See :meth:`Repository.set_seats`."""
    indices = sorted(check_seat(i) for i in seats)
    occupants = [seats[i] for i in indices]
    humans = _humans(game_id, occupants)
    # The compare-and-set also locks the game row: seat writes of one game are serialized.
    version = await bump(conn, game_id, expected_version, allowed_from=_OPEN_STATUSES, now=now)
    if not indices:
        return version
    await _require_users(conn, {*humans, *_formers(occupants)})
    if humans:
        elsewhere = await conn.fetchval(
            "SELECT user_id FROM game_seats WHERE game_id = $1 "
            "AND user_id = ANY($2::bigint[]) AND NOT seat = ANY($3::int[])",
            game_id,
            humans,
            indices,
        )
        if elsewhere is not None:
            raise SeatConflict(game_id, int(elsewhere))
    # Two statements: the unique index game_seats_one_per_user is checked row by row, so a
    # user moving seats must leave the old one (cleared here) before taking the new one.
    await conn.execute(
        "UPDATE game_seats SET kind = 'empty', user_id = NULL, display_name = NULL, "
        "former_user_id = NULL, hand_chat_id = NULL, hand_message_id = NULL, timeouts = 0 "
        "WHERE game_id = $1 AND seat = ANY($2::int[])",
        game_id,
        indices,
    )
    await conn.execute(
        "UPDATE game_seats AS s SET kind = o.kind, user_id = o.user_id, "
        "display_name = o.display_name, former_user_id = o.former_user_id "
        "FROM unnest($2::int[], $3::text[], $4::bigint[], $5::text[], $6::bigint[]) "
        "AS o(seat, kind, user_id, display_name, former_user_id) "
        "WHERE s.game_id = $1 AND s.seat = o.seat",
        game_id,
        indices,
        [o.kind.value for o in occupants],
        [o.user_id for o in occupants],
        [o.display_name for o in occupants],
        [o.former_user_id for o in occupants],
    )
    return version


async def set_settings(
    conn: Conn, game_id: int, expected_version: int, settings: str, *, now: float
) -> int:
    """See :meth:`Repository.set_settings`."""
    check_json(settings, "settings")
    return await bump(
        conn,
        game_id,
        expected_version,
        allowed_from=(GameStatus.LOBBY,),
        assignments=["settings = $4"],
        params=(settings,),
        now=now,
    )


async def set_game_language(
    conn: Conn, game_id: int, expected_version: int, language: str | None, *, now: float
) -> int:
    """See :meth:`Repository.set_game_language`."""
    return await bump(
        conn,
        game_id,
        expected_version,
        allowed_from=_OPEN_STATUSES,
        assignments=["language = $4"],
        params=(language,),
        now=now,
    )


async def append_actions(
    conn: Conn,
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
    """See :meth:`Repository.append_actions`: one statement (the game's compare-and-set, the
    log's new rows, numbered from the ``action_count`` it returns, and the seats' timeout
    counts)."""
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
    allowed_from = [s.value for s in GameStatus if status in ALLOWED_TRANSITIONS[s]]
    version = await conn.fetchval(
        "WITH game AS ("
        " UPDATE games SET snapshot = $3, status = $4, deadline_at = $5, deadline_seat = $6,"
        " reminded = $7, action_count = action_count + cardinality($8::text[]),"
        " version = version + 1, updated_at = $9, timer_wake_at = NULL,"
        " timer_claimed_until = NULL"
        " WHERE game_id = $1 AND version = $2 AND status = ANY($10::text[])"
        " RETURNING version, action_count"
        "), log AS ("
        " INSERT INTO game_actions (game_id, seq, action, created_at)"
        " SELECT $1, game.action_count - cardinality($8::text[]) + a.n - 1, a.action, $9"
        " FROM game, unnest($8::text[]) WITH ORDINALITY AS a(action, n)"
        "), counts AS ("
        " UPDATE game_seats AS s SET timeouts = t.n"
        " FROM game, unnest($11::int[], $12::int[]) AS t(seat, n)"
        " WHERE s.game_id = $1 AND s.seat = t.seat"
        ") SELECT version FROM game",
        game_id,
        expected_version,
        snapshot,
        status.value,
        timer.deadline_at if timer else None,
        timer.seat if timer else None,
        timer.reminded if timer else False,
        list(actions),
        now,
        allowed_from,
        sorted(counts),
        [counts[seat] for seat in sorted(counts)],
    )
    if version is None:
        await _refuse(conn, game_id, expected_version, status)
    assert version is not None
    return int(version)


async def _check_version(conn: Conn, game_id: int, expected_version: int | None) -> None:
    """Raise unless the game exists (and is at ``expected_version``, if given)."""
    version = await conn.fetchval("SELECT version FROM games WHERE game_id = $1", game_id)
    if version is None:
        raise NotFound("game", game_id)
    if expected_version is not None and version != expected_version:
        raise StaleVersion(game_id, expected_version, version)


async def set_table_message(
    conn: Conn, game_id: int, message_id: int | None, *, expected_version: int | None
) -> None:
    """See :meth:`Repository.set_table_message` (one statement; no version bump)."""
    done = await conn.fetchval(
        "UPDATE games SET table_message_id = CASE WHEN $2::bigint IS NULL"
        " OR table_message_id IS NULL OR table_message_id < $2 THEN $2::bigint"
        " ELSE table_message_id END "
        "WHERE game_id = $1 AND ($3::int IS NULL OR version = $3) RETURNING 1",
        game_id,
        message_id,
        expected_version,
    )
    if done is None:  # versions only grow: the check below raises
        await _check_version(conn, game_id, expected_version)


async def set_hand_message(
    conn: Conn,
    game_id: int,
    seat: int,
    message: MessageRef | None,
    *,
    expected_version: int | None,
) -> None:
    """See :meth:`Repository.set_hand_message`: one statement; the game row is share-locked
    while the version is checked, so no state write slips in between."""
    check_seat(seat)
    done = await conn.fetchval(
        "WITH game AS (SELECT game_id FROM games WHERE game_id = $1 "
        "AND ($5::int IS NULL OR version = $5) FOR SHARE) "
        "UPDATE game_seats SET hand_chat_id = $3::bigint, hand_message_id = $4::bigint "
        "WHERE game_id = (SELECT game_id FROM game) AND seat = $2"
        " AND NOT COALESCE($4::bigint IS NOT NULL AND hand_chat_id = $3"
        " AND hand_message_id >= $4, FALSE) RETURNING 1",
        game_id,
        seat,
        message.chat_id if message else None,
        message.message_id if message else None,
        expected_version,
    )
    if done is None:  # versions only grow: the check below raises
        await _check_version(conn, game_id, expected_version)


async def mark_reminded(conn: Conn, game_id: int, expected_version: int) -> None:
    """See :meth:`Repository.mark_reminded` (one statement; no-op without a timer)."""
    done = await conn.fetchval(
        "UPDATE games SET reminded = TRUE, timer_wake_at = NULL, timer_claimed_until = NULL "
        "WHERE game_id = $1 AND version = $2 AND deadline_at IS NOT NULL RETURNING 1",
        game_id,
        expected_version,
    )
    if done is None:
        await _check_version(conn, game_id, expected_version)


async def arm_timer(conn: Conn, game_id: int, expected_version: int, wake_at: float) -> bool:
    """See :meth:`Repository.arm_timer` (one statement)."""
    done = await conn.fetchval(
        "UPDATE games SET timer_wake_at = $3, timer_claimed_until = NULL "
        "WHERE game_id = $1 AND version = $2 AND deadline_at IS NOT NULL RETURNING 1",
        game_id,
        expected_version,
        wake_at,
    )
    return done is not None


async def claim_due_timers(
    conn: Conn, now: float, *, lease: float, limit: int
) -> list[tuple[int, int]]:
    """See :meth:`Repository.claim_due_timers`: one statement; rows another worker is
    claiming right now are skipped (``FOR UPDATE SKIP LOCKED``), so two workers never claim
    one timer."""
    if lease <= 0 or limit < 1:
        raise ValueError("lease must be > 0 and limit >= 1")
    rows = await conn.fetch(
        "WITH due AS (SELECT game_id FROM games WHERE status = $1 AND deadline_at IS NOT NULL"
        " AND COALESCE(timer_wake_at, deadline_at) <= $2"
        " AND (timer_claimed_until IS NULL OR timer_claimed_until <= $2)"
        " ORDER BY COALESCE(timer_wake_at, deadline_at), game_id LIMIT $4"
        " FOR UPDATE SKIP LOCKED)"
        " UPDATE games AS g SET timer_claimed_until = $2 + $3::float8 FROM due"
        " WHERE g.game_id = due.game_id"
        " RETURNING g.game_id, g.version, COALESCE(g.timer_wake_at, g.deadline_at) AS due_at",
        GameStatus.ACTIVE.value,
        now,
        lease,
        limit,
    )
    ordered = sorted(rows, key=lambda r: (r["due_at"], r["game_id"]))
    return [(int(r["game_id"]), int(r["version"])) for r in ordered]


async def release_timer(conn: Conn, game_id: int, version: int) -> None:
    """See :meth:`Repository.release_timer` (one statement)."""
    await conn.execute(
        "UPDATE games SET timer_claimed_until = NULL WHERE game_id = $1 AND version = $2",
        game_id,
        version,
    )


async def migrate_chat(
    conn: Conn, old_chat_id: int, new_chat_id: int, *, now: float
) -> ChatMigration:
    """Inside a transaction. See :meth:`Repository.migrate_chat`. Both chat rows are locked
    first, so a ``create_game`` in either chat waits for the move."""
    check_int64(new_chat_id, "new_chat_id")
    if old_chat_id == new_chat_id:
        return ChatMigration(chat_moved=False, games_moved=0)
    rows = await conn.fetch(
        "SELECT * FROM chats WHERE chat_id = ANY($1::bigint[]) ORDER BY chat_id FOR UPDATE",
        [old_chat_id, new_chat_id],
    )
    old = next((r for r in rows if r["chat_id"] == old_chat_id), None)
    if old is None:
        await _note_migration(conn, old_chat_id, new_chat_id, now)
        return ChatMigration(chat_moved=False, games_moved=0)
    open_games = await conn.fetch(
        "SELECT chat_id, game_id FROM games WHERE chat_id = ANY($1::bigint[]) "
        "AND status = ANY($2::text[]) ORDER BY chat_id = $3",
        [old_chat_id, new_chat_id],
        _OPEN,
        old_chat_id,
    )
    if len(open_games) > 1:
        raise OpenGameExists(new_chat_id, int(open_games[0]["game_id"]))
    # The open table's message stays behind in the old chat: forget it (drawn anew).
    await conn.execute(
        "UPDATE games SET table_message_id = NULL WHERE chat_id = $1 AND status = ANY($2::text[])",
        old_chat_id,
        _OPEN,
    )
    games_moved = int(
        await conn.fetchval("SELECT COUNT(*) FROM games WHERE chat_id = $1", old_chat_id)
    )
    if len(rows) == 1:
        # The one UPDATE: games follow through ON UPDATE CASCADE.
        await conn.execute(
            "UPDATE chats SET chat_id = $1, updated_at = $2 WHERE chat_id = $3",
            new_chat_id,
            now,
            old_chat_id,
        )
    else:
        await conn.execute(
            "UPDATE games SET chat_id = $1 WHERE chat_id = $2", new_chat_id, old_chat_id
        )
        # Ratings follow (a person rated in both keeps the new chat's rating).
        await conn.execute(
            "UPDATE ratings SET chat_id = $1 WHERE chat_id = $2 AND user_id NOT IN "
            "(SELECT user_id FROM ratings WHERE chat_id = $1)",
            new_chat_id,
            old_chat_id,
        )
        await conn.execute("DELETE FROM ratings WHERE chat_id = $1", old_chat_id)
        await conn.execute(  # and so do the wishes to hear of a table that needs a player
            "UPDATE table_alerts SET chat_id = $1 WHERE chat_id = $2 AND user_id NOT IN "
            "(SELECT user_id FROM table_alerts WHERE chat_id = $1)",
            new_chat_id,
            old_chat_id,
        )
        await conn.execute("DELETE FROM table_alerts WHERE chat_id = $1", old_chat_id)
        await conn.execute(
            "UPDATE chats SET language = COALESCE(language, $1), "
            "table_defaults = COALESCE(table_defaults, $2), updated_at = $3 WHERE chat_id = $4",
            old["language"],
            old["table_defaults"],
            now,
            new_chat_id,
        )
        await conn.execute("DELETE FROM chats WHERE chat_id = $1", old_chat_id)
    await _note_migration(conn, old_chat_id, new_chat_id, now)
    return ChatMigration(chat_moved=True, games_moved=games_moved)


async def _note_migration(conn: Conn, old_chat_id: int, new_chat_id: int, now: float) -> None:
    """Remember for good where ``old_chat_id`` went (the first record wins)."""
    await conn.execute(
        "INSERT INTO chat_migrations (old_chat_id, new_chat_id, migrated_at) "
        "VALUES ($1, $2, $3) ON CONFLICT (old_chat_id) DO NOTHING",
        old_chat_id,
        new_chat_id,
        now,
    )


MAX_HOPS = 8
"""How many migrations :func:`successor` follows (a longer chain is a loop)."""


async def successor(conn: Conn, chat_id: int) -> int | None:
    """Where ``chat_id`` went (following later migrations of the new id too), or None.
    See :meth:`Repository.chat_successor`."""
    found: int | None = None
    current = chat_id
    for _ in range(MAX_HOPS):
        new = await conn.fetchval(
            "SELECT new_chat_id FROM chat_migrations WHERE old_chat_id = $1", current
        )
        if new is None or int(new) in (chat_id, current):
            break
        found = current = int(new)
    return found
