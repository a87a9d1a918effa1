"""Stopping the bot (Ctrl-C) while a computer thinks shuts down cleanly.

A terminal's Ctrl-C sends SIGINT to the whole process group, the computer players' worker
processes included; a worker that died of it broke the pool under the running decision and
the bot logged a ``BrokenProcessPool`` traceback.
"""

from __future__ import annotations

import logging
import os
import random
import signal
from pathlib import Path

import pytest

from tests.bot.helpers import active_buttons, hand_message, make_app, open_and_fill, play_turn
from tests.fakebot import FakeBotApi, run_polling


async def test_ctrl_c_while_a_computer_thinks_stops_cleanly_and_the_game_goes_on(
    fake_api: FakeBotApi, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    db = tmp_path / "db.sqlite3"
    rng = random.Random(4)
    caplog.set_level(logging.INFO)
    app = make_app(fake_api, db, level="basic", workers=1)
    async with run_polling(app, fake_api) as bot:  # fails on any ERROR log record
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        await fake_api.wait_for(
            lambda: (m := hand_message(anna)) is not None and bool(active_buttons(m)), timeout=20
        )
        pool = app.bot_data["app"].service.computers._executor
        workers = list(pool._processes.values())
        assert workers
        for process in workers:  # Ctrl-C in the terminal reaches the workers too
            os.kill(process.pid, signal.SIGINT)
        assert await play_turn([anna], rng)  # the computers think next ...
        # ... and the bot stops at once, while they do
    assert all(p.is_alive() is False or p.exitcode in (None, 0) for p in workers)
    assert not [r for r in caplog.records if "broke" in r.getMessage()]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    cards_before = _cards(fake_api, group.id)

    async with run_polling(make_app(fake_api, db, level="basic", workers=1), fake_api) as bot:
        await bot.settle(timeout=30)
        await fake_api.wait_for(
            lambda: (m := hand_message(anna)) is not None and bool(active_buttons(m)), timeout=30
        )
        assert await play_turn([anna], rng)
        await bot.settle(timeout=30)
    assert _cards(fake_api, group.id) > cards_before


def _cards(api: FakeBotApi, chat_id: int) -> int:
    """Edits of the group's table so far (it changes with every card)."""
    return api.calls.count("editMessageText", chat_id=chat_id)
