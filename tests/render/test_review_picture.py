"""The review as a picture (:mod:`bot.render.picture.review_layout`): every language within
Telegram's photo limits, nothing drawn outside its cell or the picture and no two texts
overlapping (the checks of the sheet's picture), long and hostile names shortened visibly,
the numbers the text review gives, a daily's par comparison and Klammern's decisions drawn,
the caption within the caption limit, and the picture cached."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.i18n import get_translator
from bot.render.common import Player
from bot.render.picture import layout_review, render_review_png
from bot.render.picture.text import ELLIPSIS
from bot.render.review import review_caption, review_text
from engine.actions import Bella, Contra, Declare, Pass, PlayCard
from engine.ai.review import Judgement, Kind, ParComparison, Parting, Review, RoundCost, Why
from engine.cards import Card, Seat, Suit
from engine.settings import Variant
from tests.fakebot.html_parser import parse_html
from tests.render.helpers import untranslated
from tests.render.picture_checks import check_caption, check_layout, check_png, shown
from tests.render.picture_views import LONG_NAME
from tests.render.test_review_text import _review

LANGS = ["nl", "de", "fr", "en"]
S = Seat.SOUTH
HARD = (Player(LONG_NAME), Player("", True), Player("<b>&Bob</b>"), Player("محمد عبد الله"))
CLUB = "Klaverjasclub De Zwarte Ruiter, Amsterdam-Noord 🃏 — de allerlangste naam van de stad"


def _par() -> ParComparison:
    table = (Card.parse("AH"), Card.parse("7H"))
    first = Parting(
        1, 9, Kind.CARD, 2, S, Seat.NORTH, table, Suit.HEARTS,
        PlayCard(S, Card.parse("KH")), PlayCard(S, Card.parse("9H")), 62, 98,
    )  # fmt: skip
    bid = Parting(
        3, 40, Kind.BID, 0, S, S, (), None, Pass(S), PlayCard(S, Card.parse("JS")), 0, 110
    )
    scores = ((62, 98), (80, 80), (0, 110), (100, 70), (120, 90), (50, 40), (90, 90), (70, 80))
    return ParComparison(first, (bid, first), scores)


def _klammern() -> Review:
    calls = [
        Judgement(20, 1, 1, Kind.CALL, S, Seat.EAST, (Card.parse("7D"),), Suit.SPADES,
                  Pass(S), Contra(S), 10.0, 40.0, 30.0, Why.CALL_MISSED),
        Judgement(30, 2, 1, Kind.CALL, S, S, (), Suit.SPADES,
                  Contra(S), Pass(S), -20.0, 5.0, 25.0, Why.CALL_RISKY),
        Judgement(40, 2, 1, Kind.DECLARE, S, S, (), Suit.SPADES, Pass(S),
                  Declare(S, tuple(Card.parse(c) for c in ("QD", "JD", "10D"))),
                  0.0, 20.0, 20.0, Why.NOT_DECLARED),
        Judgement(50, 3, 4, Kind.DECLARE, S, S, (), Suit.SPADES, PlayCard(S, Card.parse("KS")),
                  Bella(S, Card.parse("KS")), 0.0, 20.0, 20.0, Why.BELLA_LOST),
    ]  # fmt: skip
    rounds = tuple(RoundCost(n, 8, 5.0 * n, 1) for n in range(1, 4))
    return Review(S, Variant.KLAMMERN, rounds, tuple(calls), 24, 30.0)


@pytest.mark.parametrize("lang", LANGS)
def test_the_picture_fits_in_every_language(lang: str) -> None:
    tr = get_translator(lang)
    for review in (_review(), replace(_review(), par=_par()), _klammern()):
        layout = layout_review(tr, review, title=CLUB, players=HARD)
        check_layout(layout)
        check_png(render_review_png(tr, review, title=CLUB, players=HARD), layout)
        check_caption(review_caption(tr, review, title=CLUB), lang)
        text = review_text(tr, review, title=CLUB, players=HARD)
        parse_html(text)  # raises on HTML Telegram refuses
        if lang != "en":
            assert untranslated(text, lang) == [], untranslated(text, lang)


def test_long_names_and_titles_are_shortened_visibly() -> None:
    tr = get_translator("en")
    layout = layout_review(tr, _review(), title=CLUB, players=HARD)
    (game,) = [t for t in layout.texts if t.role == "game"]
    assert game.source == CLUB and game.text.endswith(ELLIPSIS)
    names = [t for t in layout.texts if t.role == "table_name"]
    long = [t for t in names if t.source == LONG_NAME]
    assert long and all(t.text.endswith(ELLIPSIS) for t in long)
    assert any(t.text == "Computer East" for t in names)
    for t in names:  # each name stays under its own card
        cards = [c for c in layout.texts if c.role == "table" and c.ink.x0 < t.cell.x1]
        assert cards


def test_the_picture_shows_the_texts_numbers() -> None:
    tr = get_translator("en")
    review = replace(_review(), par=_par())
    layout = layout_review(tr, review, title="Club", players=HARD)
    text = parse_html(review_text(tr, review, title="Club", players=HARD)).text
    lost = [t.text for t in layout.texts if t.role == "lost"]
    assert lost[: len(review.worst)] == [f"−{round(j.cost)} points" for j in review.worst]
    assert all(x in text for x in lost)
    cells = [t.source for t in layout.texts if t.role == "round_cost"]
    assert cells == [str(round(r.cost)) for r in review.rounds]
    yours = [t.source for t in layout.texts if t.role == "yours_value"]
    assert yours[: len(review.worst)] == [str(round(j.your_value)) for j in review.worst]
    klammern = [t.text for t in layout_review(tr, _klammern()).texts if t.role == "yours_value"]
    assert klammern == ["10", "−20", "0", "0"]
    drawn = shown(layout)
    for words in (
        "Hindsight, all hands shown: −10 points", "Why: trump not pulled",
        "Next to the day's par", "Your points 572 · the par's 658",
        "First parted: Round 1, trick 2, trump ♥", "The round: you 62, the par 98",
        "Costliest partings", "1. Round 3, bidding",
    ):  # fmt: skip
        assert words in drawn, words
    # The par's section in the text review says the same.
    for words in (
        "Next to the day's par", "Your points 572 · the par's 658",
        "First parted: Round 1, trick 2, trump ♥", "You: K♥ · par: 9♥",
        "The round: you 62, the par 98", "1. Round 3, bidding — −110 points",
    ):  # fmt: skip
        assert words in text, words
    # Cards are drawn as rank and suit in the suit's colour.
    suits = [t for t in layout.texts if t.role == "table_suit"]
    assert {t.text for t in suits} <= {"♠", "♥", "♦", "♣"}
    assert all(t.style.fill == "#d32f2f" for t in suits if t.text in "♥♦")
    bids = [t for t in layout.texts if t.role in ("yours", "its") and t.text.startswith("♠")]
    assert bids and all(t.style.fill == "#1b1b1b" for t in bids)


def test_klammern_decisions_are_labelled() -> None:
    tr = get_translator("en")
    layout = layout_review(tr, _klammern())
    drawn = shown(layout)
    for words in (
        "no contra", "Contra", "Terz ♦10–Q", "no declaration", "sequence not declared",
        "bella not announced", "Bella with K♠", "a won round counts as 60",
        "not called on a round your team was likely to win",
        "called on a round your team was likely to lose",
    ):  # fmt: skip
        assert words in drawn, words
    text = parse_html(review_text(tr, _klammern())).text
    assert "You: no contra (10) · computer: Contra (40)" in text


def test_the_picture_is_cached() -> None:
    tr = get_translator("nl")
    review = _review()
    first = render_review_png(tr, review, title="Club", players=HARD)
    assert render_review_png(tr, review, title="Club", players=HARD) is first
    assert render_review_png(tr, review, title="Club 2", players=HARD) != first
