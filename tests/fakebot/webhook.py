"""Webhooks: ``setWebhook``/``deleteWebhook``/``getWebhookInfo`` and, when a test switches it
on, delivery of the queued updates by HTTP POST, as Telegram does.

Without delivery (the default) a webhook only makes ``getUpdates`` answer 409 Conflict, and
the URL is checked like Telegram checks it (HTTPS, port 80, 88, 443 or 8443).  With
``api.enable_webhook_delivery()`` the fake POSTs each pending update, oldest first and one at
a time, as JSON to the webhook URL with the header ``X-Telegram-Bot-Api-Secret-Token`` when a
secret was set; a 2xx answer confirms the update, anything else (or no connection) is retried
``attempts`` times in all, ``retry_delay`` apart, and then the update is given up
(``failed``; Telegram would keep retrying for a day).  Delivery mode also accepts plain
``http://`` on any port for loopback hosts (tests cannot run TLS on 443), and never sends
anything to a host that is not loopback.  ``set_webhook_targets`` stands in for a load
balancer: deliveries go round-robin over several URLs, or to the URL a routing function picks.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aiohttp

from .errors import bad_request

if TYPE_CHECKING:
    from .params import Params
    from .server import FakeBotApi
    from .updates import QueuedUpdate

JSONDict = dict[str, Any]
Route = Callable[["QueuedUpdate"], str]
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HTTPS_REQUIRED = "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
BAD_PORT = "Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
WEBHOOK_PORTS = frozenset({80, 88, 443, 8443})


@dataclass(slots=True)
class WebhookAttempt:
    """One POST of an update: where, the HTTP status (0: no answer) and the error text."""

    update_id: int
    url: str
    status: int
    error: str | None
    attempt: int  # 1 for the first try of this update
    at: float = 0.0  # time.monotonic() when the answer (or the failure) came

    @property
    def ok(self) -> bool:
        """True for a 2xx answer."""
        return 200 <= self.status < 300


def is_loopback(url: str) -> bool:
    """True when the URL's host is on this machine (127.0.0.0/8, ::1, localhost)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class WebhookDelivery:
    """The webhook settings Telegram keeps for the bot, and the delivery worker.

    Tests read ``url``, ``secret_token``, ``attempts_log`` (every POST), ``failed`` (updates
    given up) and ``last_error``; they may change ``secret_token`` to simulate a mismatch.
    """

    def __init__(self, api: FakeBotApi) -> None:
        self.api = api
        self.url: str | None = None
        self.secret_token: str | None = None
        self.max_connections = 40
        self.enabled = False
        self.attempts = 3
        self.retry_delay = 0.05
        self.timeout = 5.0
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self.targets: list[str] = []
        self.route: Route | None = None
        self.attempts_log: list[WebhookAttempt] = []
        self.failed: list[QueuedUpdate] = []
        self.last_error: tuple[int, str] | None = None
        self._next_target = 0
        self._task: asyncio.Task[None] | None = None

    # --- what the Bot API methods do -------------------------------------------------------

    def configure(self, p: Params) -> None:
        """``setWebhook``: check and keep the URL and secret; start delivering if enabled."""
        url = (p.text("url") or "").strip()
        if not url:
            self.clear()
            return
        parts = urlsplit(url)
        relaxed = self.enabled and is_loopback(url)
        if not relaxed:
            if parts.scheme.lower() != "https":
                raise bad_request(HTTPS_REQUIRED)
            try:
                port = parts.port or 443
            except ValueError as exc:
                raise bad_request(BAD_PORT) from exc
            if port not in WEBHOOK_PORTS:
                raise bad_request(BAD_PORT)
        self.url = url
        self.api.webhook_url = url
        self.secret_token = p.text("secret_token") or None
        self.max_connections = min(max(p.integer("max_connections", 40) or 40, 1), 100)
        allowed = p.decoded("allowed_updates", "allowed_updates")
        if allowed is not None:
            self.api.updates.set_allowed(str(kind) for kind in allowed)
        self._start()

    def clear(self) -> None:
        """``deleteWebhook``: forget the URL and secret; delivery stops."""
        self.url = None
        self.api.webhook_url = None
        self.secret_token = None
        self.api.notify()

    def info(self) -> JSONDict:
        """The ``WebhookInfo`` object."""
        data: JSONDict = {
            "url": self.url or "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.api.updates.pending),
        }
        if self.url:
            data["max_connections"] = self.max_connections
        if self.last_error is not None:
            data["last_error_date"], data["last_error_message"] = self.last_error
        return data

    # --- test controls ---------------------------------------------------------------------

    def enable(self, *, attempts: int = 3, retry_delay: float = 0.05, timeout: float = 5.0) -> None:
        """Switch delivery on (``FakeBotApi.enable_webhook_delivery``)."""
        self.enabled = True
        self.attempts, self.retry_delay, self.timeout = max(attempts, 1), retry_delay, timeout
        self._start()

    def set_targets(self, targets: Sequence[str] = (), *, route: Route | None = None) -> None:
        """Deliver round-robin over ``targets``, or where ``route(update)`` says (not both)."""
        if targets and route is not None:
            raise ValueError("give targets or route, not both")
        self.targets, self.route, self._next_target = list(targets), route, 0

    async def stop(self) -> None:
        """End the delivery worker (the server is stopping)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- delivery --------------------------------------------------------------------------

    def _start(self) -> None:
        if self.enabled and self.url and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run())
        self.api.notify()

    def _target(self, update: QueuedUpdate) -> str:
        if self.route is not None:
            return self.route(update)
        if self.targets:
            url = self.targets[self._next_target % len(self.targets)]
            self._next_target += 1
            return url
        assert self.url is not None
        return self.url

    async def _run(self) -> None:
        api = self.api
        timeout = aiohttp.ClientTimeout(total=self.timeout)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while self.url and not api.closing:
                event = api.change_event
                if not api.updates.pending:
                    await api.wait_change(event, 1.0)
                    continue
                update = api.updates.pending[0]
                delivered = await self._deliver(session, update)
                if update in api.updates.pending:
                    api.updates.pending.remove(update)
                    (api.updates.confirmed if delivered else self.failed).append(update)
                api.touch()
                api.notify()

    async def _deliver(self, session: aiohttp.ClientSession, update: QueuedUpdate) -> bool:
        headers = {SECRET_HEADER: self.secret_token} if self.secret_token else {}
        if update.kind == "callback_query":  # when the bot got the tap, as getUpdates notes
            query = self.api.world.callback_queries.get(str(update.payload.get("id")))
            if query is not None and query.delivered_at is None:
                query.delivered_at = self.api.clock()
        for attempt in range(1, self.attempts + 1):
            url = self._target(update)
            update.deliveries += 1
            status, error = await self._post(session, url, update.to_api(), headers)
            self.attempts_log.append(
                WebhookAttempt(update.update_id, url, status, error, attempt, time.monotonic())
            )
            if 200 <= status < 300:
                return True
            self.last_error = (int(time.time()), error or f"HTTP {status}")
            self.api.notify()
            if error is not None and error.startswith("refused"):
                return False
            if attempt < self.attempts:
                await self.sleep(self.retry_delay)
        return False

    async def _post(
        self, session: aiohttp.ClientSession, url: str, body: JSONDict, headers: dict[str, str]
    ) -> tuple[int, str | None]:
        if not is_loopback(url):
            return 0, f"refused by the fake: {url} is not a loopback address"
        try:
            async with session.post(url, json=body, headers=headers) as response:
                await response.read()
                if 200 <= response.status < 300:
                    return response.status, None
                reason = f"{response.status} {response.reason or ''}".strip()
                return response.status, f"Wrong response from the webhook: {reason}"
        except TimeoutError:
            return 0, "Read timeout expired"
        except aiohttp.ClientError as exc:
            return 0, f"Connection failed: {exc}"


class WebhookMixin:
    """Test controls of webhook delivery (methods of ``FakeBotApi``)."""

    webhook: WebhookDelivery

    def enable_webhook_delivery(
        self, *, attempts: int = 3, retry_delay: float = 0.05, timeout: float = 5.0
    ) -> WebhookDelivery:
        """POST queued updates to the webhook (loopback only); see the module docstring.

        ``attempts``: tries per update in all; ``retry_delay``: seconds of
        ``api.webhook.sleep`` between them; ``timeout``: seconds one POST may take.
        """
        self.webhook.enable(attempts=attempts, retry_delay=retry_delay, timeout=timeout)
        return self.webhook

    def set_webhook_targets(
        self, targets: Sequence[str] = (), *, route: Route | None = None
    ) -> None:
        """Test-only load balancer: round-robin over ``targets`` (URLs), or ``route(update)``
        picks the URL for each update (per-chat routing); no arguments: back to the URL of
        ``setWebhook``."""
        self.webhook.set_targets(targets, route=route)
