"""Hypothesis properties of Klammern random play (``rules.md`` §9): every round 8 tricks
and 162 card points, only legal actions accepted (cards, declarations, bella, contra, re),
results consistent with §9.5–9.8, replay equals state, and the small/big point bookkeeping of
§9.9 with the game ending exactly when a team reaches the target."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action, Bella, Contra, Declare, Pass, PlayCard, Re
from engine.cards import CARDS, SEATS, Rank, Team, cards_of, mask_of
from engine.deal import deal, round_rng
from engine.errors import IllegalAction
from engine.klammern import KlammernScore, runs, sequence_value
from engine.klammern.sequences import best_team, by_team
from engine.observe import observe
from engine.players import RandomPlayer
from engine.record import replay, to_record
from engine.round import Phase, RoundState
from engine.rules import TOTAL_CARD_POINTS
from engine.selfplay import play_game
from engine.settings import Settings

from .helpers import random_game

seeds = st.integers(min_value=0, max_value=2**32)
autos = st.booleans()


def _klammern(auto: bool, target: int = 3) -> Settings:
    return Settings.from_preset("klammern", auto_declare=auto, target_big_points=target)


def _start(auto: bool, seed: int, rng: random.Random) -> RoundState:
    """A Klammern round past a random (non-void) auction."""
    for attempt in range(50):
        d = deal(round_rng(seed, 1, attempt), SEATS[seed % 4])
        state, _ = RoundState.start(_klammern(auto), 1, d)
        while state.phase is Phase.BIDDING:
            legal = state.legal_actions()
            state, _ = state.apply(legal[rng.randrange(len(legal))])
        if state.phase is Phase.PLAY:
            return state
    raise AssertionError("50 voided deals")


def _candidates(state: RoundState) -> list[Action]:
    """Klammern actions of every seat (declining contra/re with a pass included), legal or not,
    to check against legal_actions."""
    out: list[Action] = []
    for seat in SEATS:
        hand = state.hands[seat]
        out += [Contra(seat), Re(seat), Pass(seat)]
        out += [PlayCard(seat, c) for c in cards_of(hand)]
        out += [Bella(seat, c) for c in cards_of(hand) if c.rank in (Rank.QUEEN, Rank.KING)]
        for run in runs(hand):
            out.append(Declare(seat, run))
            if len(run) > 3:
                out.append(Declare(seat, run[1:]))
    return out


@given(autos, seeds)
def test_klammern_round_8_tricks_162_points_and_consistent_result(auto: bool, seed: int) -> None:
    rng = random.Random(seed)
    state = _start(auto, seed, rng)
    dealt = [mask_of(h) for h in state.deal.hands]
    played: set[int] = set()
    while state.phase is not Phase.SCORED:
        legal = state.legal_actions()
        assert legal
        action = legal[rng.randrange(len(legal))]
        if isinstance(action, PlayCard):
            assert action.card.index not in played
            assert dealt[action.seat] & action.card.bit
            played.add(action.card.index)
        state, _ = state.apply(action)
    assert len(state.tricks) == 8 and len(played) == 32 and all(h == 0 for h in state.hands)
    assert sum(t.points for t in state.tricks) == TOTAL_CARD_POINTS
    r = state.result
    km = state.klammern
    assert isinstance(r, KlammernScore) and km is not None and state.trump is not None
    assert sum(r.card_points.values()) == TOTAL_CARD_POINTS and sum(r.tricks.values()) == 8
    seen: set[int] = set()
    for d in km.declarations:
        assert mask_of(d.cards) & dealt[d.seat] == mask_of(d.cards)
        assert d.cards in runs(dealt[d.seat]) and d.points == sequence_value(d.cards)
        assert not seen & {c.index for c in d.cards}
        seen |= {c.index for c in d.cards}
    if auto:
        assert sorted(mask_of(d.cards) for d in km.declarations) == sorted(
            mask_of(run) for s in SEATS for run in runs(dealt[s])
        )
    best = best_team(by_team(km.declarations), state.trump)
    for t in (Team.NS, Team.EW):
        expected = sum(d.points for d in km.declarations if d.team is t) if best is t else 0
        assert r.declaration_points[t] == expected
        assert r.points[t] == r.card_points[t] + r.declaration_points[t] + r.bella[t]
    assert sum(r.bella.values()) in (0, 20)
    p, d_ = r.playing_team, r.playing_team.other
    assert r.winner is (p if r.points[p] > r.points[d_] else d_)
    assert r.multiplier == (4 if km.re is not None else 2 if km.contra is not None else 1)
    assert r.small_points == {r.winner: r.multiplier, r.winner.other: 0}
    if km.contra is not None:
        assert km.contra.team is not p
    if km.re is not None:
        assert km.re.team is p and km.contra is not None


@settings(max_examples=40)
@given(autos, seeds)
def test_klammern_only_legal_actions_are_accepted(auto: bool, seed: int) -> None:
    rng = random.Random(seed)
    state = _start(auto, seed, rng)
    while state.phase is not Phase.SCORED:
        legal = {seat: set(state.legal_actions(seat)) for seat in SEATS}
        for action in _candidates(state):
            try:
                state.apply(action)
            except IllegalAction:
                assert action not in legal[action.seat], action
            else:
                assert action in legal[action.seat], action
        for actions in legal.values():
            for action in actions:
                state.apply(action)
        options = state.legal_actions()
        state, _ = state.apply(options[rng.randrange(len(options))])


@settings(max_examples=25)
@given(autos, seeds, st.integers(min_value=0, max_value=500))
def test_klammern_replaying_a_record_gives_the_same_state(
    auto: bool, seed: int, steps: int
) -> None:
    game = random_game(_klammern(auto), seed, steps)
    again = replay(to_record(game))
    assert again == game
    assert to_record(again) == to_record(game)


@settings(max_examples=30)
@given(autos, seeds, st.integers(min_value=1, max_value=4))
def test_klammern_small_and_big_point_bookkeeping(auto: bool, seed: int, target: int) -> None:
    game = random_game(_klammern(auto, target), seed)
    assert game.is_over
    marks = game.tallies()
    assert len(marks) == len(game.rounds) >= 1
    small, big = {Team.NS: 0, Team.EW: 0}, {Team.NS: 0, Team.EW: 0}
    for r, t in zip(game.rounds, marks, strict=True):
        res = r.result
        assert isinstance(res, KlammernScore)
        assert sorted(res.small_points.values()) == [0, res.multiplier]
        assert res.multiplier in (1, 2, 4)
        assert t.reached == {x: small[x] + res.small_points[x] for x in small}
        assert sum(1 for x in small if t.reached[x] >= 5) <= 1  # only one team scores a round
        for x in small:
            won = 0
            if t.reached[x] >= 5:
                won = 2 if t.reached[x.other] == 0 else 1
            assert t.big_won[x] == won
            big[x] += won
        small = dict.fromkeys(small, 0) if t.reset else dict(t.reached)
        assert t.small == small and t.big == big and all(v < 5 for v in small.values())
    assert all(max(t.big.values()) < target for t in marks[:-1])
    assert max(marks[-1].big.values()) >= target
    assert game.totals() == big and game.winner() is max(big, key=lambda x: big[x])


@settings(max_examples=10)
@given(seeds)
def test_random_players_only_see_observations_and_finish_klammern_games(seed: int) -> None:
    settings_ = _klammern(seed % 2 == 0, 2)
    rng = random.Random(seed)
    game = play_game(settings_, seed, [RandomPlayer() for _ in range(4)], rng)
    assert game.is_over and game.winner() is not None
    state = random_game(settings_, seed, 60).current
    if state is not None and state.to_act is not None:
        seat = state.to_act
        assert observe(state, seat).legal == state.legal_actions(seat)


def test_every_card_is_dealt_once_in_klammern_deals() -> None:
    d = deal(round_rng(1, 1, 3), SEATS[0])
    assert sorted(c.index for h in d.hands for c in h) == [c.index for c in CARDS]
