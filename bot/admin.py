"""``python -m bot.admin export --database PATH``: print every game as JSON (issue 3 contract).

One record per game: ``{"id", "chat_id", "status", "settings", "players", "rounds", "totals"}``
with cards in the notation of the rule cases and seats 0–3 = N, E, S, W. ``rounds`` lists the
finished rounds (``engine.record.round_export``); a game in progress also has
``current_round``.

A Klammern game (``rules.md`` §9) also has ``variant: "klammern"``, ``voided`` (deals everybody
passed, with the proposed card and the bids), ``small_points`` (standing now) and ``totals`` in
big points; each round has ``variant``, ``proposed``, ``bids``, ``declarations``,
``declaration_points``, ``bella``, ``contra``, ``re``, ``declined``, ``points``, ``winner``,
``multiplier``, ``small_points``, ``tally`` (small and big points after it), and, like a
Klaverjassen round, ``score`` (the small points won) and ``nat`` (the playing team lost).

A ``--database`` that does not exist (no file is created), is not an SQLite database or cannot
be opened ends with one line on stderr and exit code 2. When the reader of the output goes
away early (``... | head``) the export stops quietly with exit code 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.tables import TableSettings
from engine.cards import Team
from engine.game import GameState
from engine.record import game_export, replay_actions, round_export
from storage import Game, GameStatus, SeatKind, StorageError, open_repository

SEAT_LETTERS = "NESW"


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


async def export(database: str, chat_id: int | None = None) -> list[dict[str, Any]]:
    """All games of the database (or of one chat) as export records."""
    repo = await open_repository(database)
    try:
        games = await repo.export_games(chat_id=chat_id)
    finally:
        await repo.close()
    return [export_game(g) for g in games]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bot.admin")
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="print every game as a JSON list")
    exp.add_argument("--database", required=True, help="path of the SQLite database")
    exp.add_argument("--chat", type=int, default=None, help="only the games of this chat")
    args = parser.parse_args(argv)
    database = Path(args.database)
    if not database.is_file():  # opening it would create an empty database
        what = "is not a file" if database.exists() else "does not exist"
        print(f"Database {database} {what}; check --database.", file=sys.stderr)
        return 2
    try:
        records = asyncio.run(export(str(database), args.chat))
    except (sqlite3.Error, StorageError) as exc:
        print(f"Cannot read the database {database}: {exc}", file=sys.stderr)
        return 2
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
