"""Contract: a game with the rows of those who read it (its chat, its creator, players and
former players, and users asked for besides), read at once (``Repository.game_readers``;
one round trip on PostgreSQL shared by several processes)."""

from __future__ import annotations

from storage import Occupant, Repository
from tests.storage.helpers import ANN, BOB, CAS, CHAT, DIK, OTHER_CHAT, T0, new_game


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
