"""Smoke: the real bot over HTTP against the fake Bot API."""

from __future__ import annotations

import random
from pathlib import Path

from tests.fakebot import FakeBotApi, run_polling

from .helpers import make_app, play_turn


async def test_solo_game_in_private_chat_starts_and_plays(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    app = make_app(fake_api, tmp_path / "db.sqlite3")
    rng = random.Random(1)
    async with run_polling(app, fake_api) as bot:
        await anna.send(None, "/klaverjas")
        await bot.settle()
        for _ in range(40):
            if not await play_turn([anna], rng, anna.private_chat):
                break
            await bot.settle()
    fake_api.assert_callbacks_answered_once()
    texts = [m.body for m in anna.private_chat.bot_messages]
    assert any("Slag" in t or "slag" in t for t in texts), texts[-3:]
