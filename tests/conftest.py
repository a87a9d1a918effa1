"""Shared fixtures: the fake Bot API server for end-to-end tests."""

import os

# PTB 22 warns (PTBDeprecationWarning) whenever a time period such as RetryAfter.retry_after
# is read as an int - even inside RetryAfter's own constructor.  With warnings as errors that
# would replace every RetryAfter by the warning, so opt in to the future timedelta behaviour.
os.environ.setdefault("PTB_TIMEDELTA", "true")

from tests.fakebot.fixtures import fake_api

__all__ = ["fake_api"]
