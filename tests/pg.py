"""A throwaway PostgreSQL server for the tests (and ``bench/``), and fresh databases on it.

:class:`PostgresServer` runs ``initdb`` into a new temporary folder, then ``pg_ctl start`` with
the server listening only on 127.0.0.1 on a free port (its Unix socket in that folder), trust
authentication, and ``fsync`` off unless ``durable=True``; :meth:`PostgresServer.stop` stops it
and removes the folder. PostgreSQL refuses to run as root: when the tests run as root, the
binaries run as the ``postgres`` system user (``runuser -u postgres --``) and the folder is
given to that user.

The session fixture :func:`postgres_server` (registered in ``tests/conftest.py``, so every test
folder can use it) starts one server on first use and stops it at the end of the session, or
uses the server of :data:`URL_ENV` if that is set (it needs the right to create databases).
Without PostgreSQL binaries the tests that need the server are skipped with the reason, except
when the environment variable ``CI`` is set: then they fail, because CI must test PostgreSQL.

Each test gets a new database from :meth:`PostgresDatabases.create`: ``CREATE DATABASE ...
TEMPLATE`` of a database migrated once per session (a copy takes some tens of milliseconds),
dropped again by :meth:`PostgresDatabases.drop`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from storage import PostgresRepository

URL_ENV = "KLAVERJAS_TEST_POSTGRES_URL"
"""An existing server to test against instead of a throwaway one, e.g.
``postgresql://postgres@127.0.0.1:5432/postgres`` (a database the user may connect to; the
tests create and drop their own databases next to it)."""

BIN_ENV = "KLAVERJAS_TEST_POSTGRES_BIN"
"""The folder of ``initdb`` and ``pg_ctl``, if not the newest ``/usr/lib/postgresql/*/bin``
or the ``PATH``."""

SYSTEM_USER = "postgres"
"""The system user the server runs as when the tests run as root."""


class PostgresUnavailable(Exception):
    """No PostgreSQL server can be had here (no binaries, no ``postgres`` user)."""


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: :data:`BIN_ENV`, else the newest
    ``/usr/lib/postgresql/<version>/bin`` (Debian), else where ``initdb`` is on the
    ``PATH``; ``None`` if there is none."""
    candidates: list[Path] = []
    if os.environ.get(BIN_ENV):
        candidates.append(Path(os.environ[BIN_ENV]))
    debian = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True,
    )
    candidates.extend(debian)
    if on_path := shutil.which("initdb"):
        candidates.append(Path(on_path).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """One throwaway PostgreSQL server (see the module docstring).

    Args:
        bindir: the folder of ``initdb`` and ``pg_ctl``.
        durable: keep PostgreSQL's defaults for ``fsync``, ``synchronous_commit`` and
            ``full_page_writes`` (benchmarks); by default they are off (tests: faster, and the
            data is thrown away anyway).
    """

    def __init__(self, bindir: Path, *, durable: bool = False) -> None:
        self.bindir = bindir
        self.durable = durable
        self.folder: Path | None = None
        self.port = 0
        self._as_root = os.geteuid() == 0

    @property
    def url(self) -> str:
        """The URL of the server's ``postgres`` database, as the ``postgres`` superuser."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, log: Path) -> None:
        command: list[str] = [str(self.bindir / args[0]), *args[1:]]
        if self._as_root:
            command = ["runuser", "-u", SYSTEM_USER, "--", *command]
        with log.open("ab") as out:
            done = subprocess.run(
                command, stdout=out, stderr=subprocess.STDOUT, check=False, timeout=120
            )
        if done.returncode != 0:
            tail = log.read_text(errors="replace").strip().splitlines()[-15:]
            raise RuntimeError(f"{' '.join(args[:1])} failed:\n" + "\n".join(tail))

    def start(self) -> None:
        """``initdb`` and start the server; returns when it accepts connections.

        Raises:
            PostgresUnavailable: running as root and there is no ``postgres`` user.
            RuntimeError: ``initdb`` or ``pg_ctl start`` failed (with the end of its log).
        """
        owner = None
        if self._as_root:
            try:
                owner = pwd.getpwnam(SYSTEM_USER)
            except KeyError:
                raise PostgresUnavailable(
                    f"the tests run as root and there is no {SYSTEM_USER!r} user to run "
                    "PostgreSQL as"
                ) from None
        folder = Path(tempfile.mkdtemp(prefix="klaverjas-pg-"))
        self.folder = folder
        atexit.register(self.stop)  # also if the session ends without its teardown
        try:
            self._start(folder, owner)
        except BaseException:
            self.stop()
            raise

    def _start(self, folder: Path, owner: pwd.struct_passwd | None) -> None:
        if owner is not None:
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        data, log = folder / "data", folder / "server.log"
        log.touch()
        if owner is not None:
            os.chown(log, owner.pw_uid, owner.pw_gid)
        self._run(
            "initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
            "--locale=C", "--no-sync", log=log,
        )  # fmt: skip
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{folder}'",
            "max_connections": "200",
        }
        if not self.durable:
            settings |= {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
        for attempt in itertools.count():
            self.port = _free_port()
            lines = [f"{k} = {v}" for k, v in {**settings, "port": str(self.port)}.items()]
            with (data / "postgresql.conf").open("a") as conf:  # the last value counts
                conf.write("\n".join(lines) + "\n")
            try:
                self._run("pg_ctl", "-D", str(data), "-l", str(log), "-w", "start", log=log)
            except RuntimeError:
                if attempt == 2:  # the free port was taken in between, three times?
                    raise
            else:
                return

    def stop(self) -> None:
        """Stop the server and remove its folder. Idempotent."""
        folder, self.folder = self.folder, None
        if folder is None:
            return
        with contextlib.suppress(RuntimeError, OSError, subprocess.SubprocessError):
            if (folder / "data" / "postmaster.pid").exists():
                self._run(
                    "pg_ctl", "-D", str(folder / "data"), "-m", "fast", "-w", "stop",
                    log=folder / "server.log",
                )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


def _with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


class PostgresDatabases:
    """Fresh databases on one server for the tests.

    Args:
        url: a URL of the server whose user may create databases.
        prefix: the start of every database name made here (one prefix per test session).
    """

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        self._names = itertools.count(1)
        self._template: str | None = None

    async def _admin(self, sql: str) -> None:
        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    async def create(self, *, migrated: bool = True) -> str:
        """A new database; returns its URL. ``migrated``: a copy of a database migrated to
        the current schema (made on first use), else an empty one (from ``template0``)."""
        name = f"{self.prefix}_{next(self._names)}"
        if not migrated:
            await self._admin(f"CREATE DATABASE {name} TEMPLATE template0")
            return _with_database(self.url, name)
        if self._template is None:
            template = f"{self.prefix}_template"
            await self._admin(f"CREATE DATABASE {template} TEMPLATE template0")
            repo = await PostgresRepository.open(_with_database(self.url, template))
            await repo.close()
            self._template = template
        await self._admin(f"CREATE DATABASE {name} TEMPLATE {self._template}")
        return _with_database(self.url, name)

    async def drop(self, url: str) -> None:
        """Drop the database of ``url`` (made by :meth:`create`), even with connections
        still open."""
        name = urlsplit(url).path.lstrip("/")
        if not name.startswith(self.prefix):
            raise ValueError(f"{name} was not made here")
        await self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    async def drop_all(self, names: Sequence[str] = ()) -> None:
        """Drop the template (and ``names``): the end of a session on a server we keep."""
        for name in [*names, *([self._template] if self._template else [])]:
            await self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self._template = None


def unavailable(reason: str) -> None:
    """Skip the test for ``reason``, or fail it when ``CI`` is set (CI must test
    PostgreSQL)."""
    hint = f"install PostgreSQL's server binaries (Debian: postgresql-15) or set {URL_ENV}"
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL is needed in CI: {reason}; {hint}", pytrace=False)
    pytest.skip(f"no PostgreSQL: {reason}; {hint}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresDatabases]:
    """Databases on a throwaway PostgreSQL server started for this session (or on the
    server of :data:`URL_ENV`); skipped without PostgreSQL (failed if ``CI`` is set)."""
    prefix = f"klaverjas_test_{os.getpid()}"
    if existing := os.environ.get(URL_ENV):
        databases = PostgresDatabases(existing, prefix)
        yield databases
        asyncio.run(databases.drop_all())
        return
    bindir = find_bindir()
    if bindir is None:
        unavailable("initdb and pg_ctl were not found")
        return
    server = PostgresServer(bindir)
    try:
        server.start()
    except PostgresUnavailable as exc:
        unavailable(str(exc))
        return
    try:
        yield PostgresDatabases(server.url, prefix)
    finally:
        server.stop()
