"""The texts and buttons of "a fourth wanted" (:mod:`bot.service.alerts`): the lobby's 🔔,
``/notify``'s answers, and the private message that a table needs a player."""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.common import Button, Keyboard, Rendered, bold, esc, shorten
from bot.taps import AlertsOff, WantAlerts


def bell_button(tr: Translator) -> Button:
    """The lobby's 🔔: whoever taps it is told (or no longer told) of tables here."""
    return Button("🔔 " + tr.gettext("Tell me when a table here needs a player"), WantAlerts())


def with_bell(rendered: Rendered, tr: Translator) -> Rendered:
    """A lobby rendering with the 🔔 row added below its buttons."""
    return Rendered(rendered.text, (*rendered.keyboard, (bell_button(tr),)))


def alerts_toggled(tr: Translator, on: bool) -> str:
    """The answer to ``/notify`` or the 🔔 (plain): what the person now gets."""
    if on:
        return tr.gettext(
            "I will write to you in private when a table here needs a player "
            "(at most once an hour). /notify again turns it off."
        )
    return tr.gettext("No more messages from me about tables here.")


def alerts_need_private_chat(tr: Translator) -> str:
    """Added to ``/notify``'s answer for somebody the bot cannot write to yet (plain)."""
    return tr.gettext("Start a private chat with me first, or I cannot write to you.")


def alerts_in_private(tr: Translator) -> str:
    """``/notify`` in a private chat (plain)."""
    return tr.gettext("Send /notify in the group whose tables you want to hear of.")


def alerts_off_done(tr: Translator) -> str:
    """The answer to the 🔕 under a "a fourth wanted" message (plain)."""
    return tr.gettext("No more messages from me about tables in that group.")


def table_needs_player(
    tr: Translator, group: str, free: int, join_url: str, chat_id: int
) -> Rendered:
    """The private message: a table in ``group`` (its raw title) waits with ``free`` empty
    seats; buttons: take a seat (the deep link ``join_url``), no more of these."""
    text = "🃏 " + tr.ngettext(
        "A table in {group} needs a player: {n} seat is free.",
        "A table in {group} needs players: {n} seats are free.",
        free,
    ).format(group=bold(esc(shorten(group or "?", 40))), n=free)
    keyboard: Keyboard = (
        (Button("🪑 " + tr.gettext("Take a seat"), url=join_url),),
        (Button("🔕 " + tr.gettext("No more of these"), AlertsOff(chat_id)),),
    )
    return Rendered(text, keyboard)
