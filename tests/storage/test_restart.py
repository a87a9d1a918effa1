"""Contract for persistent backends: data survive a restart, and two processes sharing one
database (here: two repositories on one file) still lose cleanly on compare-and-set."""

from __future__ import annotations

import asyncio

from storage import GameStatus, MessageRef, Occupant, StaleVersion, TurnTimer
from tests.storage.helpers import ANN, BOB, CHAT, T0, Backend, new_game, seed


async def test_everything_survives_close_and_reopen(persistent_backend: Backend) -> None:
    async with await persistent_backend.open() as repo:
        await seed(repo)
        await repo.set_can_message(ANN, True, now=T0)
        await repo.set_chat_defaults(CHAT, '{"rounds": 4}', now=T0)
        game = await new_game(repo, seats=[Occupant.human(ANN, "Ann"), Occupant.computer("R")])
        version = await repo.append_actions(
            game.game_id,
            1,
            ["0:choose:H", "1:pass"],
            snapshot='{"phase": "play"}',
            status=GameStatus.ACTIVE,
            timer=TurnTimer(T0 + 45.25, 2),
            now=T0 + 1,
        )
        await repo.mark_reminded(game.game_id, version)
        await repo.set_table_message(game.game_id, 88, expected_version=version)
        await repo.set_hand_message(game.game_id, 0, MessageRef(ANN, 99), expected_version=version)
        before = await repo.export_games()
        user_before = await repo.get_user(ANN)
        chat_before = await repo.get_chat(CHAT)

    async with await persistent_backend.open() as repo:
        assert await repo.export_games() == before
        assert await repo.get_user(ANN) == user_before
        assert await repo.get_chat(CHAT) == chat_before
        # What the bot does at start-up: re-arm timers and resume the active games.
        active = await repo.games_by_status({GameStatus.ACTIVE})
        assert [g.game_id for g in active] == [game.game_id]
        assert active[0].timer == TurnTimer(T0 + 45.25, 2, reminded=True)
        assert [g.game_id for g in await repo.games_due(T0 + 46)] == [game.game_id]
        # Play continues where it stopped.
        after = await repo.append_actions(
            game.game_id,
            version,
            ["2:play:JS"],
            snapshot="{}",
            status=GameStatus.ACTIVE,
            timer=None,
            now=T0 + 2,
        )
        assert after == version + 1
        assert await repo.get_actions(game.game_id) == ("0:choose:H", "1:pass", "2:play:JS")


async def test_two_connections_to_one_database_lose_cleanly(persistent_backend: Backend) -> None:
    async with await persistent_backend.open() as first:
        await seed(first)
        game = await new_game(first, seats=[Occupant.human(ANN, "Ann")])
        async with await persistent_backend.open() as second:

            async def take_seat(repo_name: str) -> int:
                repo = first if repo_name == "first" else second
                return await repo.set_seats(
                    game.game_id, 1, {1: Occupant.human(BOB, f"Bob via {repo_name}")}, now=T0
                )

            results = await asyncio.gather(
                take_seat("first"), take_seat("second"), return_exceptions=True
            )
            assert sorted(type(r).__name__ for r in results) == ["StaleVersion", "int"]
            assert all(isinstance(r, int | StaleVersion) for r in results)
            seen_by_second = await second.get_game(game.game_id)
        seen_by_first = await first.get_game(game.game_id)
    assert seen_by_first == seen_by_second
    assert seen_by_first is not None
    assert seen_by_first.version == 2
    assert seen_by_first.seats[1].user_id == BOB
