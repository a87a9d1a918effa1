"""Contract: what several bot workers on one database rely on: turn timers armed in
the database and claimed by one worker at a time (migration 5), message ids that only move
forward, and the per-game lock across processes (PostgreSQL's advisory lock)."""

from __future__ import annotations

import asyncio

import pytest

from storage import (
    GameStatus,
    MessageRef,
    NotFound,
    Repository,
    SurfaceShown,
    SurfaceState,
    TurnTimer,
)
from tests.storage.helpers import (
    ANN,
    CHAT,
    OTHER_CHAT,
    SNAPSHOT,
    T0,
    Backend,
    new_game,
    seed,
    start,
)

DEADLINE = T0 + 61  # start() arms seat 0's timer 60 s after T0 + 1
LEASE = 30.0


async def test_a_timer_is_due_at_its_deadline_until_armed_earlier(seeded: Repository) -> None:
    game = await new_game(seeded)
    version = await start(seeded, game)
    assert await seeded.claim_due_timers(DEADLINE - 1, lease=LEASE) == []
    assert await seeded.arm_timer(game.game_id, version, DEADLINE - 20)
    assert await seeded.claim_due_timers(DEADLINE - 21, lease=LEASE) == []
    assert await seeded.claim_due_timers(DEADLINE - 20, lease=LEASE) == [(game.game_id, version)]


async def test_arming_needs_the_current_version_and_a_timer(seeded: Repository) -> None:
    game = await new_game(seeded)
    assert not await seeded.arm_timer(game.game_id, game.version, T0)  # lobby: no timer
    version = await start(seeded, game)
    assert not await seeded.arm_timer(game.game_id, version - 1, T0)
    assert not await seeded.arm_timer(game.game_id + 99, version, T0)
    assert await seeded.claim_due_timers(DEADLINE - 1, lease=LEASE) == []


async def test_a_claimed_timer_is_nobody_elses_until_the_lease_ends(seeded: Repository) -> None:
    game = await new_game(seeded)
    version = await start(seeded, game)
    assert await seeded.claim_due_timers(DEADLINE, lease=LEASE) == [(game.game_id, version)]
    assert await seeded.claim_due_timers(DEADLINE + 1, lease=LEASE) == []
    assert await seeded.claim_due_timers(DEADLINE + LEASE - 0.5, lease=LEASE) == []
    # the worker holding it died: once the lease is over another worker gets it
    assert await seeded.claim_due_timers(DEADLINE + LEASE, lease=LEASE) == [(game.game_id, version)]


async def test_a_released_timer_is_due_again_and_a_new_one_forgets_the_claim(
    seeded: Repository,
) -> None:
    game = await new_game(seeded)
    version = await start(seeded, game)
    await seeded.claim_due_timers(DEADLINE, lease=LEASE)
    await seeded.release_timer(game.game_id, version - 1)  # another version: no effect
    assert await seeded.claim_due_timers(DEADLINE + 1, lease=LEASE) == []
    await seeded.release_timer(game.game_id, version)
    assert await seeded.claim_due_timers(DEADLINE + 1, lease=LEASE) == [(game.game_id, version)]
    # the play's write replaces the timer: the claim and the wake time go with the old one
    newer = await seeded.append_actions(
        game.game_id,
        version,
        ["pass"],
        snapshot=SNAPSHOT,
        status=GameStatus.ACTIVE,
        timer=TurnTimer(DEADLINE + 100, 1),
        now=DEADLINE + 2,
    )
    assert await seeded.claim_due_timers(DEADLINE + 99, lease=LEASE) == []
    assert await seeded.claim_due_timers(DEADLINE + 100, lease=LEASE) == [(game.game_id, newer)]


async def test_the_reminder_drops_the_wake_time_and_the_claim(seeded: Repository) -> None:
    game = await new_game(seeded)
    version = await start(seeded, game)
    await seeded.arm_timer(game.game_id, version, DEADLINE - 20)
    assert await seeded.claim_due_timers(DEADLINE - 20, lease=LEASE) == [(game.game_id, version)]
    await seeded.mark_reminded(game.game_id, version)
    assert await seeded.claim_due_timers(DEADLINE - 1, lease=LEASE) == []  # next: the deadline
    assert await seeded.claim_due_timers(DEADLINE, lease=LEASE) == [(game.game_id, version)]


async def test_finished_games_and_games_without_timers_are_never_claimed(
    seeded: Repository,
) -> None:
    game = await new_game(seeded)
    version = await start(seeded, game)
    await seeded.append_actions(
        game.game_id,
        version,
        [],
        snapshot=SNAPSHOT,
        status=GameStatus.ABANDONED,
        timer=None,
        now=T0 + 2,
    )
    other = await new_game(seeded, OTHER_CHAT)
    await seeded.append_actions(
        other.game_id,
        other.version,
        [],
        snapshot=SNAPSHOT,
        status=GameStatus.ACTIVE,
        timer=None,
        now=T0 + 2,
    )
    assert await seeded.claim_due_timers(T0 + 10_000, lease=LEASE) == []


async def test_claims_come_earliest_first_and_at_most_limit(seeded: Repository) -> None:
    first = await new_game(seeded)
    v1 = await start(seeded, first)
    second = await new_game(seeded, OTHER_CHAT)
    v2 = await start(seeded, second)
    await seeded.arm_timer(first.game_id, v1, DEADLINE - 5)
    await seeded.arm_timer(second.game_id, v2, DEADLINE - 10)
    assert await seeded.claim_due_timers(DEADLINE, lease=LEASE, limit=1) == [(second.game_id, v2)]
    assert await seeded.claim_due_timers(DEADLINE, lease=LEASE) == [(first.game_id, v1)]
    with pytest.raises(ValueError):
        await seeded.claim_due_timers(DEADLINE, lease=0)
    with pytest.raises(ValueError):
        await seeded.claim_due_timers(DEADLINE, lease=LEASE, limit=0)


async def test_message_ids_only_move_forward(seeded: Repository) -> None:
    game = await new_game(seeded)
    version = await start(seeded, game)
    gid = game.game_id
    await seeded.set_table_message(gid, 50, expected_version=None)
    await seeded.set_table_message(gid, 40, expected_version=None)  # a slower worker's older one
    loaded = await seeded.get_game(gid)
    assert loaded is not None and loaded.table_message_id == 50
    await seeded.set_table_message(gid, None, expected_version=version)  # deleted: forget it
    await seeded.set_table_message(gid, 7, expected_version=None)  # then any message is newer
    loaded = await seeded.get_game(gid)
    assert loaded is not None and loaded.table_message_id == 7

    await seeded.set_hand_message(gid, 0, MessageRef(ANN, 30), expected_version=None)
    await seeded.set_hand_message(gid, 0, MessageRef(ANN, 29), expected_version=None)
    loaded = await seeded.get_game(gid)
    assert loaded is not None and loaded.seats[0].hand_message == MessageRef(ANN, 30)
    await seeded.set_hand_message(gid, 0, MessageRef(CHAT, 3), expected_version=None)  # a solo
    loaded = await seeded.get_game(gid)  # game's hand is in the group: another chat, newer
    assert loaded is not None and loaded.seats[0].hand_message == MessageRef(CHAT, 3)
    await seeded.set_hand_message(gid, 0, None, expected_version=None)
    loaded = await seeded.get_game(gid)
    assert loaded is not None and loaded.seats[0].hand_message is None
    assert loaded.version == version  # bookkeeping: no version bump


async def test_two_workers_never_claim_the_same_timer(persistent_backend: Backend) -> None:
    first = await persistent_backend.open()
    second = await persistent_backend.open()
    try:
        await seed(first)
        ids = set()
        for n in range(12):
            chat = -1000 - n
            await first.upsert_chat(chat, "group", f"g{n}", now=T0)
            game = await new_game(first, chat)
            ids.add((game.game_id, await start(first, game)))
        got_a, got_b = await asyncio.gather(
            first.claim_due_timers(DEADLINE, lease=LEASE),
            second.claim_due_timers(DEADLINE, lease=LEASE),
        )
        assert not set(got_a) & set(got_b)
        assert set(got_a) | set(got_b) == ids
    finally:
        await first.close()
        await second.close()


async def test_the_game_lock_holds_across_repositories(persistent_backend: Backend) -> None:
    if persistent_backend.name != "postgresql":
        pytest.skip("SQLite: one bot process per file, the lock holds nothing")
    first = await persistent_backend.open()
    second = await persistent_backend.open()
    try:
        entered = asyncio.Event()
        release = asyncio.Event()

        async def hold() -> None:
            async with first.game_lock(7):
                entered.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await entered.wait()
        waiter = asyncio.create_task(_enter(second, 7))
        with pytest.raises(TimeoutError):  # held by the other "process": it waits
            await asyncio.wait_for(asyncio.shield(waiter), timeout=0.3)
        async with second.game_lock(8):  # another game is free
            pass
        release.set()
        await holder
        await asyncio.wait_for(waiter, timeout=10)  # released: now it gets it
    finally:
        await first.close()
        await second.close()


async def _enter(repo: Repository, game_id: int) -> None:
    async with repo.game_lock(game_id):
        pass


async def test_a_surface_has_one_holder_until_its_lease_ends(seeded: Repository) -> None:
    game = await new_game(seeded)
    await start(seeded, game)
    gid = game.game_id
    await seeded.set_hand_message(gid, 0, MessageRef(ANN, 30), expected_version=None)
    first = await seeded.claim_surface(gid, 0, token="w1", now=T0, lease=LEASE)
    assert first == SurfaceState(MessageRef(ANN, 30), 0, None, 0)
    assert await seeded.claim_surface(gid, 0, token="w2", now=T0 + 1, lease=LEASE) is None
    # the table and the other seats are other surfaces
    assert await seeded.claim_surface(gid, 1, token="w2", now=T0 + 1, lease=LEASE) is not None
    table = await seeded.claim_surface(gid, None, token="w2", now=T0 + 1, lease=LEASE)
    assert table == SurfaceState(None, 0, None, 0)
    # the holder claims again at will; the other worker gets it once the lease is over
    assert await seeded.claim_surface(gid, 0, token="w1", now=T0 + 2, lease=LEASE) == first
    assert await seeded.claim_surface(gid, 0, token="w2", now=T0 + LEASE + 2, lease=LEASE)
    assert not await seeded.release_surface(gid, 0, token="w1", shown=None)  # lost it
    assert await seeded.release_surface(gid, 0, token="w2", shown=None)
    assert await seeded.claim_surface(gid, 0, token="w1", now=T0 + LEASE + 3, lease=LEASE)
    with pytest.raises(NotFound):
        await seeded.claim_surface(gid + 99, None, token="w1", now=T0, lease=LEASE)
    with pytest.raises(ValueError):
        await seeded.claim_surface(gid, 4, token="w1", now=T0, lease=LEASE)
    with pytest.raises(ValueError):
        await seeded.claim_surface(gid, 0, token="w1", now=T0, lease=0)


async def test_a_released_surface_keeps_what_its_holder_showed(seeded: Repository) -> None:
    game = await new_game(seeded)
    await start(seeded, game)
    gid = game.game_id
    assert await seeded.claim_surface(gid, 0, token="w1", now=T0, lease=LEASE)
    sent = SurfaceShown(MessageRef(ANN, 12), "d1", 7, sent=True)
    assert await seeded.release_surface(gid, 0, token="w1", shown=sent)
    loaded = await seeded.get_game(gid)
    assert loaded is not None and loaded.seats[0].hand_message == MessageRef(ANN, 12)
    state = await seeded.claim_surface(gid, 0, token="w2", now=T0 + 1, lease=LEASE)
    assert state == SurfaceState(MessageRef(ANN, 12), 7, "d1", 7)
    # an edit: the version moves forward only, the sent version stays
    edited = SurfaceShown(MessageRef(ANN, 12), "d2", 5, sent=False)
    assert await seeded.release_surface(gid, 0, token="w2", shown=edited)
    state = await seeded.claim_surface(gid, 0, token="w1", now=T0 + 2, lease=LEASE)
    assert state == SurfaceState(MessageRef(ANN, 12), 7, "d2", 7)
    final = SurfaceShown(MessageRef(ANN, 12), "d3", None, sent=False)  # not a drawing
    assert await seeded.release_surface(gid, 0, token="w1", shown=final)
    state = await seeded.claim_surface(gid, 0, token="w1", now=T0 + 3, lease=LEASE)
    assert state == SurfaceState(MessageRef(ANN, 12), 7, "d3", 7)
    # the table's message lives in the game's row
    assert await seeded.claim_surface(gid, None, token="w1", now=T0, lease=LEASE)
    shown = SurfaceShown(MessageRef(CHAT, 40), "t", 9, sent=True)
    assert await seeded.release_surface(gid, None, token="w1", shown=shown)
    loaded = await seeded.get_game(gid)
    assert loaded is not None and loaded.table_message_id == 40
    state = await seeded.claim_surface(gid, None, token="w2", now=T0 + 1, lease=LEASE)
    assert state == SurfaceState(MessageRef(CHAT, 40), 9, "t", 9)
