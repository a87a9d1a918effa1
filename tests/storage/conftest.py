"""Fixtures for the storage contract suite.

Every contract test takes ``repo`` (a fresh, empty :class:`storage.Repository`), ``seeded``
(the same with four users and two chats) or ``backend`` (a factory that opens the same database
again, for restart tests). Today the backends are SQLite in memory and SQLite in a temporary
file; a PostgreSQL backend would add one parameter here and inherit every test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Repository, SqliteRepository
from tests.storage.helpers import Backend, seed

PERSISTENT_BACKENDS = ["sqlite-file"]
ALL_BACKENDS = ["sqlite-memory", *PERSISTENT_BACKENDS]


def _make_backend(name: str, tmp_path: Path) -> Backend:
    if name == "sqlite-memory":
        return Backend(name, lambda: SqliteRepository.open(":memory:"), persistent=False)
    if name == "sqlite-file":
        path = tmp_path / "klaverjas.db"
        return Backend(name, lambda: SqliteRepository.open(path), persistent=True)
    raise AssertionError(name)


@pytest.fixture(params=ALL_BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each contract test runs once per backend."""
    return _make_backend(request.param, tmp_path)


@pytest.fixture(params=PERSISTENT_BACKENDS)
def persistent_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """The backends whose data survive a close (restart and two-process tests)."""
    return _make_backend(request.param, tmp_path)


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
