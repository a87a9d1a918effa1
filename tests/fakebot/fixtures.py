"""Pytest fixtures for end-to-end tests against the fake Bot API (import them in conftest)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .server import FakeBotApi


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotApi]:
    """A started fake Bot API server on 127.0.0.1 (free port), stopped after the test.

    The test fails at teardown if the fake itself hit an internal error.
    """
    async with FakeBotApi() as api:
        yield api
    assert not api.internal_errors, f"fake Bot API internal errors: {api.internal_errors}"
