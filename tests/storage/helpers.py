"""Constants and small helpers shared by the storage contract tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from storage import Game, GameStatus, Occupant, Repository, TurnTimer

T0 = 1_700_000_000.0
"""A fixed "now" (UTC epoch seconds); tests add to it. Storage has no clock of its own."""

CHAT = -100_123_456_789_012  # beyond 32 bits, like real supergroup ids
OTHER_CHAT = -42
ANN, BOB, CAS, DIK = (10**12 + n for n in range(1, 5))  # user ids beyond 32 bits
SETTINGS = '{"preset": "amsterdam", "rounds": 16, "turn_timeout": 60}'
SNAPSHOT = '{"v": 1, "phase": "play"}'


@dataclass(frozen=True)
class Backend:
    """A way to open one particular database, possibly more than once."""

    name: str
    open: Callable[[], Awaitable[Repository]]
    persistent: bool  # a second open() sees the same data


async def seed(repo: Repository) -> None:
    """Users Ann, Bob, Cas, Dik and the chats ``CHAT`` and ``OTHER_CHAT``."""
    for user_id, name in ((ANN, "Ann"), (BOB, "Bob"), (CAS, "Cas"), (DIK, "Dik")):
        await repo.upsert_user(user_id, name, "nl", now=T0)
    await repo.upsert_chat(CHAT, "supergroup", "Klaverjasclub", now=T0)
    await repo.upsert_chat(OTHER_CHAT, "group", "Familie", now=T0)


async def new_game(
    repo: Repository,
    chat_id: int = CHAT,
    *,
    seats: Sequence[Occupant] = (Occupant.human(ANN, "Ann"),),
    creator_id: int = ANN,
    now: float = T0,
) -> Game:
    """A lobby in ``chat_id``, by default created by Ann sitting in seat 0."""
    return await repo.create_game(chat_id, creator_id, SETTINGS, 987_654_321, now=now, seats=seats)


async def start(repo: Repository, game: Game, *, now: float = T0 + 1) -> int:
    """Start ``game`` (lobby → active) with a timer on seat 0; return the new version."""
    return await repo.append_actions(
        game.game_id,
        game.version,
        [],
        snapshot=SNAPSHOT,
        status=GameStatus.ACTIVE,
        timer=TurnTimer(now + 60, 0),
        now=now,
    )
