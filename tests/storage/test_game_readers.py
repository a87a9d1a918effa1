"""Contract: a game with the rows of those who read it (its chat, its creator, players and
former players, and users asked for besides), read at once (``Repository.game_readers``;
one round trip on PostgreSQL shared by several processes)."""

from __future__ import annotations

from storage import GameStatus, Occupant, Repository, TurnTimer
from tests.storage.helpers import (
    ANN,
    BOB,
    CAS,
    CHAT,
    DIK,
    OTHER_CHAT,
    SNAPSHOT,
    T0,
    new_game,
    start,
)


async def test_a_game_comes_with_its_chat_and_every_reader(seeded: Repository) -> None:
    seats = [
        Occupant.human(BOB, "Bob"),
        Occupant.computer("Robot", former_user_id=CAS),
        Occupant.computer("Robot"),
    ]
    game = await new_game(seeded, seats=seats, creator_id=ANN)
    found = await seeded.game_readers(game.game_id, [DIK, 999])  # 999: nobody known
    assert found is not None
    assert found.game == await seeded.get_game(game.game_id)
    assert found.chat == await seeded.get_chat(CHAT)
    assert set(found.users) == {ANN, BOB, CAS, DIK}
    assert found.users == await seeded.get_users([ANN, BOB, CAS, DIK])


async def test_only_the_readers_of_the_game_come_with_it(seeded: Repository) -> None:
    game = await new_game(seeded, OTHER_CHAT)  # Ann alone
    found = await seeded.game_readers(game.game_id)
    assert found is not None
    assert set(found.users) == {ANN}
    assert found.chat is not None and found.chat.title == "Familie"


async def test_a_change_of_a_readers_language_is_read(seeded: Repository) -> None:
    game = await new_game(seeded)
    await seeded.game_readers(game.game_id)
    await seeded.set_user_language(ANN, "de", now=T0 + 1)
    await seeded.set_chat_language(CHAT, "fr", now=T0 + 1)
    found = await seeded.game_readers(game.game_id)
    assert found is not None and found.chat is not None
    assert (found.users[ANN].language, found.chat.language) == ("de", "fr")


async def test_an_unknown_game_has_no_readers(seeded: Repository) -> None:
    assert await seeded.game_readers(123_456) is None


async def test_a_write_under_the_lock_reads_back_what_is_stored(seeded: Repository) -> None:
    """The row a write reads back (kept while the game's lock is held where the rows are not
    kept otherwise) is the stored row: the new version, log length, timer and the seats' new
    timeout counts."""
    game = await new_game(seeded, seats=[Occupant.human(ANN, "Ann"), Occupant.human(BOB, "Bob")])
    version = await start(seeded, game)
    async with seeded.game_lock(game.game_id):
        await seeded.append_actions(
            game.game_id,
            version,
            ["0:choose:H"],
            snapshot=SNAPSHOT,
            status=GameStatus.ACTIVE,
            timer=TurnTimer(T0 + 99, 1),
            now=T0 + 2,
            timeouts={1: 2},
        )
        held = await seeded.game_readers(game.game_id)
        row = await seeded.get_game(game.game_id)
    stored = await seeded.game_readers(game.game_id)  # the lock is gone: read again
    assert held is not None and stored is not None
    assert held == stored and row == stored.game
    assert (row.version, row.action_count, row.timer) == (version + 1, 1, TurnTimer(T0 + 99, 1))
    assert [s.timeouts for s in row.seats] == [0, 2, 0, 0]
