"""``python -m bot`` as a user runs it: settings from the environment, long polling against a
(local) Bot API server, a clean stop on SIGINT, one line and an exit code when the Bot API
rejects the token or cannot be reached; and ``python -m bot.admin export``.

The subprocesses import this checkout's packages (``PYTHONPATH``), not an installed copy."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
from pathlib import Path

import pytest

from bot.__main__ import BOOTSTRAP_RETRIES, RedactingFormatter, warn_without_c_core
from tests.fakebot import FakeBotApi
from tests.pg import PostgresDatabases

ROOT = Path(__file__).resolve().parents[2]

WRONG_TOKEN = "987654321:AAWrongTokenTheServerRejects-xyz"
"""A well-formed token the fake Bot API does not know (it answers 401 Unauthorized)."""


def _env(**settings: str) -> dict[str, str]:
    """The environment for a subprocess: ours without bot settings, this checkout first on the
    import path, plus ``settings``."""
    env = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return {**env, **settings}


async def _spawn_bot(env: dict[str, str], cwd: Path) -> asyncio.subprocess.Process:
    """Start ``python -m bot`` with piped stdout and stderr."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def _run_bot(env: dict[str, str], cwd: Path, seconds: float) -> tuple[int, str, str]:
    """Run ``python -m bot`` to its end; returns (exit code, stdout, stderr)."""
    proc = await _spawn_bot(env, cwd)
    out, err = await asyncio.wait_for(proc.communicate(), timeout=seconds)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_python_m_bot_serves_a_group_and_stops_cleanly(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "bot.sqlite3"
    env = _env(
        TELEGRAM_BOT_TOKEN=fake_api.token,
        TELEGRAM_API_BASE_URL=fake_api.base_url,
        DATABASE_PATH=str(db),
        DEFAULT_LANGUAGE="de",
        COMPUTER_WORKERS="0",
        LOG_LEVEL="WARNING",
    )
    anna = fake_api.add_user("Anna", language_code="de", started=True)
    group = fake_api.add_group("Runde", members=[anna])
    proc = await _spawn_bot(env, tmp_path)
    try:
        await fake_api.wait_for(lambda: fake_api.calls.count("getUpdates") > 0, timeout=30)
        await anna.send(group, "/klaverjas")
        lobby = await fake_api.wait_for(
            lambda: fake_api.chat(group).last_message(from_bot=True), timeout=15
        )
        assert "Tisch" in lobby.body  # German, the DEFAULT_LANGUAGE from the environment
    finally:
        proc.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(proc.communicate(), timeout=20)
    assert proc.returncode == 0, stderr.decode()
    assert fake_api.token not in stderr.decode()  # the token is never logged

    export = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.admin",
        "export",
        "--database",
        str(db),
        cwd=ROOT,
        env=_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(export.communicate(), timeout=30)
    assert export.returncode == 0, err.decode()
    (game,) = json.loads(out)
    assert game["status"] == "lobby" and game["chat_id"] == group.id
    assert game["settings"]["preset"] == "amsterdam" and game["settings"]["rounds"] == 16


async def test_python_m_bot_on_postgresql_keeps_its_tables_there(
    fake_api: FakeBotApi, postgres_server: PostgresDatabases, tmp_path: Path
) -> None:
    """The PostgreSQL variant of the README: ``DATABASE_URL`` names an empty database, the
    bot makes its tables there, and ``python -m bot.admin export`` finds it by the same
    setting."""
    url = await postgres_server.create(migrated=False)
    try:
        env = _env(
            TELEGRAM_BOT_TOKEN=fake_api.token,
            TELEGRAM_API_BASE_URL=fake_api.base_url,
            DATABASE_URL=url,
            COMPUTER_WORKERS="0",
            LOG_LEVEL="WARNING",
        )
        anna = fake_api.add_user("Anna", language_code="nl", started=True)
        group = fake_api.add_group("Club", members=[anna])
        proc = await _spawn_bot(env, tmp_path)
        try:
            await fake_api.wait_for(lambda: fake_api.calls.count("getUpdates") > 0, timeout=30)
            await anna.send(group, "/klaverjas")
            await fake_api.wait_for(
                lambda: fake_api.chat(group).last_message(from_bot=True), timeout=15
            )
        finally:
            proc.send_signal(signal.SIGINT)
            _, stderr = await asyncio.wait_for(proc.communicate(), timeout=20)
        assert proc.returncode == 0, stderr.decode()
        assert not (tmp_path / "klaverjas.sqlite3").exists()  # no SQLite file on the side
        export = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.admin",
            "export",
            cwd=tmp_path,
            env=_env(DATABASE_URL=url),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(export.communicate(), timeout=30)
        assert export.returncode == 0, err.decode()
        (game,) = json.loads(out)
        assert (game["status"], game["chat_id"]) == ("lobby", group.id)
    finally:
        await postgres_server.drop(url)


async def test_python_m_bot_without_a_token_says_what_is_missing(tmp_path: Path) -> None:
    code, _, err = await _run_bot(_env(), tmp_path, seconds=30)
    assert code == 2
    assert "TELEGRAM_BOT_TOKEN is not set" in err


@pytest.mark.parametrize("log_level", ["INFO", "DEBUG"])
async def test_python_m_bot_with_a_rejected_token_stops_with_one_line(
    fake_api: FakeBotApi, tmp_path: Path, log_level: str
) -> None:
    db = tmp_path / "bot.sqlite3"
    env = _env(
        TELEGRAM_BOT_TOKEN=WRONG_TOKEN,
        TELEGRAM_API_BASE_URL=fake_api.base_url,
        DATABASE_PATH=str(db),
        COMPUTER_WORKERS="0",
        LOG_LEVEL=log_level,
    )
    code, out, err = await _run_bot(env, tmp_path, seconds=30)
    assert code == 2, err
    assert fake_api.calls.count("getMe") == 1  # it asked the server, once: no retries
    lines = err.splitlines()
    assert lines[-1] == (
        "Telegram rejected the token; check TELEGRAM_BOT_TOKEN (from @BotFather) and "
        f"TELEGRAM_API_BASE_URL ({fake_api.base_url})."
    )
    if log_level == "INFO":
        assert out == "" and len(lines) == 1
    assert "Traceback" not in err
    secret = WRONG_TOKEN.split(":", 1)[1]
    assert secret not in out + err
    assert not db.exists()  # stopped before opening the database


async def test_python_m_bot_without_a_reachable_bot_api_stops_with_one_line(
    tmp_path: Path,
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound but not listening: every connection is refused
        base = f"http://127.0.0.1:{sock.getsockname()[1]}/bot"
        env = _env(
            TELEGRAM_BOT_TOKEN=WRONG_TOKEN,
            TELEGRAM_API_BASE_URL=base,
            DATABASE_PATH=str(tmp_path / "bot.sqlite3"),
            COMPUTER_WORKERS="0",
            LOG_LEVEL="INFO",
        )
        code, out, err = await _run_bot(env, tmp_path, seconds=60)
    assert code == 1, err
    *retries, last = err.splitlines()
    assert last.startswith(f"Cannot reach the Telegram Bot API at {base}: ")
    assert "ConnectError" in last
    assert len(retries) == BOOTSTRAP_RETRIES  # one warning per retry, then the final line
    assert all("WARNING" in line and "trying again" in line for line in retries)
    assert "Traceback" not in err
    assert WRONG_TOKEN.split(":", 1)[1] not in out + err


async def test_python_m_bot_with_a_file_that_is_not_a_database_stops_with_one_line(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database, " * 200)
    env = _env(
        TELEGRAM_BOT_TOKEN=fake_api.token,
        TELEGRAM_API_BASE_URL=fake_api.base_url,
        DATABASE_PATH=str(bad),
        COMPUTER_WORKERS="0",
        LOG_LEVEL="INFO",
    )
    code, _, err = await _run_bot(env, tmp_path, seconds=30)
    assert code == 2, err
    assert err.splitlines()[-1] == f"Cannot open the database {bad}: file is not a database"
    assert "Traceback" not in err
    assert bad.read_text().startswith("not a database")  # left as it was


async def test_python_m_bot_with_a_database_url_that_is_not_one_stops_with_one_line(
    tmp_path: Path,
) -> None:
    env = _env(TELEGRAM_BOT_TOKEN=WRONG_TOKEN, DATABASE_URL="mysql://bot:s3cret@db/klaverjas")
    code, out, err = await _run_bot(env, tmp_path, seconds=30)
    assert code == 2, err
    (line,) = err.splitlines()
    assert line.startswith("DATABASE_URL: ") and "unsupported database URL scheme" in line
    assert "s3cret" not in out + err


async def test_python_m_bot_with_a_webhook_url_and_no_secret_names_the_setting(
    tmp_path: Path,
) -> None:
    env = _env(TELEGRAM_BOT_TOKEN=WRONG_TOKEN, WEBHOOK_URL="https://bot.example.org/telegram")
    code, _, err = await _run_bot(env, tmp_path, seconds=30)
    assert code == 2, err
    (line,) = err.splitlines()
    assert line == "WEBHOOK_SECRET must be set when WEBHOOK_URL is set", line


async def test_python_m_bot_with_an_unreachable_postgresql_stops_with_one_line(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound but not listening: the server is "down"
        url = f"postgresql://bot:s3cret@127.0.0.1:{sock.getsockname()[1]}/klaverjas"
        env = _env(
            TELEGRAM_BOT_TOKEN=fake_api.token,
            TELEGRAM_API_BASE_URL=fake_api.base_url,
            DATABASE_URL=url,
            DATABASE_PATH=str(tmp_path / "not-used.sqlite3"),
            COMPUTER_WORKERS="0",
            LOG_LEVEL="INFO",
        )
        code, out, err = await _run_bot(env, tmp_path, seconds=60)
    assert code == 2, err
    shown = url.replace(":s3cret@", ":***@")
    assert err.splitlines()[-1].startswith(f"Cannot open the database {shown}: ")
    assert "Traceback" not in err
    assert "s3cret" not in out + err
    assert not (tmp_path / "not-used.sqlite3").exists()  # DATABASE_URL won


def test_log_lines_never_show_the_token() -> None:
    formatter = RedactingFormatter("%(levelname)s %(message)s", WRONG_TOKEN)
    try:
        raise RuntimeError(f"The token `{WRONG_TOKEN}` was rejected by the server.")
    except RuntimeError:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "GET /bot%s/getMe", (WRONG_TOKEN,), sys.exc_info()
        )
    text = formatter.format(record)
    assert WRONG_TOKEN not in text
    assert "GET /bot<token>/getMe" in text and "The token `<token>` was rejected" in text


def test_a_bot_without_the_c_core_says_so_at_start_up(caplog: pytest.LogCaptureFixture) -> None:
    """Installed without a C compiler, the solver falls back to pure Python: the same cards,
    slower; the operator reads one warning at start-up (none when the core is there)."""
    with caplog.at_level(logging.WARNING, logger="bot"):
        assert not warn_without_c_core({"python", "c"})
        assert not caplog.records
        assert warn_without_c_core({"python"})
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "C core was not built" in caplog.records[0].getMessage()
