"""Contract: the standings, statistics and daily-deal tables of migration 4 on every
backend: daily attempts (one ranked per person and day), the day's board lines, pars stored
once, hidden boards, game records written once with their ratings, results read by person,
group and period, ratings that follow a migrated group, the rebuild's clearing, the bot's
derived values."""

from __future__ import annotations

from dataclasses import replace

import pytest

from storage import GameStatus, NotFound, Occupant, OpenGameExists, Repository
from storage.stats_rows import DailyPar, GameRecord, PlayerResult, Rating, ResultKind
from tests.storage.helpers import ANN, BOB, CAS, CHAT, OTHER_CHAT, SETTINGS, T0, new_game

DAY = "2024-03-01"
END = T0 + 86_400


async def _daily(repo: Repository, user: int, *, day: str = DAY, now: float = T0) -> int:
    await repo.upsert_chat(user, "private", None, now=now)
    seats = [Occupant.computer("N"), Occupant.computer("E"), Occupant.human(user, "x")]
    game, entry = await repo.create_daily_game(
        user, SETTINGS, 42, day=day, day_ends_at=END, now=now, seats=[*seats, seats[0]]
    )
    assert entry.game_id == game.game_id and game.chat_id == user
    return game.game_id


async def _end(repo: Repository, game_id: int, status: GameStatus, at: float) -> None:
    game = await repo.get_game(game_id)
    assert game is not None
    version = game.version
    if game.status is GameStatus.LOBBY:
        version = await repo.append_actions(
            game_id, version, [], snapshot="{}", status=GameStatus.ACTIVE, timer=None, now=at
        )
    await repo.append_actions(
        game_id, version, [], snapshot="{}", status=status, timer=None, now=at
    )


def _result(
    game_id: int, chat: int, user: int, seat: int, points: int, **kw: object
) -> PlayerResult:
    status = kw.pop("status", GameStatus.FINISHED)
    assert isinstance(status, GameStatus)
    at = kw.pop("at", T0 + 100)
    assert isinstance(at, float)
    kind = kw.pop("result", ResultKind.WIN)
    assert isinstance(kind, ResultKind)
    return PlayerResult(game_id, chat, status, at, user, seat, kind, points=points)


async def _record(
    repo: Repository,
    game_id: int,
    chat: int,
    *results: PlayerResult,
    ratings: dict[int, Rating] | None = None,
) -> bool:
    first = results[0]
    record = GameRecord(game_id, chat, first.status, first.ended_at, results)
    return await repo.record_game(record, ratings or {}, now=first.ended_at + 1)


async def test_the_bots_value_is_the_first_one_stored(seeded: Repository) -> None:
    assert await seeded.bot_value("daily_secret", "one", now=T0) == "one"
    assert await seeded.bot_value("daily_secret", "two", now=T0 + 1) == "one"
    assert await seeded.bot_value("other", "x", now=T0) == "x"


async def test_one_ranked_daily_attempt_per_person_and_day(seeded: Repository) -> None:
    first = await _daily(seeded, ANN)
    with pytest.raises(OpenGameExists):  # the private chat has its game open
        await _daily(seeded, ANN)
    await _end(seeded, first, GameStatus.ABANDONED, T0 + 5)
    second = await _daily(seeded, ANN, now=T0 + 6)
    other_day = await _daily(seeded, BOB, day="2024-03-02")
    entries = await seeded.daily_entries(user_id=ANN)
    assert [(e.game_id, e.ranked, e.status) for e in entries] == [
        (first, True, GameStatus.ABANDONED),
        (second, False, GameStatus.LOBBY),
    ]
    assert [e.game_id for e in await seeded.daily_entries(day=DAY)] == [first, second]
    entry = await seeded.daily_entry(other_day)
    assert entry is not None and (entry.day, entry.user_id, entry.ranked) == (
        "2024-03-02",
        BOB,
        True,
    )
    assert await seeded.daily_entry(10_000) is None
    assert len(await seeded.daily_entries()) == 3


async def test_the_board_has_ranked_attempts_finished_before_the_day_ended(
    seeded: Repository,
) -> None:
    ann = await _daily(seeded, ANN)
    await _end(seeded, ann, GameStatus.FINISHED, T0 + 100)
    await _record(seeded, ann, ANN, _result(ann, ANN, ANN, 2, 900))
    again = await _daily(seeded, ANN, now=T0 + 200)  # unranked
    await _end(seeded, again, GameStatus.FINISHED, T0 + 300)
    await _record(seeded, again, ANN, _result(again, ANN, ANN, 2, 1500, at=T0 + 300))
    late = await _daily(seeded, BOB)  # finished after midnight
    await _end(seeded, late, GameStatus.FINISHED, END + 5)
    await _record(seeded, late, BOB, _result(late, BOB, BOB, 2, 1400, at=END + 5))
    stopped = await _daily(seeded, CAS)
    await _end(seeded, stopped, GameStatus.ABANDONED, T0 + 50)
    await _record(
        seeded,
        stopped,
        CAS,
        _result(stopped, CAS, CAS, 2, 80, status=GameStatus.ABANDONED, result=ResultKind.NONE),
    )
    lines = await seeded.daily_results(DAY)
    assert [(r.game_id, r.user_id, r.points, r.ended_at) for r in lines] == [
        (ann, ANN, 900, T0 + 100)
    ]
    assert await seeded.daily_results("2024-03-02") == []


async def test_a_days_par_is_stored_once(seeded: Repository) -> None:
    assert await seeded.get_daily_par(DAY) is None
    par = DailyPar(DAY, 42, SETTINGS, (120, 0, 162), T0)
    assert await seeded.save_daily_par(par) == par
    assert await seeded.save_daily_par(replace(par, pars=(1,), computed_at=T0 + 9)) == par
    stored = await seeded.get_daily_par(DAY)
    assert stored == par and stored.total == 282
    with pytest.raises(ValueError):
        await seeded.save_daily_par(replace(par, day="x", settings="{nope"))


async def test_people_hide_from_the_boards_and_come_back(seeded: Repository) -> None:
    assert await seeded.hidden_users([ANN, BOB]) == set()
    await seeded.set_board_hidden(ANN, True, now=T0)
    await seeded.set_board_hidden(BOB, True, now=T0)
    await seeded.set_board_hidden(BOB, False, now=T0 + 1)
    assert await seeded.hidden_users([ANN, BOB, CAS, 5]) == {ANN}
    assert await seeded.hidden_users([]) == set()


async def test_a_game_is_recorded_once_with_its_ratings(seeded: Repository) -> None:
    game = await new_game(seeded, CHAT)
    await _end(seeded, game.game_id, GameStatus.FINISHED, T0 + 100)
    assert await seeded.unrecorded_games() == [game.game_id]
    results = (
        _result(game.game_id, CHAT, ANN, 0, 1200),
        _result(game.game_id, CHAT, BOB, 1, 800, result=ResultKind.LOSS),
    )
    ratings = {ANN: Rating(27.0, 8.0, 1), BOB: Rating(23.0, 8.0, 1)}
    assert await _record(seeded, game.game_id, CHAT, *results, ratings=ratings)
    again = {ANN: Rating(99.0, 1.0, 9)}
    assert not await _record(seeded, game.game_id, CHAT, *results, ratings=again)
    assert await seeded.ratings(CHAT) == ratings
    assert await seeded.unrecorded_games() == []
    assert await seeded.player_results(user_id=ANN) == [results[0]]
    assert await seeded.player_results(chat_id=CHAT) == list(results)
    with pytest.raises(NotFound):
        await _record(seeded, 10_000, CHAT, replace(results[0], game_id=10_000))


async def test_records_refuse_results_of_another_game() -> None:
    result = _result(1, CHAT, ANN, 0, 10)
    with pytest.raises(ValueError):
        GameRecord(2, CHAT, GameStatus.FINISHED, T0 + 100, (result,))
    with pytest.raises(ValueError):
        GameRecord(1, CHAT, GameStatus.ACTIVE, T0 + 100)
    with pytest.raises(ValueError):
        GameRecord(1, CHAT, GameStatus.FINISHED, T0 + 100, (result, result))


async def test_results_come_in_the_order_games_ended_by_person_group_and_period(
    seeded: Repository,
) -> None:
    ids = []
    for chat, at in ((CHAT, T0 + 300), (OTHER_CHAT, T0 + 100), (CHAT, T0 + 200)):
        game = await new_game(seeded, chat, now=T0)
        await _end(seeded, game.game_id, GameStatus.FINISHED, at)
        ids.append(game.game_id)
    assert await seeded.unrecorded_games() == [ids[1], ids[2], ids[0]]
    for game_id, chat, at in zip(ids, (CHAT, OTHER_CHAT, CHAT), (300, 100, 200), strict=True):
        await _record(seeded, game_id, chat, _result(game_id, chat, ANN, 0, 1, at=T0 + at))
    assert [r.game_id for r in await seeded.player_results(user_id=ANN)] == [ids[1], ids[2], ids[0]]
    assert [r.game_id for r in await seeded.player_results(chat_id=CHAT)] == [ids[2], ids[0]]
    recent = await seeded.player_results(chat_id=CHAT, since=T0 + 250)
    assert [r.game_id for r in recent] == [ids[0]]
    assert await seeded.player_results(user_id=BOB) == []


async def test_ratings_and_results_follow_a_group_that_became_a_supergroup(
    seeded: Repository,
) -> None:
    game = await new_game(seeded, OTHER_CHAT)
    await _end(seeded, game.game_id, GameStatus.FINISHED, T0 + 100)
    rating = Rating(26.0, 7.0, 1)
    await _record(
        seeded, game.game_id, OTHER_CHAT, _result(game.game_id, OTHER_CHAT, ANN, 0, 5),
        ratings={ANN: rating, BOB: Rating(24.0, 7.0, 1)},
    )  # fmt: skip
    new_id = -100_777
    await seeded.migrate_chat(OTHER_CHAT, new_id, now=T0 + 200)
    assert await seeded.ratings(new_id) == {ANN: rating, BOB: Rating(24.0, 7.0, 1)}
    assert await seeded.ratings(OTHER_CHAT) == {}
    assert [r.chat_id for r in await seeded.player_results(user_id=ANN)] == [new_id]
    # Into a chat that has rows of its own: the new chat's rating wins where both have one.
    later = await new_game(seeded, CHAT)
    await _end(seeded, later.game_id, GameStatus.FINISHED, T0 + 300)
    mine = Rating(30.0, 5.0, 4)
    await _record(
        seeded, later.game_id, CHAT, _result(later.game_id, CHAT, BOB, 0, 5, at=T0 + 300),
        ratings={BOB: mine},
    )  # fmt: skip
    await seeded.migrate_chat(new_id, CHAT, now=T0 + 400)
    assert await seeded.ratings(CHAT) == {ANN: rating, BOB: mine}
    assert await seeded.ratings(new_id) == {}


async def test_clearing_the_statistics_keeps_the_primary_data(seeded: Repository) -> None:
    ann = await _daily(seeded, ANN)
    await _end(seeded, ann, GameStatus.FINISHED, T0 + 100)
    await _record(seeded, ann, ANN, _result(ann, ANN, ANN, 2, 900))
    await seeded.set_board_hidden(ANN, True, now=T0)
    await seeded.clear_stats()
    counts = await seeded.row_counts()
    assert (counts.stats_games, counts.player_results, counts.ratings) == (0, 0, 0)
    assert (counts.daily_games, counts.player_prefs) == (1, 1)
    assert await seeded.unrecorded_games() == [ann]
    assert await seeded.player_results() == []


async def test_standings_rows_import_as_they_are(seeded: Repository) -> None:
    ann = await _daily(seeded, ANN)
    await _end(seeded, ann, GameStatus.FINISHED, T0 + 100)
    await _record(seeded, ann, ANN, _result(ann, ANN, ANN, 2, 900), ratings={ANN: Rating(1, 2, 3)})
    rows = await seeded.standings_rows()
    assert rows["daily_games"] == [(ann, DAY, ANN, True, END, T0)]
    assert rows["ratings"] == [(ANN, ANN, 1.0, 2.0, 3, T0 + 101)]
    rows["ratings"] = [(ANN, ANN, 5.0, 6.0, 7, T0 + 1)]
    await seeded.import_standings(rows)
    assert await seeded.ratings(ANN) == {ANN: Rating(5.0, 6.0, 7)}
    assert await seeded.standings_rows() == rows
    with pytest.raises(ValueError):
        await seeded.import_standings({"nope": []})
    with pytest.raises(ValueError):
        await seeded.import_standings({"ratings": [(1, 2)]})
