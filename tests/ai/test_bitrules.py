"""engine.ai.bitrules against rules.md and against the independent list-based reference."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.ai import bitrules as br
from engine.cards import Card, mask_of, parse_cards
from tests.ai import reference as ref


def c(text: str) -> int:
    return Card.parse(text).index


def m(*texts: str) -> int:
    return mask_of(parse_cards(texts))


S, H, D, C = range(4)


def test_points_sum_to_152_and_orders_match_rules() -> None:
    for trump in range(4):
        assert sum(br.POINTS[trump]) == 152  # §1.4
        for suit in range(4):
            order = ref.TRUMP_ORDER if suit == trump else ref.PLAIN_ORDER
            by_strength = sorted(range(8), key=lambda r: -br.STRENGTH[trump][8 * suit + r])
            assert by_strength == order  # §1.2, §1.3
            for r in range(8):
                assert br.POINTS[trump][8 * suit + r] == ref.points(8 * suit + r, trump)


def test_above_masks() -> None:
    assert br.ABOVE[H][c("JH")] == 0
    assert br.ABOVE[H][c("9H")] == m("JH")
    assert br.ABOVE[H][c("10S")] == m("AS")
    assert br.ABOVE[S][c("KS")] == m("10S", "AS", "9S", "JS")


def test_play_rule_id() -> None:
    assert br.play_rule_id("amsterdam") == br.AMSTERDAM
    assert br.play_rule_id("rotterdam") == br.ROTTERDAM
    assert br.play_rule_id(br.KLAMMERN) == br.KLAMMERN
    for bad in ("utrecht", 3, True):
        with pytest.raises(ValueError):
            br.play_rule_id(bad)


def legal(hand: str, trick: list[tuple[int, str]], seat: int, trump: int, rule: str) -> int:
    return br.legal_mask(
        m(*hand.split()), [c(x) for _, x in trick], [s for s, _ in trick], seat, trump, rule
    )


# §4.5 decision table, one row at a time. Trump is hearts throughout.
HAND = "JH 8H 7S AD"  # trumps JH 8H, non-trumps 7S AD


@pytest.mark.parametrize("rule", ["amsterdam", "rotterdam", "klammern"])
def test_lead_and_follow_suit(rule: str) -> None:
    assert legal(HAND, [], 0, H, rule) == m(*HAND.split())
    assert legal(HAND, [(1, "KS")], 2, H, rule) == m("7S")  # §4.1


@pytest.mark.parametrize("rule", ["amsterdam", "rotterdam", "klammern"])
def test_trump_led_must_overtrump_even_partner(rule: str) -> None:
    # §4.2: partner (seat 0) led 9H; overtrump with JH, the 8H is not allowed.
    assert legal(HAND, [(0, "9H"), (1, "7H")], 2, H, rule) == m("JH")
    # Cannot beat JH: any trump.
    assert legal("9H 8H 7S", [(0, "JH")], 1, H, rule) == m("9H", "8H")
    # No trump: any card.
    assert legal("7S AD", [(0, "JH")], 1, H, rule) == m("7S", "AD")


def test_void_opponent_winning() -> None:
    trick = [(1, "AC")]  # seat 1 (opponent of seat 2) leads clubs; seat 2 is void
    assert legal(HAND, trick, 2, H, "amsterdam") == m("JH", "8H")
    assert legal(HAND, trick, 2, H, "rotterdam") == m("JH", "8H")
    # Opponent ruffed with 9H: overtrump with JH only.
    trick = [(0, "AC"), (1, "9H")]
    assert legal(HAND, trick, 2, H, "amsterdam") == m("JH")
    # Cannot overtrump: Amsterdam discards a non-trump, Rotterdam undertrumps.
    low = "8H 7S AD"
    assert legal(low, trick, 2, H, "amsterdam") == m("7S", "AD")
    assert legal(low, trick, 2, H, "rotterdam") == m("8H")
    assert legal(low, trick, 2, H, "klammern") == m("7S", "AD")
    # Only lower trumps in hand: undertrump is allowed (the whole hand).
    assert legal("8H 7H", trick, 2, H, "amsterdam") == m("8H", "7H")


def test_void_partner_winning_with_plain_card() -> None:
    trick = [(0, "AC"), (1, "7C")]  # partner (seat 0) wins with a plain ace; seat 2 void
    assert legal(HAND, trick, 2, H, "amsterdam") == m(*HAND.split())  # any card
    assert legal(HAND, trick, 2, H, "rotterdam") == m("JH", "8H")  # must trump
    assert legal(HAND, trick, 2, H, "klammern") == m("JH", "8H")  # §9.4: also on partner


def test_void_partner_winning_with_trump() -> None:
    trick = [(1, "AC"), (2, "9H"), (3, "10C")]  # seat 0's partner (2) ruffed with 9H
    # Amsterdam: non-trump or a higher trump (JH), not the lower 8H.
    assert legal(HAND, trick, 0, H, "amsterdam") == m("JH", "7S", "AD")
    assert legal(HAND, trick, 0, H, "rotterdam") == m("JH")
    assert legal(HAND, trick, 0, H, "klammern") == m("JH")
    # Without a higher trump: Amsterdam non-trumps, Rotterdam undertrumps.
    assert legal("8H 7S AD", trick, 0, H, "amsterdam") == m("7S", "AD")
    assert legal("8H 7S AD", trick, 0, H, "rotterdam") == m("8H")
    assert legal("8H 7S AD", trick, 0, H, "klammern") == m("7S", "AD")
    # Nothing but lower trumps: undertrump.
    assert legal("8H 7H", trick, 0, H, "amsterdam") == m("8H", "7H")


def test_trick_winner() -> None:
    assert br.trick_winner([c("7C"), c("AC"), c("10S"), c("KC")], [1, 2, 3, 0], H) == 2
    assert br.trick_winner([c("7C"), c("AC"), c("7H"), c("8H")], [1, 2, 3, 0], H) == 0
    assert br.trick_winner([c("7C"), c("AS"), c("AD"), c("8C")], [3, 0, 1, 2], H) == 2
    assert br.trick_winner([c("9H"), c("AH"), c("JH"), c("10H")], [0, 1, 2, 3], H) == 2


@pytest.mark.parametrize(
    ("cards", "trump", "four_low", "roem"),
    [
        ("7S 8S 9S AH", H, 0, 20),  # run of three
        ("9S 10S JS AH", H, 0, 20),  # natural order 9-10-J is a run (§1.5)
        ("10S JS QS KS", H, 0, 50),  # run of four: 50, not 70
        ("AS 7S 8S KD", H, 0, 0),  # no wrap-around A-7-8
        ("KH QH 7S 8D", H, 0, 20),  # stuk
        ("KS QS 7H 8D", H, 0, 0),  # K+Q of a plain suit: nothing
        ("AH KH QH 7S", H, 0, 40),  # A-K-Q of trump: run + stuk
        ("JH QH KH AH", H, 0, 70),  # J-Q-K-A of trump: 50 + 20
        ("JS JH JD JC", H, 0, 200),
        ("AS AH AD AC", H, 0, 100),
        ("10S 10H 10D 10C", H, 0, 100),
        ("9S 9H 9D 9C", H, 0, 0),
        ("9S 9H 9D 9C", H, 100, 100),
        ("7S 8H 9D 10C", H, 0, 0),
    ],
)
def test_roem_examples(cards: str, trump: int, four_low: int, roem: int) -> None:
    idx = [c(x) for x in cards.split()]
    assert br.roem_of_cards(idx, trump, four_low) == roem
    assert br.trick_roem(m(*cards.split()), trump, four_low) == roem
    assert br.roem_of_mask(m(*cards.split()), trump, four_low) == roem
    assert ref.roem(idx, trump, four_low) == roem


@st.composite
def situations(draw: st.DrawFn) -> tuple[int, list[int], list[int], int, int, str]:
    deck = draw(st.permutations(list(range(32))))
    n_trick = draw(st.integers(0, 3))
    hand_size = draw(st.integers(1, 8))
    trump = draw(st.integers(0, 3))
    leader = draw(st.integers(0, 3))
    rule = draw(st.sampled_from(["amsterdam", "rotterdam", "klammern"]))
    trick = list(deck[:n_trick])
    hand = deck[n_trick : n_trick + hand_size]
    seats = [(leader + i) % 4 for i in range(n_trick)]
    seat = (leader + n_trick) % 4
    return sum(1 << x for x in hand), trick, seats, seat, trump, rule


@given(situations())
def test_legal_mask_matches_reference(
    sit: tuple[int, list[int], list[int], int, int, str],
) -> None:
    hand, trick, seats, seat, trump, rule = sit
    got = br.legal_mask(hand, trick, seats, seat, trump, rule)
    want = ref.legal(ref.cards(hand), list(zip(seats, trick, strict=True)), seat, trump, rule)
    assert got == sum(1 << x for x in want)
    assert got and got & ~hand == 0


@given(
    st.lists(st.integers(0, 31), min_size=4, max_size=4, unique=True),
    st.integers(0, 3),
    st.sampled_from([0, 100]),
)
def test_roem_and_winner_match_reference(cards: list[int], trump: int, four_low: int) -> None:
    mask = sum(1 << x for x in cards)
    r = ref.roem(cards, trump, four_low)
    assert br.roem_of_cards(cards, trump, four_low) == r
    assert br.trick_roem(mask, trump, four_low) == r
    seats = [0, 1, 2, 3]
    assert br.trick_winner(cards, seats, trump) == ref.winner_pos(cards, trump)
    assert br.trick_points(mask, trump) == sum(ref.points(x, trump) for x in cards)
