"""Fixtures the bot's service-level tests share (the service itself: ``make_service`` in
``tests/bot/helpers.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.service import GameService
from storage import Repository, open_repository
from tests.bot.helpers import make_service


@pytest.fixture
async def random_service() -> AsyncIterator[GameService]:
    """A game service on an in-memory SQLite database with random computers (pool of 0
    workers: moves run in-process), no turn time and seeds 7, 8, 9..."""
    repo: Repository = await open_repository(":memory:")
    svc = make_service(repo)
    try:
        yield svc
    finally:
        svc.computers.shutdown()
        await repo.close()
