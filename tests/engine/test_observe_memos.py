"""The observation's derived facts against a fresh computation (engine speed).

The engine keeps one-entry memos and carries sums from one state to the next (the team sums
add the trick just won; the game's totals and the Klammern tally are carried from round to
round; the Klammern declaration points are remembered per declarations and trump), and
``observe`` reads the Klammern proposed card and suit from the deal. These properties play
random games of every preset through the public API, interleaving the games so the memos are
asked about other games in between, and check every observation against the facts computed
from scratch: ``rules.md`` §2.4 (totals), §5.5 (claimable roem), §9.2–9.3 (proposed card and
suit), §9.5 (declaration points), §9.9 (small and big points).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bidding import bid_status
from engine.cards import Team
from engine.game import GameState
from engine.klammern import KlammernScore
from engine.klammern.scoring import tallies
from engine.klammern.sequences import best_team, by_team
from engine.observe import Observation, observe
from engine.round import Phase, RoundState
from engine.rules import RoundScore
from engine.settings import PRESETS, RoemMode, Settings, TrumpSelection

NS, EW = Team.NS, Team.EW


def _fresh_sums(state: RoundState) -> tuple[dict[Team, int], dict[Team, int], dict[Team, int]]:
    """Card points, roem as counted and tricks per team, summed over every trick."""
    points, roem, tricks = {NS: 0, EW: 0}, {NS: 0, EW: 0}, {NS: 0, EW: 0}
    claim = state.settings.roem is RoemMode.CLAIM
    for i, t in enumerate(state.tricks):
        team = t.winner.team
        points[team] += t.points
        if not claim or state.claimed[i]:
            roem[team] += t.roem
        tricks[team] += 1
    return points, roem, tricks


def _fresh_claimable(state: RoundState) -> int:
    """§5.5: the last completed trick's roem while it may still be claimed."""
    if state.settings.roem is not RoemMode.CLAIM or not state.tricks or state.claimed[-1]:
        return 0
    if state.phase is Phase.CLAIM or (state.phase is Phase.PLAY and not state.trick):
        return state.tricks[-1].roem
    return 0


def _check(game: GameState, obs: Observation) -> None:
    state = game.current
    assert state is not None
    points, roem, tricks = _fresh_sums(state)
    assert (obs.card_points, obs.roem, obs.tricks_won) == (points, roem, tricks)
    assert obs.claimable_roem == _fresh_claimable(state)
    mode = state.settings.trump_selection
    suits = (
        (state.deal.dealer_middle_card.suit,)
        if mode is TrumpSelection.KLAMMERN
        else state.deal.turned
    )
    fresh = bid_status(mode, state.deal.dealer.left, state.bids, suits)
    assert obs.shown == fresh.shown
    if state.klammern is None:
        scores = [r.result for r in game.rounds]
        assert all(isinstance(s, RoundScore) for s in scores)
        assert obs.totals == {t: sum(s.score[t] for s in scores if s) for t in (NS, EW)}
        assert obs.proposed_card is None and obs.declaration_points is None
        return
    middle = state.deal.dealer_middle_card
    assert obs.proposed_card == (middle if state.hands[state.dealer] & middle.bit else None)
    results = [r.result for r in game.rounds]
    assert all(isinstance(s, KlammernScore) for s in results)
    marks = tallies(s.small_points for s in results if isinstance(s, KlammernScore))
    last = marks[-1] if marks else None
    assert obs.totals == (dict(last.big) if last else {NS: 0, EW: 0})
    assert obs.small_points == (dict(last.small) if last else {NS: 0, EW: 0})
    declared = {NS: 0, EW: 0}
    if state.tricks and state.trump is not None:
        team = best_team(by_team(state.klammern.declarations), state.trump)
        if team is not None:
            declared[team] = sum(d.points for d in state.klammern.declarations if d.team is team)
    assert obs.declaration_points == declared


def _preset(name: str, auto: bool) -> Settings:
    if name == "klammern":
        return Settings.from_preset(name, auto_declare=auto, target_big_points=2)
    return Settings.from_preset(name, rounds=8)


@settings(max_examples=12)
@given(st.sampled_from(sorted(PRESETS)), st.integers(min_value=0, max_value=2**32), st.booleans())
def test_observations_equal_the_facts_computed_from_scratch(
    preset: str, seed: int, auto: bool
) -> None:
    rng = random.Random(seed)
    table = _preset(preset, auto)
    # Two games of the preset and one of another family, played in turns, so every memo is
    # also asked about another game between two moves of the same game.
    other = _preset("klammern" if preset != "klammern" else "klassiek", auto)
    games = [GameState.new(table, seed), GameState.new(table, seed + 1), GameState.new(other, seed)]
    seen = 0
    while any(not g.is_over for g in games):
        for i, game in enumerate(games):
            if game.is_over:
                continue
            seat = game.to_act
            assert seat is not None
            obs = observe(game, seat)
            _check(game, obs)
            seen += 1
            games[i], _ = game.apply(obs.legal[rng.randrange(len(obs.legal))])
    assert seen > 100
    for game in games:
        assert game.is_over
