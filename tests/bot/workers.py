"""Two bot worker processes on one PostgreSQL behind the fake Bot API's webhook delivery, for
the end-to-end tests of several workers (``tests/bot/test_e2e_workers.py``,
``tests/bot/test_e2e_workers_hands_in_group.py``; ``docs/design.md`` §4, §5)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from typing import IO, Any

from storage import GameStatus, PostgresRepository
from tests.bot.helpers import by_action
from tests.bot.test_main import _env
from tests.fakebot import FakeBotApi, FakeMessage, SimUser
from tests.fakebot.flood import RateLimits
from tests.fakebot.ptb_webhook import free_port

SECRET = "zwei-Arbeiter_12"
"""The webhook's secret token (``WEBHOOK_SECRET``) of both workers."""


def _read(name: str) -> str:
    return Path(name).read_text(errors="replace")


class Workers:
    """Two ``python -m bot`` processes behind the fake's round-robin webhook delivery; their
    stderr goes to files (a pipe nobody reads would block a chatty process). ``turn``: the
    seconds a player has to act (``TURN_TIMEOUT_SECONDS``)."""

    def __init__(self, api: FakeBotApi, url: str, folder: Path, *, turn: int) -> None:
        self.api, self.url, self.folder, self.turn = api, url, folder, turn
        self.procs: list[asyncio.subprocess.Process] = []
        self.urls: list[str] = []
        self.first_urls: list[str] = []
        self.logs: list[IO[bytes]] = []

    async def start(self) -> None:
        """Start both workers in webhook mode and spread the updates over them; the fake
        enforces Telegram's limits (20 a minute per group, one a second per private chat,
        30 a second in all) over the two workers together."""
        self.api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
        self.api.enable_webhook_delivery(attempts=4, retry_delay=0.05)
        for n in range(2):
            port = free_port()
            url = f"http://127.0.0.1:{port}/telegram"
            cwd = self.folder / f"worker{n}"
            cwd.mkdir(parents=True)
            self.logs.append((cwd / "stderr.log").open("wb"))
            self.procs.append(await self._spawn(url, port, cwd, self.logs[-1]))
            self.urls.append(url)
            await self.api.wait_for(self._registered, timeout=60, what="setWebhook")
        self.first_urls = list(self.urls)
        self.api.set_webhook_targets(self.urls)

    async def _spawn(
        self, url: str, port: int, cwd: Path, log: IO[bytes]
    ) -> asyncio.subprocess.Process:
        env = _env(
            TELEGRAM_BOT_TOKEN=self.api.token,
            TELEGRAM_API_BASE_URL=self.api.base_url,
            DATABASE_URL=self.url,
            COMPUTER_WORKERS="0",
            TURN_TIMEOUT_SECONDS=str(self.turn),
            LOG_LEVEL="WARNING",
            WEBHOOK_URL=url,
            WEBHOOK_LISTEN=f"127.0.0.1:{port}",
            WEBHOOK_SECRET=SECRET,
            BOT_WORKERS="2",
            TIMER_SWEEP_SECONDS="0.5",
        )
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=cwd, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=log,
        )  # fmt: skip

    def _registered(self) -> bool:
        return self.api.calls.count("setWebhook") >= len(self.urls) + self.restarts

    restarts = 0
    restarted_at = 0
    """The webhook's delivery attempts before the last restart."""

    async def restart(self, n: int) -> None:
        """Start worker ``n`` again (after :meth:`kill`), at a new address, and spread the
        updates over both again."""
        await self.procs[n].wait()
        self.restarts += 1
        self.restarted_at = len(self.api.webhook.attempts_log)
        port = free_port()
        url = f"http://127.0.0.1:{port}/telegram"
        cwd = self.folder / f"worker{n}-again"
        cwd.mkdir(parents=True)
        self.logs.append((cwd / "stderr.log").open("wb"))
        self.procs[n] = await self._spawn(url, port, cwd, self.logs[-1])
        self.urls[n] = url
        await self.api.wait_for(self._registered, timeout=60, what="setWebhook again")
        self.api.set_webhook_targets(self.urls)

    def only(self, n: int) -> None:
        """Deliver the updates from now on to worker ``n`` alone."""
        self.api.set_webhook_targets([self.urls[n]])

    def kill(self, n: int) -> None:
        """SIGKILL worker ``n``: no clean-up of any kind."""
        self.procs[n].kill()

    async def stop(self) -> list[str]:
        """Stop the workers that live (SIGINT); returns what each wrote to stderr."""
        for proc in self.procs:
            if proc.returncode is None:
                proc.send_signal(signal.SIGINT)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), timeout=30)
        for log in self.logs:
            log.close()
        return [_read(log.name) for log in self.logs]


async def tap_answered(api: FakeBotApi, person: SimUser, message: FakeMessage, action: str) -> Any:
    """Tap and wait for the answer. A tap that reached a worker as it was killed is never
    answered: tap again, as a person does when the spinner runs out."""
    for _ in range(4):
        tap = await person.tap(message, by_action(action))
        with contextlib.suppress(AssertionError):
            return await tap.wait_answered(timeout=15)
    raise AssertionError(f"{person} tapped {action} four times without an answer")


async def started_game_id(repo: PostgresRepository, chat_id: int) -> int:
    """The id of the group's game once it runs (waits up to 30 s)."""
    for _ in range(300):
        game = await repo.open_game_of_chat(chat_id)
        if game is not None and game.status is GameStatus.ACTIVE:
            return game.game_id
        await asyncio.sleep(0.1)
    raise AssertionError("the game did not start")
