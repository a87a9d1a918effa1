"""End to end: a rematch. The final message of a finished group game has a "🔁 Play again"
button; a player's tap opens a new table in the group with the same players in the same seats
and the same rules, the first dealer one seat on; each player confirms with "I'm in" (seats not
confirmed go to computers after the configured wait); the session's totals add up next to the
sheet. Outsiders, forged taps, double taps and the table caps are refused, and a rematch lobby
survives a restart."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

from bot.service.rematch import first_dealer
from bot.tables import TableSettings
from bot.taps import Again, NextSetting, Ready, Setting, Start, Tap, encode
from engine.cards import Seat, Team
from engine.record import replay_actions
from storage import Game, GameStatus, SeatKind, open_repository
from tests.fakebot import BotRunner, FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import by_action, make_app, play_to_end


async def _games(db: Path) -> list[Game]:
    repo = await open_repository(db)
    try:
        return list(await repo.export_games())
    finally:
        await repo.close()


def _totals(game: Game) -> tuple[int, int]:
    """(NS, EW) of a finished game, replayed from its stored log."""

    settings = TableSettings.from_json(game.settings)
    state = replay_actions(settings.rules, game.seed, game.actions or ())
    totals = state.totals()
    return totals[Team.NS], totals[Team.EW]


preset = NextSetting(Setting.PRESET)


def _dealer(game: Game) -> Seat:
    return first_dealer(TableSettings.from_json(game.settings).rules, game.seed)


async def _play_a_game(
    api: FakeBotApi, bot: BotRunner, group: FakeChat, humans: list[SimUser], rng: random.Random
) -> FakeMessage:
    """Anna opens an 8-round table, the humans sit in order, computers fill it, start, play to
    the end. Returns the final message."""
    await humans[0].send(group, "/klaverjas")
    await bot.settle()
    lobby = api.last_message(group)
    await (await humans[0].tap(lobby, by_action("rounds:toggle"))).wait_answered()
    await bot.settle()
    for seat, user in enumerate(humans):
        await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
        await bot.settle()
    for _ in range(4 - len(humans)):
        await (await humans[0].tap(lobby, by_action("bot:add"))).wait_answered()
        await bot.settle()
    await (await humans[0].tap(lobby, by_action("start"))).wait_answered()
    await bot.settle()
    return await _play_on(api, bot, group, humans, rng)


async def _play_on(
    api: FakeBotApi, bot: BotRunner, group: FakeChat, humans: list[SimUser], rng: random.Random
) -> FakeMessage:
    await play_to_end(bot, humans, rng)
    await bot.settle()
    final = api.last_message(group)
    assert "Game over" in final.body
    return final


def _again(message: FakeMessage) -> str:
    data = [b.callback_data for b in message.buttons if b.callback_data]
    (again,) = [d for d in data if d.endswith(".again")]
    return again


async def _tap(bot: BotRunner, user: SimUser, message: FakeMessage, data: str) -> Any:
    tap = await user.tap_data(message, data)
    await tap.wait_answered()
    await bot.settle()
    return tap


def _setup(api: FakeBotApi) -> tuple[list[SimUser], SimUser, SimUser, FakeChat]:
    anna, bert, cas, dirk = (
        api.add_user(n, language_code="en", started=True) for n in ("Anna", "Bert", "Cas", "Dirk")
    )
    group = api.add_group("Club", members=[anna, bert, cas, dirk], admins=[dirk])
    return [anna, bert], cas, dirk, group


async def test_a_rematch_keeps_seats_and_rules_moves_the_dealer_and_adds_up(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    humans, cas, _, group = _setup(fake_api)
    anna, bert = humans
    rng = random.Random(5)
    app = make_app(fake_api, db, default_language="en")
    async with run_polling(app, fake_api) as bot:
        final = await _play_a_game(fake_api, bot, group, humans, rng)
        data = _again(final)
        (first,) = await _games(db)
        assert first.table_message_id == final.message_id
        # An outsider (a member who did not play, no admin) cannot start it.
        tap = await _tap(bot, cas, final, data)
        assert tap.show_alert and "Only the players of this game" in tap.text
        # Forged: the same data on another message of the group, another version, a game
        # that is not over.
        other = next(
            m
            for m in reversed(group.all_messages)
            if m.from_bot and m.message_id < final.message_id
        )
        tap = await _tap(bot, anna, other, data)
        assert tap.show_alert and "does not belong here" in tap.text
        forged = encode(Tap(first.game_id, first.version + 1, Again()))
        tap = await _tap(bot, anna, final, forged)
        assert tap.show_alert and "out of date" in tap.text
        assert len(await _games(db)) == 1
        # Anna's tap opens the rematch (her seat confirmed by it); a second tap does not.
        tap = await _tap(bot, anna, final, data)
        assert not tap.show_alert and "Rematch" in tap.text
        tap = await _tap(bot, bert, final, data)
        assert not tap.show_alert and "started already" in tap.text
        first, second = await _games(db)
        assert second.status is GameStatus.LOBBY
        assert [s.user_id for s in second.seats] == [s.user_id for s in first.seats]
        assert [s.kind for s in second.seats] == [s.kind for s in first.seats]
        old, new = TableSettings.from_json(first.settings), TableSettings.from_json(second.settings)
        assert new.rules == old.rules and new.rules.rounds == 8
        assert new.session is not None and new.session.previous == first.game_id
        assert new.session.pending == (1,)
        assert _dealer(second) is _dealer(first).left
        lobby = fake_api.last_message(group)
        assert "Rematch" in lobby.body and "Waiting for" in lobby.body and "Bert" in lobby.body
        # The rematch lobby keeps its rules and starts by itself (forged taps: the lobby
        # shows no start or settings button while it waits); only its players confirm.
        for forged_payload, words in ((Start(), "starts by itself"), (preset, "same rules")):
            forged = encode(Tap(second.game_id, second.version, forged_payload))
            tap = await _tap(bot, anna, lobby, forged)
            assert tap.show_alert and words in tap.text
        ready = encode(Tap(second.game_id, second.version, Ready()))
        tap = await _tap(bot, cas, lobby, ready)
        assert tap.show_alert and "do not have a seat" in tap.text
        tap = await _tap(bot, bert, final, ready)  # not on its own message
        assert tap.show_alert and "does not belong here" in tap.text
        tap = await _tap(bot, anna, lobby, ready)  # confirmed by her "again"
        assert not tap.show_alert and "confirmed already" in tap.text
        assert (await _games(db))[1].status is GameStatus.LOBBY
        tap = await bert.tap(lobby, by_action("ready"))
        await tap.wait_answered()
        await bot.settle()
        assert not tap.show_alert and tap.text == "You're in."
        _, second = await _games(db)
        assert second.status is GameStatus.ACTIVE
        final2 = await _play_on(fake_api, bot, group, humans, rng)
        first, second = await _games(db)
        (ns1, ew1), (ns2, ew2) = _totals(first), _totals(second)
        assert "This session, 2 games" in final2.body
        assert f"{ns1 + ns2} – {ew1 + ew2}" in final2.body
        # The third game of the evening carries the first two's totals.
        await _tap(bot, bert, final2, _again(final2))
        third = (await _games(db))[2]
        session = TableSettings.from_json(third.settings).session
        assert session is not None and (session.games, session.ns, session.ew) == (
            2,
            ns1 + ns2,
            ew1 + ew2,
        )
        assert session.pending == (0,)
        assert _dealer(third) is _dealer(second).left
    fake_api.assert_callbacks_answered_once()


async def test_an_admin_may_start_it_and_it_closes_when_nobody_confirms(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    humans, _, dirk, group = _setup(fake_api)
    app = make_app(fake_api, db, default_language="en", config={"rematch_confirm_seconds": 0.5})
    async with run_polling(app, fake_api) as bot:
        final = await _play_a_game(fake_api, bot, group, humans, random.Random(3))
        tap = await _tap(bot, dirk, final, _again(final))  # an admin who did not play
        assert not tap.show_alert
        for _ in range(200):  # the wait runs out: nobody confirmed, the lobby closes
            games = await _games(db)
            if games[-1].status is not GameStatus.LOBBY:
                break
            await asyncio.sleep(0.05)
        await bot.settle()
        assert [g.status for g in games] == [GameStatus.FINISHED, GameStatus.ABANDONED]
        # The old game's button is spent: one rematch per game.
        tap = await _tap(bot, humans[0], final, _again(final))
        assert not tap.show_alert and "started already" in tap.text
        assert len(await _games(db)) == 2
        assert "closed" in fake_api.last_message(group).body
    fake_api.assert_callbacks_answered_once()


async def test_unconfirmed_seats_go_to_computers_after_the_wait(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    humans, _, _, group = _setup(fake_api)
    app = make_app(fake_api, db, default_language="en", config={"rematch_confirm_seconds": 0.5})
    async with run_polling(app, fake_api) as bot:
        final = await _play_a_game(fake_api, bot, group, humans, random.Random(4))
        await _tap(bot, humans[0], final, _again(final))
        for _ in range(200):
            games = await _games(db)
            if games[-1].status is not GameStatus.LOBBY:
                break
            await asyncio.sleep(0.05)
        await bot.settle()
        second = games[-1]
        assert second.status is GameStatus.ACTIVE
        assert second.seats[0].user_id == humans[0].id
        assert second.seats[1].kind is SeatKind.COMPUTER
    fake_api.assert_callbacks_answered_once()


async def test_a_rematch_lobby_survives_a_restart(fake_api: FakeBotApi, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    humans, _, _, group = _setup(fake_api)
    anna, bert = humans
    async with run_polling(make_app(fake_api, db, default_language="en"), fake_api) as bot:
        final = await _play_a_game(fake_api, bot, group, humans, random.Random(6))
        await _tap(bot, anna, final, _again(final))
        lobby = fake_api.last_message(group)
    async with run_polling(make_app(fake_api, db, default_language="en"), fake_api) as bot:
        await bot.settle()
        tap = await _tap(bot, anna, final, _again(final))  # still once
        assert "started already" in tap.text
        tap = await bert.tap(lobby, by_action("ready"))
        await tap.wait_answered()
        await bot.settle()
        assert not tap.show_alert
        first, second = await _games(db)
        assert second.status is GameStatus.ACTIVE
        assert [s.user_id for s in second.seats] == [s.user_id for s in first.seats]
        assert TableSettings.from_json(second.settings).session is not None
    fake_api.assert_callbacks_answered_once()


async def test_the_table_caps_hold_for_a_rematch(fake_api: FakeBotApi, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    humans, _, _, group = _setup(fake_api)
    anna, bert = humans
    other = fake_api.add_group("Other", members=[anna])
    app = make_app(fake_api, db, default_language="en", config={"max_tables_per_player": 1})
    async with run_polling(app, fake_api) as bot:
        final = await _play_a_game(fake_api, bot, group, humans, random.Random(8))
        await anna.send(other, "/klaverjas")  # Anna's one open table
        await bot.settle()
        tap = await _tap(bot, anna, final, _again(final))
        assert tap.show_alert and "most open tables" in tap.text
        assert len(await _games(db)) == 2
        tap = await _tap(bot, bert, final, _again(final))  # Bert may open one
        assert not tap.show_alert
        games = await _games(db)
        assert len(games) == 3 and games[-1].creator_id == bert.id
    fake_api.assert_callbacks_answered_once()


async def test_the_wait_for_confirmations_survives_a_restart(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    humans, _, _, group = _setup(fake_api)
    now = [time.time()]

    def clock() -> float:
        return now[0]

    app = make_app(fake_api, db, default_language="en", clock=clock)
    async with run_polling(app, fake_api) as bot:
        final = await _play_a_game(fake_api, bot, group, humans, random.Random(9))
        await _tap(bot, humans[0], final, _again(final))
        assert (await _games(db))[-1].status is GameStatus.LOBBY
    now[0] += 61  # the bot was down while the minute ran out
    again = make_app(fake_api, db, default_language="en", clock=clock)
    async with run_polling(again, fake_api) as bot:
        for _ in range(200):
            second = (await _games(db))[-1]
            if second.status is not GameStatus.LOBBY:
                break
            await asyncio.sleep(0.05)
        await bot.settle()
        assert second.status is GameStatus.ACTIVE
        assert second.seats[0].user_id == humans[0].id
        assert second.seats[1].kind is SeatKind.COMPUTER  # Bert never confirmed
    fake_api.assert_callbacks_answered_once()
