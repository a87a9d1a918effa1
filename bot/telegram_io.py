"""From abstract renderings to what Telegram gets: inline keyboards whose buttons carry
encoded taps (:mod:`bot.taps`), and :class:`~bot.outbox.Content` for the outbox."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.outbox import Content
from bot.render.common import Keyboard, Rendered
from bot.taps import AlertsOff, DailyTap, ForgetMe, PickLanguage, Tap, TopPeriod, encode
from bot.telegram_buttons import callback_button


def markup(keyboard: Keyboard, game_id: int = 0, version: int = 0) -> InlineKeyboardMarkup | None:
    """Turn abstract buttons into Telegram buttons: each payload becomes callback data
    (:func:`bot.taps.encode`) for ``game_id`` at state ``version``, with the button's colour;
    a disabled button is sent as one where Telegram supports it
    (:func:`bot.telegram_buttons.callback_button`). None for no buttons.

    Raises:
        ValueError: a game button without a game (``game_id`` 0).
    """
    if not keyboard:
        return None
    rows = []
    for row in keyboard:
        out = []
        for b in row:
            if b.url:
                out.append(InlineKeyboardButton(b.label, url=b.url))
            elif isinstance(b.action, PickLanguage | DailyTap | TopPeriod | ForgetMe | AlertsOff):
                data = encode(b.action)
                out.append(callback_button(b.label, data, colour=b.colour, disabled=b.disabled))
            elif b.action is not None:
                data = encode(Tap(game_id, version, b.action))
                out.append(callback_button(b.label, data, colour=b.colour, disabled=b.disabled))
        rows.append(out)
    return InlineKeyboardMarkup(rows)


def content(rendered: Rendered | str, game_id: int = 0, version: int = 0) -> Content:
    """A rendering (or plain HTML text) as outbox content, its buttons for ``game_id`` at
    ``version``."""
    if isinstance(rendered, str):
        return Content(rendered)
    return Content(rendered.text, markup(rendered.keyboard, game_id, version))
