"""The throwaway-PostgreSQL helper of the tests (``tests/pg.py``): where it looks for the
binaries, and that a missing PostgreSQL skips the tests that need it, except in CI."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from tests import pg


def test_the_bin_folder_from_the_environment_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("initdb", "pg_ctl"):
        (tmp_path / name).write_text("#!/bin/sh\n")
    monkeypatch.setenv(pg.BIN_ENV, str(tmp_path))
    assert pg.find_bindir() == tmp_path


def test_a_bin_folder_without_pg_ctl_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "initdb").write_text("#!/bin/sh\n")
    monkeypatch.setenv(pg.BIN_ENV, str(tmp_path))
    assert pg.find_bindir() != tmp_path


def test_without_postgresql_the_test_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no PostgreSQL: no binaries"):
        pg.unavailable("no binaries")


def test_without_postgresql_in_ci_the_test_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="PostgreSQL is needed in CI: no binaries"):
        pg.unavailable("no binaries")


async def test_databases_are_fresh_and_dropped(postgres_server: pg.PostgresDatabases) -> None:
    first = await postgres_server.create()
    second = await postgres_server.create(migrated=False)
    assert first != second
    assert first.rsplit("/", 1)[1].startswith(postgres_server.prefix)
    await postgres_server.drop(first)
    await postgres_server.drop(second)
    with pytest.raises(asyncpg.InvalidCatalogNameError):
        await asyncpg.connect(first)
    with pytest.raises(ValueError, match="not made here"):
        await postgres_server.drop(first.rsplit("/", 1)[0] + "/postgres")
