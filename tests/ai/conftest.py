"""Hypothesis profile for the AI tests: derandomized in CI (``CI`` set in the environment).

Move this to ``tests/conftest.py`` once main has one.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
