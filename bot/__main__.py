"""``python -m bot``: run the bot (settings from the environment / ``.env``): with long polling,
or, when ``WEBHOOK_URL`` is set, as a webhook server on ``WEBHOOK_LISTEN`` (PTB's
``run_webhook``; Telegram's secret header must equal ``WEBHOOK_SECRET``, other requests get 403).

Before polling, the bot connects to the Bot API (``getMe``). A token the server rejects stops it
with one line on stderr and exit code 2 (like a missing or malformed setting); a Bot API that
cannot be reached after :data:`BOOTSTRAP_RETRIES` further attempts stops it with one line and
exit code 1. A database that cannot be opened (a file that is not SQLite, a PostgreSQL server
that is down or refuses the login, a schema newer than the code) stops it with one line and
exit code 2; a password in ``DATABASE_URL`` is never printed. The token is never printed: log
lines that would contain it show ``<token>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Collection
from urllib.parse import urlsplit

from pydantic import ValidationError
from telegram.error import InvalidToken, NetworkError, TelegramError

from bot.app import build_application
from bot.config import BotConfig
from bot.context import KlaverjasApp
from engine.ai.dd import dd_backends
from storage import DATABASE_ERRORS

log = logging.getLogger("bot")

TELEGRAM_API = "https://api.telegram.org/bot"
"""PTB's default base URL, shown in messages when ``TELEGRAM_API_BASE_URL`` is not set."""

BOOTSTRAP_RETRIES = 3
"""Further attempts to reach the Bot API at start-up (after 1, 2 and 4 seconds), and PTB's
``bootstrap_retries`` for the start of polling."""

ALLOWED_UPDATES = ["message", "callback_query", "chat_member"]
"""The update kinds the bot asks Telegram for (polling and webhook alike); ``chat_member``
(sent where the bot is an administrator) tells that a player left the group, as the
``left_chat_member`` service message does elsewhere."""

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

EXIT_CONFIG = 2
"""Exit code for a missing or bad setting, including a token Telegram rejects."""

EXIT_UNREACHABLE = 1
"""Exit code when the Bot API cannot be reached or fails at start-up."""


class StartupError(Exception):
    """The bot cannot start; ``str(error)`` is the one line for the operator.

    Args:
        message: what went wrong and what to check (never the token).
        exit_code: the process exit code.
    """

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class RedactingFormatter(logging.Formatter):
    """A log formatter that replaces a secret (the bot token) by ``<token>`` everywhere in the
    formatted record, tracebacks included."""

    def __init__(self, fmt: str, secret: str) -> None:
        super().__init__(fmt)
        self._secret = secret

    def format(self, record: logging.LogRecord) -> str:
        """Format ``record`` as usual, then hide the secret."""
        text = super().format(record)
        return text.replace(self._secret, "<token>") if self._secret else text


QUIET_LOGGERS = {
    "httpx": logging.WARNING,
    "apscheduler": logging.WARNING,
    "telegram": logging.INFO,
    "httpcore": logging.INFO,
    "aiosqlite": logging.INFO,
}
"""Libraries whose debug lines carry secrets or players' texts, and the lowest level they log
at whatever ``LOG_LEVEL`` says: httpx logs every request URL (the token); PTB's debug lines
show every update received (webhook or polling, with the messages' texts), every call's
parameters (texts, and ``setWebhook``'s secret) and a wrong webhook secret as sent;
aiosqlite's show every statement's parameters (the daily's secret); httpcore's show the
connections' traffic."""

MAX_WEBHOOK_BODY = 1 << 20
"""Largest webhook request body (bytes) the bot reads: a bigger one is refused from its
``Content-Length`` (or as soon as a chunked body passes it) before it is read, so a stranger
cannot fill the memory with large POSTs (Telegram's updates are far smaller)."""


def configure_logging(level_name: str, token: str) -> None:
    """Log to stderr at ``level_name`` (an unknown name means INFO) with the token redacted;
    the libraries of :data:`QUIET_LOGGERS` never below their level there, so no secret and no
    player's text reaches the log at any level."""
    level = logging.getLevelNamesMapping().get(level_name.upper(), logging.INFO)
    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter(LOG_FORMAT, token))
    logging.basicConfig(level=level, handlers=[handler])
    for name, lowest in QUIET_LOGGERS.items():
        logging.getLogger(name).setLevel(max(level, lowest))


def limit_webhook_body(max_bytes: int = MAX_WEBHOOK_BODY) -> None:
    """Make every tornado ``HTTPServer`` of this process (PTB's webhook server builds one)
    refuse request bodies over ``max_bytes`` before reading them (tornado's
    ``max_body_size``: the connection is closed on a too long ``Content-Length``)."""
    from tornado.httpserver import HTTPServer

    HTTPServer.configure(None, max_body_size=max_bytes)


async def connect(
    app: KlaverjasApp,
    base_url: str,
    token: str,
    *,
    retries: int = BOOTSTRAP_RETRIES,
    delay: float = 1.0,
) -> None:
    """Initialize ``app`` (PTB calls ``getMe``), trying again after network failures.

    Args:
        app: the application from :func:`bot.app.build_application`.
        base_url: the Bot API base URL, for messages.
        token: the bot token, removed from anything shown.
        retries: further attempts after a network failure; the waits double from ``delay``.
        delay: seconds before the first retry.

    Raises:
        StartupError: the token was rejected (exit code 2), or the Bot API could not be reached
            or answered with an error (exit code 1). The app's connections are closed then.
    """
    for attempt in range(retries + 1):
        try:
            await app.initialize()
        except InvalidToken:
            await app.bot.shutdown()
            hint = f" and TELEGRAM_API_BASE_URL ({base_url})" if base_url != TELEGRAM_API else ""
            raise StartupError(
                f"Telegram rejected the token; check TELEGRAM_BOT_TOKEN (from @BotFather){hint}.",
                EXIT_CONFIG,
            ) from None
        except NetworkError as exc:  # TimedOut included
            reason = _short(exc, token)
            if attempt == retries:
                await app.bot.shutdown()
                raise StartupError(
                    f"Cannot reach the Telegram Bot API at {base_url}: {reason}", EXIT_UNREACHABLE
                ) from None
            wait = delay * 2**attempt
            log.warning(
                "Cannot reach the Telegram Bot API at %s (%s); trying again in %g s",
                base_url,
                reason,
                wait,
            )
            await asyncio.sleep(wait)
        except TelegramError as exc:
            await app.bot.shutdown()
            raise StartupError(
                f"The Telegram Bot API at {base_url} failed at start-up: {_short(exc, token)}",
                EXIT_UNREACHABLE,
            ) from None
        else:
            return


def _short(exc: BaseException, token: str) -> str:
    """The error's message on one line, without the token."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.replace(token, "<token>") if token else text


def warn_without_c_core(backends: Collection[str]) -> bool:
    """Log a warning at start-up when the computer players' solver has only its pure Python
    backend (``backends``: :func:`engine.ai.dd.dd_backends`; the C core is built at install
    time when a C compiler is there). Returns whether it warned."""
    if "c" in backends:
        return False
    log.warning(
        "The computer players' solver runs in pure Python: the C core was not built (no C "
        "compiler at install time). They play the same cards, several times slower."
    )
    return True


def main() -> int:
    """Load the settings, connect to the Bot API and poll (or serve the webhook, when
    ``WEBHOOK_URL`` is set) until interrupted.

    Returns the exit code: 0 after a clean stop, 2 for a missing or bad setting (a rejected
    token included), 1 when the Bot API cannot be reached at start-up.
    """
    try:
        config = BotConfig()  # type: ignore[call-arg]  # values come from the environment
    except ValidationError as exc:
        for error in exc.errors():
            name = ".".join(str(p) for p in error["loc"]).upper()
            if error["type"] == "missing":
                print(
                    f"{name} is not set. Put it in the environment or in .env (see .env.example).",
                    file=sys.stderr,
                )
            elif name:
                message = error["msg"].removeprefix("Value error, ")
                if not message.startswith(name):  # the check's own words may name it
                    message = f"{name}: {message}"
                print(message, file=sys.stderr)
            else:  # a rule between settings: its message names them
                print(error["msg"].removeprefix("Value error, "), file=sys.stderr)
        return EXIT_CONFIG
    token = config.telegram_bot_token.get_secret_value()
    configure_logging(config.log_level, token)
    warn_without_c_core(dd_backends())
    app = build_application(config)
    base_url = (config.telegram_api_base_url or TELEGRAM_API).rstrip("/")
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # run_polling below continues on this loop
    connecting = loop.create_task(connect(app, base_url, token))
    try:
        loop.run_until_complete(connecting)
    except StartupError as exc:
        loop.close()
        print(exc, file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:  # Ctrl-C while waiting to retry
        connecting.cancel()
        with contextlib.suppress(BaseException):
            loop.run_until_complete(connecting)
        loop.run_until_complete(app.bot.shutdown())
        loop.close()
        return 130
    try:
        if config.webhook_url:
            assert config.webhook_secret is not None  # the config refuses a URL without one
            listen, port = config.webhook_address
            limit_webhook_body()
            app.run_webhook(
                listen=listen,
                port=port,
                url_path=urlsplit(config.webhook_url).path.lstrip("/"),
                webhook_url=config.webhook_url,
                secret_token=config.webhook_secret.get_secret_value(),
                allowed_updates=ALLOWED_UPDATES,
                bootstrap_retries=BOOTSTRAP_RETRIES,
            )
        else:
            app.run_polling(allowed_updates=ALLOWED_UPDATES, bootstrap_retries=BOOTSTRAP_RETRIES)
    except DATABASE_ERRORS as exc:  # opening the database in post_init
        reason = " ".join(str(exc).split()) or type(exc).__name__
        print(f"Cannot open the database {config.database}: {reason}", file=sys.stderr)
        return EXIT_CONFIG
    return 0


if __name__ == "__main__":
    sys.exit(main())
