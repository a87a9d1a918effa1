"""Contract: whole-database reads (row counts, every user and chat, game histories page by page)
and verbatim imports, the two halves of a copy between databases. Each backend under test is
the source once (imported into SQLite in memory) and the target once (fed from SQLite in
memory), so every pair of backends is covered through SQLite."""

from __future__ import annotations

from dataclasses import replace

import pytest

from storage import (
    AlreadyExists,
    GameHistory,
    GameStatus,
    MessageRef,
    NotFound,
    Occupant,
    OpenGameExists,
    Repository,
    RowCounts,
    SqliteRepository,
    TurnTimer,
)
from storage.stats_rows import DailyPar, GameRecord, PlayerResult, Rating, ResultKind
from tests.storage.helpers import ANN, BOB, CAS, CHAT, DIK, OTHER_CHAT, SETTINGS, T0, new_game, seed

THIRD_CHAT = -100_999


async def fill(repo: Repository) -> None:
    """Users, chats with choices, and games in every state with everything a row can hold:
    a finished game, an abandoned lobby, an active game with a reminded timer, message ids, a
    seat left to a computer; its chat's lobby is gone, so the active game is the open one."""
    await seed(repo)
    await repo.set_user_language(BOB, "de", now=T0 + 1)
    await repo.set_can_message(ANN, True, now=T0 + 2)
    await repo.upsert_chat(THIRD_CHAT, "supergroup", None, now=T0 + 3)
    await repo.set_chat_language(CHAT, "fr", now=T0 + 4)
    await repo.set_chat_defaults(OTHER_CHAT, '{"rounds": 4}', now=T0 + 5)
    four = [Occupant.human(u, n) for u, n in ((ANN, "Ann"), (BOB, "Bob"), (CAS, "Cas"))]
    done = await new_game(repo, CHAT, seats=[*four, Occupant.computer("R")], now=T0 + 10)
    version = await repo.append_actions(
        done.game_id,
        done.version,
        ["0:pass", "1:choose:H"],
        snapshot='{"phase": "play"}',
        status=GameStatus.ACTIVE,
        timer=TurnTimer(T0 + 70.5, 2),
        now=T0 + 11,
    )
    version = await repo.append_actions(
        done.game_id,
        version,
        ["2:play:JH"],
        snapshot='{"phase": "over"}',
        status=GameStatus.FINISHED,
        timer=None,
        now=T0 + 12.25,
    )
    await repo.set_table_message(done.game_id, 501, expected_version=version)
    gone = await new_game(repo, OTHER_CHAT, now=T0 + 20)
    await repo.append_actions(
        gone.game_id, 1, [], snapshot="{}", status=GameStatus.ABANDONED, timer=None, now=T0 + 21
    )
    live = await new_game(repo, CHAT, seats=four, now=T0 + 30)
    version = await repo.set_game_language(live.game_id, 1, "de", now=T0 + 31)
    version = await repo.append_actions(
        live.game_id,
        version,
        ["0:pass"],
        snapshot='{"phase": "bid"}',
        status=GameStatus.ACTIVE,
        timer=TurnTimer(T0 + 90, 1),
        now=T0 + 32,
    )
    version = await repo.set_seats(
        live.game_id, version, {1: Occupant.computer("C", former_user_id=BOB)}, now=T0 + 33
    )
    await repo.mark_reminded(live.game_id, version)
    await repo.set_hand_message(live.game_id, 0, MessageRef(ANN, 77), expected_version=version)
    await repo.set_hand_message(live.game_id, 1, MessageRef(BOB, 78), expected_version=None)
    await repo.set_table_message(live.game_id, 600, expected_version=None)
    await new_game(repo, OTHER_CHAT, seats=[Occupant.human(DIK, "Dik")], now=T0 + 40)
    await fill_standings(repo, done.game_id, gone.game_id)


async def fill_standings(repo: Repository, done: int, gone: int) -> None:
    """A row in each of the standings' tables (migration 4): the bot's secret, a hidden
    board, a daily attempt (recorded as the abandoned game, verbatim) and a par, the finished
    game's record with two results and their ratings."""
    await repo.bot_value("daily_secret", "s3cr3t", now=T0 + 50)
    await repo.set_board_hidden(CAS, True, now=T0 + 51)
    await repo.import_standings(
        {"daily_games": [(gone, "2023-11-14", ANN, True, T0 + 3600.0, T0 + 20.0)]}
    )
    await repo.save_daily_par(DailyPar("2023-11-14", 77, SETTINGS, (120, 0, 95), T0 + 52))
    record = GameRecord(done, CHAT, GameStatus.FINISHED, T0 + 12.25)
    results = (
        PlayerResult(done, CHAT, GameStatus.FINISHED, T0 + 12.25, ANN, 0, ResultKind.WIN, 1, 1, 1),
        PlayerResult(done, CHAT, GameStatus.FINISHED, T0 + 12.25, BOB, 1, ResultKind.LOSS, 1),
    )
    await repo.record_game(
        replace(record, results=results),
        {ANN: Rating(27.5, 8.0, 1), BOB: Rating(22.5, 8.0, 1)},
        now=T0 + 53,
    )


STANDINGS_COUNTS = {
    "bot_state": 1,
    "player_prefs": 1,
    "daily_games": 1,
    "daily_pars": 1,
    "stats_games": 1,
    "player_results": 2,
    "ratings": 2,
}
"""What :func:`fill_standings` writes, per table."""


async def everything(repo: Repository) -> tuple[object, ...]:
    """What a copy must carry over, as comparable values."""
    return (
        await repo.row_counts(),
        await repo.all_users(),
        await repo.all_chats(),
        await repo.game_histories(limit=1000),
        await repo.standings_rows(),
    )


async def copy(source: Repository, target: Repository, *, page: int = 2) -> None:
    """Users, chats, then the games page by page, then the standings."""
    await target.import_users(await source.all_users())
    await target.import_chats(await source.all_chats())
    after = 0
    while histories := await source.game_histories(after=after, limit=page):
        await target.import_games(histories)
        after = histories[-1].game.game_id
    await target.import_standings(await source.standings_rows())


async def test_row_counts_count_every_table(repo: Repository) -> None:
    assert await repo.row_counts() == RowCounts(0, 0, 0, 0, 0)
    assert (await repo.row_counts()).is_empty
    await fill(repo)
    counts = await repo.row_counts()
    assert counts == RowCounts(users=4, chats=3, games=4, seats=16, actions=4, **STANDINGS_COUNTS)
    assert not counts.is_empty


async def test_all_users_and_chats_come_in_id_order_with_their_choices(repo: Repository) -> None:
    await fill(repo)
    users = await repo.all_users()
    assert [u.user_id for u in users] == [ANN, BOB, CAS, DIK]
    assert users[0].can_message and users[1].language == "de"
    assert users == list((await repo.get_users([ANN, BOB, CAS, DIK])).values())
    chats = await repo.all_chats()
    assert [c.chat_id for c in chats] == sorted([CHAT, OTHER_CHAT, THIRD_CHAT])
    assert chats == [await repo.get_chat(c.chat_id) for c in chats]


async def test_game_histories_page_through_the_games_with_action_times(repo: Repository) -> None:
    await fill(repo)
    games = await repo.export_games()
    first = await repo.game_histories(limit=3)
    rest = await repo.game_histories(after=first[-1].game.game_id, limit=3)
    assert [h.game for h in [*first, *rest]] == games
    assert len(first) == 3 and len(rest) == 1
    assert await repo.game_histories(after=rest[-1].game.game_id) == []
    done = first[0]
    assert done.game.actions == ("0:pass", "1:choose:H", "2:play:JH")
    assert done.action_times == (T0 + 11, T0 + 11, T0 + 12.25)
    with pytest.raises(ValueError, match="limit"):
        await repo.game_histories(limit=0)


async def test_a_copy_out_of_this_backend_holds_everything(repo: Repository) -> None:
    await fill(repo)
    async with await SqliteRepository.open(":memory:") as target:
        await copy(repo, target)
        assert await everything(target) == await everything(repo)


async def test_a_copy_into_this_backend_holds_everything_and_ids_go_on(repo: Repository) -> None:
    async with await SqliteRepository.open(":memory:") as source:
        await fill(source)
        await copy(source, repo)
        assert await everything(repo) == await everything(source)
        last = max(g.game_id for g in await source.export_games())
    # The bot goes on where the source stopped: new ids above the copied ones, the open game
    # still blocks a second one, and play continues on the copied version.
    fresh = await new_game(repo, THIRD_CHAT)
    assert fresh.game_id > last
    with pytest.raises(OpenGameExists):
        await new_game(repo, CHAT)
    live = await repo.open_game_of_chat(CHAT)
    assert live is not None and live.timer == TurnTimer(T0 + 90, 1, reminded=True)
    version = await repo.append_actions(
        live.game_id,
        live.version,
        ["2:pass"],
        snapshot="{}",
        status=GameStatus.ACTIVE,
        timer=None,
        now=T0 + 50,
    )
    assert version == live.version + 1
    assert await repo.get_actions(live.game_id) == ("0:pass", "2:pass")
    assert [g.game_id for g in await repo.games_left_by(BOB)] == [live.game_id]


async def test_importing_users_and_chats_overwrites_what_is_there(repo: Repository) -> None:
    await seed(repo)
    ann = await repo.get_user(ANN)
    chat = await repo.get_chat(CHAT)
    assert ann is not None and chat is not None
    newer_ann = replace(ann, display_name="Anna", language="en", can_message=True, updated_at=T0)
    newer_chat = replace(chat, title=None, table_defaults="{}", updated_at=T0 + 9)
    await repo.import_users([newer_ann])
    await repo.import_chats([newer_chat])
    assert await repo.get_user(ANN) == newer_ann
    assert await repo.get_chat(CHAT) == newer_chat
    assert (await repo.row_counts()).users == 4
    await repo.import_users([])
    await repo.import_chats([])
    await repo.import_games([])
    assert (await repo.row_counts()).games == 0


async def _histories() -> list[GameHistory]:
    async with await SqliteRepository.open(":memory:") as source:
        await fill(source)
        return await source.game_histories()


async def test_an_import_that_cannot_go_in_whole_writes_nothing(seeded: Repository) -> None:
    histories = await _histories()
    await seeded.upsert_chat(THIRD_CHAT, "supergroup", None, now=T0)
    before = await everything(seeded)
    # A game whose id is taken: the first game goes in, then the whole batch with it fails.
    await seeded.import_games(histories[:1])
    with pytest.raises(AlreadyExists) as taken:
        await seeded.import_games(histories)
    assert (taken.value.kind, taken.value.key) == ("game", histories[0].game.game_id)
    assert (await seeded.row_counts()).games == 1
    # A chat the target does not know.
    stray = replace(histories[1], game=replace(histories[1].game, chat_id=-5))
    with pytest.raises(NotFound) as missing:
        await seeded.import_games([*histories[2:], stray])
    assert (missing.value.kind, missing.value.key) == ("chat", -5)
    # A former player the target does not know.
    live = histories[2].game
    seats = list(live.seats)
    seats[3] = replace(seats[3], occupant=Occupant.computer("C", former_user_id=12345))
    with pytest.raises(NotFound) as missing:
        await seeded.import_games([replace(histories[2], game=replace(live, seats=tuple(seats)))])
    assert (missing.value.kind, missing.value.key) == ("user", 12345)
    # A second open game for a chat: against the target's, or within the batch.
    lobby = await new_game(seeded, CHAT)
    with pytest.raises(OpenGameExists) as clash:
        await seeded.import_games(histories[2:])  # the active game of CHAT
    assert (clash.value.chat_id, clash.value.game_id) == (CHAT, lobby.game_id)
    other = replace(live, game_id=live.game_id + 100, chat_id=OTHER_CHAT)
    with pytest.raises(OpenGameExists):
        await seeded.import_games(
            [histories[3], replace(histories[2], game=other)]  # both open in OTHER_CHAT
        )
    assert (await seeded.row_counts()).games == 2  # the first game and the lobby, no more
    assert before[1:3] == (await everything(seeded))[1:3]  # users and chats untouched


@pytest.mark.parametrize(
    "broken",
    [
        "no actions",
        "one time short",
        "count off",
        "seats out of order",
        "one user twice",
        "timer on a finished game",
        "settings not json",
        "game id twice",
        "game id 0",
    ],
)
async def test_an_inconsistent_history_is_refused(seeded: Repository, broken: str) -> None:
    histories = await _histories()
    done, live = histories[0], histories[2]
    bad: list[GameHistory]
    if broken == "no actions":
        bad = [replace(done, game=replace(done.game, actions=None))]
    elif broken == "one time short":
        bad = [replace(done, action_times=done.action_times[:-1])]
    elif broken == "count off":
        bad = [replace(done, game=replace(done.game, action_count=2))]
    elif broken == "seats out of order":
        bad = [replace(done, game=replace(done.game, seats=done.game.seats[::-1]))]
    elif broken == "one user twice":
        seats = (done.game.seats[0], replace(done.game.seats[0], index=1), *done.game.seats[2:])
        bad = [replace(done, game=replace(done.game, seats=seats))]
    elif broken == "timer on a finished game":
        bad = [replace(done, game=replace(done.game, timer=TurnTimer(T0, 0)))]
    elif broken == "settings not json":
        bad = [replace(live, game=replace(live.game, settings="{"))]
    elif broken == "game id twice":
        bad = [done, done]
    else:
        bad = [replace(done, game=replace(done.game, game_id=0))]
    with pytest.raises(ValueError):
        await seeded.import_games(bad)
    assert (await seeded.row_counts()).games == 0


async def test_imported_rows_are_what_queries_return(repo: Repository) -> None:
    """The imported active game is found by every query the bot runs after a restart."""
    async with await SqliteRepository.open(":memory:") as source:
        await fill(source)
        await copy(source, repo, page=10)
    (active,) = await repo.games_by_status({GameStatus.ACTIVE})
    assert [g.game_id for g in await repo.games_due(T0 + 90)] == [active.game_id]
    assert [g.game_id for g in await repo.games_of_user(ANN)] == [active.game_id]
    assert (await repo.latest_game_of_chat(OTHER_CHAT)) == await repo.open_game_of_chat(OTHER_CHAT)
    assert active.seats[0].hand_message == MessageRef(ANN, 77)
    assert active.table_message_id == 600 and active.language == "de"
    assert SETTINGS in {g.settings for g in await repo.export_games()}
