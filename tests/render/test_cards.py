"""bot.render.cards: card names per language and the order of a hand (rules.md §1)."""

from __future__ import annotations

import itertools

import pytest

from bot.i18n import get_translator
from bot.render.cards import card_label, card_name, sort_hand, suit_order
from engine.cards import SUITS, Suit, card, parse_cards


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("nl", ["B♥", "V♠", "H♦", "A♣", "10♥", "7♠"]),
        ("de", ["B♥", "D♠", "K♦", "A♣", "10♥", "7♠"]),
        ("fr", ["V♥", "D♠", "R♦", "A♣", "10♥", "7♠"]),
        ("en", ["J♥", "Q♠", "K♦", "A♣", "10♥", "7♠"]),
    ],
)
def test_card_labels_use_each_languages_rank_letters(lang: str, labels: list[str]) -> None:
    tr = get_translator(lang)
    cards = parse_cards(["JH", "QS", "KD", "AC", "10H", "7S"])
    assert [card_label(tr, c) for c in cards] == labels


@pytest.mark.parametrize(
    ("lang", "name"),
    [("nl", "harten boer"), ("de", "Herz-Bube"), ("fr", "valet de cœur"), ("en", "jack of hearts")],
)
def test_full_card_names_for_sentences(lang: str, name: str) -> None:
    assert card_name(get_translator(lang), card("JH")) == name


def test_hand_without_trump_alternates_colours_and_sorts_by_plain_strength() -> None:
    hand = parse_cards(["7H", "AS", "JS", "10S", "9D", "AC", "KH", "QC"])
    assert [str(c) for c in sort_hand(hand, None)] == [
        "AS", "10S", "JS", "KH", "7H", "AC", "QC", "9D",
    ]  # fmt: skip


def test_trump_comes_first_in_trump_order() -> None:
    hand = parse_cards(["AH", "9H", "JH", "10H", "7S", "AS", "KD"])
    ordered = [str(c) for c in sort_hand(hand, Suit.HEARTS)]
    assert ordered[:4] == ["JH", "9H", "AH", "10H"]
    assert ordered[4:] == ["AS", "7S", "KD"]


@pytest.mark.parametrize("trump", [None, *SUITS])
def test_suit_order_alternates_colours_when_the_suits_allow(trump: Suit | None) -> None:
    order = suit_order(SUITS, trump)
    red = {Suit.HEARTS, Suit.DIAMONDS}
    assert all((a in red) != (b in red) for a, b in itertools.pairwise(order))
    if trump is not None:
        assert order[0] is trump


def test_suit_order_with_three_suits_keeps_the_lone_colour_in_the_middle() -> None:
    order = suit_order([Suit.SPADES, Suit.CLUBS, Suit.HEARTS], None)
    assert order[1] is Suit.HEARTS
