"""The caption under the sheet picture, and the button that switches picture and text.

The caption carries the essential result as text, so the message reads without
the picture and a notification says what happened: the game's end with the winner and the
totals (:func:`bot.render.messages.game_over`), a stopped game with the score at that moment
and no winner, or, during the game, how far it is and the score. HTML for
``parse_mode=HTML``, at most :data:`CAPTION_LIMIT` characters after parsing (the names are
shortened to :data:`bot.render.common.NAME_LIMIT`).
"""

from __future__ import annotations

from bot.i18n import Translator
from bot.render import messages
from bot.render.common import Button, bold, esc, team_html, us_them
from bot.render.klammern import standing_html
from bot.render.sheet import sheet_title, stopped_html, winner_html
from bot.render.sheet_klammern import klammern_winner_html
from bot.render.sheet_view import SheetView, Status
from bot.taps import ShowSheet
from engine.cards import TEAMS

CAPTION_LIMIT = 1024
"""Telegram's limit for a photo caption, in characters after entity parsing."""

SHOW_PICTURE = ShowSheet(picture=True)
SHOW_TEXT = ShowSheet(picture=False)
"""The taps of the switch button (:func:`switch_button`)."""


def _score_line(view: SheetView, tr: Translator) -> str:
    """ "Anna & Cas <b>540</b> · Bert & Dirk <b>320</b>", or "Wij 540 · Zij 320" in a private
    view (the caption's totals, Klaverjassen, §2.4)."""
    parts = []
    for team in view.order:
        if view.viewer is not None:
            who = esc(us_them(tr, team, view.viewer))
        else:
            who = team_html(tr, view.players, team)
        parts.append(f"{who} {bold(str(view.sum_total(team)))}")
    return " · ".join(parts)


def sheet_caption(
    view: SheetView, tr: Translator, *, game_end: bool = False, stopped_by: str | None = None
) -> str:
    """The caption of the sheet picture (HTML, in the reader's language).

    Args:
        view: the sheet.
        tr: the reader's translator.
        game_end: the message that announces the end of the game (not a later ``/score``):
            the caption is :func:`bot.render.messages.game_over`, with "thanks for playing".
        stopped_by: for a stopped game, the raw name of who stopped it ("" when the bot
            closed the table because no human was left): the caption then starts with
            :func:`bot.render.messages.game_stopped`. None: no such line (``/score`` of a
            stopped game).

    Returns:
        Game over (``rules.md`` §2.4, §9.9): at the game's end
        :func:`bot.render.messages.game_over` (winner or draw with the totals), later the
        title and that winner line. Stopped: who stopped it, the title with the round it was
        stopped after, the score at that moment (Klammern: big and small points) and "no
        winner". Otherwise: the sheet's title with the progress and the score so far.
    """
    if view.status is Status.FINAL and game_end:
        return messages.game_over(tr, view.result, view.players, klammern=view.klammern)
    if view.status is Status.FINAL:
        if view.klammern:
            result = klammern_winner_html(tr, view.result, view.players)
        else:
            result = winner_html(tr, view.result, view.players)
        return sheet_title(view, tr) + "\n" + result
    lines = []
    if view.status is Status.STOPPED:
        if stopped_by is not None:
            lines.append(messages.game_stopped(tr, stopped_by))
        lines.append(sheet_title(view, tr))
        if view.klammern:
            lines.append(standing_html(tr, view.big, view.small, view.players))
            lines.append(stopped_html(tr, None, view.players))
        else:
            totals = {t: view.sum_total(t) for t in TEAMS}
            lines.append(stopped_html(tr, totals, view.players))
        return "\n".join(lines)
    lines.append(sheet_title(view, tr))
    if view.klammern:
        lines.append(standing_html(tr, view.big, view.small, view.players))
    elif view.lines:
        lines.append(tr.gettext("Score: {score}").format(score=_score_line(view, tr)))
    return "\n".join(lines)


def switch_button(tr: Translator, *, to_picture: bool) -> Button:
    """The button under a ``/score`` answer that shows the other form: "🖼 Plaatje" under the
    text sheet (action :data:`SHOW_PICTURE`), "📝 Tekst" under the picture
    (:data:`SHOW_TEXT`). The bot encodes the action into callback data."""
    if to_picture:
        return Button("🖼 " + tr.pgettext("sheet view", "Picture"), SHOW_PICTURE)
    return Button("📝 " + tr.pgettext("sheet view", "Text"), SHOW_TEXT)
