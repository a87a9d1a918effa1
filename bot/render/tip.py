"""The tip button (💡) of a player's hand and its answer (:mod:`engine.ai.tip`):
"💡 Speel B♥ — verwachte rondescore: B♥ 98, A♠ 91, 10♦ 85". Plain text, at most
:data:`~bot.render.reasons.ALERT_LIMIT` characters: it is the callback's alert, seen only by
the tapping player (no message, so nothing of the chat's message budget, ``bot/budget.py``).
"""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.bids import action_button
from bot.render.cards import card_label
from bot.render.common import Button, shorten
from bot.taps import Tip
from engine.ai.tip import Suggestion
from engine.observe import Observation

TIP_LIMIT = 200
"""Telegram's limit for a callback answer's text (``answerCallbackQuery``)."""


def tip_button(tr: Translator) -> Button:
    """The hand keyboard's 💡 button (``tip``)."""
    return Button("💡 " + tr.gettext("Tip"), Tip())


def tip_text(tr: Translator, suggestion: Suggestion, obs: Observation) -> str:
    """The answer to a tip: what to play (the strong computer's card, ``rules.md`` §4) and
    the expected round score of the viewer's team after each of the best cards (points,
    §6), best first; only the card when there are no scores (Klammern, §9.8)."""
    card = suggestion.card
    if card is not None:
        what = tr.gettext("Play {card}").format(card=card_label(tr, card))
    else:  # Klammern: the computer would call contra or re first (§9.7)
        what = action_button(tr, suggestion.action, obs).label
    text = "💡 " + what
    if suggestion.scores:
        scores = ", ".join(f"{card_label(tr, s.card)} {round(s.score)}" for s in suggestion.scores)
        text += " — " + tr.gettext("expected round score: {scores}").format(scores=scores)
    return shorten(text, TIP_LIMIT)
