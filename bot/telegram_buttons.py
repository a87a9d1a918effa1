"""Inline buttons with a colour and disabled buttons, as the Bot API spells them.

Two newer fields of ``InlineKeyboardButton`` (Bot API text):

* ``style`` (Bot API 9.4): "Must be one of "danger" (red), "success" (green) or "primary"
  (blue). If omitted, then an app-specific style is used." python-telegram-bot 22.8 has it
  (``InlineKeyboardButton(style=...)``); apps released before February 2026 draw the button
  without it.
* ``disabled`` (Bot API 10.3): a :class:`DisabledButton` object ("a disabled button which does
  nothing. Currently holds no information", so ``{}``). It is one of the fields that give the
  button its type: "Exactly one of the fields other than text, icon_custom_emoji_id, and style
  must be used", so a disabled button has no ``callback_data``. python-telegram-bot 22.8 speaks
  Bot API 10.0 and has no such field: :func:`callback_button` sends it through ``api_kwargs``
  (which ``to_dict`` merges into the button's JSON). When the library gets its own field, only
  :class:`_Disabled` changes.

A Bot API server older than 10.3 ignores ``disabled`` and refuses the button as a text button
("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"). The
outbox then calls :func:`fallback_for`: the keyboard is sent again with the disabled buttons as
ordinary buttons (their taps answered with the reason, as before disabled buttons existed), and
this process sends no disabled button any more (:func:`disabled_supported`). The setting
``DISABLED_BUTTONS=false`` does the same from the start (:func:`configure`).
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest

from bot.render.common import Colour

STYLES: dict[Colour, str] = {
    Colour.RED: "danger",
    Colour.GREEN: "success",
    Colour.BLUE: "primary",
}
"""The Bot API ``style`` that draws each colour (Bot API 9.4: "danger" (red), "success" (green),
"primary" (blue); no other value is accepted)."""

MAX_BUTTONS = 100
"""Buttons one inline keyboard may hold (Telegram refuses more: "reply markup is too long";
undocumented, python-telegram-bot's ``InlineKeyboardMarkupLimit.TOTAL_BUTTON_NUMBER``)."""

MAX_ROW = 8
"""Buttons one row may hold (undocumented, ``InlineKeyboardMarkupLimit.BUTTONS_PER_ROW``)."""

MAX_CALLBACK_DATA = 64
"""Bytes of ``callback_data`` (Bot API: "1-64 bytes")."""

_REFUSED = "text buttons are unallowed"
"""What a server that does not know ``disabled`` answers for a disabled button."""


class _Support:
    """Whether this process sends disabled buttons (see the module docstring)."""

    __slots__ = ("disabled",)

    def __init__(self) -> None:
        self.disabled = True


_support = _Support()


def configure(*, disabled: bool) -> None:
    """Send disabled buttons (Bot API 10.3) from now on, or never (``DISABLED_BUTTONS``).
    Called when the application is built; resets an earlier :func:`fallback_for`."""
    _support.disabled = disabled


def disabled_supported() -> bool:
    """True while this process sends disabled buttons."""
    return _support.disabled


class _Disabled(InlineKeyboardButton):
    """A disabled button (``"disabled": {}``, Bot API 10.3, through ``api_kwargs``) that
    remembers the callback data it carries when disabled buttons cannot be sent."""

    __slots__ = ("_fallback_data",)

    def __init__(self, text: str, fallback_data: str, style: str | None) -> None:
        super().__init__(text, style=style, api_kwargs={"disabled": {}})
        self._fallback_data = fallback_data

    @property
    def fallback_data(self) -> str:
        """The callback data of the same button when it is not disabled."""
        return self._fallback_data


def callback_button(
    text: str, data: str, *, colour: Colour | None = None, disabled: bool = False
) -> InlineKeyboardButton:
    """A button whose tap sends ``data`` (callback data), with an optional colour;
    ``disabled``: a button that does nothing, drawn greyed (Bot API 10.3), or while this
    process sends none (:func:`disabled_supported`), the ordinary button."""
    style = STYLES[colour] if colour is not None else None
    if disabled and _support.disabled:
        return _Disabled(text, data, style)
    return InlineKeyboardButton(text, callback_data=data, style=style)


def is_disabled(button: InlineKeyboardButton) -> bool:
    """True for a button sent as disabled."""
    return isinstance(button, _Disabled)


def fallback_for(
    exc: BadRequest, markup: InlineKeyboardMarkup | None
) -> InlineKeyboardMarkup | None:
    """The keyboard to send instead when Telegram refused ``markup`` for its disabled buttons
    (a Bot API server older than 10.3), else None (the error is another one: raise it).

    From then on this process sends no disabled button (:func:`disabled_supported`).
    """
    if markup is None or _REFUSED not in exc.message.lower():
        return None
    if not any(is_disabled(b) for row in markup.inline_keyboard for b in row):
        return None
    _support.disabled = False
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(b.text, callback_data=b.fallback_data, style=b.style)
                if isinstance(b, _Disabled)
                else b
                for b in row
            ]
            for row in markup.inline_keyboard
        ]
    )


def check_limits(markup: InlineKeyboardMarkup) -> None:
    """Check a keyboard against Telegram's limits (:data:`MAX_BUTTONS`, :data:`MAX_ROW`,
    :data:`MAX_CALLBACK_DATA`).

    Raises:
        ValueError: naming the limit the keyboard exceeds.
    """
    rows = markup.inline_keyboard
    if sum(len(row) for row in rows) > MAX_BUTTONS:
        raise ValueError(f"more than {MAX_BUTTONS} buttons")
    for row in rows:
        if len(row) > MAX_ROW:
            raise ValueError(f"more than {MAX_ROW} buttons in a row")
        for b in row:
            data = b.callback_data
            if isinstance(data, str) and not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA:
                raise ValueError(f"callback data of {len(data.encode())} bytes: {data!r}")
