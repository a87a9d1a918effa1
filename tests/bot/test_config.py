"""``.env.example`` documents every setting of :class:`bot.config.BotConfig` with the values
and limits the config enforces."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import annotated_types
import pytest
from pydantic import SecretStr, ValidationError

from bot.config import BotConfig
from bot.i18n import LANGUAGES
from storage import Backend

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456789:AAExampleTokenForTheConfigTests"


@pytest.fixture(autouse=True)
def _no_outside_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither the environment nor a developer's ``.env`` decides what these tests see."""
    monkeypatch.chdir(tmp_path)
    for name in BotConfig.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)


def _example() -> dict[str, tuple[str, str]]:
    """``.env.example`` as {KEY: (comment above it, example value)}."""
    settings: dict[str, tuple[str, str]] = {}
    comment: list[str] = []
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            comment.append(line.lstrip("# "))
        elif match := re.fullmatch(r"([A-Z_]+)=(.*)", line):
            settings[match[1]] = (" ".join(comment), match[2])
            comment = []
        else:
            comment = []
    return settings


def test_env_example_lists_every_setting() -> None:
    assert sorted(_example()) == sorted(name.upper() for name in BotConfig.model_fields)


def test_env_example_states_the_enforced_limits() -> None:
    example = _example()
    for name, field in BotConfig.model_fields.items():
        low = [m.ge for m in field.metadata if isinstance(m, annotated_types.Ge)]
        high = [m.le for m in field.metadata if isinstance(m, annotated_types.Le)]
        if low or high:
            assert f"{low[0]} to {high[0]}" in example[name.upper()][0], name
    assert all(lang in example["DEFAULT_LANGUAGE"][0] for lang in LANGUAGES)
    for level in ("strong", "basic", "random"):
        assert level in example["COMPUTER_LEVEL"][0]
        config = BotConfig(telegram_bot_token=SecretStr(TOKEN), computer_level=level)
        assert config.computer_level == level


def test_env_example_values_are_accepted() -> None:
    values: dict[str, Any] = {key.lower(): v for key, (_, v) in _example().items() if v}
    config = BotConfig(**{**values, "telegram_bot_token": TOKEN})  # strings, as from .env
    assert config.turn_timeout_seconds == int(values["turn_timeout_seconds"])
    assert config.computer_workers == int(values["computer_workers"])


@pytest.mark.parametrize(
    ("setting", "value"),
    [("turn_timeout_seconds", 3601), ("turn_timeout_seconds", -1), ("computer_workers", 33)],
)
def test_values_beyond_the_documented_limits_are_refused(setting: str, value: int) -> None:
    overrides: dict[str, Any] = {setting: value}
    with pytest.raises(ValidationError):
        BotConfig(telegram_bot_token=SecretStr(TOKEN), **overrides)


def test_database_path_alone_is_an_sqlite_file() -> None:
    config = BotConfig(telegram_bot_token=SecretStr(TOKEN), database_path="data/bot.sqlite3")
    assert (config.database.backend, config.database.target) == (Backend.SQLITE, "data/bot.sqlite3")
    assert config.database_setting == "DATABASE_PATH"
    default = BotConfig(telegram_bot_token=SecretStr(TOKEN))
    assert default.database.target == "klaverjas.sqlite3"


def test_database_url_wins_over_database_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("DATABASE_PATH", "old.sqlite3")
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot:pw@127.0.0.1/klaverjas")
    config = BotConfig()  # type: ignore[call-arg]  # from the environment
    assert config.database.backend is Backend.POSTGRESQL
    assert config.database_setting == "DATABASE_URL"
    assert str(config.database) == "postgresql://bot:***@127.0.0.1/klaverjas"
    monkeypatch.setenv("DATABASE_URL", "sqlite:///new.sqlite3")
    assert BotConfig().database.target == "new.sqlite3"  # type: ignore[call-arg]
    monkeypatch.setenv("DATABASE_URL", "  ")  # empty (as in .env.example): the path counts
    config = BotConfig()  # type: ignore[call-arg]
    assert (config.database_url, config.database.target) == (None, "old.sqlite3")


@pytest.mark.parametrize(
    "url", ["mysql://bot@localhost/klaverjas", "sqlite://host/x", "postgresql://u:pw@h:x/db"]
)
def test_a_database_url_that_is_not_one_is_refused(url: str) -> None:
    with pytest.raises(ValidationError) as refused:
        BotConfig(telegram_bot_token=SecretStr(TOKEN), database_url=url)
    (error,) = refused.value.errors()
    assert error["loc"] == ("database_url",)
    assert "\n" not in error["msg"] and "pw" not in error["msg"]
    assert "postgresql://" in error["msg"] or "sqlite:///" in error["msg"]
