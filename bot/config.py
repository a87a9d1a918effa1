"""Settings of the running bot, from the environment or ``.env`` (pydantic-settings).

Every setting is documented in ``.env.example``. The token is a :class:`~pydantic.SecretStr`
so it never appears in logs or reprs.

The database: ``DATABASE_URL`` (``sqlite:///path``, ``postgresql://...``, see
:mod:`storage.urls`) wins when it is set and not empty; otherwise ``DATABASE_PATH``, an SQLite
file (default ``klaverjas.sqlite3``). So an ``.env`` from before ``DATABASE_URL`` keeps working,
and setting ``DATABASE_URL`` alone moves the bot. :class:`DatabaseSettings` is that part on its
own, for ``python -m bot.admin``.
"""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.i18n import LANGUAGES
from engine.settings import KLAVERJAS_PRESETS
from storage import Backend, DatabaseUrl, parse_database_url

LEVELS = ("strong", "basic", "random")
"""The computer levels (:func:`engine.ai.make_player`)."""


class DatabaseSettings(BaseSettings):
    """Which database to open, from the environment or ``.env``.

    Attributes:
        database_url: ``DATABASE_URL``: ``sqlite:///relative/path``, ``sqlite:////absolute``,
            ``sqlite:///:memory:``, or ``postgresql://user:password@host:port/database``
            (``postgres://`` too); empty or unset: use ``database_path``. A value that is not
            one of these is refused at start-up.
        database_path: ``DATABASE_PATH``: SQLite file (created if missing), used when
            ``DATABASE_URL`` is not set.
    """

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    database_url: str | None = None
    database_path: str = "klaverjas.sqlite3"

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        value = (value or "").strip()
        if not value:
            return None
        parse_database_url(value)  # ValueError: one line naming the accepted forms
        return value

    @property
    def database(self) -> DatabaseUrl:
        """The database to open: ``DATABASE_URL`` if set, else the SQLite file
        ``DATABASE_PATH`` (always a path, even if it looks like a URL)."""
        if self.database_url:
            return parse_database_url(self.database_url)
        return DatabaseUrl(Backend.SQLITE, self.database_path, self.database_path)

    @property
    def database_setting(self) -> str:
        """The name of the setting :attr:`database` comes from, for messages."""
        return "DATABASE_URL" if self.database_url else "DATABASE_PATH"


class BotConfig(DatabaseSettings):
    """The bot's settings (the database ones: see :class:`DatabaseSettings`).

    Attributes:
        telegram_bot_token: the token from @BotFather (required).
        telegram_api_base_url: base URL of a (local) Bot API server, e.g.
            ``http://127.0.0.1:8081/bot``; None for Telegram's.
        database_url, database_path: the database (``DATABASE_URL`` wins when set).
        default_language: a group's language when neither the group nor its reader gives
            one (nl, de, fr, en); a person's own texts fall back to English instead
            (:func:`bot.i18n.reader_language`).
        turn_timeout_seconds: default seconds a player has to act, 0 to 3600; 0 turns the
            timer off.
        computer_level: strength of computer players: ``strong``, ``basic`` or ``random``.
        computer_workers: processes that run computer players, 0 to 32 (0: a thread in the bot
            process).
        computer_delay_seconds: seconds between two computer moves shown in the chat, 0 to
            10 (0: all at once).
        log_level: Python logging level name (an unknown name means INFO).
        daily_rounds: rounds of the daily deal set (``/daily``): 8 (the default) or 16
            (``rules.md`` §2.3).
        daily_preset: the daily's rules, a Klaverjassen preset (``rules.md`` §7; Klammern is
            not offered: its voided deals depend on the bidding, so no fixed deal set).
        daily_timezone: the IANA time zone whose midnight turns the day of the daily.
        daily_secret: mixed into the daily's deal seeds so nobody can compute a date's hands
            in advance; None: one is drawn once and kept in the database.
        daily_level: strength of the daily's three computers and of its par (``strong``:
            with a fixed node budget and no clock, the same move on every machine).
        webhook_url: ``WEBHOOK_URL``: the public HTTPS URL Telegram posts updates to; set:
            ``python -m bot`` serves a webhook (PTB's ``run_webhook``), None: long polling.
        webhook_listen: ``WEBHOOK_LISTEN``: ``address:port`` the webhook server binds
            (default ``127.0.0.1:8443``; behind a reverse proxy that terminates TLS).
        webhook_secret: ``WEBHOOK_SECRET``: Telegram's ``X-Telegram-Bot-Api-Secret-Token``,
            1 to 256 characters ``A-Z a-z 0-9 _ -``; required with ``WEBHOOK_URL``. A request
            without it or with another value is refused (HTTP 403).
        bot_workers: ``BOT_WORKERS``: how many bot processes share the database and
            Telegram's updates (behind a load balancer, webhook mode), 1 to 64; each keeps to
            its share of Telegram's per-chat and per-bot limits (``bot.budget.shared``).
            Above 1 it needs PostgreSQL and webhook mode (``WEBHOOK_URL``; every worker the
            same ``WEBHOOK_URL`` and ``WEBHOOK_SECRET``). At 1 a PostgreSQL database is opened
            for its only bot process (``storage.open_repository(..., sole_writer=True)``).
        timer_sweep_seconds: ``TIMER_SWEEP_SECONDS``: on PostgreSQL, how often a worker
            looks for turn timers that are due, whichever worker armed them (claimed in the
            database, so each runs once), 0.1 to 60; SQLite: timers are jobs in the process.
        max_tables_per_player: ``MAX_TABLES_PER_PLAYER``: group tables (lobbies and running
            games) one person may have opened at once, 1 to 100.
        max_open_tables: ``MAX_OPEN_TABLES``: open tables of the whole bot (group and
            private, dailies included), 1 to 100000; ``/klaverjas`` beyond it is refused.
        lobby_idle_minutes: ``LOBBY_IDLE_MINUTES``: a lobby nobody changed for this long
            closes itself and the group is told, 0.01 to 10080 (a week).
        rematch_confirm_seconds: ``REMATCH_CONFIRM_SECONDS``: after a finished game's
            "again", the seconds its players have to tap "I'm in" on the new table; the seats
            not confirmed then go to computer players, 0.1 to 3600.
        disabled_buttons: ``DISABLED_BUTTONS``: cards that may not be played now are sent as
            disabled (greyed) buttons (Bot API 10.3); false: as dimmed buttons whose tap says
            why. A Bot API server that refuses disabled buttons turns them off by itself.
    """

    telegram_bot_token: SecretStr
    telegram_api_base_url: str | None = None
    default_language: str = "nl"
    turn_timeout_seconds: int = Field(default=60, ge=0, le=3600)
    computer_level: str = "strong"
    computer_workers: int = Field(default=2, ge=0, le=32)
    computer_delay_seconds: float = Field(default=1.0, ge=0, le=10)
    log_level: str = "INFO"
    daily_rounds: int = 8
    daily_preset: str = "amsterdam"
    daily_timezone: str = "Europe/Amsterdam"
    daily_secret: SecretStr | None = None
    daily_level: str = "strong"
    webhook_url: str | None = None
    webhook_listen: str = "127.0.0.1:8443"
    webhook_secret: SecretStr | None = None
    bot_workers: int = Field(default=1, ge=1, le=64)
    timer_sweep_seconds: float = Field(default=1.0, ge=0.1, le=60)
    max_tables_per_player: int = Field(default=3, ge=1, le=100)
    max_open_tables: int = Field(default=500, ge=1, le=100_000)
    lobby_idle_minutes: float = Field(default=30.0, ge=0.01, le=10_080)
    rematch_confirm_seconds: float = Field(default=60.0, ge=0.1, le=3600)
    disabled_buttons: bool = True

    @field_validator("webhook_url")
    @classmethod
    def _webhook_url(cls, value: str | None) -> str | None:
        value = (value or "").strip()
        if not value:
            return None
        if not value.startswith(("https://", "http://")):
            raise ValueError("must be an https:// URL (or empty for long polling)")
        return value

    @field_validator("webhook_listen")
    @classmethod
    def _webhook_listen(cls, value: str) -> str:
        value = value.strip()
        host, sep, port = value.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError("must be address:port, e.g. 127.0.0.1:8443 or 0.0.0.0:8443")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _webhook_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        secret = value.get_secret_value().strip()
        if len(secret) > 256 or not re.fullmatch(r"[A-Za-z0-9_-]+", secret):
            raise ValueError("must be 1 to 256 characters A-Z, a-z, 0-9, _ or -")
        return SecretStr(secret)

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> BotConfig:
        if self.webhook_url and self.webhook_secret is None:
            raise ValueError("WEBHOOK_SECRET must be set when WEBHOOK_URL is set")
        return self

    @model_validator(mode="after")
    def _workers_need_postgresql(self) -> BotConfig:
        if self.bot_workers > 1 and self.database.backend is not Backend.POSTGRESQL:
            raise ValueError(
                "BOT_WORKERS above 1 needs a PostgreSQL DATABASE_URL (one process per SQLite file)"
            )
        if self.bot_workers > 1 and not self.webhook_url:
            raise ValueError(
                "BOT_WORKERS above 1 needs WEBHOOK_URL (Telegram gives long polling to one "
                "process only)"
            )
        return self

    @property
    def webhook_address(self) -> tuple[str, int]:
        """``WEBHOOK_LISTEN`` split into (address, port)."""
        host, _, port = self.webhook_listen.rpartition(":")
        return host.strip("[]"), int(port)

    @field_validator("telegram_bot_token")
    @classmethod
    def _token(cls, value: SecretStr) -> SecretStr:
        token = value.get_secret_value().strip()
        if ":" not in token or not token.split(":", 1)[0].isdigit():
            raise ValueError("TELEGRAM_BOT_TOKEN must look like 123456789:AbC... (from @BotFather)")
        return SecretStr(token)

    @field_validator("default_language")
    @classmethod
    def _language(cls, value: str) -> str:
        if value not in LANGUAGES:
            raise ValueError(f"must be one of {', '.join(LANGUAGES)}")
        return value

    @field_validator("computer_level", "daily_level")
    @classmethod
    def _level(cls, value: str) -> str:
        if value not in LEVELS:
            raise ValueError("must be strong, basic or random")
        return value

    @field_validator("daily_rounds")
    @classmethod
    def _daily_rounds(cls, value: int) -> int:
        if value not in (8, 16):
            raise ValueError("must be 8 or 16 (rules.md §2.3)")
        return value

    @field_validator("daily_preset")
    @classmethod
    def _daily_preset(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in KLAVERJAS_PRESETS:
            raise ValueError(f"must be one of {', '.join(KLAVERJAS_PRESETS)}")
        return value

    @field_validator("daily_timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        value = value.strip()
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("must be an IANA time zone such as Europe/Amsterdam or UTC") from None
        return value

    @field_validator("daily_secret")
    @classmethod
    def _secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        return SecretStr(value.get_secret_value().strip())

    @field_validator("telegram_api_base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return value or None
