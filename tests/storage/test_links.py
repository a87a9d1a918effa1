"""Contract (migration 6): a game's deep-link token (made once, the same for every caller,
found again by the token), the stored ``/stop`` question any worker may take, and the round
in which a seat was handed to a computer."""

from __future__ import annotations

from storage import Repository
from tests.storage.helpers import OTHER_CHAT, new_game


async def test_the_first_token_stays_and_finds_its_game(seeded: Repository) -> None:
    game = await new_game(seeded)
    other = await new_game(seeded, chat_id=OTHER_CHAT)
    assert await seeded.game_of_link("a" * 20) is None
    assert await seeded.link_token(game.game_id, "a" * 20) == "a" * 20
    assert await seeded.link_token(game.game_id, "b" * 20) == "a" * 20  # the first one stays
    assert await seeded.link_token(other.game_id, "c" * 20) == "c" * 20
    assert await seeded.game_of_link("a" * 20) == game.game_id
    assert await seeded.game_of_link("c" * 20) == other.game_id
    assert await seeded.link_token(10_000, "d" * 20) is None  # no such game
    assert await seeded.game_of_link("d" * 20) is None


async def test_the_stop_question_is_stored_and_replaced(seeded: Repository) -> None:
    game = await new_game(seeded)
    assert await seeded.stop_prompt(game.game_id) is None
    await seeded.set_stop_prompt(game.game_id, 41)
    await seeded.set_stop_prompt(game.game_id, 2**40)  # a newer question replaces it
    assert await seeded.stop_prompt(game.game_id) == 2**40
    await seeded.set_stop_prompt(game.game_id, None)
    assert await seeded.stop_prompt(game.game_id) is None


async def test_the_hand_over_round_is_kept_per_seat(seeded: Repository) -> None:
    game = await new_game(seeded)
    assert await seeded.handed_round(game.game_id, 1) is None
    await seeded.set_handed_round(game.game_id, 1, 3)
    await seeded.set_handed_round(game.game_id, 2, 5)
    assert await seeded.handed_round(game.game_id, 1) == 3
    assert await seeded.handed_round(game.game_id, 2) == 5
    assert await seeded.handed_round(game.game_id, 0) is None
