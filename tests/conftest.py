"""Shared test configuration: hypothesis runs derandomized in CI (``CI`` set); the fake Bot
API server fixture for end-to-end tests and the one PTB ``bot`` fixture that talks to it
(``tests/fakebot/fixtures.py``); the throwaway PostgreSQL server (``tests/pg.py``)."""

from __future__ import annotations

import os

import pytest

# PTB 22 warns (PTBDeprecationWarning) whenever a time period such as RetryAfter.retry_after
# is read as an int - even inside RetryAfter's own constructor.  With warnings as errors that
# would replace every RetryAfter by the warning, so opt in to the future timedelta behaviour
# (the bot sets the same in production, bot/__init__.py).
os.environ.setdefault("PTB_TIMEDELTA", "true")

from hypothesis import HealthCheck, settings

from tests.fakebot.fixtures import bot, bot_request, fake_api
from tests.pg import postgres_server

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

__all__ = ["bot", "bot_request", "fake_api", "postgres_server"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark what a test costs and run the slow ones first: ``e2e`` for the end-to-end files
    (``tests/bot/test_e2e_*.py``), ``postgres`` for a test that uses the PostgreSQL server,
    ``slow`` as a test's own marker says (``slow(seconds)``: about how long it takes, 10 if not
    said). The slow tests go first, the slowest first, so that, spread over two processes,
    neither waits alone for a long one at the end (the fast part: ``-m "not e2e and not
    slow"``)."""
    for item in items:
        if item.path.name.startswith("test_e2e_"):
            item.add_marker(pytest.mark.e2e)
        if "postgres_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)

    def cost(item: pytest.Item) -> float:
        slow = item.get_closest_marker("slow")
        return 0.0 if slow is None else float(slow.args[0] if slow.args else 10)

    items.sort(key=cost, reverse=True)
