"""Fixtures the bot's service-level tests share."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import pytest

from bot.computer import ComputerPlayers
from bot.service import GameService
from storage import Repository, open_repository


@pytest.fixture
async def random_service() -> AsyncIterator[GameService]:
    """A game service on an in-memory SQLite database with random computers (pool of 0
    workers: moves run in-process), no turn time and seeds 7, 8, 9..."""
    repo: Repository = await open_repository(":memory:")
    seeds = itertools.count(7)
    svc = GameService(
        repo, ComputerPlayers("random", 0), default_timeout=0, seeds=lambda: next(seeds)
    )
    try:
        yield svc
    finally:
        svc.computers.shutdown()
        await repo.close()
