"""Shared test configuration: hypothesis runs derandomized in CI (``CI`` set); the fake Bot
API server fixture for end-to-end tests; the throwaway PostgreSQL server (``tests/pg.py``)."""

from __future__ import annotations

import os

# PTB 22 warns (PTBDeprecationWarning) whenever a time period such as RetryAfter.retry_after
# is read as an int - even inside RetryAfter's own constructor.  With warnings as errors that
# would replace every RetryAfter by the warning, so opt in to the future timedelta behaviour
# (the bot sets the same in production, bot/__init__.py).
os.environ.setdefault("PTB_TIMEDELTA", "true")

from hypothesis import HealthCheck, settings

from tests.fakebot.fixtures import fake_api
from tests.pg import postgres_server

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

__all__ = ["fake_api", "postgres_server"]
