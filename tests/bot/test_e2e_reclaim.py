"""End to end: a player whose seat went to a computer takes it back with the button in the
private chat, gets the cards and plays on; forged, foreign, stale and late taps are refused
with an alert and change nothing; the way back survives a restart and ``/start`` offers it
again. The tables have 💡 on (without it a seat handed over comes back only at the next round,
``test_e2e_trust.py``)."""

from __future__ import annotations

import random
from pathlib import Path

from bot.i18n import get_translator
from bot.outcome import Refusal
from bot.render.reasons import refusal_text
from storage import Game, GameStatus, SeatKind, open_repository
from tests.fakebot import BotRunner, FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import by_action, hand_message, make_app, open_and_fill, play_turn

NL = get_translator("nl")


async def _game(db: Path) -> Game:
    repo = await open_repository(db)
    try:
        (game,) = await repo.export_games()
        return game
    finally:
        await repo.close()


async def _hand_over(bot: BotRunner, user: SimUser) -> FakeMessage:
    """The user hands the seat to a computer; returns their old hand message (now the offer)."""
    hand = hand_message(user)
    assert hand is not None
    await (await user.tap(hand, by_action("handover"))).wait_answered()
    await bot.settle()
    confirm = hand_message(user)
    assert confirm is not None
    await (await user.tap(confirm, by_action("handover:yes"))).wait_answered()
    await bot.settle()
    return confirm


def _reclaim_data(message: FakeMessage) -> str:
    """The callback data of the message's one "take my seat back" button."""
    (button,) = message.buttons
    assert button.text == "↩️ Mijn plaats terugnemen"
    assert button.callback_data is not None and ".reclaim:" in button.callback_data
    return button.callback_data


def _table_text(fake_api: FakeBotApi, group: FakeChat, game: Game) -> str:
    assert game.table_message_id is not None
    table = fake_api.chat(group).message(game.table_message_id)
    assert table is not None and table.text is not None
    return table.text


def _no_errors(bot: BotRunner) -> None:
    assert not bot.log_errors, [r.getMessage() for r in bot.log_errors]


async def test_a_player_hands_over_takes_the_seat_back_and_plays_on(
    fake_api: FakeBotApi,
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert])
    rng = random.Random(5)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2, tips=True)
        offer = await _hand_over(bot, bert)
        assert _reclaim_data(offer).endswith(".reclaim:1")
        assert "Bert heeft de plaats Oost aan een computerspeler gegeven." in (offer.text or "")
        game = await _game(db)
        assert game.seats[1].kind is SeatKind.COMPUTER and game.seats[1].former_user_id == bert.id
        assert "Bert kan de plaats Oost in de privéchat terugnemen." in _table_text(
            fake_api, group, game
        )
        for _ in range(3):  # Anna plays on against the computer in Bert's seat
            await play_turn([anna], rng)
            await bot.settle()

        tap = await bert.tap(offer, by_action("reclaim:1"))
        await tap.wait_answered()
        await bot.settle()

        assert not tap.show_alert and tap.text == "Welkom terug! Je kaarten komen eraan."
        game = await _game(db)
        assert game.seats[1].kind is SeatKind.HUMAN and game.seats[1].user_id == bert.id
        assert game.seats[1].former_user_id is None
        assert offer.buttons == [] and offer.text == "Welkom terug! Je kaarten komen eraan."
        hand = hand_message(bert)
        assert hand is not None and hand.message_id != offer.message_id
        assert fake_api.chat(group).find_messages("Bert is terug en neemt de plaats Oost weer in.")
        assert "terugnemen" not in _table_text(fake_api, group, game)
        taken_back_at = len(game.actions or ())
        for _ in range(40):
            if not await play_turn([anna, bert], rng):
                break
            await bot.settle()
        after = (await _game(db)).actions or ()
        # Nobody plays for a human without a turn timer: every move of seat 1 is Bert's own.
        assert any(a.startswith("1:") for a in after[taken_back_at:])
        _no_errors(bot)
    fake_api.assert_callbacks_answered_once()


async def test_forged_foreign_stale_and_late_taps_are_refused(
    fake_api: FakeBotApi,
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert, eve = (
        fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert", "Eve")
    )
    group = fake_api.add_group("Club", members=[anna, bert, eve])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2, tips=True)
        offer = await _hand_over(bot, bert)
        data = _reclaim_data(offer)
        game_id, version, _ = data[1:].split(".")
        await eve.start_bot()
        await bot.settle()
        eve_message = eve.private_chat.last_message()  # the bot's welcome
        assert eve_message is not None
        anna_hand = hand_message(anna)
        assert anna_hand is not None
        taps = {
            "Eve, who never sat there": await eve.tap_data(eve_message, data),
            "Anna, who is seated": await anna.tap_data(anna_hand, data),
            "another seat": await bert.tap_data(offer, f"a{game_id}.{version}.reclaim:3"),
            "a future version": await bert.tap_data(offer, f"a{game_id}.99999.reclaim:1"),
            "no such seat": await bert.tap_data(offer, f"a{game_id}.{version}.reclaim:9"),
        }
        for tap in taps.values():
            await tap.wait_answered()
        await bot.settle()
        assert {why: (t.show_alert, t.text) for why, t in taps.items()} == {
            "Eve, who never sat there": (True, refusal_text(NL, Refusal.NOT_YOUR_SEAT)),
            "Anna, who is seated": (True, refusal_text(NL, Refusal.ALREADY_SEATED)),
            "another seat": (True, refusal_text(NL, Refusal.NOT_YOUR_SEAT)),
            "a future version": (True, refusal_text(NL, Refusal.MALFORMED)),
            "no such seat": (True, refusal_text(NL, Refusal.MALFORMED)),
        }
        game = await _game(db)
        assert [s.kind for s in game.seats][1] is SeatKind.COMPUTER
        assert game.seats[1].former_user_id == bert.id

        ok = await bert.tap(offer, by_action("reclaim:1"))
        await ok.wait_answered()
        await bot.settle()
        stale = await bert.tap_data(offer, data)  # the same button once more
        await stale.wait_answered()
        assert not ok.show_alert
        assert (stale.show_alert, stale.text) == (True, refusal_text(NL, Refusal.ALREADY_SEATED))

        late_offer = await _hand_over(bot, bert)
        late_data = _reclaim_data(late_offer)
        await anna.send(group, "/stop")
        await bot.settle()
        await (await anna.tap(fake_api.last_message(group), by_action("stop:yes"))).wait_answered()
        await bot.settle()
        assert late_offer.buttons == []  # the stop closed the offer too
        late = await bert.tap_data(late_offer, late_data)
        await late.wait_answered()
        await bot.settle()
        assert (late.show_alert, late.text) == (True, refusal_text(NL, Refusal.GAME_FINISHED))
        game = await _game(db)
        assert game.status is GameStatus.ABANDONED and game.seats[1].kind is SeatKind.COMPUTER
        _no_errors(bot)
    fake_api.assert_callbacks_answered_once()


async def test_after_a_restart_start_offers_the_seat_again_and_it_works(
    fake_api: FakeBotApi,
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2, tips=True)
        offer = await _hand_over(bot, bert)
        _reclaim_data(offer)
    async with run_polling(make_app(fake_api, db), fake_api) as bot:  # a new process
        await bot.settle()
        await bert.start_bot()
        await bot.settle()
        assert offer.deleted  # replaced by a fresh offer below the welcome
        again = hand_message(bert)
        assert again is not None and again.message_id != offer.message_id
        assert "Een computerspeler speelt voor jou op plaats Oost" in (again.text or "")
        tap = await bert.tap(again, by_action("reclaim:1"))
        await tap.wait_answered()
        await bot.settle()
        assert not tap.show_alert
        game = await _game(db)
        assert game.seats[1].user_id == bert.id
        hand = hand_message(bert)
        assert hand is not None and hand.message_id != again.message_id
        _no_errors(bot)
    fake_api.assert_callbacks_answered_once()
