"""Database URLs (``DATABASE_URL``): which backend, and where.

Accepted forms:

* a plain path (no ``://``): an SQLite file, as ``DATABASE_PATH`` has always been;
* ``sqlite:///relative/path``, ``sqlite:////absolute/path`` (everything after the third slash
  is the path, as written) and ``sqlite:///:memory:``;
* ``postgresql://user:password@host:port/database?options`` (or ``postgres://``), handed to
  asyncpg as it is (libpq's URL format).

Anything else with ``://`` is refused with one line that names the accepted forms. Messages
never repeat a password: :func:`redact` is how a URL is shown.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit


class Backend(StrEnum):
    """The storage engines :func:`storage.open_repository` knows."""

    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


FORMS = "a file path, sqlite:///path, sqlite:///:memory: or postgresql://user@host/database"
"""The accepted forms, for messages."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True, slots=True)
class DatabaseUrl:
    """A parsed database setting.

    Attributes:
        backend: which engine.
        target: the SQLite path (or ``":memory:"``), or the PostgreSQL URL as given.
        text: the setting as given (a path stays a path).
    """

    backend: Backend
    target: str
    text: str

    def __str__(self) -> str:
        """The setting with any password replaced by ``***``."""
        return redact(self.text)

    @property
    def is_sqlite_file(self) -> bool:
        """An SQLite database in a file (not in memory, not a ``file:`` URI)."""
        return (
            self.backend is Backend.SQLITE
            and self.target != ":memory:"
            and not self.target.startswith("file:")
        )


def parse_database_url(value: str | os.PathLike[str]) -> DatabaseUrl:
    """Parse a ``DATABASE_URL`` / ``DATABASE_PATH`` value (see the module docstring).

    Raises:
        ValueError: empty text, an unknown scheme, an ``sqlite://`` URL with a host or
            without a path, or a ``postgresql://`` URL that does not parse (e.g. a port that
            is not a number). The message never contains the password.
    """
    if not isinstance(value, str):
        path = os.fspath(value)
        return DatabaseUrl(Backend.SQLITE, path, path)
    if not value:
        raise ValueError(f"the database setting is empty; use {FORMS}")
    match = _SCHEME.match(value)
    if match is None:
        return DatabaseUrl(Backend.SQLITE, value, value)
    scheme = match[1].lower()
    if scheme == "sqlite":
        rest = value[match.end() :]
        if not rest.startswith("/"):
            raise ValueError(
                "an sqlite:// URL has no host: use sqlite:///relative/path, "
                "sqlite:////absolute/path or sqlite:///:memory:"
            )
        path = rest[1:]
        if not path:
            raise ValueError("sqlite:/// needs a path, e.g. sqlite:///klaverjas.sqlite3")
        return DatabaseUrl(Backend.SQLITE, path, value)
    if scheme in ("postgresql", "postgres"):
        try:
            parts = urlsplit(value)
            _ = parts.port  # raises ValueError for a port that is not a number
        except ValueError:
            raise ValueError(
                f"the {scheme}:// URL does not parse (is the port a number?)"
            ) from None
        return DatabaseUrl(Backend.POSTGRESQL, value, value)
    raise ValueError(f"unsupported database URL scheme {scheme!r}; use {FORMS}")


def redact(text: str) -> str:
    """``text`` with the password of a URL (``user:password@`` or ``?password=...``) replaced
    by ``***``; anything else comes back unchanged."""
    match = _SCHEME.match(text)
    if match is None:
        return text
    rest = text[match.end() :]
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:cut], rest[cut:]
    userinfo, at, host = netloc.rpartition("@")
    if at and ":" in userinfo:
        netloc = userinfo.split(":", 1)[0] + ":***@" + host
    tail = re.sub(r"([?&]password=)[^&#]*", r"\1***", tail)
    return text[: match.end()] + netloc + tail
