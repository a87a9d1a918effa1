"""The knowledge tracker (voids and trump limits per play rule, ``rules.md`` §4.5, §9.4) and the
world sampler (uniform over consistent deals)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.actions import PLAY, Choose, Declare, Pass
from engine.ai.knowledge import knowledge, play_inference
from engine.ai.sampler import WorldSampler, enumerate_worlds
from engine.cards import SUIT_MASKS, Card, Seat, Suit, card, mask_of
from engine.deal import Deal
from engine.observe import observe_round
from engine.round import RoundState
from engine.settings import PlayRule, Settings
from tests.engine.helpers import apply_all, chosen_and_played, fixed_deal, round_from

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
H = Suit.HEARTS
HEARTS = SUIT_MASKS[1]
SPADES = SUIT_MASKS[0]

# Dealer West: North is forehand and leads. East has no spades.
HANDS = [
    "AS 9S JH 7D 8D 9D 7C 8C",  # North
    "7H 8H QH 10D JD QD 9C 10C",  # East: void in spades
    "10S KS 9H AD KD 8S JC QC",  # South
    "7S QS JS 10H KH AH KC AC",  # West
]


def _play(preset: str, hands: list[str], moves: list[str], trump: Suit = H) -> RoundState:
    return chosen_and_played(preset, hands, trump, moves)


def c(text: str) -> int:
    """A one-card mask."""
    return card(text).bit


def test_not_following_shows_a_void_in_every_rule() -> None:
    for rule in (PlayRule.AMSTERDAM, PlayRule.ROTTERDAM, PlayRule.KLAMMERN):
        # Spades led by North (seat 0), East (1) discards a diamond: no spades left.
        cannot = play_inference(rule, 1, [card("AS").index], [0], 1, card("10D").index)
        assert cannot & SPADES == SPADES


def test_4_3_rotterdam_a_discard_shows_no_trumps() -> None:
    cannot = play_inference(PlayRule.ROTTERDAM, 1, [card("AS").index], [0], 1, card("10D").index)
    assert cannot & HEARTS == HEARTS


def test_4_4_amsterdam_discard_against_an_opponent_shows_no_trump_that_beats() -> None:
    # Opponent (North) winning with a plain ace: any trump would beat it, so no trumps.
    cannot = play_inference(PlayRule.AMSTERDAM, 1, [card("AS").index], [0], 1, card("10D").index)
    assert cannot & HEARTS == HEARTS
    # Opponent winning with trump 9H (North trumped after South led): a discard says no trump
    # above the 9 (only the J), lower trumps may still be there.
    trick = [card("7S").index, card("9H").index]
    cannot = play_inference(PlayRule.AMSTERDAM, 1, trick, [2, 3], 0, card("10D").index)
    assert cannot & HEARTS == c("JH")


def test_4_4_amsterdam_partner_winning_with_a_plain_card_shows_only_the_void() -> None:
    # South (2) leads AS, East (1)... here West (3) and North (0): North's partner South wins.
    trick = [card("AS").index, card("7S").index]
    cannot = play_inference(PlayRule.AMSTERDAM, 1, trick, [2, 3], 0, card("10D").index)
    assert cannot == SPADES


def test_4_4_amsterdam_undertrump_shows_nothing_but_lower_trumps() -> None:
    trick = [card("AS").index, card("JH").index]  # South leads, West trumps with the J
    cannot = play_inference(PlayRule.AMSTERDAM, 1, trick, [2, 3], 0, card("7H").index)
    assert cannot == ((1 << 32) - 1) & ~HEARTS | 0  # every non-trump: only trumps were left
    # Rotterdam: an undertrump is a duty, it shows only that no higher trump was there.
    cannot = play_inference(PlayRule.ROTTERDAM, 1, trick, [2, 3], 0, card("7H").index)
    assert cannot == SPADES  # (no trump beats the J)


def test_4_2_trump_led_a_lower_trump_shows_no_higher_trump() -> None:
    trick = [card("9H").index]
    cannot = play_inference(PlayRule.AMSTERDAM, 1, trick, [0], 1, card("7H").index)
    assert cannot == c("JH")


def test_9_4_klammern_discard_with_partner_winning_shows_no_trumps() -> None:
    trick = [card("AS").index, card("7S").index]  # partner South winning with a plain card
    cannot = play_inference(PlayRule.KLAMMERN, 1, trick, [2, 3], 0, card("10D").index)
    assert cannot & HEARTS == HEARTS
    assert play_inference(PlayRule.AMSTERDAM, 1, trick, [2, 3], 0, card("10D").index) == SPADES


def test_tracker_from_an_observation() -> None:
    # North leads AS, East (void in spades) must trump or discard; Amsterdam: East holds
    # trumps 7H 8H QH and must trump (opponent winning with a plain card): plays 7H.
    state = _play("amsterdam", HANDS, ["AS", "7H"])
    k = knowledge(observe_round(state, S))
    assert k.cannot[E] & SPADES == SPADES
    assert k.played == c("AS") | c("7H")
    assert k.counts == (7, 7, 8, 8)
    assert k.hand == mask_of(state.hand(S))
    assert k.unknown & k.hand == 0 and k.unknown & k.played == 0
    # Rotterdam: the same play, nothing more than the void is learnt either (it beat AS).
    state = _play("rotterdam", HANDS, ["AS", "7H"])
    assert knowledge(observe_round(state, S)).cannot[E] & ~SPADES == 0


def test_klammern_declarations_are_in_the_hand_and_bound_the_run() -> None:
    hands = [
        "10D JD QD 7S 8S 9H 7C 8C",  # North: terz 10-J-Q of diamonds
        "7H 8H QH 9D 7D AD 9C 10C",
        "10S KS AH KD 9S JC QC KC",
        "QS JS 10H KH JH AS AC 8D",
    ]
    s = Settings.from_preset("klammern")
    state = round_from(s, fixed_deal(3, hands))
    from engine.actions import Accept

    state = apply_all(state, [Accept(N)])
    run = tuple(Card.parse(x) for x in ("10D", "JD", "QD"))
    state, _ = state.apply(Declare(N, run))
    k = knowledge(observe_round(state, S))
    assert k.must[N] & mask_of(run) == mask_of(run)
    assert k.cannot[N] & (c("9D") | c("KD")) == c("9D") | c("KD")
    # The proposed card (dealer West's 7th dealt card) is public: West holds it.
    obs = observe_round(state, S)
    if obs.proposed_card is not None:
        assert k.must[W] & obs.proposed_card.bit


def _uniform_case() -> WorldSampler:
    hands = [
        "AS 9S JH 7D 8D 9D 7C 8C",
        "7H 8H QH 10D JD QD 9C 10C",
        "10S KS 9H AD KD 8S JC QC",
        "7S QS JS 10H KH AH KC AC",
    ]
    d: Deal = fixed_deal(3, hands)
    state = round_from(Settings.from_preset("amsterdam"), d)
    state = apply_all(state, [Choose(N, H)])
    moves = ["AS", "7H", "8S", "7S", "QH", "9H", "10H", "JH"]  # E trumps, leads QH
    for m in moves:
        seat = state.to_act
        assert seat is not None
        state, _ = state.apply(PLAY[seat][card(m).index])
    return WorldSampler(knowledge(observe_round(state, S)))


@pytest.mark.slow
def test_sampler_respects_knowledge_and_is_uniform() -> None:
    ws = _uniform_case()
    k = ws.k
    rng = random.Random(5)
    seen: Counter[tuple[int, int, int, int]] = Counter()
    for _ in range(3000):
        hands = ws.sample(rng)
        assert hands[S] == k.hand
        for s in range(4):
            assert hands[s].bit_count() == k.counts[s]
            assert hands[s] & k.cannot[s] == 0
            assert hands[s] & k.must[s] == k.must[s]
        assert hands[0] | hands[1] | hands[2] | hands[3] == ((1 << 32) - 1) & ~k.played
        seen[hands] += 1
    every = enumerate_worlds(ws, 10**9)
    assert every is not None and len(every) == ws.total == len(set(every))
    assert set(seen) <= set(every)
    if ws.total <= 300:
        # Chi-square-like check: no world far from its expected count.
        expected = 3000 / ws.total
        assert max(seen.values()) < expected * 3 + 10


def test_pass_is_not_a_card() -> None:
    assert Pass(N).kind == "pass"
