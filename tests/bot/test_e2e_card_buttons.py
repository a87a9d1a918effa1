"""End to end: the private hand reads at a glance. The fake Bot API records its card buttons
with ``style: "danger"`` for ♥ and ♦ (none for ♠ and ♣), the trump cards marked ★, and the cards
that may not be played now as disabled buttons (``"disabled": {}``, no callback data, Bot API
10.3). A Bot API server without disabled buttons refuses the first such hand; the bot sends it
again with those cards dimmed and tappable (the tap says which rule forbids the card) and sends
no disabled button after that."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.render.cards import TRUMP_MARK
from bot.telegram_buttons import configure, disabled_supported
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import Button, FakeMessage

from .helpers import hand_message, make_app, play_turn

pytestmark = pytest.mark.e2e

RED = ("♥", "♦")
TRUMP = re.compile(r"Troef: (?:<b>)?([♠♥♦♣])")
PLAY = re.compile(r"\.play:(10|[7-9JQKA])([SHDC])$")


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    yield
    configure(disabled=True)


def _card_buttons(hand: FakeMessage) -> list[Button]:
    """The card buttons of a hand (the first rows: every button until the first that is no
    card; a disabled one has no callback data)."""
    out = []
    for b in hand.buttons:
        is_card = b.disabled or PLAY.search(b.callback_data or "") is not None
        if not is_card:
            break
        out.append(b)
    return out


async def _play_until(
    bot: Any, anna: SimUser, rng: random.Random, found: Any, steps: int = 400
) -> FakeMessage:
    """Play on until Anna's hand satisfies ``found``; that hand."""
    for _ in range(steps):
        hand = hand_message(anna)
        if hand is not None and found(hand):
            return hand
        assert await play_turn([anna], rng, anna.private_chat), "the game ended"
        await bot.settle()
    raise AssertionError("no such hand came")


def _check_colours_and_trump(hand: FakeMessage) -> None:
    trump = TRUMP.search(hand.source_text or "")
    assert trump is not None, hand.source_text
    cards = _card_buttons(hand)
    assert len(cards) >= 2
    for b in cards:
        red = any(s in b.text for s in RED)
        assert b.style == ("danger" if red else None), b.raw
        assert (TRUMP_MARK in b.text) == (trump[1] in b.text), (trump[1], b.text)


async def test_the_private_hand_has_red_suits_trump_marks_and_disabled_cards(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    app = make_app(fake_api, tmp_path / "db.sqlite3")
    rng = random.Random(3)
    async with run_polling(app, fake_api) as bot:
        await anna.send(None, "/klaverjas")
        await bot.settle()
        hand = await _play_until(bot, anna, rng, lambda h: any(b.disabled for b in h.buttons))
        _check_colours_and_trump(hand)
        cards = _card_buttons(hand)
        disabled = [b for b in cards if b.disabled]
        playable = [b for b in cards if not b.disabled]
        assert disabled and playable
        for b in disabled:  # as Telegram gets it: a DisabledButton, no other type
            assert b.text.startswith("·") and b.text.endswith("·")
            assert set(b.raw) <= {"text", "disabled", "style"} and b.raw["disabled"] == {}
            with pytest.raises(LookupError, match="disabled"):
                await anna.tap(hand, b.text)
        for b in playable:
            assert not b.text.startswith("·") and b.callback_data
        # a playable card plays as before
        tap = await anna.tap(hand, playable[0].text)
        assert (await tap.wait_answered()).text is None
        await bot.settle()
    assert not fake_api.calls.errors()
    fake_api.assert_callbacks_answered_once()


async def test_without_disabled_buttons_the_hand_falls_back_to_dimmed_cards(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    fake_api.disabled_buttons = False  # a Bot API server older than 10.3
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    app = make_app(fake_api, tmp_path / "db.sqlite3")
    rng = random.Random(3)
    async with run_polling(app, fake_api) as bot:
        assert disabled_supported()
        await anna.send(None, "/klaverjas")
        await bot.settle()

        def dimmed(hand: FakeMessage) -> bool:
            return any(b.text.startswith("·") for b in _card_buttons(hand))

        hand = await _play_until(bot, anna, rng, dimmed)
        _check_colours_and_trump(hand)
        assert not any(b.disabled for b in hand.buttons)
        refused = fake_api.calls.errors()
        assert len(refused) == 1 and refused[0].status == 400
        assert "Text buttons are unallowed" in (refused[0].description or "")
        assert not disabled_supported()
        # the dimmed card is tappable and says why it may not be played
        card = next(b for b in _card_buttons(hand) if b.text.startswith("·"))
        assert card.callback_data is not None
        before = len(anna.private_chat.bot_messages)
        answer = await (await anna.tap(hand, card.text)).wait_answered()
        assert answer.show_alert and answer.text
        await bot.settle()
        assert len(anna.private_chat.bot_messages) == before
        # later hands: dimmed from the start, no refused call
        for _ in range(8):
            if not await play_turn([anna], rng, anna.private_chat):
                break
            await bot.settle()
    assert len(fake_api.calls.errors()) == 1
    fake_api.assert_callbacks_answered_once()
