"""Contract: forgetting a person (the right to be forgotten) on every backend: their name and
id leave every table in one transaction, their games stay whole under an anonymous seat, an
open game refuses, and a forgotten seat never comes back into the statistics."""

from __future__ import annotations

import pytest

from storage import ANONYMOUS_MAX, GameStatus, MessageRef, Occupant, Repository, UserSeated
from storage.rows import ANONYMOUS_NAME
from storage.stats_rows import GameRecord, PlayerResult, Rating, ResultKind
from tests.storage.helpers import ANN, BOB, CHAT, SETTINGS, T0, new_game, start

ANON = ANONYMOUS_MAX - 7
END = T0 + 86_400


async def _finish(repo: Repository, game_id: int, version: int, at: float) -> None:
    await repo.append_actions(
        game_id, version, ["x"], snapshot="{}", status=GameStatus.FINISHED, timer=None, now=at
    )


def _result(game_id: int, user: int, seat: int) -> PlayerResult:
    return PlayerResult(
        game_id, CHAT, GameStatus.FINISHED, T0 + 10, user, seat, ResultKind.WIN, points=80
    )


async def _everything(repo: Repository) -> str:
    """Every stored row, as text (what ``bot.admin export``/``copy`` could see)."""
    parts = [repr(await repo.all_users()), repr(await repo.all_chats())]
    parts.append(repr(await repo.game_histories(limit=1000)))
    parts.append(repr(await repo.standings_rows()))
    return "\n".join(parts)


async def test_forgetting_unlinks_the_person_everywhere_and_keeps_the_games(
    seeded: Repository,
) -> None:
    seats = (Occupant.human(ANN, "Ann"), Occupant.human(BOB, "Bob"))
    game = await new_game(seeded, seats=seats)
    await _finish(seeded, game.game_id, await start(seeded, game), T0 + 10)
    record = GameRecord(
        game.game_id,
        CHAT,
        GameStatus.FINISHED,
        T0 + 10,
        (_result(game.game_id, ANN, 0), _result(game.game_id, BOB, 1)),
    )
    rating = Rating(26.0, 8.0, 1)
    assert await seeded.record_game(record, {ANN: rating, BOB: rating}, now=T0 + 11)
    await seeded.set_board_hidden(ANN, True, now=T0)
    await seeded.upsert_chat(ANN, "private", "Ann", now=T0)
    daily, _ = await seeded.create_daily_game(
        ANN,
        SETTINGS,
        42,
        day="2024-03-01",
        day_ends_at=END,
        now=T0,
        seats=[
            Occupant.computer("N"),
            Occupant.computer("E"),
            Occupant.human(ANN, "Ann"),
            Occupant.computer("W"),
        ],
    )
    await _finish(seeded, daily.game_id, await start(seeded, daily), T0 + 20)
    assert await seeded.get_user(ANN) is not None  # read it into any cache first
    before = await seeded.game_histories(limit=1000)

    assert await seeded.forget_user(ANN, ANON, now=T0 + 30) is True

    assert await seeded.get_user(ANN) is None
    assert await seeded.get_chat(ANN) is None
    text = await _everything(seeded)
    assert str(ANN) not in text and "'Ann'" not in text
    assert "Bob" in text  # the others stay
    assert await seeded.player_results(user_id=ANN) == []
    assert [r.user_id for r in await seeded.player_results(chat_id=CHAT)] == [BOB]
    assert set(await seeded.ratings(CHAT)) == {BOB}
    assert await seeded.hidden_users([ANN]) == set()
    assert await seeded.daily_entry(daily.game_id) is None
    after = await seeded.game_histories(limit=1000)
    assert [h.game.game_id for h in after] == [h.game.game_id for h in before]
    for old, new in zip(before, after, strict=True):
        assert new.game.actions == old.game.actions and new.game.seed == old.game.seed
    kept = await seeded.get_game(game.game_id)
    assert kept is not None and kept.seats[0].user_id == ANON
    assert kept.seats[0].occupant.display_name == ANONYMOUS_NAME and kept.creator_id == ANON
    assert kept.seats[1].user_id == BOB
    assert await seeded.games_of_user(ANN, (GameStatus.FINISHED,)) == []
    moved = await seeded.get_game(daily.game_id)
    assert moved is not None and moved.chat_id == ANON
    # A second time there is nothing left to forget.
    assert await seeded.forget_user(ANN, ANON - 1, now=T0 + 31) is False


async def test_an_open_game_refuses_and_changes_nothing(seeded: Repository) -> None:
    game = await new_game(seeded)
    await start(seeded, game)
    with pytest.raises(UserSeated) as seated:
        await seeded.forget_user(ANN, ANON, now=T0 + 5)
    assert seated.value.game_id == game.game_id
    user = await seeded.get_user(ANN)
    assert user is not None and user.display_name == "Ann"


async def test_a_seat_left_to_a_computer_at_an_open_table_forgets_its_player(
    seeded: Repository,
) -> None:
    seats = (Occupant.human(ANN, "Ann"), Occupant.human(BOB, "Bob"))
    game = await new_game(seeded, seats=seats)
    version = await start(seeded, game)
    computer = Occupant.computer("Computer", former_user_id=ANN)
    version = await seeded.set_seats(game.game_id, version, {0: computer}, now=T0 + 2)
    offer = MessageRef(ANN, 77)  # the private message that offers the seat back
    await seeded.set_hand_message(game.game_id, 0, offer, expected_version=version)
    assert [g.game_id for g in await seeded.games_left_by(ANN)] == [game.game_id]

    assert await seeded.forget_user(ANN, ANON, now=T0 + 3) is True

    assert await seeded.games_left_by(ANN) == []
    kept = await seeded.get_game(game.game_id)
    assert kept is not None and kept.status is GameStatus.ACTIVE
    assert kept.seats[0].occupant.former_user_id is None and kept.seats[0].hand_message is None
    assert str(ANN) not in await _everything(seeded)


async def test_a_person_only_known_by_name_leaves_no_placeholder(seeded: Repository) -> None:
    assert await seeded.forget_user(BOB, ANON, now=T0) is True
    assert await seeded.get_user(BOB) is None
    assert await seeded.get_user(ANON) is None


async def test_anonymous_seats_are_never_recorded(seeded: Repository) -> None:
    game = await new_game(seeded, seats=(Occupant.human(BOB, "Bob"),), creator_id=BOB)
    await _finish(seeded, game.game_id, await start(seeded, game), T0 + 10)
    await seeded.upsert_user(ANN, "Ann", None, now=T0)
    assert await seeded.forget_user(ANN, ANON, now=T0 + 1)  # leaves a placeholder id range
    record = GameRecord(
        game.game_id,
        CHAT,
        GameStatus.FINISHED,
        T0 + 10,
        (_result(game.game_id, BOB, 0), _result(game.game_id, ANON, 1)),
    )
    assert await seeded.record_game(record, {ANON: Rating(25.0, 8.0, 1)}, now=T0 + 11)
    assert [r.user_id for r in await seeded.player_results(chat_id=CHAT)] == [BOB]
    assert await seeded.ratings(CHAT) == {}


async def test_only_anonymous_ids_may_replace_a_person(seeded: Repository) -> None:
    with pytest.raises(ValueError):
        await seeded.forget_user(ANN, BOB, now=T0)
    with pytest.raises(ValueError):
        await seeded.forget_user(ANON, ANON - 1, now=T0)
