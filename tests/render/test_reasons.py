"""bot.render.reasons: a short translated alert for every refusal (rules.md §3, §4.5, §5.5)."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.i18n import LANGUAGES, get_translator
from bot.outcome import Refusal, Toast
from bot.render.common import Player
from bot.render.reasons import ALERT_LIMIT, explain, refusal_text, tap_answer
from engine.actions import Action, Choose, ClaimRoem, Pass, PlayCard
from engine.cards import Seat, Suit
from engine.errors import IllegalAction, Reason
from engine.game import GameState
from engine.observe import observe
from engine.settings import Settings
from tests.render.helpers import PLAYERS, TRANSLATED, random_states, untranslated

LONG = (Player("W" * 64 + " " + "X" * 64),) * 4


def _refusals() -> list[IllegalAction]:
    """Real refusals from the engine: illegal cards, wrong seats, wrong phases."""
    out: list[IllegalAction] = []
    for preset in ("amsterdam", "rotterdam", "klassiek", "utrecht", "klammern"):
        for game in random_states(preset, 3, max_steps=250):
            cur = game.current
            seat = game.to_act
            if cur is None or seat is None:
                continue
            obs = observe(game, seat)
            tries: list[Action] = [PlayCard(seat, c) for c in obs.hand]
            tries += [PlayCard(seat.left, c) for c in cur.hand(seat.left)[:1]]
            tries += [Pass(seat), Choose(seat, obs.shown[0]) if obs.shown else Pass(seat)]
            tries += [ClaimRoem(seat)]
            for action in tries:
                if action in obs.legal:
                    continue
                try:
                    game.apply(action)
                except IllegalAction as e:
                    out.append(e)
    turned = GameState.new(Settings.from_preset("klassiek"), 4)
    for _ in range(8):
        turned, _ = turned.apply(Pass(turned.to_act))  # type: ignore[arg-type]
    try:
        turned.apply(Choose(turned.to_act, Suit.CLUBS))  # type: ignore[arg-type]
    except IllegalAction as e:
        out.append(e)
    over = next(g for g in random_states("amsterdam", 1, max_steps=10_000) if g.is_over)
    try:
        over.apply(Pass(Seat.NORTH))
    except IllegalAction as e:
        out.append(e)
    unique = {
        (e.reason, repr(sorted((k, v) for k, v in e.details.items() if k != "legal"))): e
        for e in out
    }
    return list(unique.values())


REFUSALS = _refusals()


def test_the_engine_refusals_cover_the_card_duties() -> None:
    seen = Counter(e.reason for e in REFUSALS)
    for reason in (
        Reason.MUST_FOLLOW_SUIT, Reason.MUST_TRUMP, Reason.MUST_OVERTRUMP,
        Reason.MAY_NOT_UNDERTRUMP, Reason.NOT_YOUR_TURN, Reason.WRONG_PHASE, Reason.GAME_OVER,
        Reason.MUST_CHOOSE, Reason.SUIT_NOT_ALLOWED,
    ):  # fmt: skip
        assert seen[reason], reason


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_real_refusal_gets_a_short_specific_text(lang: str) -> None:
    tr = get_translator(lang)
    generic = tr.gettext("That is not possible now.")
    for e in REFUSALS:
        text = explain(tr, e.reason, e.details, PLAYERS)
        assert text and text != generic and len(text) <= ALERT_LIMIT
        if lang in TRANSLATED:
            assert not untranslated(text, lang), (e, text)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("reason", list(Reason))
def test_every_reason_code_has_a_text_even_without_details(lang: str, reason: Reason) -> None:
    tr = get_translator(lang)
    for details in (
        {},
        {
            "to_act": 1,
            "card": "JH",
            "led": "H",
            "trump": "H",
            "winning": "9H",
            "suit": "C",
            "allowed": ["H", "S"],
            "phase": "bidding",
        },
    ):
        text = explain(tr, reason, details, LONG)
        assert 0 < len(text) <= ALERT_LIMIT


def test_must_follow_suit_names_the_suit_led() -> None:
    details = {"card": "7S", "trump": "C", "led": "H", "winning": "AH", "legal": ["KH"]}
    assert explain(get_translator("nl"), "must_follow_suit", details) == (
        "Je moet kleur bekennen: speel ♥ harten."
    )


def test_must_overtrump_names_the_winning_card() -> None:
    details = {"card": "7C", "trump": "C", "led": "H", "winning": "9C"}
    assert "9♣" in explain(get_translator("de"), Reason.MUST_OVERTRUMP, details)


def test_not_your_turn_names_who_is_to_play() -> None:
    text = explain(get_translator("fr"), Reason.NOT_YOUR_TURN, {"to_act": 2}, PLAYERS)
    assert "Cas & <i>Co</i>" in text  # alerts are plain text: no escaping


def test_unknown_reason_code_gets_the_generic_text() -> None:
    tr = get_translator("nl")
    assert explain(tr, "no_such_code", {}) == tr.gettext("That is not possible now.")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_bot_refusal_has_a_short_translated_text(lang: str) -> None:
    tr = get_translator(lang)
    texts = {r: refusal_text(tr, r) for r in Refusal}
    assert all(0 < len(t) <= ALERT_LIMIT for t in texts.values())
    assert len(set(texts.values())) >= len(texts) - 1  # game_finished == game_over's text
    if lang in TRANSLATED:
        assert not [t for t in texts.values() if untranslated(t, lang)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_toast_has_a_short_translated_text(lang: str) -> None:
    tr = get_translator(lang)
    details = {"seat": 3, "old": 0}
    texts = {t: tap_answer(tr, None, t, details) for t in Toast}
    assert all(t and 0 < len(t) <= ALERT_LIMIT for t in texts.values())
    assert len(set(texts.values())) == len(texts)
    if lang in TRANSLATED:
        assert not [t for t in texts.values() if t and untranslated(t, lang)]


def test_a_seat_change_says_from_where_to_where() -> None:
    """Moving to another free seat is said, not silent."""
    text = tap_answer(get_translator("nl"), None, Toast.MOVED, {"seat": 3, "old": 0})
    assert text == "Je zat op Noord, nu zit je op West."


def test_not_your_turn_says_whether_the_other_is_bidding_or_playing() -> None:
    """A re-tap while the next forehand chooses trump does not say "to play"."""
    tr = get_translator("en")
    players = (Player("Anna"), Player("Bert"), Player("Cas"), Player("Dirk"))
    bidding = explain(tr, Reason.NOT_YOUR_TURN, {"to_act": 1, "phase": "bidding"}, players)
    playing = explain(tr, Reason.NOT_YOUR_TURN, {"to_act": 1, "phase": "play"}, players)
    assert bidding == "It is not your turn: Bert is bidding for trump."
    assert playing == "It is not your turn: Bert is to play."


def test_may_not_undertrump_offers_a_higher_trump_only_when_one_is_legal() -> None:
    tr = get_translator("en")
    base = {"card": "7H", "trump": "H", "led": "C", "winning": "9H"}
    with_trump = explain(tr, Reason.MAY_NOT_UNDERTRUMP, {**base, "legal": ["JH", "QS"]})
    without = explain(tr, Reason.MAY_NOT_UNDERTRUMP, {**base, "legal": ["QS"]})
    assert "higher trump" in with_trump and "higher trump" not in without
