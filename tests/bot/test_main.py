"""``python -m bot`` as a user runs it: settings from the environment, long polling against a
(local) Bot API server, a clean stop on SIGINT; and ``python -m bot.admin export``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from tests.fakebot import FakeBotApi

ROOT = Path(__file__).resolve().parents[2]


async def test_python_m_bot_serves_a_group_and_stops_cleanly(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "bot.sqlite3"
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": fake_api.token,
        "TELEGRAM_API_BASE_URL": fake_api.base_url,
        "DATABASE_PATH": str(db),
        "DEFAULT_LANGUAGE": "de",
        "COMPUTER_WORKERS": "0",
        "LOG_LEVEL": "WARNING",
    }
    anna = fake_api.add_user("Anna", language_code="de", started=True)
    group = fake_api.add_group("Runde", members=[anna])
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await fake_api.wait_for(lambda: fake_api.calls.count("getUpdates") > 0, timeout=30)
        await anna.send(group, "/klaverjas")
        lobby = await fake_api.wait_for(
            lambda: fake_api.chat(group).last_message(from_bot=True), timeout=15
        )
        assert "Tisch" in lobby.text  # German, the DEFAULT_LANGUAGE from the environment
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
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(export.communicate(), timeout=30)
    assert export.returncode == 0, err.decode()
    (game,) = json.loads(out)
    assert game["status"] == "lobby" and game["chat_id"] == group.id
    assert game["settings"]["preset"] == "amsterdam" and game["settings"]["rounds"] == 16


async def test_python_m_bot_without_a_token_says_what_is_missing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TELEGRAM_BOT_TOKEN"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout=30)
    assert proc.returncode == 2
    assert "TELEGRAM_BOT_TOKEN is not set" in err.decode()
