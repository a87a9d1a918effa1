"""Contract: ``append_actions``, the one write of play (compare-and-set, one transaction)."""

from __future__ import annotations

import asyncio

import pytest

from storage import (
    Game,
    GameStatus,
    NotFound,
    Occupant,
    Repository,
    StaleVersion,
    TurnTimer,
    WrongStatus,
)
from tests.storage.helpers import SNAPSHOT, T0, new_game, start


async def _active(repo: Repository) -> Game:
    game = await new_game(repo)
    await start(repo, game)
    loaded = await repo.get_game(game.game_id, with_actions=True)
    assert loaded is not None
    return loaded


async def test_actions_snapshot_status_and_timer_are_written_together(
    seeded: Repository,
) -> None:
    game = await new_game(seeded)
    timer = TurnTimer(deadline_at=T0 + 90.5, seat=2, reminded=False)
    version = await seeded.append_actions(
        game.game_id,
        1,
        ["0:choose:H", "1:pass"],
        snapshot=SNAPSHOT,
        status=GameStatus.ACTIVE,
        timer=timer,
        now=T0 + 30,
    )
    assert version == 2
    loaded = await seeded.get_game(game.game_id, with_actions=True)
    assert loaded is not None
    assert loaded.actions == ("0:choose:H", "1:pass")
    assert (loaded.version, loaded.action_count, loaded.status) == (2, 2, GameStatus.ACTIVE)
    assert (loaded.snapshot, loaded.timer, loaded.updated_at) == (SNAPSHOT, timer, T0 + 30)
    assert loaded.created_at == T0


async def test_sequence_numbers_continue_without_gaps(seeded: Repository) -> None:
    game = await _active(seeded)
    version = game.version
    log: list[str] = []
    for batch in (["0:play:JS"], [], ["1:play:9S", "2:play:AS", "3:play:10S"], ["0:play:7H"]):
        version = await seeded.append_actions(
            game.game_id,
            version,
            batch,
            snapshot=f'{{"n": {len(log) + len(batch)}}}',
            status=GameStatus.ACTIVE,
            timer=None,
            now=T0,
        )
        log += batch
    loaded = await seeded.get_game(game.game_id, with_actions=True)
    assert loaded is not None
    assert loaded.actions == tuple(log)
    assert loaded.action_count == len(log) == 5
    assert loaded.snapshot == '{"n": 5}'
    assert await seeded.get_actions(game.game_id, start=3) == ("3:play:10S", "0:play:7H")
    assert await seeded.get_actions(game.game_id, start=5) == ()


async def test_a_stale_version_raises_and_changes_nothing(seeded: Repository) -> None:
    game = await _active(seeded)
    await seeded.append_actions(
        game.game_id,
        game.version,
        ["0:play:JS"],
        snapshot=SNAPSHOT,
        status=GameStatus.ACTIVE,
        timer=TurnTimer(T0 + 100, 1),
        now=T0 + 2,
    )
    before = await seeded.get_game(game.game_id, with_actions=True)
    with pytest.raises(StaleVersion) as stale:
        await seeded.append_actions(
            game.game_id,
            game.version,  # a double tap: the version the first tap already used
            ["0:play:QS"],
            snapshot='{"other": true}',
            status=GameStatus.FINISHED,
            timer=None,
            now=T0 + 3,
        )
    assert (stale.value.expected, stale.value.actual) == (game.version, game.version + 1)
    assert await seeded.get_game(game.game_id, with_actions=True) == before


async def test_unknown_game(seeded: Repository) -> None:
    with pytest.raises(NotFound):
        await seeded.append_actions(
            999, 1, ["x"], snapshot="{}", status=GameStatus.ACTIVE, timer=None, now=T0
        )


async def test_a_finished_game_takes_no_more_actions(seeded: Repository) -> None:
    game = await _active(seeded)
    version = await seeded.append_actions(
        game.game_id,
        game.version,
        ["3:play:AH"],
        snapshot=SNAPSHOT,
        status=GameStatus.FINISHED,
        timer=None,
        now=T0,
    )
    for status in GameStatus:
        with pytest.raises(WrongStatus) as refused:
            await seeded.append_actions(
                game.game_id, version, ["x"], snapshot="{}", status=status, timer=None, now=T0
            )
        assert (refused.value.status, refused.value.requested) == (GameStatus.FINISHED, status)
    loaded = await seeded.get_game(game.game_id, with_actions=True)
    assert loaded is not None
    assert (loaded.version, loaded.actions) == (version, ("3:play:AH",))


@pytest.mark.parametrize(
    ("start_active", "target", "allowed"),
    [
        (False, GameStatus.LOBBY, True),
        (False, GameStatus.ACTIVE, True),
        (False, GameStatus.FINISHED, False),
        (False, GameStatus.ABANDONED, True),
        (True, GameStatus.LOBBY, False),
        (True, GameStatus.ACTIVE, True),
        (True, GameStatus.FINISHED, True),
        (True, GameStatus.ABANDONED, True),
    ],
)
async def test_status_transitions(
    seeded: Repository, start_active: bool, target: GameStatus, allowed: bool
) -> None:
    game = await _active(seeded) if start_active else await new_game(seeded)

    async def write() -> int:
        return await seeded.append_actions(
            game.game_id, game.version, [], snapshot="{}", status=target, timer=None, now=T0
        )

    if allowed:
        assert await write() == game.version + 1
    else:
        with pytest.raises(WrongStatus):
            await write()
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.status is (target if allowed else game.status)


async def test_bad_arguments_are_refused_before_writing(seeded: Repository) -> None:
    game = await _active(seeded)
    with pytest.raises(TypeError, match="not one string"):
        await seeded.append_actions(
            game.game_id,
            game.version,
            "0:play:JS",
            snapshot="{}",
            status=GameStatus.ACTIVE,
            timer=None,
            now=T0,
        )
    with pytest.raises(ValueError, match="JSON"):
        await seeded.append_actions(
            game.game_id,
            game.version,
            [],
            snapshot="{",
            status=GameStatus.ACTIVE,
            timer=None,
            now=T0,
        )
    with pytest.raises(ValueError, match="timer"):
        await seeded.append_actions(
            game.game_id,
            game.version,
            [],
            snapshot="{}",
            status=GameStatus.FINISHED,
            timer=TurnTimer(T0, 0),
            now=T0,
        )
    with pytest.raises(ValueError, match="seat"):
        TurnTimer(T0, 4)
    assert await seeded.get_game(game.game_id, with_actions=True) == game


async def test_timer_round_trip_and_reminder(seeded: Repository) -> None:
    game = await _active(seeded)
    assert game.timer == TurnTimer(T0 + 61, 0, reminded=False)
    await seeded.mark_reminded(game.game_id, game.version)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.timer == TurnTimer(T0 + 61, 0, reminded=True)
    assert loaded.version == game.version  # bookkeeping: buttons stay valid
    # The next move sets a fresh timer; a reminder for the old version is refused.
    version = await seeded.append_actions(
        game.game_id,
        game.version,
        ["0:play:JS"],
        snapshot="{}",
        status=GameStatus.ACTIVE,
        timer=TurnTimer(T0 + 200.25, 1),
        now=T0,
    )
    with pytest.raises(StaleVersion):
        await seeded.mark_reminded(game.game_id, game.version)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.timer == TurnTimer(T0 + 200.25, 1, reminded=False)
    # Clearing the timer; a reminder without a timer is a no-op.
    version = await seeded.append_actions(
        game.game_id, version, [], snapshot="{}", status=GameStatus.ACTIVE, timer=None, now=T0
    )
    await seeded.mark_reminded(game.game_id, version)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.timer is None


async def test_two_concurrent_appends_exactly_one_wins(seeded: Repository) -> None:
    game = await _active(seeded)

    async def tap(card: str) -> int:
        return await seeded.append_actions(
            game.game_id,
            game.version,
            [f"0:play:{card}"],
            snapshot=f'{{"last": "{card}"}}',
            status=GameStatus.ACTIVE,
            timer=None,
            now=T0,
        )

    results = await asyncio.gather(tap("JS"), tap("QS"), return_exceptions=True)
    wins = [r for r in results if isinstance(r, int)]
    losses = [r for r in results if isinstance(r, StaleVersion)]
    assert (len(wins), len(losses)) == (1, 1)
    loaded = await seeded.get_game(game.game_id, with_actions=True)
    assert loaded is not None
    assert loaded.version == wins[0] == game.version + 1
    assert loaded.action_count == 1
    assert loaded.actions is not None
    card = loaded.actions[0].rsplit(":", 1)[1]
    assert loaded.snapshot == f'{{"last": "{card}"}}'  # snapshot and action from the same write


async def test_many_coroutines_retrying_on_stale_keep_the_log_contiguous(
    seeded: Repository,
) -> None:
    game = await _active(seeded)
    players = 8

    async def player(n: int) -> None:
        while True:
            current = await seeded.get_game(game.game_id)
            assert current is not None
            try:
                await seeded.append_actions(
                    game.game_id,
                    current.version,
                    [f"{n}:a", f"{n}:b"],
                    snapshot=f'{{"count": {current.action_count + 2}}}',
                    status=GameStatus.ACTIVE,
                    timer=None,
                    now=T0,
                )
            except StaleVersion:
                continue
            return

    await asyncio.gather(*(player(n) for n in range(players)))
    loaded = await seeded.get_game(game.game_id, with_actions=True)
    assert loaded is not None
    assert loaded.actions is not None
    assert loaded.version == game.version + players
    assert loaded.action_count == len(loaded.actions) == 2 * players
    assert loaded.snapshot == f'{{"count": {2 * players}}}'
    # Each write's two actions are adjacent: no interleaving inside a transaction.
    pairs = [loaded.actions[i : i + 2] for i in range(0, len(loaded.actions), 2)]
    assert sorted(pairs) == sorted((f"{n}:a", f"{n}:b") for n in range(players))


async def test_a_cancelled_write_leaves_the_repository_consistent(seeded: Repository) -> None:
    """Cancel a write at various moments (before it runs, at its first wait, during and after
    its transaction): it either happened whole or not at all, and the repository keeps
    working. (Where the first wait falls differs: SQLite's is before its transaction begins,
    see test_sqlite_schema.py; PostgreSQL's single-statement write has been sent by then, and
    the server commits it.)"""
    game = await _active(seeded)
    outcomes: dict[int, int] = {}
    for step in range(-1, 30):
        current = await seeded.get_game(game.game_id, with_actions=True)
        assert current is not None
        task = asyncio.create_task(
            seeded.append_actions(
                game.game_id,
                current.version,
                ["x", "y"],
                snapshot="{}",
                status=GameStatus.ACTIVE,
                timer=None,
                now=T0,
            )
        )
        if step >= 0:  # step -1: cancelled before it ever ran
            await asyncio.sleep(step * 0.0001)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        after = await seeded.get_game(game.game_id, with_actions=True)
        assert after is not None
        assert after.actions is not None
        written = after.version - current.version
        assert written in (0, 1)
        assert after.action_count == len(after.actions) == current.action_count + 2 * written
        outcomes[step] = written
    assert outcomes[-1] == 0  # the write cancelled before it ran wrote nothing


async def test_seat_timeouts_are_written_with_the_moves_and_cleared_with_the_occupant(
    seeded: Repository,
) -> None:
    """The turn timer's "timeouts in a row" live with the game: counted in the same
    write as the computer's move, cleared when someone else takes the seat."""
    game = await _active(seeded)
    version = await seeded.append_actions(
        game.game_id,
        game.version,
        ["0:play:JS"],
        snapshot=SNAPSHOT,
        status=GameStatus.ACTIVE,
        timer=None,
        now=T0 + 1,
        timeouts={0: 2, 3: 1},
    )
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert [s.timeouts for s in loaded.seats] == [2, 0, 0, 1]
    with pytest.raises(StaleVersion):  # a lost compare-and-set writes no count either
        await seeded.append_actions(
            game.game_id,
            game.version,
            [],
            snapshot=SNAPSHOT,
            status=GameStatus.ACTIVE,
            timer=None,
            now=T0 + 2,
            timeouts={1: 5},
        )
    with pytest.raises(ValueError, match="timeouts"):
        await seeded.append_actions(
            game.game_id,
            version,
            [],
            snapshot=SNAPSHOT,
            status=GameStatus.ACTIVE,
            timer=None,
            now=T0 + 2,
            timeouts={1: -1},
        )
    await seeded.set_seats(game.game_id, version, {0: Occupant.computer("c")}, now=T0 + 3)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert [s.timeouts for s in loaded.seats] == [0, 0, 0, 1]
