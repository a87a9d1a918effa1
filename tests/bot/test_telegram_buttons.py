"""Coloured and disabled inline buttons as Telegram gets them (:mod:`bot.telegram_buttons`,
:func:`bot.telegram_io.markup`): the JSON of the Bot API (``style``, 9.4; ``disabled``, 10.3),
the fallback when a server refuses disabled buttons, and the keyboard limits."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest

from bot import telegram_buttons
from bot.render.common import Button, Colour
from bot.taps import Move, Tap, encode
from bot.telegram_buttons import (
    callback_button,
    check_limits,
    configure,
    disabled_supported,
    fallback_for,
    is_disabled,
)
from bot.telegram_io import markup

REFUSED = BadRequest(
    "Can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
)


@pytest.fixture(autouse=True)
def _supported() -> Iterator[None]:
    configure(disabled=True)
    yield
    configure(disabled=True)


def _json(m: InlineKeyboardMarkup | None) -> list[list[dict[str, object]]]:
    assert m is not None
    rows: list[list[dict[str, object]]] = json.loads(m.to_json())["inline_keyboard"]
    return rows


def test_a_coloured_button_has_the_bot_api_style() -> None:
    assert callback_button("B♥", "x", colour=Colour.RED).to_dict() == {
        "text": "B♥",
        "callback_data": "x",
        "style": "danger",
    }
    assert callback_button("9♠", "x").to_dict() == {"text": "9♠", "callback_data": "x"}
    assert set(telegram_buttons.STYLES.values()) == {"danger", "success", "primary"}
    assert set(telegram_buttons.STYLES) == set(Colour)


def test_a_disabled_button_is_a_disabled_button_object_without_callback_data() -> None:
    b = callback_button("·7♥·", "a1.2.play:7H", colour=Colour.RED, disabled=True)
    assert is_disabled(b)
    assert b.to_dict() == {"text": "·7♥·", "style": "danger", "disabled": {}}
    # what python-telegram-bot sends: the api_kwargs are part of the JSON
    assert json.loads(InlineKeyboardMarkup([[b]]).to_json()) == {
        "inline_keyboard": [[{"text": "·7♥·", "style": "danger", "disabled": {}}]]
    }
    assert is_disabled(copy.deepcopy(b))


def test_without_support_a_disabled_button_is_an_ordinary_one() -> None:
    configure(disabled=False)
    b = callback_button("·7♥·", "a1.2.play:7H", disabled=True)
    assert not is_disabled(b)
    assert b.to_dict() == {"text": "·7♥·", "callback_data": "a1.2.play:7H"}


def test_markup_carries_colours_and_disabled_cards() -> None:
    keyboard = (
        (
            Button("★B♥", Move("play:JH"), colour=Colour.RED),
            Button("·9♠·", Move("play:9S"), disabled=True),
        ),
        (Button("Pas", Move("pass")),),
    )
    rows = _json(markup(keyboard, 7, 3))
    assert rows == [
        [
            {"text": "★B♥", "callback_data": encode(Tap(7, 3, Move("play:JH"))), "style": "danger"},
            {"text": "·9♠·", "disabled": {}},
        ],
        [{"text": "Pas", "callback_data": encode(Tap(7, 3, Move("pass")))}],
    ]
    configure(disabled=False)
    rows = _json(markup(keyboard, 7, 3))
    assert rows[0][1] == {"text": "·9♠·", "callback_data": encode(Tap(7, 3, Move("play:9S")))}


def test_a_refusal_of_disabled_buttons_gives_the_dimmed_keyboard_and_turns_them_off() -> None:
    sent = markup(((Button("·9♠·", Move("play:9S"), disabled=True, colour=None),),), 7, 3)
    assert sent is not None and disabled_supported()
    assert fallback_for(BadRequest("Message is too long"), sent) is None
    assert disabled_supported()
    instead = fallback_for(REFUSED, sent)
    assert instead is not None and not disabled_supported()
    assert _json(instead) == [
        [{"text": "·9♠·", "callback_data": encode(Tap(7, 3, Move("play:9S")))}]
    ]
    # no disabled button in it: the refusal is about something else
    plain = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="y")]])
    configure(disabled=True)
    assert fallback_for(REFUSED, plain) is None and fallback_for(REFUSED, None) is None
    assert disabled_supported()


def test_check_limits_names_each_limit() -> None:
    ok = [[InlineKeyboardButton(str(i), callback_data="x" * 64) for i in range(8)]] * 12
    check_limits(InlineKeyboardMarkup([*ok, [InlineKeyboardButton("a", callback_data="b")] * 4]))
    with pytest.raises(ValueError, match="100 buttons"):
        check_limits(
            InlineKeyboardMarkup([*ok, [InlineKeyboardButton("a", callback_data="b")] * 5])
        )
    with pytest.raises(ValueError, match="in a row"):
        check_limits(InlineKeyboardMarkup([[InlineKeyboardButton("a", callback_data="b")] * 9]))
    with pytest.raises(ValueError, match="65 bytes"):
        check_limits(
            InlineKeyboardMarkup([[InlineKeyboardButton("a", callback_data="é" * 32 + "x")]])
        )
