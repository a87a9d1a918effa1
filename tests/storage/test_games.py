"""Contract: creating tables, one open game per chat, lobby writes and Telegram bookkeeping."""

from __future__ import annotations

from dataclasses import replace

import pytest

from storage import (
    GameStatus,
    MessageRef,
    NotFound,
    Occupant,
    OpenGameExists,
    Repository,
    SeatConflict,
    SeatKind,
    StaleVersion,
    WrongStatus,
)
from tests.storage.helpers import (
    ANN,
    BOB,
    CHAT,
    OTHER_CHAT,
    SETTINGS,
    SNAPSHOT,
    T0,
    new_game,
    start,
)


async def test_a_new_game_is_a_lobby_at_version_1_with_four_seats(seeded: Repository) -> None:
    game = await new_game(seeded, seats=[Occupant.human(ANN, "Ann"), Occupant.computer("Robot")])
    assert (game.chat_id, game.creator_id, game.status) == (CHAT, ANN, GameStatus.LOBBY)
    assert (game.settings, game.seed, game.version) == (SETTINGS, 987_654_321, 1)
    assert (game.snapshot, game.action_count, game.actions) == (None, 0, ())
    assert (game.table_message_id, game.timer, game.language) == (None, None, None)
    assert (game.created_at, game.updated_at) == (T0, T0)
    assert [s.index for s in game.seats] == [0, 1, 2, 3]
    assert [s.kind for s in game.seats] == [
        SeatKind.HUMAN,
        SeatKind.COMPUTER,
        SeatKind.EMPTY,
        SeatKind.EMPTY,
    ]
    assert game.seats[0].occupant == Occupant.human(ANN, "Ann")
    assert game.seats[1].occupant.display_name == "Robot"
    # Loading without actions gives the same row, with ``actions=None`` (not loaded).
    assert await seeded.get_game(game.game_id) == replace(game, actions=None)


async def test_game_ids_increase(seeded: Repository) -> None:
    first = await new_game(seeded, CHAT)
    second = await new_game(seeded, OTHER_CHAT)
    assert second.game_id > first.game_id


async def test_a_chat_has_at_most_one_open_game(seeded: Repository) -> None:
    lobby = await new_game(seeded)
    with pytest.raises(OpenGameExists) as refused:
        await new_game(seeded)
    assert (refused.value.chat_id, refused.value.game_id) == (CHAT, lobby.game_id)
    await start(seeded, lobby)
    with pytest.raises(OpenGameExists):
        await new_game(seeded)
    open_game = await seeded.open_game_of_chat(CHAT)
    assert open_game is not None
    assert open_game.game_id == lobby.game_id
    assert await seeded.open_game_of_chat(OTHER_CHAT) is None


async def test_a_new_game_can_open_once_the_last_one_ended(seeded: Repository) -> None:
    old = await new_game(seeded)
    await seeded.append_actions(
        old.game_id, 1, [], snapshot=SNAPSHOT, status=GameStatus.ABANDONED, timer=None, now=T0
    )
    assert await seeded.open_game_of_chat(CHAT) is None
    new = await new_game(seeded)
    found = await seeded.open_game_of_chat(CHAT)
    assert found is not None
    assert found.game_id == new.game_id != old.game_id


async def test_creating_needs_a_known_chat_and_known_users(seeded: Repository) -> None:
    with pytest.raises(NotFound) as no_chat:
        await new_game(seeded, chat_id=777)
    assert no_chat.value.kind == "chat"
    with pytest.raises(NotFound) as no_user:
        await new_game(seeded, seats=[Occupant.human(999, "Ghost")])
    assert (no_user.value.kind, no_user.value.key) == ("user", 999)
    with pytest.raises(NotFound):
        await new_game(seeded, creator_id=999)
    assert await seeded.open_game_of_chat(CHAT) is None


async def test_creating_refuses_bad_arguments(seeded: Repository) -> None:
    with pytest.raises(ValueError, match="JSON"):
        await seeded.create_game(CHAT, ANN, "not json", 1, now=T0)
    with pytest.raises(ValueError, match="64-bit"):
        await seeded.create_game(CHAT, ANN, SETTINGS, 2**64, now=T0)
    with pytest.raises(ValueError, match="two seats"):
        await new_game(seeded, seats=[Occupant.human(ANN, "Ann"), Occupant.human(ANN, "Ann")])
    with pytest.raises(ValueError, match="at most 4"):
        await new_game(seeded, seats=[Occupant.computer("c")] * 5)
    assert await seeded.open_game_of_chat(CHAT) is None


async def test_a_seed_may_use_all_64_bits(seeded: Repository) -> None:
    for seed in (2**63 - 1, -(2**63)):
        game = await seeded.create_game(OTHER_CHAT, ANN, SETTINGS, seed, now=T0)
        loaded = await seeded.get_game(game.game_id)
        assert loaded is not None
        assert loaded.seed == seed
        await seeded.append_actions(
            game.game_id, 1, [], snapshot="{}", status=GameStatus.ABANDONED, timer=None, now=T0
        )


def test_occupants_are_consistent() -> None:
    with pytest.raises(ValueError, match="user_id"):
        Occupant(SeatKind.HUMAN, None, "Ann")
    with pytest.raises(ValueError, match="user_id"):
        Occupant(SeatKind.COMPUTER, ANN, "Robot")
    with pytest.raises(ValueError, match="empty"):
        Occupant(SeatKind.EMPTY, None, "Nobody")


async def test_taking_and_leaving_seats_bumps_the_version(seeded: Repository) -> None:
    game = await new_game(seeded)
    v2 = await seeded.set_seats(
        game.game_id, 1, {2: Occupant.human(BOB, "Bob"), 3: Occupant.computer("R")}, now=T0 + 5
    )
    v3 = await seeded.set_seats(game.game_id, v2, {0: Occupant.empty()}, now=T0 + 6)
    assert (v2, v3) == (2, 3)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert [s.occupant for s in loaded.seats] == [
        Occupant.empty(),
        Occupant.empty(),
        Occupant.human(BOB, "Bob"),
        Occupant.computer("R"),
    ]
    assert (loaded.version, loaded.updated_at) == (3, T0 + 6)
    assert loaded.seat_of(BOB) == loaded.seats[2]
    assert loaded.seat_of(ANN) is None


async def test_a_user_moves_seats_in_one_write_but_never_holds_two(seeded: Repository) -> None:
    game = await new_game(seeded)
    version = await seeded.set_seats(
        game.game_id, 1, {0: Occupant.empty(), 2: Occupant.human(ANN, "Ann")}, now=T0
    )
    with pytest.raises(SeatConflict) as twice:
        await seeded.set_seats(game.game_id, version, {1: Occupant.human(ANN, "Ann")}, now=T0)
    assert (twice.value.game_id, twice.value.user_id) == (game.game_id, ANN)
    with pytest.raises(SeatConflict):
        await seeded.set_seats(
            game.game_id,
            version,
            {0: Occupant.human(BOB, "Bob"), 1: Occupant.human(BOB, "Bob")},
            now=T0,
        )
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.version == version  # the refused writes changed nothing
    assert [s.user_id for s in loaded.seats] == [None, None, ANN, None]


async def test_seating_an_unknown_user_changes_nothing(seeded: Repository) -> None:
    game = await new_game(seeded)
    with pytest.raises(NotFound):
        await seeded.set_seats(game.game_id, 1, {1: Occupant.human(4242, "?")}, now=T0)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.version == 1


async def test_lobby_writes_are_compare_and_set(seeded: Repository) -> None:
    game = await new_game(seeded)
    await seeded.set_settings(game.game_id, 1, '{"rounds": 8}', now=T0)
    with pytest.raises(StaleVersion) as stale:
        await seeded.set_seats(game.game_id, 1, {1: Occupant.human(BOB, "Bob")}, now=T0)
    assert (stale.value.game_id, stale.value.expected, stale.value.actual) == (game.game_id, 1, 2)
    with pytest.raises(StaleVersion):
        await seeded.set_settings(game.game_id, 1, "{}", now=T0)
    with pytest.raises(StaleVersion):
        await seeded.set_game_language(game.game_id, 1, "de", now=T0)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert (loaded.version, loaded.settings, loaded.language) == (2, '{"rounds": 8}', None)
    assert loaded.seats[1].kind is SeatKind.EMPTY


async def test_table_language_round_trips(seeded: Repository) -> None:
    game = await new_game(seeded)
    version = await seeded.set_game_language(game.game_id, 1, "fr", now=T0)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert (loaded.language, loaded.version) == ("fr", version)
    await seeded.set_game_language(game.game_id, version, None, now=T0)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.language is None


async def test_settings_are_fixed_once_the_game_starts(seeded: Repository) -> None:
    game = await new_game(seeded)
    version = await start(seeded, game)
    with pytest.raises(WrongStatus) as refused:
        await seeded.set_settings(game.game_id, version, '{"rounds": 1}', now=T0)
    assert refused.value.status is GameStatus.ACTIVE
    with pytest.raises(ValueError, match="JSON"):
        await seeded.set_settings(game.game_id, version, "{", now=T0)
    # A computer may still take over a seat during play.
    await seeded.set_seats(game.game_id, version, {0: Occupant.computer("Robot")}, now=T0)


async def test_writes_to_an_unknown_game_raise_not_found(seeded: Repository) -> None:
    with pytest.raises(NotFound) as missing:
        await seeded.set_seats(12345, 1, {0: Occupant.empty()}, now=T0)
    assert (missing.value.kind, missing.value.key) == ("game", 12345)
    with pytest.raises(NotFound):
        await seeded.set_table_message(12345, 9, expected_version=None)
    with pytest.raises(NotFound):
        await seeded.mark_reminded(12345, 1)
    assert await seeded.get_game(12345) is None


async def test_bookkeeping_is_checked_but_does_not_bump_the_version(seeded: Repository) -> None:
    game = await new_game(seeded, seats=[Occupant.human(ANN, "Ann"), Occupant.human(BOB, "Bob")])
    await seeded.set_table_message(game.game_id, 501, expected_version=1)
    await seeded.set_hand_message(game.game_id, 1, MessageRef(BOB, 77), expected_version=1)
    await seeded.set_hand_message(game.game_id, 0, MessageRef(ANN, 78), expected_version=None)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert (loaded.version, loaded.table_message_id) == (1, 501)
    assert loaded.seats[1].hand_message == MessageRef(BOB, 77)
    assert loaded.seats[0].hand_message == MessageRef(ANN, 78)
    assert loaded.seats[2].hand_message is None

    await seeded.set_settings(game.game_id, 1, "{}", now=T0)
    with pytest.raises(StaleVersion):
        await seeded.set_table_message(game.game_id, 999, expected_version=1)
    with pytest.raises(StaleVersion):
        await seeded.set_hand_message(game.game_id, 1, None, expected_version=1)
    await seeded.set_table_message(game.game_id, None, expected_version=None)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert (loaded.table_message_id, loaded.seats[1].hand_message) == (None, MessageRef(BOB, 77))
    with pytest.raises(ValueError, match="seat"):
        await seeded.set_hand_message(game.game_id, 4, None, expected_version=None)


async def test_rewriting_a_seat_forgets_its_hand_message(seeded: Repository) -> None:
    game = await new_game(seeded)
    await seeded.set_hand_message(game.game_id, 0, MessageRef(ANN, 5), expected_version=1)
    await seeded.set_seats(game.game_id, 1, {0: Occupant.computer("Robot")}, now=T0)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.seats[0].hand_message is None
