"""Running a python-telegram-bot ``Application`` against the fake server in the test's loop.

``run_polling`` mirrors ``Application.run_polling`` (initialize, ``post_init``, start polling,
start; then the reverse, with ``post_stop`` and ``post_shutdown``) without owning the event
loop, and yields a ``BotRunner`` whose ``settle()`` waits until the bot has handled everything.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from telegram.ext import Application, ApplicationBuilder

from .server import FakeBotApi
from .waiting import WaitTimeoutError

_LOGGER = logging.getLogger(__name__)


def application_builder(api: FakeBotApi) -> ApplicationBuilder:  # type: ignore[type-arg]
    """An ``ApplicationBuilder`` with the fake's token, ``base_url`` and ``base_file_url``."""
    return (
        ApplicationBuilder()
        .token(api.token)
        .base_url(api.base_url)
        .base_file_url(api.base_file_url)
    )


class _ErrorCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class BotRunner:
    """A running application: ``app``, ``api``, and the errors it logged (``log_errors``)."""

    def __init__(self, app: Application[Any, Any, Any, Any, Any, Any], api: FakeBotApi) -> None:
        self.app = app
        self.api = api
        self._collector = _ErrorCollector()

    @property
    def log_errors(self) -> list[logging.LogRecord]:
        """ERROR log records emitted while running (unhandled handler exceptions...)."""
        return self._collector.records

    def _background_tasks(self) -> list[asyncio.Task[Any]]:
        # Tasks started with Application.create_task are awaited by PTB on stop; settle()
        # waits for them too.  PTB keeps them in a private set (name-mangled attribute).
        tasks: set[asyncio.Task[Any]] = getattr(self.app, "_Application__create_task_tasks", set())
        return [task for task in tasks if not task.done()]

    async def cancel_background_tasks(self, grace: float) -> int:
        """Give ``Application.create_task`` tasks ``grace`` seconds, then cancel the rest.

        Returns how many had to be cancelled.
        """
        tasks = self._background_tasks()
        if tasks and grace > 0:
            _, pending = await asyncio.wait(tasks, timeout=grace)
            tasks = list(pending)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        return len(tasks)

    async def settle(
        self,
        quiet: float = 0.05,
        timeout: float = 5.0,  # noqa: ASYNC109  (a deadline for repeated checks)
    ) -> None:
        """Wait until the bot has fetched and fully handled every queued update.

        Loops until, in one pass: the server is idle (updates fetched, no call running, none
        for ``quiet`` s), PTB's update queue is drained (``update_queue.join()``), no
        ``Application.create_task`` task runs, and no new call arrived meanwhile.
        Raises ``WaitTimeoutError`` after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WaitTimeoutError(
                    f"bot did not settle within {timeout}s\nlast calls:\n{self.api.calls.tail()}"
                )
            await self.api.idle(quiet=quiet, timeout=remaining)
            seen = len(self.api.calls)
            try:
                async with asyncio.timeout(max(deadline - time.monotonic(), 0.001)):
                    await self.app.update_queue.join()
            except TimeoutError:
                continue
            if self._background_tasks():
                await asyncio.sleep(quiet)
                continue
            if len(self.api.calls) == seen and not self.api.is_busy():
                return


@asynccontextmanager
async def run_polling(
    app: Application[Any, Any, Any, Any, Any, Any],
    api: FakeBotApi,
    *,
    poll_timeout: float = 10.0,
    allowed_updates: Sequence[str] | None = None,
    drop_pending_updates: bool | None = None,
    fail_on_log_errors: bool = True,
    shutdown_timeout: float = 5.0,
) -> AsyncIterator[BotRunner]:
    """Run ``app`` with long polling against ``api`` for the duration of the block.

    On exit the application is stopped and shut down like ``run_polling`` does.  Background
    tasks (``Application.create_task``) get ``shutdown_timeout`` seconds to finish, and are
    cancelled at once if the block failed, so a failing test does not hang.  The block fails
    if tasks had to be cancelled, or, with ``fail_on_log_errors`` (default), if anything was
    logged at ERROR level meanwhile (for example an exception no error handler caught).
    """
    runner = BotRunner(app, api)
    root = logging.getLogger()
    root.addHandler(runner._collector)
    cancelled = 0
    try:
        await app.initialize()
        try:
            if app.post_init:
                await app.post_init(app)
            assert app.updater is not None, "build the application with an Updater"
            await app.updater.start_polling(
                poll_interval=0,
                timeout=int(poll_timeout),
                allowed_updates=allowed_updates,
                drop_pending_updates=drop_pending_updates,
            )
            await app.start()
            try:
                yield runner
            except BaseException:
                await runner.cancel_background_tasks(0)
                raise
            cancelled = await runner.cancel_background_tasks(shutdown_timeout)
        finally:
            await _stop(app)
    finally:
        root.removeHandler(runner._collector)
    problems = [f"{cancelled} background task(s) still running at exit"] if cancelled else []
    if fail_on_log_errors:
        problems += [
            f"{r.name}: {r.getMessage()}" + (f" ({r.exc_info[1]!r})" if r.exc_info else "")
            for r in runner.log_errors
        ]
    if problems:
        raise AssertionError("the bot did not run cleanly:\n" + "\n".join(problems))


async def _stop(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Stop and shut down like ``Application.run_polling`` does on exit."""
    if app.updater is not None and app.updater.running:
        await app.updater.stop()
    if app.running:
        await app.stop()
        if app.post_stop:
            await app.post_stop(app)
    await app.shutdown()
    if app.post_shutdown:
        await app.post_shutdown(app)
