"""PostgreSQL: a bot process claims the database while it runs (``claim``), so that a second
process never runs beside the database's only one (``BOT_WORKERS=1``: its rows kept in memory
would go stale): the only one holds it exclusively, several share it, the admin tool claims
nothing, and a process that stops lets the next one in (a restart)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from storage import DatabaseInUse, DatabaseUnavailable, PostgresRepository
from tests.pg import PostgresDatabases


@pytest.fixture
async def url(postgres_server: PostgresDatabases) -> AsyncIterator[str]:
    made = await postgres_server.create()
    yield made
    await postgres_server.drop(made)


async def _open(url: str, *, sole: bool, wait: float = 0.3) -> PostgresRepository:
    return await PostgresRepository.open(url, sole_writer=sole, claim=True, claim_wait=wait)


async def test_the_only_process_keeps_a_second_one_out_whichever_its_mode(url: str) -> None:
    only = await _open(url, sole=True)
    try:
        for sole in (True, False):
            with pytest.raises(DatabaseInUse) as refused:
                await _open(url, sole=sole)
            assert "BOT_WORKERS" in str(refused.value)
            assert isinstance(refused.value, DatabaseUnavailable)  # one line at the start
        reader = await PostgresRepository.open(url)  # the admin tool claims nothing
        assert await reader.get_game(1) is None
        await reader.close()
    finally:
        await only.close()


async def test_several_processes_share_it_and_keep_the_only_one_out(url: str) -> None:
    first, second = await _open(url, sole=False), await _open(url, sole=False)
    try:
        with pytest.raises(DatabaseInUse):
            await _open(url, sole=True)
    finally:
        await first.close()
        await second.close()
    again = await _open(url, sole=True)  # all gone: the only one may start
    await again.close()


async def test_a_restart_waits_for_the_stopping_process(url: str) -> None:
    old = await _open(url, sole=True)
    new = asyncio.create_task(_open(url, sole=True, wait=30))
    await asyncio.sleep(0.5)
    assert not new.done()  # still waiting for the old one
    await old.close()
    started = await asyncio.wait_for(new, timeout=30)
    await started.close()
