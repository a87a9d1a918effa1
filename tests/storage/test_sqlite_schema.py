"""SQLite-specific: connection PRAGMAs, numbered migrations and cancellation
(``test_postgres_schema.py`` is the PostgreSQL counterpart; the behaviour of the migrations —
apply in order, each in its own transaction, refuse a newer schema — is the same)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

import pytest

from storage import GameStatus, Occupant, SchemaError, SqliteRepository
from storage.migrations import MIGRATIONS, Migration
from tests.storage.helpers import ANN, CHAT, T0, new_game, seed

FUTURE = Migration(len(MIGRATIONS) + 1, "from the future", ("CREATE TABLE future (x INTEGER)",))


async def test_file_database_runs_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    async with await SqliteRepository.open(tmp_path / "db", busy_timeout_ms=1234) as repo:
        pragmas = await repo.pragmas()
    assert pragmas == {
        "journal_mode": "wal",
        "synchronous": 1,  # NORMAL
        "foreign_keys": 1,
        "busy_timeout": 1234,
        "schema_version": MIGRATIONS[-1].version,
    }


async def test_empty_database_is_migrated_to_the_newest_schema() -> None:
    async with await SqliteRepository.open(":memory:") as repo:
        assert repo.schema_version == MIGRATIONS[-1].version
        assert (await repo.pragmas())["schema_version"] == MIGRATIONS[-1].version
        # The schema works: a chat can be written and read back.
        await repo.upsert_chat(CHAT, "group", "t", now=T0)
        assert await repo.get_chat(CHAT) is not None


async def test_reopening_a_migrated_database_is_a_no_op(tmp_path: Path) -> None:
    clock_calls: list[float] = []

    def clock() -> float:
        clock_calls.append(T0)
        return T0

    path = tmp_path / "db"
    async with await SqliteRepository.open(path, clock=clock) as repo:
        await repo.upsert_chat(CHAT, "group", "t", now=T0)
    assert len(clock_calls) == len(MIGRATIONS)
    async with await SqliteRepository.open(path, clock=clock) as repo:
        assert await repo.get_chat(CHAT) is not None
    assert len(clock_calls) == len(MIGRATIONS)  # nothing applied the second time


async def test_a_later_migration_is_applied_to_an_existing_database(tmp_path: Path) -> None:
    path = tmp_path / "db"
    async with await SqliteRepository.open(path) as repo:
        await repo.upsert_chat(CHAT, "group", "kept", now=T0)
    async with await SqliteRepository.open(path, migrations=(*MIGRATIONS, FUTURE)) as repo:
        assert repo.schema_version == FUTURE.version
        chat = await repo.get_chat(CHAT)
    assert chat is not None
    assert chat.title == "kept"


async def test_a_schema_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db"
    async with await SqliteRepository.open(path, migrations=(*MIGRATIONS, FUTURE)):
        pass
    with pytest.raises(SchemaError, match="newer") as refused:
        await SqliteRepository.open(path)
    assert (refused.value.found, refused.value.supported) == (FUTURE.version, len(MIGRATIONS))


async def test_a_failing_migration_is_rolled_back_and_earlier_ones_stay(tmp_path: Path) -> None:
    path = tmp_path / "db"
    broken = Migration(
        FUTURE.version, "broken", ("CREATE TABLE future (x INTEGER)", "SELECT * FROM nowhere")
    )
    with pytest.raises(sqlite3.OperationalError, match="nowhere"):
        await SqliteRepository.open(path, migrations=(*MIGRATIONS, broken))
    # Version 1 stayed; the half of migration 2 did not: FUTURE creates the same table again.
    async with await SqliteRepository.open(path) as repo:
        assert repo.schema_version == len(MIGRATIONS)
    async with await SqliteRepository.open(path, migrations=(*MIGRATIONS, FUTURE)) as repo:
        assert repo.schema_version == FUTURE.version


async def test_migrations_must_be_numbered_without_gaps() -> None:
    gap = Migration(len(MIGRATIONS) + 2, "gap", ("SELECT 1",))
    with pytest.raises(ValueError, match="numbered"):
        await SqliteRepository.open(":memory:", migrations=(*MIGRATIONS, gap))


async def test_a_closed_repository_refuses_work_and_closes_twice() -> None:
    repo = await SqliteRepository.open(":memory:")
    await repo.close()
    await repo.close()
    with pytest.raises(RuntimeError, match="closed"):
        await repo.get_chat(CHAT)


async def test_open_creates_the_database_folder(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "bot.sqlite3"
    repo = await SqliteRepository.open(path)
    await repo.close()
    assert path.is_file()
    again = await SqliteRepository.open(path)  # and opens it again as it is
    await again.close()


async def test_open_refuses_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database, " * 200)
    with pytest.raises(sqlite3.DatabaseError):
        await SqliteRepository.open(path)
    assert path.read_text().startswith("not a database")


async def test_a_write_cancelled_at_its_first_wait_is_rolled_back() -> None:
    """The first wait of a write is for its ``BEGIN IMMEDIATE`` on the connection's thread: a
    cancellation there rolls the transaction back, so nothing is written."""
    async with await SqliteRepository.open(":memory:") as repo:
        await seed(repo)
        game = await new_game(repo, seats=[Occupant.human(ANN, "Ann")])
        task = asyncio.create_task(
            repo.append_actions(
                game.game_id, 1, ["x"], snapshot="{}", status=GameStatus.ACTIVE, timer=None, now=T0
            )
        )
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert task.cancelled()
        after = await repo.get_game(game.game_id, with_actions=True)
    assert after is not None
    assert (after.version, after.actions, after.status) == (1, (), GameStatus.LOBBY)


async def test_a_new_database_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "bot.sqlite3"
    old = os.umask(0o022)  # the usual umask: files readable by everyone
    try:
        repo = await SqliteRepository.open(path)
        try:
            await seed(repo)
            files = [p for p in path.parent.iterdir() if p.name.startswith("bot.sqlite3")]
            assert path in files and len(files) >= 2  # the database and its WAL
            for file in files:
                assert file.stat().st_mode & 0o777 == 0o600, file
        finally:
            await repo.close()
    finally:
        os.umask(old)
