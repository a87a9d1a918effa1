"""``python -m bot`` in webhook mode (``WEBHOOK_URL``): PTB's webhook server on
``WEBHOOK_LISTEN`` receives the fake Bot API's POSTs, requests without the right
``X-Telegram-Bot-Api-Secret-Token`` are refused; and the webhook settings' checks."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from pydantic import ValidationError

from bot.config import BotConfig
from tests.bot.test_main import _env, _spawn_bot
from tests.fakebot import FakeBotApi
from tests.fakebot.ptb_webhook import free_port
from tests.fakebot.webhook import SECRET_HEADER

TOKEN = "123456789:AAtokenForSettingsTests"


async def test_python_m_bot_serves_a_webhook_and_refuses_a_wrong_secret(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    fake_api.enable_webhook_delivery()
    env = _env(
        TELEGRAM_BOT_TOKEN=fake_api.token,
        TELEGRAM_API_BASE_URL=fake_api.base_url,
        DATABASE_PATH=str(tmp_path / "bot.sqlite3"),
        DEFAULT_LANGUAGE="de",
        COMPUTER_WORKERS="0",
        LOG_LEVEL="WARNING",
        WEBHOOK_URL=url,
        WEBHOOK_LISTEN=f"127.0.0.1:{port}",
        WEBHOOK_SECRET="richtig-geheim_1",
    )
    anna = fake_api.add_user("Anna", language_code="de", started=True)
    group = fake_api.add_group("Runde", members=[anna])
    proc = await _spawn_bot(env, tmp_path)
    try:
        await fake_api.wait_for(lambda: fake_api.calls.count("setWebhook") > 0, timeout=30)
        assert fake_api.calls.count("getUpdates") == 0
        await anna.send(group, "/klaverjas")
        lobby = await fake_api.wait_for(
            lambda: fake_api.chat(group).last_message(from_bot=True), timeout=15
        )
        assert "Tisch" in lobby.body
        update = {
            "update_id": 999999,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": group.id, "type": "group"},
                "text": "/klaverjas",
            },
        }
        async with aiohttp.ClientSession() as session:
            for headers in ({SECRET_HEADER: "falsch"}, {}):
                async with session.post(url, json=update, headers=headers) as response:
                    assert response.status == 403
    finally:
        proc.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(proc.communicate(), timeout=20)
    assert proc.returncode == 0, stderr.decode()
    assert fake_api.token not in stderr.decode()


def _config(monkeypatch: pytest.MonkeyPatch, **settings: str) -> BotConfig:
    monkeypatch.chdir("/")  # no .env
    for name, value in {"TELEGRAM_BOT_TOKEN": TOKEN, **settings}.items():
        monkeypatch.setenv(name, value)
    return BotConfig()  # type: ignore[call-arg]


def test_webhook_settings_default_to_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(monkeypatch, WEBHOOK_URL="")
    assert config.webhook_url is None and config.webhook_address == ("127.0.0.1", 8443)


def test_webhook_settings_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config(
        monkeypatch,
        WEBHOOK_URL=" https://bot.example.org/hook ",
        WEBHOOK_LISTEN="0.0.0.0:9000",
        WEBHOOK_SECRET="abc-DEF_123",
    )
    assert config.webhook_url == "https://bot.example.org/hook"
    assert config.webhook_address == ("0.0.0.0", 9000)
    assert config.webhook_secret is not None
    assert config.webhook_secret.get_secret_value() == "abc-DEF_123"


@pytest.mark.parametrize(
    "settings",
    [
        {"WEBHOOK_URL": "https://bot.example.org/hook"},  # no secret
        {"WEBHOOK_URL": "bot.example.org/hook", "WEBHOOK_SECRET": "x"},
        {"WEBHOOK_SECRET": "not allowed!"},
        {"WEBHOOK_SECRET": "x" * 257},
        {"WEBHOOK_LISTEN": "8443"},
        {"WEBHOOK_LISTEN": "127.0.0.1:70000"},
    ],
)
def test_bad_webhook_settings_are_refused(
    monkeypatch: pytest.MonkeyPatch, settings: dict[str, str]
) -> None:
    with pytest.raises(ValidationError):
        _config(monkeypatch, **settings)


def _rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` in KiB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")  # pragma: no cover


async def _webhook_bot(
    fake_api: FakeBotApi, tmp_path: Path, **settings: str
) -> tuple[asyncio.subprocess.Process, str]:
    """``python -m bot`` in webhook mode; returns the process and its webhook URL once it
    registered the webhook."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    fake_api.enable_webhook_delivery()
    env = _env(
        TELEGRAM_BOT_TOKEN=fake_api.token,
        TELEGRAM_API_BASE_URL=fake_api.base_url,
        DATABASE_PATH=str(tmp_path / "bot.sqlite3"),
        COMPUTER_WORKERS="0",
        WEBHOOK_URL=url,
        WEBHOOK_LISTEN=f"127.0.0.1:{port}",
        WEBHOOK_SECRET="richtig-geheim_1",
        **settings,
    )
    proc = await _spawn_bot(env, tmp_path)
    await fake_api.wait_for(lambda: fake_api.calls.count("setWebhook") > 0, timeout=30)
    return proc, url


async def test_a_big_webhook_body_is_refused_before_it_is_read(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    proc, url = await _webhook_bot(fake_api, tmp_path, LOG_LEVEL="WARNING")
    size = 64 << 20  # 64 MiB, no secret

    async def body() -> AsyncIterator[bytes]:
        chunk = b"x" * (1 << 20)
        for _ in range(size >> 20):
            yield chunk

    try:
        before = _rss_kib(proc.pid)
        status = None
        async with aiohttp.ClientSession() as session:
            try:
                async with session.post(
                    url, data=body(), headers={"Content-Length": str(size)}
                ) as response:
                    status = response.status
            except aiohttp.ClientError:
                status = None  # the server closed the connection: refused unread
        after = _rss_kib(proc.pid)
        assert status in (None, 400, 403, 413)
        assert after - before < 16 << 10, (before, after)  # far below the body's 64 MiB
        # The bot still serves Telegram's small updates.
        anna = fake_api.add_user("Anna", started=True)
        group = fake_api.add_group("Runde", members=[anna])
        await anna.send(group, "/klaverjas")
        await fake_api.wait_for(lambda: fake_api.chat(group).last_message(from_bot=True), 15)
    finally:
        proc.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(proc.communicate(), timeout=20)
    assert proc.returncode == 0, stderr.decode()


async def test_debug_logs_show_no_secret_and_no_text(fake_api: FakeBotApi, tmp_path: Path) -> None:
    proc, url = await _webhook_bot(fake_api, tmp_path, LOG_LEVEL="DEBUG", DEFAULT_LANGUAGE="en")
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    group = fake_api.add_group("Runde", members=[anna])
    try:
        await anna.send(group, "/klaverjas strangeword")
        await fake_api.wait_for(
            lambda: "strangeword" in (fake_api.chat(group).last_message(from_bot=True) or _N).body,
            timeout=15,
        )
        update = {
            "update_id": 424242,
            "message": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": group.id, "type": "group"},
                "text": "hush-hush-text",
            },
        }
        async with aiohttp.ClientSession() as session:
            headers = {SECRET_HEADER: "wrong-secret-xyz"}
            async with session.post(url, json=update, headers=headers) as response:
                assert response.status == 403
    finally:
        proc.send_signal(signal.SIGINT)
        _, raw = await asyncio.wait_for(proc.communicate(), timeout=20)
    stderr = raw.decode()
    assert proc.returncode == 0, stderr
    assert "DEBUG" in stderr  # the level is on
    for secret in ("richtig-geheim_1", "wrong-secret-xyz", "strangeword", "hush-hush-text"):
        assert secret not in stderr, secret
    assert fake_api.token not in stderr


class _N:
    body = ""
