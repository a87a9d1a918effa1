"""End to end: a tap is answered before anything slow happens on its behalf. The answer to an
accepted card (the callback's answer, no text) reaches Telegram before the move is written
(the write may wait behind other games' database work) and before the hand or the table is
redrawn, also while other tables play; a tap while the table's computer is still thinking (the
pool busy with other tables) is refused at once, not after the computer's move.

No timed assertions: a held write or a held computer decision waits for the answer, and a
generous deadline only ends the wait when the answer never comes first (the old order)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path
from typing import Any

import pytest

from bot.computer import ComputerPlayers
from bot.context import BotData, KlaverjasApp
from engine.actions import Action
from engine.observe import Observation
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.calls import ApiCall
from tests.fakebot.model import CallbackQueryRecord, FakeMessage

from .helpers import active_buttons, by_action, hand_message, make_app, play_turn

pytestmark = pytest.mark.e2e

DEADLOCK_BREAKER = 10.0
"""Seconds after which a held write or decision goes on anyway (the answer did not come
first: the test fails on what it recorded, never on a time)."""

OUTPUT = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage")


def _data(app: KlaverjasApp) -> BotData:
    data = app.bot_data["app"]
    assert isinstance(data, BotData)
    return data


async def _to_card_turn(bot: Any, user: SimUser, rng: random.Random) -> FakeMessage:
    """Play on (bids included) until ``user``'s hand offers cards to play; that hand."""
    for _ in range(60):
        hand = hand_message(user)
        buttons = active_buttons(hand) if hand is not None else []
        if hand is not None and buttons and all(a.startswith("play:") for _, a in buttons):
            return hand
        assert await play_turn([user], rng, user.private_chat)
        await bot.settle()
    raise AssertionError("no card to play came")


def _card(hand: FakeMessage) -> str:
    """A legal card of the hand (not dimmed)."""
    return next(
        a
        for label, a in active_buttons(hand)
        if a.startswith("play:") and not label.startswith("·")
    )


def _calls_for(api: FakeBotApi, query: CallbackQueryRecord) -> list[ApiCall]:
    """The bot's calls in the tap's chat from the tap's delivery on, the answer included."""
    assert query.delivered_at is not None
    return [
        c
        for c in api.calls
        if c.started >= query.delivered_at
        and (
            (
                c.method == "answerCallbackQuery"
                and str(c.params.get("callback_query_id")) == query.id
            )
            or (c.method in OUTPUT and c.chat_id == query.chat_id)
        )
    ]


async def test_an_accepted_card_is_answered_before_its_move_is_written_and_shown(
    fake_api: FakeBotApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anna's card is answered while its write is held (as behind other games' writes), and
    the fake receives that answer before the hand's and the table's redraw; Bob's and Cleo's
    tables play meanwhile (their cards tapped at the same moment)."""
    anna = fake_api.add_user("Anna", started=True)
    others = [fake_api.add_user(n, started=True) for n in ("Bob", "Cleo")]
    rng = random.Random(11)
    app = make_app(fake_api, tmp_path / "db.sqlite3")
    async with run_polling(app, fake_api) as bot:
        for user in (anna, *others):
            await user.send(None, "/klaverjas")
        await bot.settle()
        hands = [await _to_card_turn(bot, u, rng) for u in (anna, *others)]
        repo = _data(app).service.repo
        game = (await repo.open_game_of_chat(anna.id)).game_id  # type: ignore[union-attr]
        write = repo.append_actions
        held = asyncio.Event()
        answered_while_held: list[bool] = []
        anna_tap: list[CallbackQueryRecord] = []

        async def held_write(game_id: int, *args: Any, **kw: Any) -> int:
            if game_id == game and not held.is_set():
                held.set()
                try:
                    await fake_api.wait_for(lambda: anna_tap[0].answered, DEADLOCK_BREAKER)
                    answered_while_held.append(True)
                except AssertionError:
                    answered_while_held.append(False)
            return await write(game_id, *args, **kw)

        monkeypatch.setattr(repo, "append_actions", held_write)
        taps = []
        for user, hand in zip((anna, *others), hands, strict=True):
            taps.append(await user.tap(hand, by_action(_card(hand))))
        anna_tap.append(taps[0].query)
        for tap in taps:
            await tap.wait_answered(DEADLOCK_BREAKER * 2)
        await bot.settle()
        assert held.is_set()
        assert answered_while_held == [True], "the card was answered only after its write"
        for tap in taps:
            assert tap.answered and not tap.show_alert and tap.text is None
            calls = _calls_for(fake_api, tap.query)
            methods = [c.method for c in calls]
            assert methods[0] == "answerCallbackQuery", methods
            assert any(m.startswith("edit") or m == "sendMessage" for m in methods[1:]), methods
            assert calls[0].finished is not None
            # the answer was complete before the first redraw of that tap's chat began
            assert all(c.started >= calls[0].finished for c in calls[1:]), methods
    fake_api.assert_callbacks_answered_once()


async def test_a_tap_while_the_computer_thinks_is_answered_before_its_move(
    fake_api: FakeBotApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anna plays a card; the next computer's decision waits for the pool (held here, as
    behind other tables' computers). Her second tap on the old hand meanwhile is refused at
    once (an alert: it is not her turn), not after the computer moved; then the computers
    move and her hand comes back."""
    anna = fake_api.add_user("Anna", started=True)
    rng = random.Random(5)
    app = make_app(fake_api, tmp_path / "db.sqlite3")
    thinking = asyncio.Event()
    free = asyncio.Event()
    choose = ComputerPlayers.choose

    async def slow_choose(self: ComputerPlayers, obs: Observation, seed: int, **kw: Any) -> Action:
        if not free.is_set():
            thinking.set()
            await free.wait()
        return await choose(self, obs, seed, **kw)

    async with run_polling(app, fake_api) as bot:
        await anna.send(None, "/klaverjas")
        await bot.settle()
        hand = await _to_card_turn(bot, anna, rng)
        monkeypatch.setattr(ComputerPlayers, "choose", slow_choose)
        card = _card(hand)
        stale = next(t for row in hand.keyboard_rows() for _, t in row if t and t.endswith(card))
        played = await anna.tap(hand, by_action(card))
        assert not (await played.wait_answered(DEADLOCK_BREAKER)).show_alert
        await asyncio.wait_for(thinking.wait(), DEADLOCK_BREAKER)
        again = await anna.tap_data(hand, stale)
        with contextlib.suppress(AssertionError):  # the old code answered only after the move
            await again.wait_answered(DEADLOCK_BREAKER)
        answered_first = again.answered
        free.set()
        await again.wait_answered(DEADLOCK_BREAKER)
        await bot.settle()
        assert answered_first, "the tap waited for the computer's move"
        assert again.show_alert and again.text
        after = hand_message(anna)
        assert after is not None and active_buttons(after)  # the computers moved, her turn
    fake_api.assert_callbacks_answered_once()
