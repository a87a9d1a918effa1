"""``DATABASE_URL`` forms: what :func:`storage.parse_database_url` accepts and refuses, that
passwords never show, and that :func:`storage.open_repository` opens the backend named."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage import (
    Backend,
    PostgresRepository,
    SqliteRepository,
    open_repository,
    parse_database_url,
    redact,
)
from tests.pg import PostgresDatabases
from tests.storage.helpers import CHAT, T0


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(
    ("text", "backend", "target"),
    [
        ("klaverjas.sqlite3", Backend.SQLITE, "klaverjas.sqlite3"),
        ("/var/lib/bot/db.sqlite3", Backend.SQLITE, "/var/lib/bot/db.sqlite3"),
        (":memory:", Backend.SQLITE, ":memory:"),
        ("sqlite:///data/bot.sqlite3", Backend.SQLITE, "data/bot.sqlite3"),
        ("sqlite:////var/lib/bot/db.sqlite3", Backend.SQLITE, "/var/lib/bot/db.sqlite3"),
        ("sqlite:///:memory:", Backend.SQLITE, ":memory:"),
        ("SQLite:///x.db", Backend.SQLITE, "x.db"),
        ("postgresql://bot@db.example/klaverjas", Backend.POSTGRESQL, None),
        ("postgres://bot:pw@127.0.0.1:5433/klaverjas", Backend.POSTGRESQL, None),
        ("postgresql:///klaverjas?host=/run/postgresql", Backend.POSTGRESQL, None),
    ],
)
def test_accepted_forms(text: str, backend: Backend, target: str | None) -> None:
    url = parse_database_url(text)
    assert url.backend is backend
    assert url.target == (target if target is not None else text)  # PostgreSQL: as given
    assert url.text == text


def test_a_path_object_is_an_sqlite_file(tmp_path: Path) -> None:
    url = parse_database_url(tmp_path / "db.sqlite3")
    assert (url.backend, url.target) == (Backend.SQLITE, str(tmp_path / "db.sqlite3"))
    assert url.is_sqlite_file
    assert not parse_database_url("sqlite:///:memory:").is_sqlite_file
    assert not parse_database_url("postgresql://h/d").is_sqlite_file


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("mysql://bot@localhost/klaverjas", "unsupported database URL scheme 'mysql'"),
        ("postgresql+asyncpg://bot@h/db", "unsupported"),
        ("sqlite://host/db.sqlite3", "no host"),
        ("sqlite:///", "needs a path"),
        ("postgresql://bot:secret@host:five/db", "port"),
    ],
)
def test_garbage_is_refused_in_one_line_without_the_password(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as refused:
        parse_database_url(text)
    message = str(refused.value)
    assert "\n" not in message and "secret" not in message
    assert "postgresql://" in message or "sqlite:///" in message  # names a form that works


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql://bot:s3cret@h:5432/db", "postgresql://bot:***@h:5432/db"),
        ("postgresql://bot@h/db?password=s3cret&sslmode=require", None),
        ("postgresql://bot@h/db", "postgresql://bot@h/db"),
        ("sqlite:///bot.sqlite3", "sqlite:///bot.sqlite3"),
        ("plain/path:with:colons", "plain/path:with:colons"),
    ],
)
def test_redact_hides_passwords_only(text: str, shown: str | None) -> None:
    assert "s3cret" not in redact(text)
    assert "s3cret" not in str(parse_database_url(text))
    if shown is not None:
        assert redact(text) == shown
    else:
        assert redact(text) == "postgresql://bot@h/db?password=***&sslmode=require"


async def test_open_repository_opens_sqlite_by_path_and_by_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for setting, file in (
        ("plain.sqlite3", tmp_path / "plain.sqlite3"),
        ("sqlite:///relative/db.sqlite3", tmp_path / "relative" / "db.sqlite3"),
        (f"sqlite:///{tmp_path}/absolute.sqlite3", tmp_path / "absolute.sqlite3"),
    ):
        repo = await open_repository(setting)
        assert isinstance(repo, SqliteRepository)
        await repo.upsert_chat(CHAT, "group", setting, now=T0)
        await repo.close()
        assert file.is_file(), setting
    async with await open_repository("sqlite:///:memory:") as memory:
        assert isinstance(memory, SqliteRepository)
        assert await memory.get_chat(CHAT) is None  # a fresh one, not a file
    assert not any("sqlite:" in name for name in _files(tmp_path))  # no file named by a URL


async def test_open_repository_opens_postgresql_by_url(
    postgres_server: PostgresDatabases,
) -> None:
    url = await postgres_server.create()
    try:
        for scheme in ("postgresql://", "postgres://"):
            text = url.replace("postgresql://", scheme, 1)
            async with await open_repository(text) as repo:
                assert isinstance(repo, PostgresRepository)
                await repo.upsert_chat(CHAT, "group", scheme, now=T0)
                chat = await repo.get_chat(CHAT)
                assert chat is not None and chat.title == scheme
    finally:
        await postgres_server.drop(url)


async def test_open_repository_refuses_garbage_before_touching_anything(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unsupported"):
        await open_repository("mongodb://localhost/klaverjas")
    assert _files(tmp_path) == []
