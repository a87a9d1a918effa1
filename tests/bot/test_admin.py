"""``python -m bot.admin export``: one line and exit code 2 for a database it cannot read
(without creating one), and a quiet stop when the reader of its output goes away."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import admin
from storage import open_repository

ROOT = Path(__file__).resolve().parents[2]


def _export(database: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = admin.main(["export", "--database", str(database)])
    out, err = capsys.readouterr()
    return code, out, err


async def _empty_database(path: Path) -> None:
    repo = await open_repository(path)
    await repo.close()


def test_export_of_a_missing_file_fails_without_creating_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = tmp_path / "klaverjas.sqlite"
    code, out, err = _export(typo, capsys)
    assert code == 2
    assert out == ""
    assert err == f"Database {typo} does not exist; check --database.\n"
    assert list(tmp_path.iterdir()) == []  # no empty database (or -wal / -shm) created


def test_export_in_a_missing_folder_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _export(tmp_path / "nowhere" / "klaverjas.sqlite3", capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "does not exist" in err
    assert not (tmp_path / "nowhere").exists()


def test_export_of_a_folder_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _export(tmp_path, capsys)
    assert code == 2
    assert out == ""
    assert err == f"Database {tmp_path} is not a file; check --database.\n"


def test_export_of_a_file_that_is_not_sqlite_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database, just some notes\n" * 100)
    code, out, err = _export(notes, capsys)
    assert code == 2
    assert out == ""
    assert err == f"Cannot read the database {notes}: file is not a database\n"
    assert notes.read_text() == "not a database, just some notes\n" * 100  # left as it was


def test_export_into_a_closed_pipe_stops_quietly(tmp_path: Path) -> None:
    db = tmp_path / "klaverjas.sqlite3"
    asyncio.run(_empty_database(db))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the export writes (like `| head` finished)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path}  # this checkout, not an installed copy
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "bot.admin", "export", "--database", str(db)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env=env,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.stderr.decode() == ""  # no BrokenPipeError traceback, no "Exception ignored"
    assert proc.returncode == 1
