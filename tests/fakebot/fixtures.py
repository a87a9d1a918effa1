"""Pytest fixtures for end-to-end tests against the fake Bot API (import them in conftest)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot
from telegram.request import BaseRequest

from .server import FakeBotApi


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotApi]:
    """A started fake Bot API server on 127.0.0.1 (free port), stopped after the test.

    The test fails at teardown if the fake itself hit an internal error.
    """
    async with FakeBotApi() as api:
        yield api
    assert not api.internal_errors, f"fake Bot API internal errors: {api.internal_errors}"


@pytest.fixture
def bot_request() -> BaseRequest | None:
    """The HTTP client of the :func:`bot` fixture: None for PTB's default. A test module
    overrides this fixture to give its bot other timeouts (a short read timeout, say)."""
    return None


@pytest.fixture
async def bot(fake_api: FakeBotApi, bot_request: BaseRequest | None) -> AsyncIterator[Bot]:
    """A python-telegram-bot ``Bot`` talking to :func:`fake_api` (its API and file URLs),
    initialized before the test and shut down after it."""
    async with Bot(
        fake_api.token,
        base_url=fake_api.base_url,
        base_file_url=fake_api.base_file_url,
        request=bot_request,
    ) as bot:
        yield bot
