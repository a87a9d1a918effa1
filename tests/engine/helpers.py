"""Helpers to build engine states for tests."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace

from hypothesis import strategies as st

from engine.actions import PLAY, Action, Choose, PlayCard
from engine.cards import CARDS, SEATS, Card, Seat, Suit, card, iter_bits, parse_cards
from engine.deal import Deal
from engine.game import GameState
from engine.round import Phase, RoundState
from engine.rules import RoundScore
from engine.settings import Settings


def fixed_deal(dealer: int, hands: list[str], turned: tuple[Suit, ...] = ()) -> Deal:
    """A deal from four space-separated hands (index = seat)."""
    return Deal(Seat(dealer), tuple(parse_cards(h.split()) for h in hands), turned)


def round_from(settings: Settings, deal: Deal, number: int = 2) -> RoundState:
    """A round started on ``deal``."""
    state, _ = RoundState.start(settings, number, deal)
    return state


def played_cards(actions: Iterable[Action]) -> list[Card]:
    """The cards of card plays, in order; fails if an action is not a :class:`PlayCard`."""
    cards = []
    for action in actions:
        assert isinstance(action, PlayCard), action
        cards.append(action.card)
    return cards


def klaverjas_result(state: RoundState) -> RoundScore:
    """The result of a scored klaverjas round (not Klammern: that one has no roem/pit)."""
    result = state.result
    assert isinstance(result, RoundScore), result
    return result


def apply_all(state: RoundState, actions: list[Action]) -> RoundState:
    """Apply actions in order."""
    for a in actions:
        state, _ = state.apply(a)
    return state


def chosen_and_played(
    preset: str, hands: list[str], trump: Suit, moves: list[str], dealer: int = 3
) -> RoundState:
    """A round of ``preset`` on ``hands`` (dealer West by default, so North is forehand):
    North names ``trump`` and the cards ``moves`` (notation) are played by whoever is to act."""
    state = round_from(Settings.from_preset(preset), fixed_deal(dealer, hands))
    state = apply_all(state, [Choose(Seat.NORTH, trump)])
    for m in moves:
        seat = state.to_act
        assert seat is not None
        state, _ = state.apply(PLAY[seat][card(m).index])
    return state


def random_game(settings: Settings, seed: int, steps: int | None = None) -> GameState:
    """A game advanced by random legal actions (``steps`` of them, or to the end)."""
    rng = random.Random(seed)
    game = GameState.new(settings, seed)
    n = 0
    while not game.is_over and (steps is None or n < steps):
        legal = game.legal_actions()
        game, _ = game.apply(legal[rng.randrange(len(legal))])
        n += 1
    return game


def play_round_randomly(state: RoundState, rng: random.Random) -> RoundState:
    """Finish a round with random legal actions."""
    while state.phase not in (Phase.SCORED, Phase.REDEAL):
        legal = state.legal_actions()
        state, _ = state.apply(legal[rng.randrange(len(legal))])
    return state


def swap_unseen_cards(
    state: RoundState, viewer: Seat, data: st.DataObject, public: int = 0
) -> RoundState | None:
    """``state`` with one card swapped between two players other than ``viewer`` (hands and
    the deal record alike), drawn with ``data``; cards in the ``public`` mask are never
    swapped. None when fewer than two other players hold a swappable card."""
    others = [s for s in SEATS if s != viewer and state.hands[s] & ~public]
    if len(others) < 2:
        return None
    a, b = data.draw(st.permutations(others))[:2]
    ca = data.draw(st.sampled_from(list(iter_bits(state.hands[a] & ~public))))
    cb = data.draw(st.sampled_from(list(iter_bits(state.hands[b] & ~public))))
    hands = list(state.hands)
    hands[a] = hands[a] & ~(1 << ca) | (1 << cb)
    hands[b] = hands[b] & ~(1 << cb) | (1 << ca)
    swap = {ca: CARDS[cb], cb: CARDS[ca]}
    dealt = tuple(tuple(swap.get(c.index, c) for c in h) for h in state.deal.hands)
    return replace(state, hands=tuple(hands), deal=replace(state.deal, hands=dealt))
