"""The partnership's signals (``rules.md`` §8, seed 000): what a discard on the partner's
winning trick says, how the strong player reads its partner's and which discard it gives
(:mod:`engine.ai.inference`, ``StrongPlayer(signals=True)``)."""

from __future__ import annotations

from engine.ai.inference import SIGNAL_STRENGTH, SignalLikelihood, signal_discards, signal_meaning
from engine.ai.strong import Evaluation, StrongPlayer
from engine.cards import Seat, Suit, card
from engine.observe import observe_round
from engine.round import RoundState
from tests.engine.helpers import chosen_and_played

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
HEARTS = Suit.HEARTS.ordinal

# Dealer West: North leads. Hearts are trump. South has no spades.
HANDS = [
    "AS KS 7H 8H 7D 8D 7C 8C",  # North
    "7S 8S 9H 10H JD QD 9C 10C",  # East
    "JH QH AD 9D 10D AC JC QC",  # South: void in spades
    "9S 10S JS QS AH KH KD KC",  # West
]


def _after(moves: list[str]) -> RoundState:
    return chosen_and_played("amsterdam", HANDS, Suit.HEARTS, moves)


def _i(name: str) -> int:
    return card(name).index


def test_what_each_discard_says() -> None:
    assert signal_meaning(_i("8D"), HEARTS) == (_i("AD"), True)  # opseinen
    assert signal_meaning(_i("AD"), HEARTS) == (_i("10D"), True)  # A from A-10
    assert signal_meaning(_i("QC"), HEARTS) == (_i("AC"), False)  # afseinen
    assert signal_meaning(_i("10D"), HEARTS) is None  # spekken
    assert signal_meaning(_i("7H"), HEARTS) is None  # a trump


def test_north_reads_souths_low_discard_as_the_ace() -> None:
    # North's AS wins the trick; South, void, discards the 9D: "I hold the ace of diamonds".
    state = _after(["AS", "7S", "9D"])
    north = observe_round(state, N)
    assert signal_discards(north) == [(_i("AD"), 1)]
    assert signal_discards(observe_round(state, E)) == []  # only the partner's are read
    lik = SignalLikelihood(north)
    assert lik.informative
    h = state.hands
    real = (h[0], h[1], h[2], h[3])
    ad, kd = card("AD").bit, card("KD").bit
    moved = (h[0], h[1], h[2] ^ ad ^ kd, h[3] ^ ad ^ kd)  # the ace with West instead
    assert lik.log_weight(real) == 0.0
    assert lik.log_weight(moved) == -SIGNAL_STRENGTH


def test_a_picture_card_discard_says_no_ace_there() -> None:
    # North's KS is winning when South discards the QC (afseinen): "no ace of clubs" (it lies:
    # South holds it, and the reader weighs worlds by the signal, softly).
    state = _after(["KS", "8S", "QC"])
    assert signal_discards(observe_round(state, N)) == [(_i("AC"), 0)]
    # South's own view: its partner North has not signalled.
    assert signal_discards(observe_round(state, S)) == []


def test_strong_gives_the_true_signal_among_equal_cards() -> None:
    state = _after(["AS", "7S"])
    obs = observe_round(state, S)
    player = StrongPlayer(signals=True, time_budget_ms=None)
    names = ["JH", "QH", "AD", "9D", "10D", "AC", "JC", "QC"]
    values = {_i(n): 0.0 for n in names}
    values[_i("AD")] = -20.0  # far below the rest: not a candidate
    ev = Evaluation(values, 10, 1000, 0.5)
    # The rule's QC would say "no ace of clubs" (South holds it): the 9D says "ace of diamonds".
    assert player._signal(obs, ev, _i("QC"), -6.0) == _i("9D")
    assert player._signal(obs, ev, _i("9D"), -6.0) == _i("9D")
    values[_i("9D")] = -20.0
    # No true low-card signal left: a neutral card (a 10 or a trump), never the misleading QC.
    assert player._signal(obs, ev, _i("QC"), -6.0) in {_i("10D"), _i("JH"), _i("QH")}
    # Not on the opponents' trick and not when following suit.
    east_wins = observe_round(_after(["7C", "10C"]), S)
    assert player._signal(east_wins, ev, _i("QC"), -6.0) == _i("QC")
