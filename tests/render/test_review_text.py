"""The review's text (:mod:`bot.render.review`): valid Telegram HTML within a message's limit,
every kind of decision and every reason in the reader's language, the hindsight named as such,
and the review button on a finished game's message."""

from __future__ import annotations

import pytest

from bot.i18n import get_translator
from bot.outbox import Content
from bot.render.common import Player
from bot.render.review import MESSAGE_LIMIT, review_text, with_review_button
from bot.taps import ReviewPlay, Tap, decode
from engine.actions import Accept, Choose, ClaimRoem, Pass, PlayCard
from engine.ai.review import Judgement, Kind, Review, RoundCost, Why
from engine.cards import Card, Seat, Suit
from engine.settings import Variant
from tests.fakebot.html_parser import parse_html
from tests.render.helpers import untranslated

LANGS = ["nl", "de", "fr", "en"]
S = Seat.SOUTH


def _card(i: int, why: Why | None, hindsight: float | None) -> Judgement:
    table = (Card.parse("AH"), Card.parse("7H"))
    return Judgement(
        10 + i, 2, 3, Kind.CARD, S, Seat.NORTH, table, Suit.HEARTS,
        PlayCard(S, Card.parse("KH")), PlayCard(S, Card.parse("9H")),
        114.0, 150.0 - i, 36.0 - i, why, hindsight,
    )  # fmt: skip


def _review() -> Review:
    worst = [_card(i, why, h) for i, (why, h) in enumerate(
        [(w, float(10 - 10 * (k % 3))) for k, w in enumerate(
            [Why.TRUMP_NOT_PULLED, Why.PARTNER_ACE_OVERTAKEN, Why.PARTNER_OVERTAKEN,
             Why.ROEM_GIVEN, Why.POINTS_GIVEN, Why.TRICK_LEFT]
        )]
    )]  # fmt: skip
    worst.append(
        Judgement(1, 1, 0, Kind.BID, S, S, (), None, Pass(S), Choose(S, Suit.SPADES),
                  70.0, 90.0, 20.0, Why.STRONG_ENOUGH)
    )  # fmt: skip
    worst.append(
        Judgement(2, 3, 0, Kind.BID, S, S, (), None, Accept(S), Pass(S),
                  70.0, 80.0, 10.0, Why.TOO_WEAK)
    )  # fmt: skip
    worst.append(
        Judgement(3, 4, 0, Kind.TRUMP, S, S, (), None, Choose(S, Suit.CLUBS),
                  Choose(S, Suit.SPADES), 70.0, 75.0, 5.0, Why.OTHER_SUIT)
    )  # fmt: skip
    worst.append(
        Judgement(4, 5, 4, Kind.CLAIM, S, S, (), Suit.CLUBS, Pass(S), ClaimRoem(S),
                  0.0, 20.0, 20.0, Why.ROEM_NOT_CLAIMED)
    )  # fmt: skip
    worst.append(
        Judgement(5, 6, 8, Kind.CLAIM, S, S, (), Suit.CLUBS, ClaimRoem(S), Pass(S),
                  0.0, 50.0, 50.0, Why.ROEM_CLAIMED_NAT)
    )  # fmt: skip
    rounds = tuple(RoundCost(n, 6, 10.0 * n, n % 3) for n in range(1, 17))
    return Review(S, Variant.KLAVERJASSEN, rounds, tuple(worst), 90, 1360.0)


PLAYERS = (Player("Anna <i>"), Player("", True), Player("Bob"), Player("", True))


@pytest.mark.parametrize("lang", LANGS)
def test_the_review_reads_in_the_readers_language_as_valid_html(lang: str) -> None:
    tr = get_translator(lang)
    text = review_text(tr, _review(), title="Club <3", players=PLAYERS)
    assert len(text) <= MESSAGE_LIMIT
    shown = parse_html(text).text  # raises on HTML Telegram refuses
    assert shown.startswith("🔍 ") and "Club <3" in shown and "Anna <i> " in shown
    assert shown.count("\n16  ") == 1  # a line per round
    if lang != "en":
        assert untranslated(text, lang) == []
    hindsight = tr.gettext("Hindsight, all hands shown")
    assert shown.count(hindsight) == 6  # the card decisions only


def test_each_reason_has_its_own_words() -> None:
    tr = get_translator("en")
    shown = parse_html(review_text(tr, _review(), players=PLAYERS)).text
    for words in (
        "trump not pulled", "partner's ace overtaken", "partner's trick overtaken",
        "roem given away", "points given away", "the trick left to the other team",
        "strong enough to play", "too weak to play", "another trump suit was better",
        "roem not claimed", "roem claimed while nat",
        "−10 points", "+10 points", "no difference", "Round 2, trick 3, trump ♥",
        "Round 1, bidding", "On the table: Anna <i> A♥, 🤖 Computer East 7♥",
    ):  # fmt: skip
        assert words in shown, words
    assert "about 1360 points lost" in shown


def test_a_clean_game_says_so_and_klammern_says_its_unit() -> None:
    tr = get_translator("de")
    rounds = (RoundCost(1, 5, 0.0, 0),)
    shown = parse_html(review_text(tr, Review(S, Variant.KLAMMERN, rounds, (), 5, 0.0))).text
    assert "Keine Entscheidung hat dich Punkte gekostet" in shown
    assert "Klammern: Eine gewonnene Runde zählt" in shown


def test_the_button_joins_the_messages_other_buttons() -> None:
    tr = get_translator("nl")
    shown = with_review_button(Content("<b>Uit</b>", photo=b"png", alt="uit"), tr, 42)
    assert shown.photo == b"png" and shown.alt == "uit" and shown.markup is not None
    (button,) = shown.markup.inline_keyboard[-1]
    assert button.text.startswith("🔍 ")
    assert decode(button.callback_data) == Tap(42, 0, ReviewPlay())  # type: ignore[arg-type]
