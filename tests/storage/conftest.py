"""Fixtures for the storage contract suite.

Every contract test takes ``repo`` (a fresh, empty :class:`storage.Repository`), ``seeded``
(the same with four users and two chats) or ``backend`` (a factory that opens the same database
again, for restart tests), and runs once per backend: SQLite in memory, SQLite in a temporary
file, and PostgreSQL (a fresh database per test on the session's throwaway server,
``tests/pg.py``; skipped without PostgreSQL unless ``CI`` is set).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import PostgresRepository, Repository, SqliteRepository
from tests.pg import PostgresDatabases
from tests.storage.helpers import Backend, seed

PERSISTENT_BACKENDS = ["sqlite-file", "postgresql"]
ALL_BACKENDS = ["sqlite-memory", *PERSISTENT_BACKENDS]


async def _make_backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    name = request.param
    if name == "sqlite-memory":
        yield Backend(name, lambda: SqliteRepository.open(":memory:"), persistent=False)
    elif name == "sqlite-file":
        path = tmp_path / "klaverjas.db"
        yield Backend(name, lambda: SqliteRepository.open(path), persistent=True)
    elif name == "postgresql":
        databases: PostgresDatabases = request.getfixturevalue("postgres_server")
        url = await databases.create()
        yield Backend(name, lambda: PostgresRepository.open(url), persistent=True)
        await databases.drop(url)
    else:
        raise AssertionError(name)


@pytest.fixture(params=ALL_BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    """Each contract test runs once per backend."""
    async for made in _make_backend(request, tmp_path):
        yield made


@pytest.fixture(params=PERSISTENT_BACKENDS)
async def persistent_backend(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Backend]:
    """The backends whose data survive a close (restart and two-process tests)."""
    async for made in _make_backend(request, tmp_path):
        yield made


@pytest.fixture
async def repo(backend: Backend) -> AsyncIterator[Repository]:
    """A fresh repository, closed after the test."""
    async with await backend.open() as repository:
        yield repository


@pytest.fixture
async def seeded(repo: Repository) -> Repository:
    """``repo`` with users Ann, Bob, Cas, Dik and the chats ``CHAT`` and ``OTHER_CHAT``."""
    await seed(repo)
    return repo
