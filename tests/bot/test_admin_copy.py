"""``python -m bot.admin copy`` and ``export`` across backends: a database with
finished, running, waiting and stopped games (played by the service with random computer
players, no Telegram) copied SQLite → PostgreSQL → SQLite exports the same JSON at every step,
and the bot plays on in the copy; refused and failing copies end with one line; ``export``
finds the database from the bot's own settings."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from bot import admin
from bot.config import DatabaseSettings
from bot.service import GameService
from bot.taps import Move
from engine.cards import Seat
from storage import (
    GameHistory,
    GameStatus,
    Repository,
    SeatKind,
    SqliteRepository,
    open_repository,
)
from tests.bot.helpers import lobby_payload, make_service
from tests.pg import PostgresDatabases

GROUPS = (-1001, -1002, -1003, -1004)


async def _no() -> bool:
    return False


def _service(repo: Repository) -> GameService:
    clock = iter(range(1_700_000_000, 1_800_000_000, 7))
    return make_service(repo, timeout=60, clock=lambda: float(next(clock)), seeds=500)


async def _lobby(svc: GameService, chat: int, creator: int, preset: str | None = None) -> int:
    out = await svc.lobby.open_table(
        chat, "group", f"Club {chat}", creator, f"user{creator}", preset
    )
    assert out.game_id is not None
    return out.game_id


async def _do(svc: GameService, gid: int, user: int, action: str) -> None:
    table = await svc.tables.load(gid)
    assert table is not None
    out = await svc.lobby.lobby_action(gid, table.version, user, lobby_payload(action), _no)
    assert out.ok, (action, out.refusal)


async def _play(svc: GameService, gid: int, rng: random.Random, *, until: int | None) -> None:
    """Humans tap random legal actions, computers answer, until the game ends (or it holds
    ``until`` actions)."""
    for _ in range(5000):
        await svc.play.run_computers(gid)
        table = await svc.tables.load(gid)
        assert table is not None and table.state is not None
        if table.row.status is not GameStatus.ACTIVE:
            return
        if until is not None and table.row.action_count >= until:
            return
        humans = [s for s in table.row.seats if s.kind is SeatKind.HUMAN]
        moves = [(s, a) for s in humans for a in table.state.legal_actions(Seat(s.index))]
        if not moves:
            continue
        seat, action = rng.choice(moves)
        assert seat.user_id is not None
        move = Move(action.notation(with_seat=False))
        out = await svc.play.act(gid, table.version, seat.user_id, move)
        assert out.ok, out.refusal
    raise AssertionError("the game did not end")


async def _build(path: Path) -> None:
    """Games in every state: a finished Klaverjassen game (8 rounds), a finished solo
    Klammern game in a private chat, a running game with a seat handed to a computer and a
    turn timer, a lobby with players seated, a stopped table."""
    rng = random.Random(12)
    async with await SqliteRepository.open(path) as repo:
        svc = _service(repo)
        try:
            for uid in range(1, 7):
                await svc.people.touch_user(uid, f"user{uid}", "nl")
                await svc.people.user_started(uid)
            done = await _lobby(svc, GROUPS[0], 1)
            await _do(svc, done, 1, "rounds:toggle")  # 8 rounds
            await _do(svc, done, 1, "sit:0")
            await _do(svc, done, 2, "sit:2")
            await _do(svc, done, 1, "bot:add")
            await _do(svc, done, 1, "bot:add")
            await _do(svc, done, 1, "start")
            await _play(svc, done, rng, until=None)
            solo = await svc.lobby.open_table(3, "private", None, 3, "user3", "klammern")
            assert solo.game_id is not None
            await _play(svc, solo.game_id, rng, until=None)
            live = await _lobby(svc, GROUPS[1], 4)
            for user, seat in ((4, 0), (5, 1), (6, 2)):
                await _do(svc, live, user, f"sit:{seat}")
            await _do(svc, live, 4, "bot:add")
            await _do(svc, live, 4, "start")
            await _play(svc, live, rng, until=70)
            assert (await svc.seats.handover(live, 5)).ok
            waiting = await _lobby(svc, GROUPS[2], 1, "rotterdam")
            await _do(svc, waiting, 1, "sit:3")
            stopped = await _lobby(svc, GROUPS[3], 2)
            assert (await svc.seats.stop(stopped, 2, _no)).stopped
        finally:
            svc.computers.shutdown()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The SQLite file of :func:`_build` (made once for the module; tests only read it)."""
    path = tmp_path_factory.mktemp("played") / "bot.sqlite3"
    asyncio.run(_build(path))
    yield path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = admin.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _export(capsys: pytest.CaptureFixture[str], database: str) -> list[dict[str, Any]]:
    code, out, err = _run(capsys, "export", "--database", database)
    assert (code, err) == (0, "")
    records: list[dict[str, Any]] = json.loads(out)
    return records


def test_sqlite_to_postgresql_and_back_exports_the_same_games(
    played: Path,
    postgres_server: PostgresDatabases,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    original = _export(capsys, str(played))
    statuses = sorted(r["status"] for r in original)
    assert statuses == ["abandoned", "active", "finished", "finished", "lobby"]
    assert any(r.get("variant") == "klammern" and r["winner"] for r in original)
    assert sum(len(r["rounds"]) for r in original) >= 8 + 1
    pg = asyncio.run(postgres_server.create(migrated=False))  # the copy migrates it
    try:
        code, out, err = _run(capsys, "copy", "--from", str(played), "--to", pg)
        assert (code, err) == (0, ""), err
        (summary,) = out.splitlines()
        assert summary.startswith("Copied 6 users, 5 chats, 5 games (")
        assert "verified: the same rows in every table, 5 games" in summary
        assert summary.endswith("replayed identically.")
        assert _export(capsys, pg) == original
        back = tmp_path / "back" / "bot.sqlite3"
        code, out, err = _run(capsys, "copy", "--from", pg, "--to", f"sqlite:///{back}")
        assert (code, err) == (0, ""), err
        # Byte for byte: the same export text from the original and the copy of the copy.
        first = _run(capsys, "export", "--database", str(played))
        assert first[0] == 0 and first == _run(capsys, "export", "--database", str(back))
        asyncio.run(_plays_on(pg))
    finally:
        asyncio.run(postgres_server.drop(pg))


async def _plays_on(url: str) -> None:
    """The bot goes on in a copy: the running game takes its next moves, and its chat still
    has its open table."""
    async with await open_repository(url) as repo:
        svc = _service(repo)
        try:
            (running,) = await repo.games_by_status({GameStatus.ACTIVE})
            before = running.action_count
            await _play(svc, running.game_id, random.Random(3), until=before + 4)
            after = await repo.get_game(running.game_id)
            assert after is not None and after.action_count >= before + 4
            again = await svc.lobby.open_table(GROUPS[1], "group", "x", 4, "user4")
            assert (again.refusal, again.game_id) == ("table_exists", running.game_id)
        finally:
            svc.computers.shutdown()


def test_a_target_that_is_not_empty_is_refused_and_resume_finishes_a_copy(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target.sqlite3"

    async def copy_two_games() -> None:
        async with (
            await SqliteRepository.open(played) as source,
            await SqliteRepository.open(target) as partial,
        ):
            await partial.import_users(await source.all_users())
            await partial.import_chats(await source.all_chats())
            await partial.import_games(await source.game_histories(limit=2))

    asyncio.run(copy_two_games())
    code, out, err = _run(capsys, "copy", "--from", str(played), "--to", str(target))
    assert (code, out) == (2, "")
    assert err == (
        f"The target {target} is not empty (6 users, 5 chats, 2 games): copy into an empty "
        "database, or add --resume to finish a copy from this source that stopped part-way.\n"
    )
    code, out, err = _run(capsys, "copy", "--from", str(played), "--to", str(target), "--resume")
    assert (code, err) == (0, "")
    assert "5 games" in out
    assert _export(capsys, str(target)) == _export(capsys, str(played))


async def _foreign_history(game_id: int) -> GameHistory:
    """A lobby of user 99 in chat -99, as game ``game_id``: a game the source never had."""
    async with await SqliteRepository.open(":memory:") as repo:
        await repo.upsert_user(99, "Stranger", None, now=1.0)
        await repo.upsert_chat(-99, "group", "Elsewhere", now=1.0)
        await repo.create_game(-99, 99, '{"preset": "amsterdam"}', 5, now=1.0)
        (history,) = await repo.game_histories()
    return replace(history, game=replace(history.game, game_id=game_id))


def _plant(target: Path, game_id: int) -> None:
    """Put user 99, chat -99 and a lobby numbered ``game_id`` into ``target``."""

    async def plant() -> None:
        history = await _foreign_history(game_id)
        async with await SqliteRepository.open(target) as repo:
            await repo.upsert_user(99, "Stranger", None, now=1.0)
            await repo.upsert_chat(-99, "group", "Elsewhere", now=1.0)
            await repo.import_games([history])

    asyncio.run(plant())


def test_a_copy_that_differs_from_its_source_fails_with_the_differences(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Resuming into a target that also holds rows the source never had: everything of the
    source is copied, and the verification lists what differs."""
    target = tmp_path / "target.sqlite3"
    _plant(target, 100)
    code, out, err = _run(capsys, "copy", "--from", str(played), "--to", str(target), "--resume")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "difference: users: 6 rows in the source, 7 in the target",
        "difference: chats: 5 rows in the source, 6 in the target",
        "difference: games: 5 rows in the source, 6 in the target",
        "difference: seats: 20 rows in the source, 24 in the target",
        "difference: user 99 differs",
        "difference: chat -99 differs",
        "difference: game 100 is only in the target",
        f"Copied 6 users, 5 chats, 5 games ({_actions(played)} actions) from {played} to "
        f"{target}, but the copy differs (7 differences).",
    ]


def test_resuming_into_someone_elses_game_stops(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target.sqlite3"
    _plant(target, 1)  # the source's game 1 is another game
    code, out, err = _run(capsys, "copy", "--from", str(played), "--to", str(target), "--resume")
    assert (code, out) == (1, "")
    assert err == f"Game 1 in the target {target} is not the source's; nothing more was copied.\n"


def _actions(path: Path) -> int:
    async def count() -> int:
        async with await SqliteRepository.open(path) as repo:
            return (await repo.row_counts()).actions

    return asyncio.run(count())


def test_verification_lists_each_difference(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target.sqlite3"
    assert _run(capsys, "copy", "--from", str(played), "--to", str(target))[0] == 0

    async def tamper_and_verify() -> tuple[int, int, admin.Verification]:
        async with await SqliteRepository.open(target) as copy:
            (running,) = await copy.games_by_status({GameStatus.ACTIVE})
            await copy.set_table_message(running.game_id, 123_456, expected_version=None)
            await copy.set_user_language(1, "fr", now=2.0)
            finished = (await copy.games_by_status({GameStatus.FINISHED}))[0]
        # The copy lost the last action of a finished game (as a broken copy might).
        async with aiosqlite.connect(target) as conn:
            await conn.execute(
                "DELETE FROM game_actions WHERE game_id = ? AND seq = "
                "(SELECT MAX(seq) FROM game_actions WHERE game_id = ?)",
                (finished.game_id, finished.game_id),
            )
            await conn.execute(
                "UPDATE games SET action_count = action_count - 1 WHERE game_id = ?",
                (finished.game_id,),
            )
            await conn.commit()
        async with (
            await SqliteRepository.open(played) as source,
            await SqliteRepository.open(target) as copy,
        ):
            return running.game_id, finished.game_id, await admin.verify(source, copy)

    running_id, finished_id, result = asyncio.run(tamper_and_verify())
    assert result.games == 5 and result.unreplayable == 0
    assert result.differences == [
        f"actions: {_actions(played)} rows in the source, {_actions(played) - 1} in the target",
        "user 1 differs",
        f"game {finished_id} differs: action_count, actions, action_times",
        f"game {finished_id} replays differently",
        f"game {running_id} differs: table_message_id",
    ]


def test_copy_refuses_bad_arguments_in_one_line(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.sqlite3"
    assert _run(capsys, "copy", "--from", str(missing), "--to", str(tmp_path / "t.db")) == (
        2,
        "",
        f"Database {missing} does not exist; check --from.\n",
    )
    assert not (tmp_path / "t.db").exists()
    same = _run(capsys, "copy", "--from", str(played), "--to", f"sqlite:///{played}")
    assert same == (2, "", "--from and --to name the same database.\n")
    code, _, err = _run(capsys, "copy", "--from", str(played), "--to", "mysql://u:pw@h/db")
    assert code == 2 and err.startswith("--to: unsupported database URL scheme 'mysql'")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # nobody listens: the server is down
        url = f"postgresql://bot:s3cret@127.0.0.1:{sock.getsockname()[1]}/klaverjas"
        code, out, err = _run(capsys, "copy", "--from", str(played), "--to", url)
    assert (code, out) == (2, "")
    assert err.startswith(f"Cannot open the target database {url.replace(':s3cret@', ':***@')}: ")
    assert err.count("\n") == 1 and "s3cret" not in err


def test_export_without_database_uses_the_bots_setting(
    played: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in DatabaseSettings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    expected = _export(capsys, str(played))
    # Nothing set: the bot's default file in the working folder, which is not there.
    assert _run(capsys, "export") == (
        2,
        "",
        "Database klaverjas.sqlite3 does not exist; check DATABASE_PATH.\n",
    )
    monkeypatch.setenv("DATABASE_PATH", str(played))
    code, out, _ = _run(capsys, "export")
    assert code == 0 and json.loads(out) == expected
    # DATABASE_URL wins over DATABASE_PATH, from the environment or from .env.
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/nothing-here.sqlite3")
    code, _, err = _run(capsys, "export")
    assert (code, err) == (
        2,
        f"Database sqlite:///{tmp_path}/nothing-here.sqlite3 does not exist; check DATABASE_URL.\n",
    )
    monkeypatch.delenv("DATABASE_URL")
    monkeypatch.delenv("DATABASE_PATH")
    (tmp_path / ".env").write_text(f"DATABASE_URL=sqlite:///{played}\n")
    code, out, _ = _run(capsys, "export")
    assert code == 0 and json.loads(out) == expected
    (tmp_path / ".env").write_text("DATABASE_URL=redis://u:pw@localhost/0\n")
    code, out, err = _run(capsys, "export")
    assert (code, out) == (2, "")
    assert err.startswith("DATABASE_URL: ") and "redis" in err and "pw" not in err


def test_forget_user_unlinks_a_person_and_every_game_still_replays(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "bot.sqlite3"
    code, _, err = _run(capsys, "copy", "--from", str(played), "--to", f"sqlite:///{db}")
    assert (code, err) == (0, ""), err
    original = _export(capsys, str(db))
    # user1 sits at the waiting table: refused, nothing changes.
    code, out, err = _run(capsys, "forget-user", "1", "--database", str(db))
    assert (code, out) == (1, "")
    assert "finish or leave that table first" in err
    # user2 played the finished game and stopped a table; user3 played alone in private.
    for uid in ("2", "3"):
        code, out, err = _run(capsys, "forget-user", uid, "--database", str(db))
        assert (code, err) == (0, ""), err
        assert out == f"Forgot user {uid} in {db}.\n"
    code, out, _ = _run(capsys, "forget-user", "3", "--database", str(db))
    assert (code, out) == (0, f"Nothing was stored of user 3 in {db}.\n")
    code, text, err = _run(capsys, "export", "--database", str(db))
    assert (code, err) == (0, "")
    assert "user2" not in text and "user3" not in text and "user1" in text
    after: list[dict[str, Any]] = json.loads(text)
    assert all("error" not in r for r in after)
    assert 3 not in {r["chat_id"] for r in after}
    # Every game replays as before: only the forgotten names and the private chat's id differ.
    for old, new in zip(original, after, strict=True):
        for key in ("id", "status", "settings", "seed", "rounds", "totals"):
            assert old[key] == new[key]
        assert [p["seat"] for p in old["players"]] == [p["seat"] for p in new["players"]]
    copied = tmp_path / "copied.sqlite3"
    code, _, err = _run(capsys, "copy", "--from", str(db), "--to", f"sqlite:///{copied}")
    assert (code, err) == (0, ""), err
    asyncio.run(_nobody_named(copied, forgotten={2: "user2", 3: "user3"}))


async def _nobody_named(path: Path, forgotten: dict[int, str]) -> None:
    async with await SqliteRepository.open(path) as repo:
        users = await repo.all_users()
        chats = await repo.all_chats()
        histories = await repo.game_histories(limit=100)
        rows = repr((users, chats, histories, await repo.standings_rows()))
    assert not set(forgotten) & {u.user_id for u in users}
    assert not set(forgotten) & {c.chat_id for c in chats}
    for name in forgotten.values():
        assert name not in rows
    for history in histories:
        assert not set(forgotten) & {s.user_id for s in history.game.seats}
        assert not set(forgotten) & {s.occupant.former_user_id for s in history.game.seats}
