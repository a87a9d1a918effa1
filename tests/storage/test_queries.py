"""Contract: the queries the bot runs at start-up, on timers, per user, and for export."""

from __future__ import annotations

import pytest

from storage import (
    GameStatus,
    MessageRef,
    Occupant,
    Repository,
    TurnTimer,
)
from tests.storage.helpers import ANN, BOB, CAS, CHAT, OTHER_CHAT, SETTINGS, T0, new_game, start


async def _finish(repo: Repository, game_id: int) -> None:
    game = await repo.get_game(game_id)
    assert game is not None
    await repo.append_actions(
        game_id, game.version, [], snapshot="{}", status=GameStatus.FINISHED, timer=None, now=T0
    )


async def test_games_by_status_finds_the_games_to_resume_after_a_restart(
    seeded: Repository,
) -> None:
    lobby = await new_game(seeded, CHAT)
    active = await new_game(seeded, OTHER_CHAT)
    await start(seeded, active)
    active_ids = [g.game_id for g in await seeded.games_by_status({GameStatus.ACTIVE})]
    assert active_ids == [active.game_id]
    both = await seeded.games_by_status([GameStatus.LOBBY, GameStatus.ACTIVE])
    assert [g.game_id for g in both] == [lobby.game_id, active.game_id]
    assert all(len(g.seats) == 4 and g.actions is None for g in both)
    await _finish(seeded, active.game_id)
    assert await seeded.games_by_status({GameStatus.ACTIVE}) == []
    finished = await seeded.games_by_status({GameStatus.FINISHED})
    assert [g.game_id for g in finished] == [active.game_id]
    assert await seeded.games_by_status(()) == []


async def test_a_player_in_two_groups_has_two_active_games(seeded: Repository) -> None:
    first = await new_game(seeded, CHAT, seats=[Occupant.human(ANN, "Ann")])
    second = await new_game(
        seeded, OTHER_CHAT, seats=[Occupant.human(BOB, "Bob"), Occupant.human(ANN, "Ann")]
    )
    assert await seeded.games_of_user(ANN) == []  # lobbies are not active
    await start(seeded, first)
    await start(seeded, second)
    games = await seeded.games_of_user(ANN)
    assert [g.game_id for g in games] == [first.game_id, second.game_id]
    assert [g.seat_of(ANN) for g in games] == [first.seats[0], second.seats[1]]
    assert [g.game_id for g in await seeded.games_of_user(BOB)] == [second.game_id]
    assert await seeded.games_of_user(CAS) == []
    await _finish(seeded, first.game_id)
    assert [g.game_id for g in await seeded.games_of_user(ANN)] == [second.game_id]
    every = await seeded.games_of_user(ANN, statuses=list(GameStatus))
    assert [g.game_id for g in every] == [first.game_id, second.game_id]


async def test_games_of_user_can_include_lobbies(seeded: Repository) -> None:
    lobby = await new_game(seeded, CHAT, seats=[Occupant.computer("R"), Occupant.human(CAS, "Cas")])
    found = await seeded.games_of_user(CAS, statuses={GameStatus.LOBBY, GameStatus.ACTIVE})
    assert [g.game_id for g in found] == [lobby.game_id]


async def test_games_due_are_the_open_games_whose_deadline_passed(seeded: Repository) -> None:
    late = await new_game(seeded, CHAT)
    early = await new_game(seeded, OTHER_CHAT)
    await seeded.append_actions(
        late.game_id,
        1,
        [],
        snapshot="{}",
        status=GameStatus.ACTIVE,
        timer=TurnTimer(T0 + 50.5, 3),
        now=T0,
    )
    await seeded.append_actions(
        early.game_id,
        1,
        [],
        snapshot="{}",
        status=GameStatus.ACTIVE,
        timer=TurnTimer(T0 + 20, 1, reminded=True),
        now=T0,
    )
    assert await seeded.games_due(T0 + 19.9) == []
    due = await seeded.games_due(T0 + 20)  # a deadline equal to "at" is due
    assert [(g.game_id, g.timer) for g in due] == [
        (early.game_id, TurnTimer(T0 + 20, 1, reminded=True))
    ]
    due = await seeded.games_due(T0 + 1000)
    assert [g.game_id for g in due] == [early.game_id, late.game_id]  # earliest deadline first
    await _finish(seeded, early.game_id)
    assert [g.game_id for g in await seeded.games_due(T0 + 1000)] == [late.game_id]


async def test_get_game_and_open_game_of_chat_can_load_the_log(seeded: Repository) -> None:
    game = await new_game(seeded)
    await seeded.append_actions(
        game.game_id,
        1,
        ["0:choose:H"],
        snapshot="{}",
        status=GameStatus.ACTIVE,
        timer=None,
        now=T0,
    )
    without = await seeded.open_game_of_chat(CHAT)
    with_log = await seeded.open_game_of_chat(CHAT, with_actions=True)
    assert without is not None
    assert with_log is not None
    assert (without.actions, with_log.actions) == (None, ("0:choose:H",))
    assert await seeded.get_game(game.game_id, with_actions=True) == with_log


async def test_export_has_every_game_with_settings_seed_seats_and_log(
    seeded: Repository,
) -> None:
    finished = await new_game(seeded, CHAT, seats=[Occupant.human(ANN, "Ann")])
    await seeded.set_hand_message(finished.game_id, 0, MessageRef(ANN, 3), expected_version=1)
    await seeded.append_actions(
        finished.game_id,
        1,
        ["0:choose:S", "0:play:JS"],
        snapshot='{"done": 1}',
        status=GameStatus.ACTIVE,
        timer=None,
        now=T0 + 1,
    )
    await _finish(seeded, finished.game_id)
    other = await new_game(seeded, OTHER_CHAT, seats=[Occupant.computer("R")])
    second = await new_game(seeded, CHAT, seats=[Occupant.human(BOB, "Bob")])

    exported = await seeded.export_games()
    assert [g.game_id for g in exported] == [finished.game_id, other.game_id, second.game_id]
    first = exported[0]
    assert (first.status, first.settings, first.seed) == (
        GameStatus.FINISHED,
        SETTINGS,
        987_654_321,
    )
    assert first.actions == ("0:choose:S", "0:play:JS")
    assert first.seats[0].occupant == Occupant.human(ANN, "Ann")
    assert first.seats[0].hand_message == MessageRef(ANN, 3)
    assert exported[1].actions == ()
    assert exported[1].seats[0].occupant == Occupant.computer("R")
    assert exported == [await seeded.get_game(g.game_id, with_actions=True) for g in exported]

    of_chat = await seeded.export_games(chat_id=CHAT)
    assert [g.game_id for g in of_chat] == [finished.game_id, second.game_id]


@pytest.mark.parametrize("with_actions", [False, True])
async def test_queries_on_an_empty_database(repo: Repository, with_actions: bool) -> None:
    assert await repo.get_game(1, with_actions=with_actions) is None
    assert await repo.open_game_of_chat(CHAT, with_actions=with_actions) is None
    assert await repo.get_actions(1) == ()
    assert await repo.games_by_status(list(GameStatus)) == []
    assert await repo.games_of_user(ANN) == []
    assert await repo.games_due(T0) == []
    assert await repo.export_games() == []


async def test_latest_game_of_chat_outlives_the_end_of_the_game(seeded: Repository) -> None:
    assert await seeded.latest_game_of_chat(CHAT) is None
    first = await new_game(seeded)
    await seeded.append_actions(
        first.game_id,
        first.version,
        [],
        snapshot="{}",
        status=GameStatus.ABANDONED,
        timer=None,
        now=T0,
    )
    second = await new_game(seeded)
    await new_game(seeded, OTHER_CHAT)
    latest = await seeded.latest_game_of_chat(CHAT)
    assert latest is not None and latest.game_id == second.game_id
    await seeded.append_actions(
        second.game_id,
        second.version,
        [],
        snapshot="{}",
        status=GameStatus.ABANDONED,
        timer=None,
        now=T0,
    )
    assert await seeded.open_game_of_chat(CHAT) is None
    latest = await seeded.latest_game_of_chat(CHAT)
    assert latest is not None and latest.status is GameStatus.ABANDONED
