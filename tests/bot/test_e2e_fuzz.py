"""A few thousand updates of every kind Telegram sends (commands with garbage,
forged and oversized taps, edits, channel posts, joins and leaves, migrations, anonymous
admins, topics, stickers, odd names...) beside two running games: no traceback, no logged
error, every tap answered once, and both games still play to their end.

The fuzzer is seeded (``tests/fakebot/fuzz.py``): the same updates on every run.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.bot.helpers import make_app, open_and_fill, play_to_end
from tests.fakebot import FakeBotApi, run_polling
from tests.fakebot.fuzz import UpdateFuzzer

UPDATES = 2000
BURST = 50


@pytest.mark.slow
async def test_thousands_of_odd_updates_break_nothing(fake_api: FakeBotApi, tmp_path: Path) -> None:
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert"))
    carla = fake_api.add_user("Carla", language_code="de", started=True)
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    commands = ("start", "help", "klaverjas", "stop", "score", "rules", "language", "settings")
    app = make_app(fake_api, tmp_path / "db.sqlite3")
    async with run_polling(app, fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        await carla.send(carla.private_chat, "/klaverjas")  # a solo game beside it
        await bot.settle()
        fuzzer = UpdateFuzzer(
            fake_api,
            random.Random(20261204),
            groups=[group],
            users=[anna, bert, carla],
            commands=commands,
            weights={"migrate": 0.2},  # a migration moves the group: now and then
        )
        for _ in range(UPDATES // BURST):
            await fuzzer.run(BURST)
            await bot.settle(timeout=30)
        kinds = {event.kind for event in fuzzer.events}
        rng = random.Random(1)
        await bot.settle(timeout=30)
        taps = await play_to_end(bot, [anna, bert], rng, chat=None)
        solo = await play_to_end(bot, [carla], rng, chat=carla.private_chat)
        games = await app.bot_data["app"].service.repo.export_games()
    assert len(fuzzer.events) >= UPDATES
    assert len(kinds) >= 15  # every kind of update, or nearly
    assert taps > 0 and solo > 0
    ours = [g for g in games if g.game_id in (1, 2)]  # the fuzz may open tables of its own
    assert [g.status.value for g in ours] == ["finished", "finished"]
    fake_api.assert_callbacks_answered_once()
