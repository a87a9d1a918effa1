"""PostgreSQL-specific: numbered migrations from an empty database (the same numbers and names
as SQLite's), the column types, a schema newer than the code, two processes migrating at
once, and one-line errors for a server that cannot be reached (``test_sqlite_schema.py`` is the
SQLite counterpart)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from storage import DatabaseUnavailable, PostgresRepository, SchemaError, open_repository
from storage.migrations import MIGRATIONS, Migration
from storage.postgres_migrations import PG_MIGRATIONS
from tests.pg import PostgresDatabases
from tests.storage.helpers import ANN, CHAT, T0

FUTURE = Migration(len(PG_MIGRATIONS) + 1, "from the future", ("CREATE TABLE future (x INT)",))


@pytest.fixture
async def empty_url(postgres_server: PostgresDatabases) -> AsyncIterator[str]:
    """The URL of a new, empty database (no tables at all), dropped after the test."""
    url = await postgres_server.create(migrated=False)
    yield url
    await postgres_server.drop(url)


async def _fetch(url: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(sql)
    finally:
        await conn.close()


def test_both_backends_know_the_same_numbered_migrations() -> None:
    assert [(m.version, m.name) for m in PG_MIGRATIONS] == [(m.version, m.name) for m in MIGRATIONS]


async def test_an_empty_database_is_migrated_to_the_newest_schema(empty_url: str) -> None:
    stamps: list[float] = []

    def clock() -> float:
        stamps.append(T0)
        return T0

    async with await PostgresRepository.open(empty_url, clock=clock) as repo:
        assert repo.schema_version == MIGRATIONS[-1].version
        await repo.upsert_chat(CHAT, "group", "t", now=T0)  # beyond 32 bits
        assert await repo.get_chat(CHAT) is not None
    assert len(stamps) == len(PG_MIGRATIONS)
    rows = await _fetch(empty_url, "SELECT version, name, applied_at FROM schema_version")
    assert [tuple(r) for r in rows] == [(m.version, m.name, T0) for m in PG_MIGRATIONS]
    # Reopening applies nothing.
    async with await PostgresRepository.open(empty_url, clock=clock) as repo:
        assert await repo.get_chat(CHAT) is not None
    assert len(stamps) == len(PG_MIGRATIONS)


async def test_ids_are_64_bit_times_double_and_flags_boolean(empty_url: str) -> None:
    async with await PostgresRepository.open(empty_url):
        pass
    rows = await _fetch(
        empty_url,
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = 'public'",
    )
    types = {(r["table_name"], r["column_name"]): r["data_type"] for r in rows}
    for column in (
        ("users", "user_id"),
        ("chats", "chat_id"),
        ("games", "game_id"),
        ("games", "chat_id"),
        ("games", "seed"),
        ("games", "creator_id"),
        ("game_seats", "user_id"),
        ("game_seats", "former_user_id"),
        ("game_seats", "hand_chat_id"),
    ):
        assert types[column] == "bigint", column
    for column in (
        ("users", "updated_at"),
        ("games", "deadline_at"),
        ("game_actions", "created_at"),
    ):
        assert types[column] == "double precision", column
    assert types["users", "can_message"] == types["games", "reminded"] == "boolean"
    assert types["games", "settings"] == types["games", "snapshot"] == "text"


async def test_a_later_migration_is_applied_and_a_newer_schema_is_refused(
    empty_url: str,
) -> None:
    async with await PostgresRepository.open(empty_url) as repo:
        await repo.upsert_chat(CHAT, "group", "kept", now=T0)
    async with await PostgresRepository.open(
        empty_url, migrations=(*PG_MIGRATIONS, FUTURE)
    ) as repo:
        assert repo.schema_version == FUTURE.version
        chat = await repo.get_chat(CHAT)
    assert chat is not None and chat.title == "kept"
    with pytest.raises(SchemaError, match="newer") as refused:
        await PostgresRepository.open(empty_url)
    assert (refused.value.found, refused.value.supported) == (FUTURE.version, len(PG_MIGRATIONS))


async def test_a_failing_migration_is_rolled_back_and_earlier_ones_stay(empty_url: str) -> None:
    broken = Migration(
        FUTURE.version, "broken", ("CREATE TABLE future (x INT)", "SELECT * FROM nowhere")
    )
    with pytest.raises(asyncpg.UndefinedTableError, match="nowhere"):
        await PostgresRepository.open(empty_url, migrations=(*PG_MIGRATIONS, broken))
    async with await PostgresRepository.open(empty_url) as repo:
        assert repo.schema_version == len(PG_MIGRATIONS)
    # The half of the broken step is gone: FUTURE creates the same table again.
    async with await PostgresRepository.open(
        empty_url, migrations=(*PG_MIGRATIONS, FUTURE)
    ) as repo:
        assert repo.schema_version == FUTURE.version


async def test_migrations_must_be_numbered_without_gaps(empty_url: str) -> None:
    gap = Migration(len(PG_MIGRATIONS) + 2, "gap", ("SELECT 1",))
    with pytest.raises(ValueError, match="numbered"):
        await PostgresRepository.open(empty_url, migrations=(*PG_MIGRATIONS, gap))


async def test_two_processes_starting_at_once_migrate_once(empty_url: str) -> None:
    stamps: list[float] = []

    def clock() -> float:
        stamps.append(T0)
        return T0

    repos = await asyncio.gather(
        *(PostgresRepository.open(empty_url, clock=clock) for _ in range(3))
    )
    try:
        assert [r.schema_version for r in repos] == [len(PG_MIGRATIONS)] * 3
    finally:
        for repo in repos:
            await repo.close()
    assert len(stamps) == len(PG_MIGRATIONS)  # each step applied by one of them


async def test_a_closed_repository_refuses_work_and_closes_twice(empty_url: str) -> None:
    repo = await open_repository(empty_url)
    await repo.close()
    await repo.close()
    with pytest.raises(RuntimeError, match="closed"):
        await repo.get_chat(CHAT)


async def test_a_server_that_is_not_there_is_one_clear_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound but not listening: connections are refused
        url = f"postgresql://bot:s3cret@127.0.0.1:{sock.getsockname()[1]}/klaverjas"
        with pytest.raises(DatabaseUnavailable) as refused:
            await PostgresRepository.open(url, connect_timeout=5)
    assert "s3cret" not in str(refused.value)
    assert "\n" not in str(refused.value)


async def test_a_database_that_does_not_exist_is_one_clear_error(
    postgres_server: PostgresDatabases,
) -> None:
    parts = urlsplit(postgres_server.url)
    url = urlunsplit(parts._replace(path="/no_such_database_here"))
    with pytest.raises(DatabaseUnavailable, match="no_such_database_here"):
        await open_repository(url)


async def test_an_unchanged_user_or_chat_is_neither_written_nor_locked(empty_url: str) -> None:
    """Every update touches its user and chat: when Telegram's facts are the same, the row
    keeps its ``updated_at`` and no transaction takes its lock (``xmax`` stays 0), so no
    commit waits for a WAL flush."""
    async with await PostgresRepository.open(empty_url) as repo:
        first = await repo.upsert_user(ANN, "Ann", "nl", now=T0)
        chat = await repo.upsert_chat(CHAT, "group", "Club", now=T0)
        assert await repo.upsert_user(ANN, "Ann", "nl", now=T0 + 5) == first
        assert await repo.upsert_chat(CHAT, "group", "Club", now=T0 + 5) == chat
        rows = await _fetch(
            empty_url,
            "SELECT xmax::text AS xmax FROM users UNION ALL SELECT xmax::text FROM chats",
        )
        assert [r["xmax"] for r in rows] == ["0", "0"]
        changed = await repo.upsert_user(ANN, "Ann", None, now=T0 + 6)
        assert (changed.telegram_language, changed.updated_at) == (None, T0 + 6)
        renamed = await repo.upsert_chat(CHAT, "supergroup", "Club", now=T0 + 7)
        assert (renamed.chat_type, renamed.updated_at) == ("supergroup", T0 + 7)
