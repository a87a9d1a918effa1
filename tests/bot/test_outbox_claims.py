"""Two bot workers' outboxes on one database draw one player's hand (the race of several
workers: one sends the hand anew and deletes the old message, and the other, which read the
old message's id before, edits it): with the surfaces claimed in storage the other finds the
new message, so the player keeps one hand message with live buttons and no call is answered
"not found" or "not modified". Real outboxes and a PTB bot against the fake Bot API; the
end-to-end test with two processes is ``tests/bot/test_e2e_workers.py``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from bot.budget import ChatBudget
from bot.outbox import Content, Outbox
from bot.presenter import hand_key
from bot.presenter.base import SurfaceClaims
from storage import MessageRef, SqliteRepository
from tests.fakebot import FakeBotApi
from tests.storage.helpers import new_game, seed, start


async def _nothing(*_: int) -> None:
    return None


def _hand(label: str, version: int) -> Content:
    keyboard = [[InlineKeyboardButton(label, callback_data=f"a1.{version}.play:{label}")]]
    return Content(f"Your cards: {label}", InlineKeyboardMarkup(keyboard))


class Tasks:
    """The outboxes' chat workers (their ``spawn``), to wait for."""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[None]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(coroutine)
        self.running.add(task)
        task.add_done_callback(self.running.discard)
        return task

    async def settled(self) -> None:
        """Wait until every worker is done (a worker may start another as it ends)."""
        while self.running:
            await asyncio.wait_for(asyncio.gather(*self.running), timeout=30)


@pytest.mark.parametrize("same", [True, False], ids=["same content", "other content"])
async def test_two_outboxes_drawing_one_hand_leave_one_live_hand(
    fake_api: FakeBotApi, bot: Bot, tmp_path: Path, same: bool
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    chat = anna.private_chat.id
    async with await SqliteRepository.open(tmp_path / "db.sqlite3") as repo:
        await seed(repo)
        game = await new_game(repo)
        version = await start(repo, game)
        key = hand_key(game.game_id, 0)
        workers, tasks = [], Tasks()
        for _ in range(2):
            budget = ChatBudget(group=None, private=None, overall=None)
            outbox = Outbox(bot, budget, _nothing, _nothing, tasks.spawn, shared=True)
            outbox.claims = SurfaceClaims(repo, time.time)
            workers.append(outbox)
        one, other = workers

        async def record(message_id: int) -> None:
            ref = MessageRef(chat, message_id)
            await repo.set_hand_message(game.game_id, 0, ref, expected_version=None)

        one.show(key, chat, _hand("7♠", version), message_id=None, on_sent=record)
        await tasks.settled()
        loaded = await repo.get_game(game.game_id)
        assert loaded is not None and loaded.seats[0].hand_message is not None
        old = loaded.seats[0].hand_message.message_id
        # the next version: one worker sends it anew (the player's turn) and deletes the old
        # message; the other read the old message's id from storage before that and edits it
        newer = _hand("8♠", version + 1)
        one.show(key, chat, newer, message_id=old, fresh=True, on_sent=record, drawn_at=version + 1)
        await tasks.settled()
        edit = newer if same else _hand("9♠", version + 1)
        other.show(key, chat, edit, message_id=old, on_sent=record, drawn_at=version + 1)
        await tasks.settled()
        await fake_api.idle(quiet=0.1)
    live = [m for m in anna.private_chat.messages if m.from_bot and m.buttons]
    assert len(live) == 1
    assert live[0].message_id != old  # the new message, sent once
    refused = [c for c in fake_api.calls if not c.ok and c.description]
    assert refused == []


async def test_a_claimed_drawing_of_the_newest_state_costs_no_more_reads_or_writes(
    fake_api: FakeBotApi, bot: Bot, tmp_path: Path
) -> None:
    """The claim reads the game's version: a drawing made at that version is sent without
    asking for a redraw, and the claim's release records the new message (no second write
    through ``on_sent``); a drawing of an older version is asked about."""
    anna = fake_api.add_user("Anna", started=True)
    chat = anna.private_chat.id
    async with await SqliteRepository.open(tmp_path / "db.sqlite3") as repo:
        await seed(repo)
        game = await new_game(repo)
        version = await start(repo, game)
        key = hand_key(game.game_id, 0)
        tasks = Tasks()
        asked: list[int] = []
        recorded: list[int] = []

        async def refresh(_: object, drawn_at: int) -> tuple[Content | None, int] | None:
            asked.append(drawn_at)
            return None

        async def record(message_id: int) -> None:
            recorded.append(message_id)

        budget = ChatBudget(group=None, private=None, overall=None)
        outbox = Outbox(bot, budget, _nothing, _nothing, tasks.spawn, shared=True)
        outbox.claims = SurfaceClaims(repo, time.time)
        outbox.refresh = refresh
        outbox.show(
            key, chat, _hand("7♠", version), message_id=None, on_sent=record, drawn_at=version
        )
        await tasks.settled()
        loaded = await repo.get_game(game.game_id)
        assert loaded is not None and loaded.seats[0].hand_message is not None
        sent = [m for m in anna.private_chat.messages if m.from_bot]
        assert [m.message_id for m in sent] == [loaded.seats[0].hand_message.message_id]
        assert asked == [] and recorded == []
        outbox.show(key, chat, _hand("8♠", version - 1), message_id=None, drawn_at=version - 1)
        await tasks.settled()
        assert asked == [version - 1]
