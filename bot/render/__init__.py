"""Player-facing text: pure functions from engine objects to HTML text and abstract buttons.

No Telegram calls, no I/O. Every function takes a :class:`bot.i18n.Translator`; every
user-supplied name is HTML-escaped where it is put into HTML (``parse_mode=HTML``). Callback
alerts (:mod:`bot.render.reasons`, ``ack_*``) are plain text. Keyboards are rows of
:class:`Button` with abstract action tokens that the bot encodes into callback data.

Modules:
    common: Button, Keyboard, Rendered, Player, seat / team / name helpers.
    cards: card and suit names, card labels, hand order.
    table: the group's table message (``render_table``).
    hand: a player's private hand and keyboard (``render_hand``).
    sheet: the boompje (``render_sheet``, ``render_sheet_view``) and ``round_summary``.
    sheet_view: ``SheetView``, the sheet as data, read by the text sheet and the picture.
    picture: the sheet as a PNG (``render_sheet_png``), its caption and switch button.
    reasons: ``explain`` (engine refusals) and ``refusal_text`` (the bot's own refusals).
    lobby: the lobby message and keyboard (``render_lobby``).
    messages: help, command menus, language picker, stop / start / end notices, reminders.
    rules_text: the ``/rules`` text of a table.
    announce: one line per engine event (``describe_event``).
    presets, bids: names of presets and settings; bidding lines and action buttons.
"""

from bot.render.announce import describe_event
from bot.render.common import Button, Keyboard, Player, Rendered
from bot.render.hand import render_hand
from bot.render.lobby import Lobby, render_lobby
from bot.render.reasons import explain, refusal_text, tap_answer
from bot.render.rules_text import rules_text
from bot.render.sheet import render_sheet, round_summary
from bot.render.table import render_table

__all__ = [
    "Button",
    "Keyboard",
    "Lobby",
    "Player",
    "Rendered",
    "describe_event",
    "explain",
    "refusal_text",
    "render_hand",
    "render_lobby",
    "render_sheet",
    "render_table",
    "round_summary",
    "rules_text",
    "tap_answer",
]
