"""A rematch's session as stored in the table settings (:class:`bot.tables.Session`): it
round-trips, other tables' JSON stays as before, and anything else is refused."""

from __future__ import annotations

import json

import pytest

from bot.tables import Session, TableSettings
from engine.settings import Settings


def test_a_session_round_trips_in_the_table_settings() -> None:
    session = Session(previous=7, games=2, ns=3120, ew=2870, pending=(1, 3), wait_until=12.5)
    settings = TableSettings(Settings(), 60, session=session)
    assert TableSettings.from_json(settings.to_json()) == settings
    plain = TableSettings(Settings(), 60)
    assert "session" not in json.loads(plain.to_json())
    assert TableSettings.from_json(plain.to_json()).session is None


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"previous": 1, "games": 1, "ns": 0},
        {"previous": True, "games": 1, "ns": 0, "ew": 0},
        {"previous": 1, "games": 1, "ns": 0, "ew": 0, "pending": [4]},
        {"previous": 1, "games": 1, "ns": 0, "ew": 0, "pending": "0"},
        {"previous": 1, "games": 1, "ns": 0, "ew": 0, "wait_until": "soon"},
    ],
)
def test_a_bad_session_is_refused(bad: object) -> None:
    text = json.dumps({"rules": {}, "turn_timeout": 60, "session": bad})
    with pytest.raises(ValueError, match="session"):
        TableSettings.from_json(text)
