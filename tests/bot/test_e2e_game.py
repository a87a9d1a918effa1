"""End-to-end: four simulated users play a whole boompje in a group through the real PTB
application talking HTTP to the fake Bot API."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.admin import export
from tests.fakebot import FakeBotApi, run_polling

from .helpers import make_app, open_and_fill, play_to_end


@pytest.mark.slow
async def test_four_humans_play_a_full_boompje_in_a_group(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "bot.sqlite3"
    names = ["Anna", "Bert", "Cas", "<b>Dirk & co</b>"]
    humans = [fake_api.add_user(n, language_code="nl", started=True) for n in names]
    group = fake_api.add_group("Klaverjasclub", members=humans, admins=[humans[0]])
    rng = random.Random(7)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, humans)
        started = len(fake_api.calls)
        taps = await play_to_end(bot, humans, rng)
    fake_api.assert_callbacks_answered_once()
    games = await export(str(db))
    assert len(games) == 1
    game = games[0]
    assert game["status"] == "finished"
    assert len(game["rounds"]) == 16
    assert [p["name"] for p in game["players"]] == names
    assert game["totals"]["NS"] + game["totals"]["EW"] == sum(
        r["score"]["NS"] + r["score"]["EW"] for r in game["rounds"]
    )
    assert all(len(r["tricks"]) == 8 for r in game["rounds"])
    assert taps >= 16 * 33
    final = fake_api.last_message(group)
    assert "&lt;b&gt;Dirk" not in final.body  # shown as text, escaped once
    # ... and never as markup: every message of the group that names him (each round's
    # summary does) shows the name as he typed it
    naming = [m.body for m in fake_api.chat(group).bot_messages if "Dirk" in m.body]
    assert len(naming) >= 16 and all("<b>Dirk & co</b>" in body for body in naming)
    json.dumps(game)
    plays = sum(len(r["tricks"]) * 4 for r in game["rounds"])
    sends = fake_api.calls.filter("sendMessage", chat_id=group.id)
    edits = fake_api.calls.filter("editMessageText", chat_id=group.id)
    # One edited table message per game, not a message per card: per round a summary and
    # the table message moved below it; at most one edit per card. The first table message
    # (the lobby, edited as people sat down) is edited in place as round 1's cards are
    # played, and then once more into that round's summary.
    assert len(sends) <= 2 * 16 + 3
    assert len(edits) <= plays + 16 * 8
    in_play = fake_api.calls.filter("editMessageText", chat_id=group.id, since=started)
    first_table = [c for c in in_play if c.param("message_id") == table.message_id]
    assert len(first_table) > 1
