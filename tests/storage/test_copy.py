"""``storage.copy``: a whole database into another (this backend as source and as target, SQLite
in memory on the other side), resuming a copy that stopped, the page-by-page comparison, and a
guard that every table of the schema is one the copy carries."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

from storage import Repository, SqliteRepository, TurnTimer
from storage.copy import (
    CopyConflict,
    TargetNotEmpty,
    copy_database,
    game_differences,
    paired_histories,
    row_differences,
)
from storage.stats_rows import EXTRA_TABLES
from tests.pg import PostgresDatabases
from tests.storage.helpers import CHAT, T0, new_game
from tests.storage.test_import import everything, fill

COPIED_TABLES = {"users", "chats", "games", "game_seats", "game_actions", *EXTRA_TABLES}
"""The tables storage.copy carries (and RowCounts counts)."""

NEW_TABLE = "a new table must be copied by storage.copy, counted by RowCounts and imported"


async def test_a_copy_both_ways_gives_the_same_database(repo: Repository) -> None:
    async with await SqliteRepository.open(":memory:") as source:
        await fill(source)
        counts = await copy_database(source, repo, page=3)
        assert counts == await source.row_counts()
        assert await everything(repo) == await everything(source)
    async with await SqliteRepository.open(":memory:") as back:
        await copy_database(repo, back, page=1)
        assert await everything(back) == await everything(repo)
        assert await row_differences(repo, back) == []


async def test_a_target_with_rows_is_refused_unless_resuming(repo: Repository) -> None:
    async with await SqliteRepository.open(":memory:") as source:
        await fill(source)
        # A copy that stopped after its first page of games.
        await repo.import_users(await source.all_users())
        await repo.import_chats(await source.all_chats())
        await repo.import_games(await source.game_histories(limit=2))
        before = await everything(repo)
        with pytest.raises(TargetNotEmpty) as refused:
            await copy_database(source, repo)
        assert refused.value.counts.games == 2
        assert await everything(repo) == before  # nothing written
        await copy_database(source, repo, resume=True, page=3)
        assert await everything(repo) == await everything(source)


async def test_resuming_stops_at_a_game_that_is_not_the_sources(repo: Repository) -> None:
    async with await SqliteRepository.open(":memory:") as source:
        await fill(source)
        histories = await source.game_histories()
        await repo.import_users(await source.all_users())
        await repo.import_chats(await source.all_chats())
        other = histories[1].game
        await repo.import_games([replace(histories[1], game=replace(other, language="nl"))])
        with pytest.raises(CopyConflict) as conflict:
            await copy_database(source, repo, resume=True, page=1)
    assert conflict.value.game_id == other.game_id
    assert (await repo.row_counts()).games == 2  # game 1's page went in before game 2's


async def test_comparing_pairs_every_game_across_uneven_pages(repo: Repository) -> None:
    async with await SqliteRepository.open(":memory:") as other:
        await fill(other)
        await copy_database(other, repo)
        live = await repo.open_game_of_chat(CHAT)
        assert live is not None
        await repo.set_table_message(live.game_id, 999, expected_version=None)
        # After the copy each side opens new games: game 5 on both (not the same), 6 in one.
        await repo.upsert_chat(-7, "group", "here", now=T0)
        mine = await new_game(repo, -7)
        for chat_id in (-8, -9):
            await other.upsert_chat(chat_id, "group", "there", now=T0)
            last = await new_game(other, chat_id)
        for page in (1, 2, 3, 100):
            pairs = [
                (game_id, a, b) async for game_id, a, b in paired_histories(repo, other, page=page)
            ]
            assert [p[0] for p in pairs] == [1, 2, 3, 4, mine.game_id, last.game_id], page
            same = [p[0] for p in pairs if p[1] == p[2]]
            assert same == [g for g in (1, 2, 3, 4) if g != live.game_id], page
            assert pairs[-1][1] is None and pairs[-1][2] is not None
        differences = await row_differences(repo, other)
    assert differences == [
        "chats: 4 rows in the source, 5 in the target",
        "games: 5 rows in the source, 6 in the target",
        "seats: 20 rows in the source, 24 in the target",
        "chat -9 differs",
        "chat -8 differs",
        "chat -7 differs",
    ]


async def test_game_differences_name_the_fields() -> None:
    async with await SqliteRepository.open(":memory:") as repo:
        await fill(repo)
        live = await repo.open_game_of_chat(CHAT)
    assert live is not None
    changed = replace(live, timer=TurnTimer(T0, 0), version=live.version + 1)
    assert game_differences(live, changed) == ["version", "timer"]
    assert game_differences(live, live) == []


async def test_every_sqlite_table_is_one_the_copy_carries(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    async with await SqliteRepository.open(path):
        pass
    async with aiosqlite.connect(path) as conn:
        rows = await conn.execute_fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")
    tables = {str(r[0]) for r in rows} - {"schema_version", "sqlite_sequence"}
    assert tables == COPIED_TABLES, NEW_TABLE


async def test_every_postgresql_table_is_one_the_copy_carries(
    postgres_server: PostgresDatabases,
) -> None:
    url = await postgres_server.create()
    try:
        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        finally:
            await conn.close()
    finally:
        await postgres_server.drop(url)
    assert {r["table_name"] for r in rows} - {"schema_version"} == COPIED_TABLES, NEW_TABLE
