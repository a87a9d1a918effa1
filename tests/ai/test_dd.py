"""Correctness gates of the double-dummy solver (``docs/design.md`` §9).

* equal to a plain brute-force minimax (tests/ai/reference.py, no shared code) on a seeded
  corpus of random endgames: 2-4 tricks left, all three play rules, roem on/off, mid-trick
  starts, pit states, both objectives, both backends;
* root value = max/min of the per-card values; per-card value = independent solve of the
  position after that card;
* C and Python cores agree; null-window answers agree with exact values;
* hand-made positions whose best play is justified in the test.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from dataclasses import replace
from functools import cache
from typing import Unpack

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ai import dd
from engine.cards import Card, mask_of, parse_cards
from tests.ai import reference as ref

BACKENDS = dd.available_backends()
N_ENDGAMES = int(os.environ.get("DD_ENDGAMES", "1000"))


def c(text: str) -> int:
    return Card.parse(text).index


def m(text: str) -> int:
    return mask_of(parse_cards(text.split()))


def kwargs(eg: ref.Endgame, **extra: Unpack[dd.Options]) -> dd.Options:
    base: dd.Options = {
        "play_rule": eg.rule,
        "roem": eg.roem,
        "four_low_cards": eg.four_low,
        "taken": eg.taken,
        "tricks_taken": eg.tricks_taken,
    }
    base.update(extra)
    return base


class Case:
    """One corpus endgame with its settings and brute-force answers."""

    def __init__(self, rng: random.Random) -> None:
        tricks_left = rng.choices([2, 3, 4], weights=[35, 45, 20])[0]
        self.eg = ref.random_endgame(rng, tricks_left)
        self.playing = rng.randrange(2)
        self.objective = "diff" if self.eg.rule == "klammern" else rng.choice(["diff", "score"])
        self.pit, self.defender_pit = rng.choice([(True, True), (True, False), (False, True)])
        pit_ns = self.pit and (self.playing == 0 or self.defender_pit)
        pit_ew = self.pit and (self.playing == 1 or self.defender_pit)
        self.root, self.values = ref.brute_force(
            self.eg, self.objective, self.playing, pit_ns=pit_ns, pit_ew=pit_ew
        )

    def kw(self, backend: str) -> dd.Options:
        return kwargs(
            self.eg,
            objective=self.objective,
            playing_team=self.playing,
            pit=self.pit,
            defender_pit=self.defender_pit,
            backend=backend,
        )


@cache
def corpus() -> tuple[Case, ...]:
    rng = random.Random(20240601)
    return tuple(Case(rng) for _ in range(N_ENDGAMES))


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_equals_brute_force_on_random_endgames(backend: str) -> None:
    bad = []
    for i, case in enumerate(corpus()):
        eg = case.eg
        r = dd.solve(eg.hands, eg.trump, eg.leader, eg.trick, **case.kw(backend))
        mv = dd.solve_moves(eg.hands, eg.trump, eg.leader, eg.trick, **case.kw(backend))
        if r.value != case.root or mv.values != case.values or case.values[r.best_card] != r.value:
            bad.append((i, eg, case.objective, case.root, r, case.values, mv.values))
    assert not bad, f"{len(bad)} mismatches, first: {bad[0]}"


@pytest.mark.slow
def test_corpus_covers_the_settings() -> None:
    cases = corpus()
    assert {x.eg.rule for x in cases} == {"amsterdam", "rotterdam", "klammern"}
    assert {len(x.eg.trick) for x in cases} == {0, 1, 2, 3}
    assert {x.objective for x in cases} == {"diff", "score"}
    assert any(x.eg.roem for x in cases) and not all(x.eg.roem for x in cases)
    assert any(0 in x.eg.tricks_taken for x in cases)  # pit still possible somewhere


def child(eg: ref.Endgame, card: int) -> ref.Endgame:
    """The endgame after the player to move plays ``card``, resolved with the reference."""
    seat = (eg.leader + len(eg.trick)) % 4
    hands = list(eg.hands)
    hands[seat] &= ~(1 << card)
    trick = (*eg.trick, (seat, card))
    hs = (hands[0], hands[1], hands[2], hands[3])
    if len(trick) < 4:
        return replace(eg, hands=hs, trick=trick)
    cards = [x for _, x in trick]
    winner = trick[ref.winner_pos(cards, eg.trump)][0]
    pts = sum(ref.points(x, eg.trump) for x in cards)
    pts += ref.roem(cards, eg.trump, eg.four_low) if eg.roem else 0
    pts += 10 if not any(hs) else 0
    taken = list(eg.taken)
    tricks = list(eg.tricks_taken)
    taken[winner % 2] += pts
    tricks[winner % 2] += 1
    return replace(
        eg,
        hands=hs,
        trick=(),
        leader=winner,
        taken=(taken[0], taken[1]),
        tricks_taken=(tricks[0], tricks[1]),
    )


def solve(eg: ref.Endgame, **extra: Unpack[dd.Options]) -> dd.SolveResult:
    return dd.solve(eg.hands, eg.trump, eg.leader, eg.trick, **kwargs(eg, **extra))


def moves(eg: ref.Endgame, **extra: Unpack[dd.Options]) -> dd.MovesResult:
    return dd.solve_moves(eg.hands, eg.trump, eg.leader, eg.trick, **kwargs(eg, **extra))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    tricks_left=st.integers(3, 5),
    objective=st.sampled_from(["diff", "score"]),
    playing=st.integers(0, 1),
)
def test_root_and_per_card_values_are_consistent(
    seed: int, tricks_left: int, objective: str, playing: int
) -> None:
    backend = "c" if "c" in BACKENDS else "python"
    eg = ref.random_endgame(random.Random(seed), tricks_left)
    if eg.rule == "klammern":
        objective = "diff"
    extra: dd.Options = {"objective": objective, "playing_team": playing, "backend": backend}
    root = solve(eg, **extra)
    mv = moves(eg, **extra)
    seat = (eg.leader + len(eg.trick)) % 4
    best = max(mv.values.values()) if seat % 2 == 0 else min(mv.values.values())
    assert root.value == best
    assert mv.values[root.best_card] == root.value
    assert mv.seat == seat
    for card, value in mv.values.items():
        assert solve(child(eg, card), **extra).value == value


@pytest.mark.skipif("c" not in BACKENDS, reason="C core not built")
def test_c_and_python_cores_agree() -> None:
    rng = random.Random(99)
    for _ in range(16):
        eg = ref.random_endgame(rng, rng.choice([4, 5]))
        playing = rng.randrange(2)
        objective = "diff" if eg.rule == "klammern" else rng.choice(["diff", "score"])
        values = []
        for backend in ("c", "python"):
            extra: dd.Options = {
                "objective": objective,
                "playing_team": playing,
                "backend": backend,
            }
            values.append((moves(eg, **extra).values, solve(eg, **extra).value))
        assert values[0] == values[1]


def test_c_core_is_built_in_ci() -> None:
    if os.environ.get("CI"):
        assert "c" in BACKENDS, "engine.ai._dd did not compile (pip install -e . needs gcc)"


@pytest.mark.parametrize("backend", BACKENDS)
def test_null_window_agrees_with_exact_value(backend: str) -> None:
    rng = random.Random(7)
    for _ in range(30):
        eg = ref.random_endgame(rng, rng.choice([3, 4]))
        v = solve(eg, backend=backend).value
        for t in (v - 2, v - 1, v, v + 1):
            nw = dd.null_window(
                eg.hands, eg.trump, eg.leader, eg.trick, threshold=t, **kwargs(eg, backend=backend)
            )
            assert nw.exceeds == (v > t)
            assert (nw.bound >= v) if nw.exceeds else (nw.bound <= v)
            # EW − NS > t  <=>  NS − EW < -t
            assert dd.exceeds(
                eg.hands,
                eg.trump,
                eg.leader,
                eg.trick,
                threshold=t,
                team=1,
                **kwargs(eg, backend=backend),
            ) == (-v > t)
        for playing in (0, 1):
            made = dd.made(
                eg.hands,
                eg.trump,
                eg.leader,
                eg.trick,
                **kwargs(eg, backend=backend, playing_team=playing),
            )
            assert made == ((v > 0) if playing == 0 else (v < 0))


def test_full_deal_root_equals_best_move() -> None:
    if "c" not in BACKENDS:
        pytest.skip("full deals only with the C core")
    rng = random.Random(3)
    for _ in range(3):
        deck = list(range(32))
        rng.shuffle(deck)
        hands = tuple(sum(1 << x for x in deck[8 * s : 8 * s + 8]) for s in range(4))
        trump = rng.randrange(4)
        r = dd.solve(hands, trump, 0)
        mv = dd.solve_moves(hands, trump, 0)
        assert r.value == max(mv.values.values()) == mv.values[r.best_card]
        assert r == dd.solve(hands, trump, 0)  # deterministic, node count included
        score = dd.solve(hands, trump, 0, objective="score", playing_team=0)
        made = dd.made(hands, trump, 0, playing_team=0)
        assert made == (r.value > 0)
        if made:
            assert score.value == r.value
        else:
            assert score.value <= -162


def _deal_with_tricks_left(seed: int, tricks: int) -> tuple[int, int, int, int]:
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    return tuple(sum(1 << x for x in deck[tricks * s : tricks * s + tricks]) for s in range(4))  # type: ignore[return-value]


@pytest.mark.parametrize("backend", BACKENDS)
def test_solve_moves_node_limit_abandons_inside_a_search(backend: str) -> None:
    """``max_nodes`` is checked inside the searches (every 1,024 nodes), not only between
    cards: a limit below one card's solve leaves no value; a larger one keeps only cards
    fully solved, each exact; the result is deterministic."""
    hands = _deal_with_tricks_left(11, 6 if backend == "python" else 8)
    full = dd.solve_moves(hands, 1, 0, backend=backend)
    assert len(full.values) >= 3 and full.nodes > 10_000
    none = dd.solve_moves(hands, 1, 0, max_nodes=1, backend=backend)
    assert none.values == {}
    assert none.nodes <= 1024  # abandoned at the first check, inside the first search
    limit = full.nodes // 2
    part = dd.solve_moves(hands, 1, 0, max_nodes=limit, backend=backend)
    assert 0 < len(part.values) < len(full.values)
    assert all(full.values[c] == v for c, v in part.values.items())
    assert limit < part.nodes <= limit + 1024
    assert part == dd.solve_moves(hands, 1, 0, max_nodes=limit, backend=backend)
    # A limit that is not reached changes nothing, node count included.
    assert dd.solve_moves(hands, 1, 0, max_nodes=full.nodes + 1, backend=backend) == full


@pytest.mark.parametrize("backend", BACKENDS)
def test_solve_moves_deadline(backend: str) -> None:
    """A deadline already past abandons at the first check; a far one changes nothing."""
    hands = _deal_with_tricks_left(12, 5)
    full = dd.solve_moves(hands, 2, 1, backend=backend)
    past = dd.solve_moves(hands, 2, 1, deadline=time.perf_counter() - 1, backend=backend)
    assert past.values == {} and past.nodes == 0
    far = dd.solve_moves(hands, 2, 1, deadline=time.perf_counter() + 3600, backend=backend)
    assert far == full


# ---------------------------------------------------------------- hand-made positions


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("roem", [False, True])
def test_lead_the_loser_first(backend: str, roem: bool) -> None:
    """No trumps left (clubs trump). N: AS 7H, E: 8S 8H, S: 10S 9H, W: 9S KH; N leads.

    AS first: NS take AS+10S = 21, then W wins the hearts with KH: 4 + 10 last = 14 → +7.
    7H first: W wins KH (4), then must lead 9S into AS/10S: 21 + 10 last = 31 → +27.
    With roem both tricks have a run of three (8-9-10 spades, 7-8-9 hearts): 20 each, so the
    difference is unchanged (7H: 51 − 24 = 27; AS: 41 − 34 = 7).
    """
    hands = (m("AS 7H"), m("8S 8H"), m("10S 9H"), m("9S KH"))
    r = dd.solve(hands, 3, 0, roem=roem, backend=backend)
    assert (r.value, r.best_card) == (27, c("7H"))
    assert dd.solve_moves(hands, 3, 0, roem=roem, backend=backend).values == {
        c("AS"): 7,
        c("7H"): 27,
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("rule", "value"), [("amsterdam", -39), ("rotterdam", 11), ("klammern", -39)]
)
def test_rotterdam_undertrump_costs_the_ruff(backend: str, rule: str, value: int) -> None:
    """Hearts trump. N: 7S AC, E: 9H 8C, S: 8S 7D, W: 8H KD; N leads.

    7S: E must ruff with 9H; W is void in spades with partner E winning by trump.
    Rotterdam (§4.3) forces W to undertrump with 8H (EW 14), so N's AC wins the last trick
    (11 + KD 4 + 10 = 25): +11. Amsterdam (§4.4) and Klammern (§9.4) let W discard KD (EW 18)
    and keep 8H to ruff the AC (21): −39. Leading AC first: W ruffs at once, −39 everywhere.
    """
    hands = (m("7S AC"), m("9H 8C"), m("8S 7D"), m("8H KD"))
    mv = dd.solve_moves(hands, 1, 0, play_rule=rule, backend=backend)
    assert mv.values == {c("7S"): value, c("AC"): -39}
    assert dd.solve(hands, 1, 0, play_rule=rule, backend=backend).value == value


@pytest.mark.parametrize("backend", BACKENDS)
def test_nat_counts_all_points_for_the_defenders(backend: str) -> None:
    """Clubs trump, no clubs left; N: 7S 7H, E: AS KD, S: 8H JD, W: 9S QD; N leads.

    Taken so far 56 : 61 (arbitrary). NS plays and is nat in every line, so the defenders get
    all points of both teams (§6.3): only the total (points + roem) matters to them.
    7H: S wins with 8H; E throws AS (11 to NS!) and keeps KD, so trick 2 (JD led) holds
    J-Q-K of diamonds: EW 39 with the run; NS 67, EW 100 → diff −33, round score −167.
    7S: E wins AS; S throws JD under it, breaking the run: NS 56, EW 91 → diff −35, −147.
    Point difference prefers 7H, the round score (nat cliff) prefers 7S.
    """
    hands = (m("7S 7H"), m("AS KD"), m("8H JD"), m("9S QD"))
    taken = (56, 61)
    diff = dd.solve_moves(hands, 3, 0, taken=taken, backend=backend)
    assert diff.values == {c("7S"): -35, c("7H"): -33}
    score = dd.solve_moves(
        hands, 3, 0, taken=taken, objective="score", playing_team=0, backend=backend
    )
    assert score.values == {c("7S"): -147, c("7H"): -167}
    r = dd.solve(hands, 3, 0, taken=taken, objective="score", playing_team=0, backend=backend)
    assert (r.value, r.best_card) == (-147, c("7S"))
    assert not dd.made(hands, 3, 0, taken=taken, playing_team=0, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_equal_totals_are_nat_and_pit(backend: str) -> None:
    """Last trick, hearts trump: N 7S, E JH, S 8S, W KS. E ruffs: 20 + 4 + 10 last = 34 for EW
    (7S 8S KS is no run).

    Taken 70 : 36 → 70 : 70. Equal totals: the playing team is nat (§6.3): NS playing → NS 0,
    EW 140 (−140); EW playing → NS 140 (+140). Diff 0 either way. Pit (§6.4): EW won 7 tricks
    (tricks_taken = (0, 7)) and wins the last: +100 roem for EW unless they defend and
    defender_pit is off. Without tricks_taken (unknown history) no pit is scored.
    """
    hands = (m("7S"), m("JH"), m("8S"), m("KS"))

    def value(**o: Unpack[dd.Options]) -> int:
        options: dd.Options = {"taken": (70, 36), "backend": backend}
        options.update(o)
        return dd.solve(hands, 1, 0, **options).value

    assert value() == 0
    assert value(objective="score", playing_team=0) == -140
    assert value(objective="score", playing_team=1) == 140
    pit = (0, 7)
    assert value(tricks_taken=pit) == -100
    assert value(tricks_taken=pit, playing_team=0, defender_pit=False) == 0
    assert value(tricks_taken=pit, playing_team=1, defender_pit=False) == -100
    assert value(tricks_taken=pit, pit=False) == 0
    # EW playing with pit: 70 vs 170 → made, each its own total: NS 70, EW 170.
    assert value(tricks_taken=pit, objective="score", playing_team=1) == -100
    assert dd.round_scores(70, 70, 0) == (0, 140)
    assert dd.round_scores(70, 71, 1) == (70, 71)


def test_finished_deal_and_mid_trick_position() -> None:
    assert dd.solve((0, 0, 0, 0), 0, 2, taken=(100, 62)).value == 38
    assert dd.solve_moves((0, 0, 0, 0), 0, 2).values == {}
    # Mid-trick: W led 7H (hearts trump), N holds JH 7S and must beat the 7H with JH (§4.2).
    r = dd.solve_moves((m("JH"), m("8S"), m("9S"), 0), 1, 3, ((3, c("7H")),), roem=False)
    assert r.seat == 0
    assert r.values == {c("JH"): 20 + 10 + 0 + 0}


def test_rejects_inconsistent_positions() -> None:
    one = (m("7S"), m("8S"), m("9S"), m("10S"))
    with pytest.raises(ValueError):
        dd.solve((m("7S"), m("7S"), m("9S"), m("10S")), 0, 0)  # overlap
    with pytest.raises(ValueError):
        dd.solve((m("7S 8H"), m("8S"), m("9S"), m("10S")), 0, 0)  # sizes
    with pytest.raises(ValueError):
        dd.solve(one, 0, 0, ((1, c("AS")),))  # trick seat is not the leader
    with pytest.raises(ValueError):
        dd.solve(one, 0, 0, tricks_taken=(3, 3))  # 7 tricks done
    with pytest.raises(ValueError):
        dd.solve(one, 0, 0, objective="score")  # needs the playing team
    with pytest.raises(ValueError):
        dd.solve(one, 0, 0, objective="score", playing_team=0, play_rule="klammern")
    with pytest.raises(ValueError):
        dd.solve(one, 0, 0, objective="points")
    with pytest.raises(ValueError):
        dd.solve(one, 0, 0, backend="fortran")
    with pytest.raises(ValueError):
        dd.solve(one, 0, 0, taken=(-1, 0))
    with pytest.raises(TypeError):
        dd.solve(one, 0, 0, four_low=100)  # type: ignore[call-arg]  # misspelt option


_FULL = (0x000000FF, 0x0000FF00, 0x00FF0000, 0xFF000000)  # four hands of 8 cards

BAD_POSITIONS = {
    "nine cards": ((0x000001FF, 0x0000FE00, 0x00FF0000, 0xFF000000), ()),
    "a card in two hands": ((0x000000FF, 0x000001FE, 0x00FF0000, 0xFF000000), ()),
    "a mask over 32 bits": ((0x1000000FF, 0x0000FF00, 0x00FF0000, 0xFF000000), ()),
    "sizes that fit no trick": ((0x0000007F, 0x0000FF00, 0x00FF0000, 0xFF000000), ()),
    "a trick card in a hand": ((0x000000FE, 0x0000FF00, 0x00FF0000, 0xFF000000), (8,)),
}


def _search_in_child(backend: str, hands: tuple[int, ...], trick: tuple[int, ...]) -> str:
    """Run one search of ``backend`` in a child process (a crash must not take the test run
    with it); returns what it printed: the result, or the exception's class."""
    code = (
        "import sys\n"
        f"from engine.ai import {'_dd as core' if backend == 'c' else '_ddpy as core'}\n"
        "try:\n"
        f"    print(core.search({hands!r}, 0, 0, True, 0, 0, 0, {trick!r}, 0, 0, 0, -1,"
        " -30000, 30000, True, 2000))\n"
        "except ValueError as e:\n"
        "    print('ValueError', e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    return done.stdout.strip()


@pytest.mark.parametrize("backend", ["c", "python"])
@pytest.mark.parametrize("case", sorted(BAD_POSITIONS))
def test_the_solver_refuses_a_position_no_deal_has(backend: str, case: str) -> None:
    """Both cores check their input: a hand of more than 8 cards (and the like) raises a
    ValueError instead of running off the C core's fixed stacks."""
    if backend == "c" and "c" not in dd._BACKENDS:
        pytest.skip("C core not built")
    hands, trick = BAD_POSITIONS[case]
    assert _search_in_child(backend, hands, trick).startswith("ValueError")


def test_the_solver_still_takes_a_real_deal_and_the_c_legal_mask_checks_its_hand() -> None:
    assert not _search_in_child("python", _FULL, ()).startswith("ValueError")
    if "c" not in dd._BACKENDS:
        pytest.skip("C core not built")
    from engine.ai import _dd

    assert not _search_in_child("c", _FULL, ()).startswith("ValueError")
    with pytest.raises(ValueError):
        _dd.legal_mask(0x1FF, 0, 0, 0, ())
    with pytest.raises(ValueError):
        _dd.legal_mask(0xFF, 0, 0, 0, (3,))
