"""Numbered schema migrations for the SQLite backend, and the code that applies them
(:mod:`storage.postgres_migrations` holds the same numbered steps for PostgreSQL).

The ``schema_version`` table records one row per applied migration. At start-up
:func:`apply_migrations` applies the missing ones in order, each in its own ``BEGIN IMMEDIATE``
transaction (so two processes starting at once cannot both apply one), and refuses a database
whose schema is newer than this code.

To change the schema, append a :class:`Migration` with the next number; never edit a released
one. Types are kept portable (64-bit integers for Telegram ids, ``REAL`` epoch seconds, JSON as
``TEXT``) so the PostgreSQL backend mirrors the same numbered steps; a new migration is added
to both lists with the same number and name (a test compares them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import aiosqlite

from storage.errors import SchemaError


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step.

    Attributes:
        version: its number, ``1..n`` without gaps.
        name: a short description, stored in ``schema_version``.
        statements: SQL statements run in order inside one transaction.
    """

    version: int
    name: str
    statements: tuple[str, ...]


_INITIAL = Migration(
    1,
    "initial schema",
    (
        """
        CREATE TABLE users (
            user_id            INTEGER PRIMARY KEY,      -- Telegram user id (64-bit)
            display_name       TEXT    NOT NULL,
            telegram_language  TEXT,                     -- Telegram's language_code
            language           TEXT,                     -- chosen in the bot
            can_message        INTEGER NOT NULL DEFAULT 0 CHECK (can_message IN (0, 1)),
            updated_at         REAL    NOT NULL          -- UTC epoch seconds
        )
        """,
        """
        CREATE TABLE chats (
            chat_id         INTEGER PRIMARY KEY,         -- Telegram chat id (64-bit)
            chat_type       TEXT    NOT NULL,
            title           TEXT,
            language        TEXT,
            table_defaults  TEXT,                        -- JSON
            updated_at      REAL    NOT NULL
        )
        """,
        """
        CREATE TABLE games (
            game_id           INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id           INTEGER NOT NULL
                              REFERENCES chats (chat_id) ON UPDATE CASCADE,
            status            TEXT    NOT NULL
                              CHECK (status IN ('lobby', 'active', 'finished', 'abandoned')),
            settings          TEXT    NOT NULL,          -- JSON
            seed              INTEGER NOT NULL,
            creator_id        INTEGER NOT NULL REFERENCES users (user_id),
            language          TEXT,
            version           INTEGER NOT NULL DEFAULT 1,
            snapshot          TEXT,                      -- JSON
            action_count      INTEGER NOT NULL DEFAULT 0,
            table_message_id  INTEGER,
            deadline_at       REAL,                      -- UTC epoch seconds
            deadline_seat     INTEGER CHECK (deadline_seat BETWEEN 0 AND 3),
            reminded          INTEGER NOT NULL DEFAULT 0 CHECK (reminded IN (0, 1)),
            created_at        REAL    NOT NULL,
            updated_at        REAL    NOT NULL,
            CHECK ((deadline_at IS NULL) = (deadline_seat IS NULL))
        )
        """,
        # At most one open (lobby or active) game per chat.
        """
        CREATE UNIQUE INDEX games_one_open_per_chat
            ON games (chat_id) WHERE status IN ('lobby', 'active')
        """,
        "CREATE INDEX games_by_status ON games (status)",
        "CREATE INDEX games_by_chat ON games (chat_id)",
        "CREATE INDEX games_by_deadline ON games (deadline_at) WHERE deadline_at IS NOT NULL",
        """
        CREATE TABLE game_seats (
            game_id          INTEGER NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
            seat             INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
            kind             TEXT    NOT NULL CHECK (kind IN ('empty', 'human', 'computer')),
            user_id          INTEGER REFERENCES users (user_id),
            display_name     TEXT,
            hand_chat_id     INTEGER,                    -- private chat of the hand message
            hand_message_id  INTEGER,
            PRIMARY KEY (game_id, seat),
            CHECK ((kind = 'human') = (user_id IS NOT NULL)),
            CHECK ((hand_chat_id IS NULL) = (hand_message_id IS NULL))
        )
        """,
        # A user holds at most one seat per game; also serves "games of a user".
        """
        CREATE UNIQUE INDEX game_seats_one_per_user
            ON game_seats (user_id, game_id) WHERE user_id IS NOT NULL
        """,
        """
        CREATE TABLE game_actions (
            game_id     INTEGER NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
            seq         INTEGER NOT NULL CHECK (seq >= 0),
            action      TEXT    NOT NULL,
            created_at  REAL    NOT NULL,
            PRIMARY KEY (game_id, seq)
        )
        """,
    ),
)

_FORMER_PLAYER = Migration(
    2,
    "remember who left a seat a computer took over",
    (
        # A hand-over or three timeouts give a human's seat to a computer; the player may take
        # it back. NULL for every existing row: old games simply offer no way back.
        """
        ALTER TABLE game_seats ADD COLUMN former_user_id INTEGER
            REFERENCES users (user_id)
            CHECK (former_user_id IS NULL OR kind = 'computer')
        """,
        # games_left_by(): the seats a user may take back, looked up on every /start.
        """
        CREATE INDEX game_seats_former_user ON game_seats (former_user_id)
            WHERE former_user_id IS NOT NULL
        """,
    ),
)

_SEAT_TIMEOUTS = Migration(
    3,
    "count each seat's turn timeouts in a row; a table's forum topic",
    (
        # The turn timer's "three timeouts in a row and a computer takes the seat":
        # stored with the game, so a restart does not forget it.
        """
        ALTER TABLE game_seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0
            CHECK (timeouts >= 0)
        """,
        # A table opened in a forum topic lives in that topic; NULL elsewhere.
        "ALTER TABLE games ADD COLUMN thread_id INTEGER",
    ),
)

_STANDINGS = Migration(
    4,
    "standings, statistics and the daily deal",
    (
        # Values the bot derives once and keeps (the daily secret when none is set).
        """
        CREATE TABLE bot_state (
            key         TEXT PRIMARY KEY,
            value       TEXT NOT NULL,
            updated_at  REAL NOT NULL
        )
        """,
        # A person's choices about the boards (hidden from the daily's boards).
        """
        CREATE TABLE player_prefs (
            user_id       INTEGER PRIMARY KEY,
            board_hidden  INTEGER NOT NULL DEFAULT 0 CHECK (board_hidden IN (0, 1)),
            updated_at    REAL    NOT NULL
        )
        """,
        # Every attempt at a day's daily deal; one ranked attempt per person and day.
        """
        CREATE TABLE daily_games (
            game_id      INTEGER PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
            day          TEXT    NOT NULL,               -- YYYY-MM-DD, the daily's zone
            user_id      INTEGER NOT NULL,
            ranked       INTEGER NOT NULL CHECK (ranked IN (0, 1)),
            day_ends_at  REAL    NOT NULL,
            created_at   REAL    NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX daily_games_one_ranked ON daily_games (day, user_id) WHERE ranked",
        "CREATE INDEX daily_games_by_user ON daily_games (user_id, day)",
        """
        CREATE TABLE daily_pars (
            day          TEXT    PRIMARY KEY,
            seed         INTEGER NOT NULL,
            settings     TEXT    NOT NULL,               -- JSON
            pars         TEXT    NOT NULL,               -- JSON list, one per round
            computed_at  REAL    NOT NULL
        )
        """,
        # Derived (rebuilt by python -m bot.admin rebuild-stats): one row per ended game,
        # written once (the idempotency key), with one row per person who sat in it.
        """
        CREATE TABLE stats_games (
            game_id      INTEGER PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
            status       TEXT    NOT NULL CHECK (status IN ('finished', 'abandoned')),
            ended_at     REAL    NOT NULL,
            recorded_at  REAL    NOT NULL
        )
        """,
        """
        CREATE TABLE player_results (
            game_id         INTEGER NOT NULL
                            REFERENCES stats_games (game_id) ON DELETE CASCADE,
            user_id         INTEGER NOT NULL,
            seat            INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
            result          TEXT    NOT NULL CHECK (result IN ('win', 'draw', 'loss', 'none')),
            rounds          INTEGER NOT NULL,
            rounds_playing  INTEGER NOT NULL,
            made            INTEGER NOT NULL,
            nat             INTEGER NOT NULL,
            pits            INTEGER NOT NULL,
            roem            INTEGER NOT NULL,
            points          INTEGER NOT NULL,
            against         INTEGER NOT NULL,
            PRIMARY KEY (game_id, user_id)
        )
        """,
        "CREATE INDEX player_results_by_user ON player_results (user_id)",
        # Ratings of group games, per person per group; they follow a group that becomes a
        # supergroup (ON UPDATE CASCADE, and migrate_chat when both ids have rows).
        """
        CREATE TABLE ratings (
            chat_id     INTEGER NOT NULL
                        REFERENCES chats (chat_id) ON UPDATE CASCADE ON DELETE CASCADE,
            user_id     INTEGER NOT NULL,
            mu          REAL    NOT NULL,
            sigma       REAL    NOT NULL,
            games       INTEGER NOT NULL,
            updated_at  REAL    NOT NULL,
            PRIMARY KEY (chat_id, user_id)
        )
        """,
    ),
)

_TIMER_CLAIMS = Migration(
    5,
    "turn timers any worker can claim",
    (
        # When the running timer should next run (its reminder, then its deadline; NULL:
        # at the deadline), and until when a worker holds it (several workers on
        # one database; each timer fires once).
        "ALTER TABLE games ADD COLUMN timer_wake_at REAL",
        "ALTER TABLE games ADD COLUMN timer_claimed_until REAL",
        """
        CREATE INDEX games_timer_due ON games (COALESCE(timer_wake_at, deadline_at))
            WHERE deadline_at IS NOT NULL
        """,
    ),
)

_TRUST = Migration(
    6,
    "link tokens, stored stop prompts, hand-over rounds",
    (
        # The random token of the game's deep links (never its number), made when a link is
        # first drawn; and the message that asks /stop's question (any worker may confirm).
        "ALTER TABLE games ADD COLUMN link_token TEXT",
        "ALTER TABLE games ADD COLUMN stop_message_id INTEGER",
        "CREATE UNIQUE INDEX games_link_token ON games (link_token)",
        # The round in which a seat last went to a computer (a table without tips gives it
        # back only from the next round on).
        "ALTER TABLE game_seats ADD COLUMN handed_round INTEGER",
    ),
)

_SURFACE_CLAIMS = Migration(
    7,
    "table and hand messages one worker at a time",
    (
        # What the table message and each hand message show (the game version and a digest
        # of the content), the version a new message was last sent at, and which worker may
        # change the message until when (several workers on one database: one
        # owner per message at a time).
        "ALTER TABLE games ADD COLUMN table_shown_version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN table_sent_version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN table_shown TEXT",
        "ALTER TABLE games ADD COLUMN table_claim TEXT",
        "ALTER TABLE games ADD COLUMN table_claimed_until REAL",
        "ALTER TABLE game_seats ADD COLUMN hand_shown_version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE game_seats ADD COLUMN hand_sent_version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE game_seats ADD COLUMN hand_shown TEXT",
        "ALTER TABLE game_seats ADD COLUMN hand_claim TEXT",
        "ALTER TABLE game_seats ADD COLUMN hand_claimed_until REAL",
    ),
)

_CHAT_MIGRATIONS = Migration(
    8,
    "where migrated groups went",
    (
        # A group that became a supergroup, for good: updates from its old id may still
        # arrive (late, on any worker), and every worker reads here where the group went.
        # ``seq`` orders the rows for workers that catch up (``chat_migrations_after``).
        """
        CREATE TABLE chat_migrations (
            old_chat_id  INTEGER PRIMARY KEY,
            new_chat_id  INTEGER NOT NULL,
            seq          INTEGER NOT NULL UNIQUE,
            migrated_at  REAL    NOT NULL
        )
        """,
    ),
)

_TABLE_ALERTS = Migration(
    9,
    "a fourth wanted",
    (
        # Who wants a private message when a table in the group needs a player (``/notify``),
        # and when each person was last sent one (at most one an hour).
        """
        CREATE TABLE table_alerts (
            chat_id     INTEGER NOT NULL
                        REFERENCES chats (chat_id) ON UPDATE CASCADE ON DELETE CASCADE,
            user_id     INTEGER NOT NULL,
            created_at  REAL    NOT NULL,
            PRIMARY KEY (chat_id, user_id)
        )
        """,
        """
        CREATE TABLE alert_sends (
            user_id  INTEGER PRIMARY KEY,
            sent_at  REAL    NOT NULL
        )
        """,
    ),
)

_HAND_PLACE = Migration(
    10,
    "hands shown in the group",
    (
        # Where a person wants their hand at a group table: "group" (an ephemeral message in
        # the group that they alone see) or "private" (their private chat with the bot);
        # NULL: as the table says.
        "ALTER TABLE player_prefs ADD COLUMN hand_place TEXT "
        "CHECK (hand_place IN ('group', 'private'))",
    ),
)

MIGRATIONS: tuple[Migration, ...] = (
    _INITIAL,
    _FORMER_PLAYER,
    _SEAT_TIMEOUTS,
    _STANDINGS,
    _TIMER_CLAIMS,
    _TRUST,
    _SURFACE_CLAIMS,
    _CHAT_MIGRATIONS,
    _TABLE_ALERTS,
    _HAND_PLACE,
)
"""Every migration this code knows, in order; ``MIGRATIONS[-1].version`` is the code's schema."""

_BOOTSTRAP = """
CREATE TABLE IF NOT EXISTS schema_version (
    version     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    applied_at  REAL NOT NULL
)
"""


def check_sequence(migrations: Sequence[Migration]) -> int:
    """The schema version ``migrations`` reach; raises :class:`ValueError` unless they are
    numbered ``1..n`` without gaps."""
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise ValueError(f"migration #{expected} is numbered {migration.version}")
    return len(migrations)


async def _current_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("SELECT MAX(version) FROM schema_version"))
    value = rows[0][0]
    return int(value) if value is not None else 0


async def schema_version(conn: aiosqlite.Connection) -> int:
    """The database's schema version (0 for an empty database)."""
    await conn.execute(_BOOTSTRAP)
    return await _current_version(conn)


async def apply_migrations(
    conn: aiosqlite.Connection,
    migrations: Sequence[Migration] = MIGRATIONS,
    *,
    clock: Callable[[], float],
) -> int:
    """Bring the database at ``conn`` (autocommit mode) up to ``migrations[-1]``; return the
    schema version reached.

    Raises:
        SchemaError: the database's schema is newer than ``migrations`` (nothing is changed).
        sqlite3.Error: a migration failed; it was rolled back, earlier ones stay applied.
        ValueError: ``migrations`` are not numbered ``1..n``.
    """
    supported = check_sequence(migrations)
    current = await schema_version(conn)
    if current > supported:
        raise SchemaError(
            f"database schema version {current} is newer than this code supports "
            f"({supported}); upgrade the bot instead of downgrading the database",
            found=current,
            supported=supported,
        )
    for migration in migrations[current:]:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have applied it while we waited for the write lock.
            if await _current_version(conn) < migration.version:
                for statement in migration.statements:
                    await conn.execute(statement)
                await conn.execute(
                    "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, clock()),
                )
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        await conn.execute("COMMIT")
    return supported
