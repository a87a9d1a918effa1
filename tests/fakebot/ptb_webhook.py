"""Running a python-telegram-bot ``Application`` in webhook mode against the fake server.

``run_webhook`` mirrors ``Application.run_webhook`` without owning the event loop: PTB's own
webhook server (``Updater.start_webhook``, tornado) listens on 127.0.0.1 at a free port, PTB
calls ``setWebhook`` with that URL and the secret, and the fake (delivery switched on) POSTs
the updates there.  It yields a ``WebhookRunner`` (a ``BotRunner``: ``settle`` works the same).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from telegram.ext import Application

from .ptb import BotRunner, _stop
from .server import FakeBotApi


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class WebhookRunner(BotRunner):
    """A running webhook application: ``url`` is where PTB listens."""

    def __init__(
        self, app: Application[Any, Any, Any, Any, Any, Any], api: FakeBotApi, url: str
    ) -> None:
        super().__init__(app, api)
        self.url = url


@asynccontextmanager
async def run_webhook(
    app: Application[Any, Any, Any, Any, Any, Any],
    api: FakeBotApi,
    *,
    url_path: str = "telegram",
    secret_token: str | None = None,
    port: int | None = None,
    allowed_updates: Sequence[str] | None = None,
    drop_pending_updates: bool | None = None,
    fail_on_log_errors: bool = True,
    shutdown_timeout: float = 5.0,
) -> AsyncIterator[WebhookRunner]:
    """Run ``app`` with PTB's webhook server for the block; switches delivery on in ``api``.

    Same start/stop order and failure rules as ``run_polling`` (ERROR log records and
    background tasks still running at exit fail the block).
    """
    port = port or free_port()
    url = f"http://127.0.0.1:{port}/{url_path}"
    if not api.webhook.enabled:
        api.enable_webhook_delivery()
    runner = WebhookRunner(app, api, url)
    root = logging.getLogger()
    root.addHandler(runner._collector)
    cancelled = 0
    try:
        await app.initialize()
        try:
            if app.post_init:
                await app.post_init(app)
            assert app.updater is not None, "build the application with an Updater"
            await app.updater.start_webhook(
                listen="127.0.0.1",
                port=port,
                url_path=url_path,
                webhook_url=url,
                secret_token=secret_token,
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
