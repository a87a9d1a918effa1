"""End to end: a fourth wanted. Members who said ``/notify`` (or tapped the lobby's 🔔) get one
private message with a join button when a table in the group opens with empty seats: never the
lobby's own players, never somebody who left the group, at most one a person an hour, and none
after the 🔕 under it. The join button seats them."""

from __future__ import annotations

import time
from pathlib import Path

from bot.taps import AlertsOff, encode
from storage import open_repository
from tests.fakebot import BotRunner, FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import by_action, make_app


def _alerts(user: SimUser) -> list[FakeMessage]:
    """The "a table needs a player" messages in the user's private chat."""
    return [
        m
        for m in user.private_chat.all_messages
        if m.from_bot and not m.deleted and "A table in" in m.body
    ]


async def _open_and_cancel(bot: BotRunner, api: FakeBotApi, user: SimUser, group: FakeChat) -> None:
    await user.send(group, "/klaverjas")
    await bot.settle()
    lobby = api.last_message(group)
    await (await user.tap(lobby, by_action("cancel"))).wait_answered()
    await bot.settle()


async def test_members_who_asked_hear_of_a_table_once_an_hour(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert, cas, dirk, eve = (
        fake_api.add_user(n, language_code="en", started=True)
        for n in ("Anna", "Bert", "Cas", "Dirk", "Eve")
    )
    group = fake_api.add_group("Club", members=[anna, bert, cas, dirk, eve])
    now = [time.time()]
    app = make_app(fake_api, db, default_language="en", clock=lambda: now[0])
    async with run_polling(app, fake_api) as bot:
        for user in (anna, bert, cas, dirk):
            await user.start_bot()  # the bot may write to them in private
            await bot.settle()
            await user.send(group, "/notify")
            await bot.settle()
            answer = fake_api.last_message(group).body
            assert "I will write to you in private" in answer
            assert "Start a private chat" not in answer
        await eve.send(group, "/notify")  # never wrote to the bot: it cannot write to her
        await bot.settle()
        assert "Start a private chat with me first" in fake_api.last_message(group).body
        await dirk.leave(group)  # no longer a member: never told
        await bot.settle()
        await anna.send(group, "/klaverjas")  # Anna's own lobby: not told of it
        await bot.settle()
        lobby = fake_api.last_message(group)
        assert [len(_alerts(u)) for u in (anna, bert, cas, dirk, eve)] == [0, 1, 1, 0, 0]
        (alert,) = _alerts(cas)
        assert "Club" in alert.body and "4 seats are free" in alert.body
        # The join button is the lobby's deep link: it seats Cas through the private chat.
        (join,) = [b for b in alert.buttons if b.url]
        assert join.url is not None and "?start=j" in join.url
        await cas.start_bot(join.url.split("?start=")[1])
        await bot.settle()
        repo = await open_repository(db)
        try:
            (game,) = await repo.export_games()
            assert cas.id in [s.user_id for s in game.seats]
        finally:
            await repo.close()
        await (await anna.tap(lobby, by_action("cancel"))).wait_answered()
        await bot.settle()
        # Within the hour: no second message.
        now[0] += 1800
        await _open_and_cancel(bot, fake_api, anna, group)
        assert [len(_alerts(u)) for u in (bert, cas)] == [1, 1]
        # Bert turns them off with the 🔕 (only in his own private chat: a forged tap in the
        # group changes nothing).
        (bert_alert,) = _alerts(bert)
        off = [b for b in bert_alert.buttons if b.callback_data]
        assert [b.callback_data for b in off] == [encode(AlertsOff(group.id))]
        forged = await bert.tap_data(lobby, encode(AlertsOff(group.id)))
        await forged.wait_answered()
        assert forged.show_alert
        tap = await bert.tap(bert_alert, by_action(str(group.id)))
        await tap.wait_answered()
        await bot.settle()
        assert not tap.show_alert and "No more messages" in (tap.text or "")
        # An hour later: Cas hears of the next table, Bert no more.
        now[0] += 3600
        await _open_and_cancel(bot, fake_api, anna, group)
        assert [len(_alerts(u)) for u in (bert, cas)] == [1, 2]
    fake_api.assert_callbacks_answered_once()


async def test_the_lobby_bell_switches_it_for_the_tapper(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="en", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert])
    async with run_polling(make_app(fake_api, db, default_language="en"), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        tap = await bert.tap(lobby, by_action("alerts"))
        await tap.wait_answered()
        assert not tap.show_alert and "I will write to you" in (tap.text or "")
        repo = await open_repository(db)
        try:
            assert await repo.table_alert_users(group.id) == [bert.id]
        finally:
            await repo.close()
        tap = await bert.tap(lobby, by_action("alerts"))
        await tap.wait_answered()
        assert "No more messages" in (tap.text or "")
        await bot.settle()
    fake_api.assert_callbacks_answered_once()
