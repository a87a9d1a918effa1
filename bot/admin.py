"""``python -m bot.admin``: ``export`` prints every game as JSON (a stable contract); ``copy``
moves a whole database to another one (SQLite ↔ PostgreSQL) and verifies it.

``export [--database URL_OR_PATH] [--chat ID]``: without ``--database`` the bot's own setting
is used: ``DATABASE_URL``, else ``DATABASE_PATH`` (environment, then ``.env`` in the working
folder, then the default ``klaverjas.sqlite3``), as ``python -m bot`` would.

One record per game: ``{"id", "chat_id", "status", "settings", "players", "rounds", "totals"}``
with cards in the notation of the rule cases and seats 0–3 = N, E, S, W. ``rounds`` lists the
finished rounds (``engine.record.round_export``); a game in progress also has
``current_round``. A game of the daily deal (``/daily``) also has ``"daily":
"YYYY-MM-DD"``, its deal set's day: every attempt of that day has the same ``seed`` and so the
same ``hands`` in every round.

A Klammern game (``rules.md`` §9) also has ``variant: "klammern"``, ``voided`` (deals everybody
passed, with the proposed card and the bids), ``small_points`` (standing now) and ``totals`` in
big points; each round has ``variant``, ``proposed``, ``bids``, ``declarations``,
``declaration_points``, ``bella``, ``contra``, ``re``, ``declined``, ``points``, ``winner``,
``multiplier``, ``small_points``, ``tally`` (small and big points after it), and, like a
Klaverjassen round, ``score`` (the small points won) and ``nat`` (the playing team lost).

A database that does not exist (an SQLite file is not created), is not an SQLite database or
cannot be opened (a PostgreSQL server that is down, a wrong password) ends with one line on
stderr and exit code 2; a password is never printed. When the reader of the output goes away
early (``... | head``) the export stops quietly with exit code 1.

``rebuild-stats [--database URL_OR_PATH]``: recompute every statistic and rating from the stored
finished and abandoned games, in the order they ended (:func:`bot.service.stats.rebuild`, the
code that records each game as it ends), so the numbers equal the ones kept game by game
One line on stdout. Stop the bot first.

``forget-user ID [--database URL_OR_PATH]``: forget the person with Telegram user id ``ID``
(the right to be forgotten): :meth:`storage.Repository.forget_user` with a fresh anonymous id
unlinks their id and name from every table in one transaction; their games stay, with an
anonymous seat, and still replay. One line on stdout, exit 0 (also when nothing was stored of
them). A person seated at an open game is refused with one line on stderr and exit 1: they
finish or leave that table first. On SQLite stop the bot first (it keeps users in memory).

``copy --from URL_OR_PATH --to URL_OR_PATH [--resume]``: every user, chat and game (seats,
settings, seed, action log with its times, snapshot, status, timer, message ids, former
players) into an empty target (:func:`storage.copy.copy_database`; a PostgreSQL target
database must exist, an SQLite file is created). Stop the bot first. A target that holds rows
is refused with one line (exit 2) unless ``--resume`` (finish a copy from the same source that
stopped part-way: games already there must be identical). Then the copy is verified: row counts
of every table, every user and chat, every game's stored row and history, and every game
replayed by the engine in both databases (settings + seed + actions → the export record of
:func:`export_game`, compared). One summary line on stdout and exit 0; on any difference one
line per difference (at most :data:`SHOWN_DIFFERENCES`) and a last line on stderr, exit 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.config import DatabaseSettings
from bot.tables import TableSettings
from engine.cards import Team
from engine.game import GameState
from engine.record import game_export, replay_actions, round_export
from storage import (
    DATABASE_ERRORS,
    DatabaseUrl,
    Game,
    GameStatus,
    Repository,
    SeatKind,
    UserSeated,
    open_repository,
    parse_database_url,
)
from storage.copy import (
    CopyConflict,
    TargetNotEmpty,
    copy_database,
    game_differences,
    paired_histories,
    row_differences,
)
from storage.rows import new_anonymous_id

SEAT_LETTERS = "NESW"

SHOWN_DIFFERENCES = 20
"""At most this many differences are listed after a copy (then how many more there are)."""

EXIT_FAILED = 1
"""Exit code: the copy differs from its source (or the export's reader went away)."""

EXIT_USAGE = 2
"""Exit code: a database that cannot be used, or a refused copy."""


def export_game(game: Game) -> dict[str, Any]:
    """One game as the export's JSON object (replays the action log)."""
    settings = TableSettings.from_json(game.settings)
    players = [
        {
            "seat": s.index,
            "kind": s.kind.value,
            "name": s.occupant.display_name
            if s.kind is SeatKind.HUMAN
            else f"Computer {SEAT_LETTERS[s.index]}",
        }
        for s in game.seats
        if s.kind is not SeatKind.EMPTY
    ]
    record: dict[str, Any] = {
        "id": game.game_id,
        "chat_id": game.chat_id,
        "status": game.status.value,
        "settings": settings.export(),
        "seed": game.seed,
        "players": players,
        "rounds": [],
        "totals": {"NS": 0, "EW": 0},
    }
    if settings.daily is not None:
        record["daily"] = settings.daily
    started = game.snapshot not in (None, "{}")
    if not started or not game.actions:
        if started and game.status is GameStatus.ACTIVE:
            state = replay_actions(settings.rules, game.seed, ())
            record["current_round"] = round_export(state.current) if state.current else None
        return record
    state = replay_actions(settings.rules, game.seed, game.actions)
    record["rounds"] = [round_export(r) for r in state.rounds]
    if state.is_klammern:
        record.update(_klammern(state))
    record["totals"] = {t.value: v for t, v in state.totals().items()}
    if state.current is not None:
        record["current_round"] = round_export(state.current)
    winner = state.winner()
    record["winner"] = winner.value if isinstance(winner, Team) else None
    record["actions"] = list(game.actions)
    return record


def _klammern(state: GameState) -> dict[str, Any]:
    """The Klammern parts of a record (``engine.record.game_export``): rounds with their
    tally, plus ``score`` and ``nat`` per round, ``voided`` deals and the small points."""
    full = game_export(state)
    rounds = full["rounds"][: len(state.rounds)]
    for exported, played in zip(rounds, state.rounds, strict=True):
        assert played.result is not None
        exported["score"] = {t.value: int(v) for t, v in played.result.score.items()}
        exported["nat"] = played.result.nat
    return {
        "variant": full["variant"],
        "rounds": rounds,
        "voided": full["voided"],
        "small_points": full["small_points"],
    }


async def rebuild_stats(database: str | DatabaseUrl) -> int:
    """``rebuild-stats``: clear and recompute the statistics; the number of games recorded."""
    import time

    from bot.service.stats import rebuild

    repo = await open_repository(database)
    try:
        return await rebuild(repo, now=time.time())
    finally:
        await repo.close()


async def forget_user(database: str | DatabaseUrl, user_id: int) -> bool:
    """``forget-user``: forget ``user_id`` (:meth:`storage.Repository.forget_user`); whether
    anything was stored of them. Raises ``UserSeated`` (seated at an open game)."""
    import time

    repo = await open_repository(database)
    try:
        return await repo.forget_user(user_id, new_anonymous_id(), now=time.time())
    finally:
        await repo.close()


async def export(database: str | DatabaseUrl, chat_id: int | None = None) -> list[dict[str, Any]]:
    """All games of the database (or of one chat) as export records."""
    repo = await open_repository(database)
    try:
        games = await repo.export_games(chat_id=chat_id)
    finally:
        await repo.close()
    return [export_game(g) for g in games]


def replay_record(game: Game) -> dict[str, Any]:
    """:func:`export_game`, or ``{"error": ...}`` for a game the engine cannot replay (so
    that two copies of the same broken game still compare equal)."""
    try:
        return export_game(game)
    except Exception as exc:  # any failure of the replay is the record
        return {"error": f"{type(exc).__name__}: {exc}"}


@dataclass
class Verification:
    """What :func:`verify` found.

    Attributes:
        differences: one line per difference (empty: the copy is the source).
        games: games compared.
        actions: actions replayed in each database.
        unreplayable: games the engine could not replay (in both, identically).
    """

    differences: list[str]
    games: int = 0
    actions: int = 0
    unreplayable: int = 0


async def verify(source: Repository, target: Repository) -> Verification:
    """Compare two databases: row counts, users, chats, every game's row and history, and
    every game's replay (its export record) in each."""
    result = Verification(await row_differences(source, target))
    async for game_id, mine, theirs in paired_histories(source, target):
        if mine is None or theirs is None:
            where = "target" if mine is None else "source"
            result.differences.append(f"game {game_id} is only in the {where}")
            continue
        result.games += 1
        if mine != theirs:
            changed = game_differences(mine.game, theirs.game)
            if mine.action_times != theirs.action_times:
                changed.append("action_times")
            result.differences.append(f"game {game_id} differs: {', '.join(changed)}")
        record = replay_record(mine.game)
        if record != replay_record(theirs.game):
            result.differences.append(f"game {game_id} replays differently")
        result.unreplayable += "error" in record
        result.actions += mine.game.action_count
    return result


async def copy(source_url: DatabaseUrl, target_url: DatabaseUrl, *, resume: bool) -> int:
    """``copy``: the copy, its verification and the lines they print; the exit code."""
    source = await _open(source_url, "source")
    try:
        target = await _open(target_url, "target")
        try:
            try:
                counts = await copy_database(source, target, resume=resume)
            except TargetNotEmpty as exc:
                held = exc.counts
                print(
                    f"The target {target_url} is not empty ({held.users} users, {held.chats} "
                    f"chats, {held.games} games): copy into an empty database, or add --resume "
                    "to finish a copy from this source that stopped part-way.",
                    file=sys.stderr,
                )
                return EXIT_USAGE
            except CopyConflict as exc:
                print(
                    f"Game {exc.game_id} in the target {target_url} is not the source's; "
                    "nothing more was copied.",
                    file=sys.stderr,
                )
                return EXIT_FAILED
            except DATABASE_ERRORS as exc:
                print(
                    f"The copy to {target_url} stopped: {_one_line(exc)} (what was written "
                    "stays; fix the cause and run again with --resume).",
                    file=sys.stderr,
                )
                return EXIT_FAILED
            result = await verify(source, target)
        finally:
            await target.close()
    finally:
        await source.close()
    copied = (
        f"{counts.users} users, {counts.chats} chats, {counts.games} games "
        f"({counts.actions} actions) from {source_url} to {target_url}"
    )
    if result.differences:
        for line in result.differences[:SHOWN_DIFFERENCES]:
            print(f"difference: {line}", file=sys.stderr)
        more = len(result.differences) - SHOWN_DIFFERENCES
        if more > 0:
            print(f"... and {more} more differences", file=sys.stderr)
        print(
            f"Copied {copied}, but the copy differs ({len(result.differences)} differences).",
            file=sys.stderr,
        )
        return EXIT_FAILED
    broken = f", {result.unreplayable} of them unreplayable in both" if result.unreplayable else ""
    print(
        f"Copied {copied}; verified: the same rows in every table, {result.games} games "
        f"({result.actions} actions) replayed identically{broken}."
    )
    return 0


class _Unusable(Exception):
    """A database that cannot be used; ``str()`` is the one line to print."""


async def _open(url: DatabaseUrl, role: str) -> Repository:
    try:
        return await open_repository(url)
    except DATABASE_ERRORS as exc:
        raise _Unusable(f"Cannot open the {role} database {url}: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _parse(text: str, option: str) -> DatabaseUrl:
    try:
        return parse_database_url(text)
    except ValueError as exc:
        raise _Unusable(f"{option}: {exc}") from None


def _existing(url: DatabaseUrl, where: str) -> None:
    """Refuse an SQLite file that is not there: opening it would create an empty database."""
    if url.is_sqlite_file:
        path = Path(url.target)
        if not path.is_file():
            what = "is not a file" if path.exists() else "does not exist"
            raise _Unusable(f"Database {url} {what}; check {where}.")


def _configured(option: str | None) -> tuple[DatabaseUrl, str]:
    """The database of ``--database``, else the bot's setting; and where it came from."""
    if option is not None:
        return _parse(option, "--database"), "--database"
    try:
        settings = DatabaseSettings()
    except ValidationError as exc:
        error = exc.errors()[0]
        name = ".".join(str(p) for p in error["loc"]).upper()
        raise _Unusable(f"{name}: {error['msg']}") from None
    return settings.database, settings.database_setting


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bot.admin")
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="print every game as a JSON list")
    exp.add_argument(
        "--database",
        default=None,
        help="SQLite path or database URL (default: DATABASE_URL, else DATABASE_PATH)",
    )
    exp.add_argument("--chat", type=int, default=None, help="only the games of this chat")
    rb = sub.add_parser("rebuild-stats", help="recompute every statistic from the stored games")
    rb.add_argument(
        "--database",
        default=None,
        help="SQLite path or database URL (default: DATABASE_URL, else DATABASE_PATH)",
    )
    fg = sub.add_parser("forget-user", help="forget a person: unlink their id and name")
    fg.add_argument("user_id", type=int, help="the person's Telegram user id")
    fg.add_argument(
        "--database",
        default=None,
        help="SQLite path or database URL (default: DATABASE_URL, else DATABASE_PATH)",
    )
    cp = sub.add_parser("copy", help="copy every user, chat and game to another database")
    cp.add_argument("--from", dest="source", required=True, help="SQLite path or database URL")
    cp.add_argument("--to", dest="target", required=True, help="SQLite path or database URL")
    cp.add_argument(
        "--resume",
        action="store_true",
        help="the target holds part of an earlier copy from this source: finish it",
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "copy":
            source, target = _parse(args.source, "--from"), _parse(args.target, "--to")
            _existing(source, "--from")
            if source.text == target.text or (
                source.is_sqlite_file
                and target.is_sqlite_file
                and Path(source.target).resolve() == Path(target.target).resolve()
            ):
                raise _Unusable("--from and --to name the same database.")
            return asyncio.run(copy(source, target, resume=args.resume))
        database, where = _configured(args.database)
        _existing(database, where)
        if args.command == "rebuild-stats":
            try:
                games = asyncio.run(rebuild_stats(database))
            except DATABASE_ERRORS as exc:
                raise _Unusable(f"Cannot rebuild in {database}: {_one_line(exc)}") from None
            print(f"Rebuilt the statistics of {games} ended games in {database}.")
            return 0
        if args.command == "forget-user":
            if not 0 < args.user_id < 2**63:
                raise _Unusable(f"Not a Telegram user id: {args.user_id}.")
            try:
                found = asyncio.run(forget_user(database, args.user_id))
            except UserSeated as exc:
                print(
                    f"User {exc.user_id} is seated at open game {exc.game_id}: "
                    "finish or leave that table first.",
                    file=sys.stderr,
                )
                return 1
            except DATABASE_ERRORS as exc:
                raise _Unusable(f"Cannot forget in {database}: {_one_line(exc)}") from None
            if found:
                print(f"Forgot user {args.user_id} in {database}.")
            else:
                print(f"Nothing was stored of user {args.user_id} in {database}.")
            return 0
        try:
            records = asyncio.run(export(database, args.chat))
        except DATABASE_ERRORS as exc:
            raise _Unusable(f"Cannot read the database {database}: {_one_line(exc)}") from None
    except _Unusable as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    return _print_json(records)


def _print_json(records: list[dict[str, Any]]) -> int:
    """Write ``records`` to stdout as one JSON line; 1 if the reader went away (``| head``)."""
    try:
        json.dump(records, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # Python docs, "Note on SIGPIPE": point stdout at devnull so that the flush at exit
        # does not raise BrokenPipeError again, and exit with 1.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
