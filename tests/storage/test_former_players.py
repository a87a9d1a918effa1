"""Contract: a computer that takes over a human's seat during play remembers the human
(``former_user_id``), so the player may take the seat back; migration 2 adds the column to an
existing database without touching its games."""

from __future__ import annotations

from pathlib import Path

import aiosqlite
import pytest

from storage import (
    GameStatus,
    MessageRef,
    NotFound,
    Occupant,
    Repository,
    SeatKind,
    SqliteRepository,
)
from storage.migrations import MIGRATIONS
from tests.storage.helpers import ANN, BOB, CAS, CHAT, OTHER_CHAT, T0, new_game, start

FOUR = (
    Occupant.human(ANN, "Ann"),
    Occupant.human(BOB, "Bob"),
    Occupant.computer("computer"),
    Occupant.computer("computer"),
)


def test_only_a_computer_seat_names_a_former_player() -> None:
    assert Occupant.computer("computer", former_user_id=ANN).former_user_id == ANN
    assert Occupant.computer("computer").former_user_id is None
    with pytest.raises(ValueError, match="former_user_id"):
        Occupant(SeatKind.HUMAN, BOB, "Bob", former_user_id=ANN)
    with pytest.raises(ValueError, match="former_user_id"):
        Occupant(SeatKind.EMPTY, former_user_id=ANN)
    with pytest.raises(ValueError, match="64-bit"):
        Occupant.computer("computer", former_user_id=2**64)


async def test_a_takeover_remembers_the_former_player(seeded: Repository) -> None:
    game = await new_game(seeded, seats=FOUR)
    version = await start(seeded, game)
    version = await seeded.set_seats(
        game.game_id, version, {1: Occupant.computer("computer", former_user_id=BOB)}, now=T0 + 2
    )
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None and loaded.version == version
    assert loaded.seats[1].kind is SeatKind.COMPUTER
    assert (loaded.seats[1].user_id, loaded.seats[1].former_user_id) == (None, BOB)
    assert [s.former_user_id for s in loaded.seats] == [None, BOB, None, None]
    assert loaded.seat_of(BOB) is None  # a former player holds no seat
    assert [g.game_id for g in await seeded.games_of_user(BOB)] == []


async def test_taking_the_seat_back_or_any_rewrite_forgets_the_former_player(
    seeded: Repository,
) -> None:
    game = await new_game(seeded, seats=FOUR)
    version = await start(seeded, game)
    version = await seeded.set_seats(
        game.game_id,
        version,
        {
            0: Occupant.computer("computer", former_user_id=ANN),
            1: Occupant.computer("computer", former_user_id=BOB),
        },
        now=T0,
    )
    version = await seeded.set_seats(game.game_id, version, {1: Occupant.human(BOB, "Bob")}, now=T0)
    await seeded.set_seats(game.game_id, version, {0: Occupant.computer("other")}, now=T0)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert loaded.seats[1].occupant == Occupant.human(BOB, "Bob")
    assert loaded.seats[0].occupant == Occupant.computer("other")
    assert [s.former_user_id for s in loaded.seats] == [None, None, None, None]


async def test_the_offer_message_of_a_computer_seat_is_bookkeeping(seeded: Repository) -> None:
    game = await new_game(seeded, seats=FOUR)
    version = await start(seeded, game)
    version = await seeded.set_seats(
        game.game_id, version, {1: Occupant.computer("computer", former_user_id=BOB)}, now=T0
    )
    await seeded.set_hand_message(game.game_id, 1, MessageRef(BOB, 12), expected_version=None)
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None and loaded.version == version
    assert (loaded.seats[1].hand_message, loaded.seats[1].former_user_id) == (
        MessageRef(BOB, 12),
        BOB,
    )
    await seeded.set_seats(game.game_id, version, {1: Occupant.human(BOB, "Bob")}, now=T0)
    back = await seeded.get_game(game.game_id)
    assert back is not None and back.seats[1].hand_message is None


async def test_an_unknown_former_player_changes_nothing(seeded: Repository) -> None:
    game = await new_game(seeded, seats=FOUR)
    version = await start(seeded, game)
    with pytest.raises(NotFound) as missing:
        await seeded.set_seats(
            game.game_id, version, {1: Occupant.computer("c", former_user_id=4242)}, now=T0
        )
    assert (missing.value.kind, missing.value.key) == ("user", 4242)
    with pytest.raises(NotFound):
        await seeded.create_game(
            OTHER_CHAT, ANN, "{}", 1, now=T0, seats=[Occupant.computer("c", former_user_id=4242)]
        )
    loaded = await seeded.get_game(game.game_id)
    assert loaded is not None
    assert (loaded.version, loaded.seats[1].occupant) == (version, Occupant.human(BOB, "Bob"))


async def test_games_left_by_a_user_are_the_active_ones_with_their_former_seat(
    seeded: Repository,
) -> None:
    here = await new_game(seeded, seats=FOUR)
    there = await new_game(seeded, OTHER_CHAT, seats=FOUR)
    v_here, v_there = await start(seeded, here), await start(seeded, there)
    await seeded.set_seats(
        here.game_id, v_here, {1: Occupant.computer("c", former_user_id=BOB)}, now=T0
    )
    v_there = await seeded.set_seats(
        there.game_id, v_there, {0: Occupant.computer("c", former_user_id=ANN)}, now=T0
    )
    assert [g.game_id for g in await seeded.games_left_by(BOB)] == [here.game_id]
    assert [g.game_id for g in await seeded.games_left_by(ANN)] == [there.game_id]
    assert await seeded.games_left_by(CAS) == []
    await seeded.append_actions(
        there.game_id, v_there, [], snapshot="{}", status=GameStatus.FINISHED, timer=None, now=T0
    )
    assert await seeded.games_left_by(ANN) == []  # a finished game offers no way back


async def test_migration_2_upgrades_a_version_1_database_and_keeps_its_games(
    tmp_path: Path,
) -> None:
    """SQLite-specific: a database written by the code of schema 1 (rows inserted as that
    code wrote them) is upgraded in place at start-up."""
    path = tmp_path / "old.sqlite3"
    async with await SqliteRepository.open(path, migrations=MIGRATIONS[:1]) as old:
        assert old.schema_version == 1
    async with aiosqlite.connect(path) as conn:
        # the rows of tests.storage.helpers.seed, as the code of schema 1 wrote them
        await conn.executemany(
            "INSERT INTO users (user_id, display_name, telegram_language, updated_at) "
            "VALUES (?, ?, 'nl', ?)",
            [(uid, name, T0) for uid, name in ((ANN, "Ann"), (BOB, "Bob"), (CAS, "Cas"))],
        )
        await conn.executemany(
            "INSERT INTO chats (chat_id, chat_type, title, updated_at) VALUES (?, ?, ?, ?)",
            [(CHAT, "supergroup", "Klaverjasclub", T0), (OTHER_CHAT, "group", "Familie", T0)],
        )
        await conn.execute(
            "INSERT INTO games (game_id, chat_id, status, settings, seed, creator_id, version, "
            "snapshot, action_count, deadline_at, deadline_seat, created_at, updated_at) "
            "VALUES (7, ?, 'active', '{}', 99, ?, 5, '{}', 2, ?, 0, ?, ?)",
            (CHAT, ANN, T0 + 60, T0, T0),
        )
        await conn.executemany(
            "INSERT INTO game_seats (game_id, seat, kind, user_id, display_name) "
            "VALUES (7, ?, ?, ?, ?)",
            [
                (0, "human", ANN, "Ann"),
                (1, "computer", None, "computer"),  # Bob handed over, before migration 2
                (2, "human", CAS, "Cas"),
                (3, "computer", None, "computer"),
            ],
        )
        await conn.executemany(
            "INSERT INTO game_actions (game_id, seq, action, created_at) VALUES (7, ?, ?, ?)",
            [(0, "1:pass", T0), (1, "2:pass", T0)],
        )
        await conn.commit()
        columns = [r[1] for r in await conn.execute_fetchall("PRAGMA table_info(game_seats)")]
    assert "former_user_id" not in columns
    async with await SqliteRepository.open(path) as repo:
        assert repo.schema_version == MIGRATIONS[-1].version >= 2
        game = await repo.get_game(7, with_actions=True)
        assert game is not None
        assert (game.chat_id, game.status, game.version) == (CHAT, GameStatus.ACTIVE, 5)
        assert game.actions == ("1:pass", "2:pass")
        assert game.timer is not None and game.timer.deadline_at == T0 + 60
        assert [s.occupant for s in game.seats] == [
            Occupant.human(ANN, "Ann"),
            Occupant.computer("computer"),
            Occupant.human(CAS, "Cas"),
            Occupant.computer("computer"),
        ]
        assert await repo.games_left_by(BOB) == []  # the old hand-over offers no way back
        # and the new column works on the upgraded database
        await repo.set_seats(7, 5, {0: Occupant.computer("c", former_user_id=ANN)}, now=T0)
        assert [g.game_id for g in await repo.games_left_by(ANN)] == [7]
