"""The tip's answer and button: in the reader's language, plain, within Telegram's
200 characters of a callback answer."""

from __future__ import annotations

import pytest

from bot.i18n import get_translator
from bot.render.lobby import tips_button
from bot.render.tip import TIP_LIMIT, tip_button, tip_text
from bot.taps import NextSetting, Setting, Tip
from engine.actions import Contra, PlayCard
from engine.ai.tip import CardScore, Suggestion
from engine.cards import Card, Seat
from engine.game import GameState
from engine.observe import Observation, observe
from engine.settings import Settings
from tests.render.helpers import untranslated

LANGS = ["nl", "de", "fr", "en"]
JH, AS, TD = Card.parse("JH"), Card.parse("AS"), Card.parse("10D")
SUGGESTION = Suggestion(
    PlayCard(Seat.SOUTH, JH),
    (CardScore(JH, 98.4, 34.0), CardScore(AS, 90.6, 20.0), CardScore(TD, 85.0, 8.0)),
    12,
)


def _obs() -> Observation:
    state = GameState.new(Settings(), 1)
    assert state.to_act is not None
    return observe(state, state.to_act)


@pytest.mark.parametrize("lang", LANGS)
def test_the_tip_names_the_card_and_the_best_scores_in_the_readers_language(lang: str) -> None:
    tr = get_translator(lang)
    text = tip_text(tr, SUGGESTION, _obs())
    assert text.startswith("💡 ") and len(text) <= TIP_LIMIT
    if lang != "en":
        assert not untranslated(text, lang), untranslated(text, lang)
    jack = {"nl": "B♥", "de": "B♥", "fr": "V♥", "en": "J♥"}[lang]
    assert f"{jack} 98, A♠ 91, 10♦ 85" in text
    assert "<" not in text  # plain text: an alert shows no HTML


def test_the_dutch_tip_reads_as_the_issue_says() -> None:
    text = tip_text(get_translator("nl"), SUGGESTION, _obs())
    assert text == "💡 Speel B♥ — verwachte rondescore: B♥ 98, A♠ 91, 10♦ 85"


@pytest.mark.parametrize("lang", LANGS)
def test_a_tip_without_scores_names_only_the_action(lang: str) -> None:
    tr = get_translator(lang)
    assert tip_text(tr, Suggestion(PlayCard(Seat.SOUTH, AS), (), 0), _obs()).count("A♠") == 1
    contra = tip_text(tr, Suggestion(Contra(Seat.SOUTH), (), 0), _obs())
    assert contra.startswith("💡 ")
    assert lang == "en" or not untranslated(contra, lang)


@pytest.mark.parametrize("lang", LANGS)
def test_the_tip_buttons_are_translated(lang: str) -> None:
    tr = get_translator(lang)
    button = tip_button(tr)
    assert button.action == Tip() and button.label.startswith("💡 ")
    for on in (True, False):
        toggle = tips_button(tr, on)
        assert toggle.action == NextSetting(Setting.TIPS)
        assert lang == "en" or not untranslated(toggle.label, lang), toggle.label
    assert tips_button(tr, True).label != tips_button(tr, False).label
