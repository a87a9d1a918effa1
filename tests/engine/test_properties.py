"""Hypothesis properties of the engine over random seeds and random legal play
(``design.md`` §6)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import PLAY, ClaimRoem, PlayCard
from engine.cards import CARDS, SEATS, Team, iter_bits, mask_of
from engine.deal import deal, round_rng
from engine.errors import IllegalAction
from engine.game import GameState
from engine.observe import observe
from engine.record import replay, to_record
from engine.round import Phase, RoundState
from engine.rules import TOTAL_CARD_POINTS
from engine.settings import KLAVERJAS_PRESETS, Settings, TrumpSelection

from .helpers import klaverjas_result, random_game, swap_unseen_cards

presets = st.sampled_from(KLAVERJAS_PRESETS)
all_settings = st.sampled_from(
    [
        *(Settings.from_preset(p) for p in KLAVERJAS_PRESETS),
        Settings.from_preset("klammern"),
        Settings.from_preset("klammern", auto_declare=True),
    ]
)
seeds = st.integers(min_value=0, max_value=2**32)


def _start(preset: str, seed: int) -> RoundState:
    s = Settings.from_preset(preset)
    d = deal(
        round_rng(seed, 1),
        SEATS[seed % 4],
        seed % 3 == 0,
        with_turned=s.trump_selection is TrumpSelection.TURNED,
    )
    state, _ = RoundState.start(s, 1 + seed % 16, d)
    return state


@given(presets, seeds)
def test_round_has_8_tricks_of_4_cards_each_card_once_and_162_points(
    preset: str, seed: int
) -> None:
    rng = random.Random(seed)
    state = _start(preset, seed)
    dealt = [mask_of(h) for h in state.deal.hands]
    assert sum(m.bit_count() for m in dealt) == 32 and mask_of(CARDS) == (
        dealt[0] | dealt[1] | dealt[2] | dealt[3]
    )
    played_by: dict[int, int] = {}
    while state.phase is not Phase.SCORED:
        seat = state.to_act
        assert seat is not None
        legal = state.legal_actions()
        assert legal
        action = legal[rng.randrange(len(legal))]
        if isinstance(action, PlayCard):
            assert action.card.index not in played_by
            played_by[action.card.index] = seat
        state, _ = state.apply(action)
    assert len(state.tricks) == 8
    assert all(len(t.cards) == 4 for t in state.tricks)
    assert len(played_by) == 32
    assert all(dealt[seat] & (1 << i) for i, seat in played_by.items())
    assert sum(t.points for t in state.tricks) == TOTAL_CARD_POINTS
    assert sum(state.team_card_points().values()) == TOTAL_CARD_POINTS
    assert all(h == 0 for h in state.hands)


@given(presets, seeds)
def test_every_legal_card_is_accepted_and_every_other_card_refused(preset: str, seed: int) -> None:
    rng = random.Random(seed)
    state = _start(preset, seed)
    while state.phase is not Phase.SCORED:
        seat = state.to_act
        assert seat is not None
        legal = state.legal_actions()
        if state.phase is Phase.PLAY:
            legal_cards = {a.card.index for a in legal if isinstance(a, PlayCard)}
            for i in iter_bits(state.hands[seat]):
                if i in legal_cards:
                    state.apply(PLAY[seat][i])
                else:
                    try:
                        state.apply(PLAY[seat][i])
                    except IllegalAction:
                        pass
                    else:
                        raise AssertionError(f"{CARDS[i]} accepted but not legal")
            for other in SEATS:
                if other != seat and state.hands[other]:
                    i = next(iter_bits(state.hands[other]))
                    try:
                        state.apply(PLAY[other][i])
                        raise AssertionError("out-of-turn card accepted")
                    except IllegalAction as exc:
                        assert exc.reason.value == "not_your_turn"
        state, _ = state.apply(legal[rng.randrange(len(legal))])


@given(presets, seeds)
def test_nat_round_gives_defenders_162_plus_all_roem(preset: str, seed: int) -> None:
    rng = random.Random(seed)
    for attempt in range(6):
        state = _start(preset, seed + attempt)
        while state.phase is not Phase.SCORED:
            legal = state.legal_actions()
            claims = [a for a in legal if isinstance(a, ClaimRoem)]
            state, _ = state.apply(claims[0] if claims else legal[rng.randrange(len(legal))])
        r = klaverjas_result(state)
        p, d = r.playing_team, r.playing_team.other
        if r.nat:
            assert r.score[p] == 0
            pit = 100 if r.pit is d else 0
            assert r.score[d] == 162 + r.roem[p] + r.roem[d] + pit
        else:
            assert r.score[p] + r.score[d] == 162 + r.roem[p] + r.roem[d] + (100 if r.pit else 0)
            assert r.card_points[p] + r.roem[p] > r.card_points[d] + r.roem[d]


@settings(max_examples=25)
@given(presets, seeds, st.integers(min_value=0, max_value=700))
def test_replaying_a_record_gives_the_same_state(preset: str, seed: int, steps: int) -> None:
    game = random_game(Settings.from_preset(preset, rounds=8), seed, steps)
    again = replay(to_record(game))
    assert again == game
    assert to_record(again) == to_record(game)


@given(all_settings, seeds, st.integers(min_value=0, max_value=60), st.data())
def test_observe_does_not_change_when_unseen_cards_are_swapped(
    table: Settings, seed: int, steps: int, data: st.DataObject
) -> None:
    game = random_game(table, seed, steps)
    state = game.current
    assert state is not None
    # Klammern: the proposed card is public while the dealer holds it (§9.2): not unseen.
    public = state.deal.dealer_middle_card.bit if state.klammern is not None else 0
    viewer = data.draw(st.sampled_from(SEATS))
    swapped = swap_unseen_cards(state, viewer, data, public)
    if swapped is None:
        return
    assert observe(swapped, viewer) == observe(state, viewer)
    assert observe(swapped, None) == observe(state, None)


@given(seeds)
def test_a_whole_game_has_16_rounds_and_rotates_the_dealer(seed: int) -> None:
    game = random_game(Settings.from_preset("amsterdam"), seed)
    assert game.is_over and len(game.rounds) == 16
    dealers = [r.dealer for r in game.rounds]
    assert all(dealers[i + 1] == dealers[i].left for i in range(15))
    assert all(dealers.count(s) == 4 for s in SEATS)
    totals = game.totals()
    assert totals == {t: sum(r.result.score[t] for r in game.rounds if r.result) for t in Team}
    w = game.winner()
    assert (w is None) == (totals[Team.NS] == totals[Team.EW])
    if w is not None:
        assert totals[w] > totals[w.other]
    assert game.legal_actions() == ()
    assert GameState.new(game.settings, seed).first_dealer == game.first_dealer
