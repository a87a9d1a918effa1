"""Bounded memory: the service keeps the engine state of open games only (a bounded LRU),
and per-game locks and ratings locks go once nobody holds them; an old game looked up again
(``/start h<id>``, ``/score``) is not cached."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.keyed import KeyedLocks, LruDict
from bot.service import GameService
from bot.taps import Move
from engine.cards import Seat
from storage import GameStatus, SeatKind
from tests.bot.helpers import lobby_payload

GROUP = -100


async def _no() -> bool:
    return False


@pytest.fixture
def service(random_service: GameService) -> GameService:
    return random_service


async def _play_game(svc: GameService, chat: int, user: int, rng: random.Random) -> int:
    await svc.people.touch_user(user, f"user{user}", "nl")
    await svc.people.user_started(user)
    out = await svc.lobby.open_table(chat, "group", "Club", user, f"user{user}")
    gid = out.game_id
    assert gid is not None
    for action in ("rounds:toggle", "sit:0", "bot:add", "bot:add", "bot:add", "start"):
        table = await svc.tables.load(gid)
        assert table is not None
        assert (
            await svc.lobby.lobby_action(gid, table.version, user, lobby_payload(action), _no)
        ).ok
    while True:
        await svc.play.run_computers(gid)
        table = await svc.tables.load(gid)
        assert table is not None and table.state is not None
        if table.row.status is not GameStatus.ACTIVE:
            return gid
        seat = next(s for s in table.row.seats if s.kind is SeatKind.HUMAN)
        legal = table.state.legal_actions(Seat(seat.index))
        if legal:
            move = Move(rng.choice(legal).notation(with_seat=False))
            assert (await svc.play.act(gid, table.version, user, move)).ok


async def test_finished_games_leave_nothing_behind_and_are_not_cached_again(
    service: GameService,
) -> None:
    rng = random.Random(5)
    games = [await _play_game(service, GROUP - i, 1 + i, rng) for i in range(3)]
    assert len(service.tables.cache) == 0
    assert len(service.tables.locks) == 0
    assert len(service.stats.rating_locks) == 0
    for gid in games:  # an old game's link, sheet or view
        table = await service.tables.load(gid)
        assert table is not None and table.state is not None and table.state.is_over
        assert (await service.tables.view(gid)) is not None
    assert len(service.tables.cache) == 0


async def test_the_cache_of_open_games_is_bounded(service: GameService) -> None:
    service.tables.cache = LruDict(2)
    ids = []
    for i in range(3):  # three running games, each with a move
        user = 10 + i
        await service.people.touch_user(user, f"u{user}", "nl")
        await service.people.user_started(user)
        gid = (await service.lobby.open_table(GROUP - i, "group", "C", user, f"u{user}")).game_id
        assert gid is not None
        for action in ("sit:0", "bot:add", "bot:add", "bot:add", "start"):
            table = await service.tables.load(gid)
            assert table is not None
            out = await service.lobby.lobby_action(
                gid, table.version, user, lobby_payload(action), _no
            )
            assert out.ok
        ids.append(gid)
    assert len(service.tables.cache) == 2 and ids[0] not in service.tables.cache
    table = await service.tables.load(ids[0])  # replayed from its log, cached again
    assert table is not None and table.state is not None
    assert ids[0] in service.tables.cache and len(service.tables.cache) == 2


async def test_keyed_locks_serialize_and_then_go() -> None:
    locks: KeyedLocks[int] = KeyedLocks()
    order: list[str] = []

    async def work(name: str) -> None:
        async with locks(1):
            order.append(f"{name}+")
            await asyncio.sleep(0)
            order.append(f"{name}-")

    await asyncio.gather(work("a"), work("b"))
    assert order == ["a+", "a-", "b+", "b-"]
    assert len(locks) == 0


def test_lru_dict_drops_the_least_recently_used() -> None:
    lru: LruDict[str, int] = LruDict(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.get("a") == 1  # a is now the most recent
    lru.put("c", 3)
    assert "b" not in lru and lru.get("a") == 1 and lru.get("c") == 3
    with pytest.raises(ValueError):
        LruDict(0)
