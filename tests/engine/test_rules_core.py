"""One rules core: the engine's §4.5 duties (:func:`engine.rules.legal_mask`) are the
source; the players' bit rules (:mod:`engine.ai.bitrules`), the Python solver
(:mod:`engine.ai._ddpy`) and the C solver (``engine.ai._dd``) are proven against it.

Over random reachable positions of every preset (whole rounds played with random legal
actions, bidding, claims and Klammern calls included) and over arbitrary hand/trick
situations: the legal cards agree, and so do trick winner, trick points and roem wherever an
implementation computes them (the solvers through their own search, on the last trick). The
players' inference from a card played (``engine.ai.knowledge``, the duties read backwards) is
checked against the source too.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.actions import PlayCard
from engine.ai import _ddpy
from engine.ai import bitrules as br
from engine.ai.knowledge import play_inference
from engine.cards import CARDS, FULL_MASK, SEATS, SUITS, Seat, Suit, mask_of
from engine.deal import deal, round_rng
from engine.round import Phase, RoundState, Trick
from engine.rules import LAST_TRICK_BONUS, legal_mask, mask_points, roem, winning_position
from engine.settings import PRESETS, PlayRule, RoemMode, Settings, TrumpSelection

try:
    from engine.ai import _dd as _c_dd

    SOLVERS: tuple[ModuleType, ...] = (_ddpy, _c_dd)
except ImportError:  # the C core is optional (setup.py); CI builds it
    SOLVERS = (_ddpy,)

ALL_PRESETS = sorted(PRESETS)
RULES = tuple(PlayRule)


def all_legal(
    hand: int, trick: Sequence[int], leader: int, trump: int, rule: PlayRule
) -> dict[str, int]:
    """The legal mask of every implementation, by name; the engine's is the source."""
    seat = (leader + len(trick)) & 3
    out = {
        "engine": legal_mask(
            hand,
            tuple(CARDS[c] for c in trick),
            SEATS[seat],
            SEATS[leader],
            SUITS[trump],
            rule,
        ).legal,
        "bitrules": br.legal_mask(
            hand, list(trick), [(leader + i) & 3 for i in range(len(trick))], seat, trump, rule
        ),
    }
    rid = br.play_rule_id(rule.value)
    for solver in SOLVERS:
        out[solver.__name__] = solver.legal_mask(hand, trump, rid, leader, tuple(trick))
    return out


def assert_agree(hand: int, trick: Sequence[int], leader: int, trump: int, rule: PlayRule) -> None:
    got = all_legal(hand, trick, leader, trump, rule)
    source = got["engine"]
    assert source and source & ~hand == 0
    assert all(v == source for v in got.values()), (hex(hand), list(trick), leader, trump, got)


def solver_trick_value(solver: ModuleType, trick: Trick, trump: int, settings: Settings) -> int:
    """What the solver's search makes of ``trick`` played as the last trick (NS − EW points):
    once entering after three cards (its in-trick path), once from the lead with one card in
    every hand (its forced-last-trick path); both must give the same value."""
    leader = int(trick.leader)
    idx = [c.index for c in trick.cards]
    with_roem = settings.roem is not RoemMode.DECLARATIONS
    rid = br.play_rule_id(settings.play_rule.value)
    values = set()
    hands = [0, 0, 0, 0]
    hands[(leader + 3) & 3] = 1 << idx[3]
    args = (trump, rid, with_roem, settings.four_low_cards, 0)
    v, _, _ = solver.search(
        tuple(hands), *args, leader, tuple(idx[:3]), 0, 0, 0, -1, -9999, 9999, True
    )
    values.add(v)
    hands = [0, 0, 0, 0]
    for i, c in enumerate(idx):
        hands[(leader + i) & 3] = 1 << c
    v, _, _ = solver.search(tuple(hands), *args, leader, (), 0, 0, 0, -1, -9999, 9999, True)
    values.add(v)
    assert len(values) == 1, values
    value: int = values.pop()
    return value


def check_trick(trick: Trick, number: int, trump: Suit, settings: Settings) -> None:
    """Trick winner, points and roem: engine == bit rules == the rules functions == solvers."""
    t = trump.ordinal
    idx = [c.index for c in trick.cards]
    mask = mask_of(trick.cards)
    seats = [int(s) for s in trick.seats]
    last = number == 8
    assert trick.winner == SEATS[(trick.leader + winning_position(trick.cards, trump)) & 3]
    assert trick.winner == br.trick_winner(idx, seats, t)
    assert trick.points == br.trick_points(mask, t) + (LAST_TRICK_BONUS if last else 0)
    assert trick.points == mask_points(mask, trump) + (LAST_TRICK_BONUS if last else 0)
    four_low = settings.four_low_cards
    if settings.roem is RoemMode.DECLARATIONS:
        assert trick.roem == 0  # Klammern has no trick roem (§9)
        want_roem = 0
    else:
        want_roem = br.trick_roem(mask, t, four_low)
        assert trick.roem == want_roem == br.roem_of_mask(mask, t, four_low)
        assert trick.roem == roem(trick.cards, trump, four_low)
    total = br.trick_points(mask, t) + want_roem + LAST_TRICK_BONUS
    want = total if trick.winner % 2 == 0 else -total
    for solver in SOLVERS:
        assert solver_trick_value(solver, trick, t, settings) == want, solver.__name__


def check_inference(state: RoundState, card: int) -> None:
    """The players' inference from a card (:func:`engine.ai.knowledge.play_inference`, the
    duties read backwards) agrees with the source: it is sound (the player holds none of the
    cards it rules out) and exact (an unseen card is ruled out if and only if holding it would
    have made the card illegal)."""
    seat = state.to_act
    assert seat is not None and state.trump is not None
    trump, rule = state.trump, state.settings.play_rule
    trick = [c.index for c in state.trick]
    seats = [(state.leader + i) & 3 for i in range(len(trick))]
    cannot = play_inference(rule, trump.ordinal, trick, seats, seat, card)
    hand = state.hands[seat]
    assert cannot & (hand & ~(1 << card)) == 0, "unsound"
    seen = hand | mask_of(state.trick)
    for t in state.tricks:
        seen |= mask_of(t.cards)
    unseen = FULL_MASK & ~seen
    while unseen:
        low = unseen & -unseen
        unseen ^= low
        with_x = legal_mask(hand | low, state.trick, seat, state.leader, trump, rule).legal
        # Exact: x is ruled out if and only if holding it would have made the card illegal.
        assert bool(cannot & low) == (not with_x >> card & 1), (
            CARDS[card],
            CARDS[low.bit_length() - 1],
            bool(cannot & low),
        )


def play_round(preset: str, seed: int, four_low: int) -> None:
    """Play one round of ``preset`` with random legal actions, checking every card decision
    and every completed trick."""
    settings = Settings.from_preset(preset, four_low_cards=four_low)
    rng = random.Random(seed)
    turned = settings.trump_selection is TrumpSelection.TURNED
    state, _ = RoundState.start(
        settings, 1 + seed % 16, deal(round_rng(seed, 1), Seat(seed % 4), seed % 16 == 0, turned)
    )
    checked: set[tuple[int, int]] = set()  # (tricks done, cards in trick) seen
    while state.phase not in (Phase.SCORED, Phase.REDEAL):
        if state.phase is Phase.PLAY:
            seat = state.to_act
            assert seat is not None and state.trump is not None
            trick = [c.index for c in state.trick]
            assert_agree(
                state.hands[seat], trick, state.leader, state.trump.ordinal, settings.play_rule
            )
            assert (
                state.legal_cards_mask()
                == legal_mask(
                    state.hands[seat],
                    state.trick,
                    seat,
                    state.leader,
                    state.trump,
                    settings.play_rule,
                ).legal
            )
            checked.add((len(state.tricks), len(state.trick)))
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        if isinstance(action, PlayCard) and state.trick:
            check_inference(state, action.card.index)
        state, _ = state.apply(action)
    if state.phase is Phase.SCORED:
        assert len(checked) == 32
        assert state.trump is not None
        for n, done in enumerate(state.tricks, 1):
            check_trick(done, n, state.trump, settings)


@given(st.sampled_from(ALL_PRESETS), st.integers(0, 2**32), st.sampled_from([0, 100]))
def test_duties_agree_over_reachable_positions_of_every_preset(
    preset: str, seed: int, four_low: int
) -> None:
    play_round(preset, seed, four_low)


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_duties_agree_over_many_rounds_per_preset(preset: str) -> None:
    for seed in range(40):
        play_round(preset, seed, 0)


@st.composite
def situations(draw: st.DrawFn) -> tuple[int, list[int], int, int, PlayRule]:
    """Any hand (1-8 cards) and partial trick of other cards: not only reachable ones."""
    deck = draw(st.permutations(list(range(32))))
    n_trick = draw(st.integers(0, 3))
    hand_size = draw(st.integers(1, 8))
    trick = list(deck[:n_trick])
    hand = sum(1 << c for c in deck[n_trick : n_trick + hand_size])
    return (
        hand,
        trick,
        draw(st.integers(0, 3)),
        draw(st.integers(0, 3)),
        draw(st.sampled_from(RULES)),
    )


@given(situations())
def test_duties_agree_over_arbitrary_situations(
    sit: tuple[int, list[int], int, int, PlayRule],
) -> None:
    assert_agree(*sit)


def test_the_four_implementations_on_the_decision_table() -> None:
    """§4.5 row by row (trump hearts; hand JH 8H 7S AD), every implementation."""
    h = mask_of(CARDS[i] for i in (12, 9, 0, 23))  # JH 8H 7S AD
    jh, h8, s7, ad = (1 << 12), (1 << 9), (1 << 0), (1 << 23)
    hearts = 1
    ac, c7, h9, c10 = 31, 24, 10, 27
    cases = [
        # (trick, leader, rule, want)
        ((), 0, PlayRule.AMSTERDAM, h),
        ((ac,), 1, PlayRule.AMSTERDAM, jh | h8),  # opponent winning: HT
        ((ac,), 1, PlayRule.ROTTERDAM, jh | h8),
        ((ac, c7), 0, PlayRule.AMSTERDAM, h),  # partner winning with a plain card: H
        ((ac, c7), 0, PlayRule.ROTTERDAM, jh | h8),  # HT
        ((ac, c7), 0, PlayRule.KLAMMERN, jh | h8),  # §9.4: also on partner
        ((ac, h9, c10), 1, PlayRule.AMSTERDAM, jh | s7 | ad),  # partner ruffed: NT ∪ HT
        ((ac, h9, c10), 1, PlayRule.ROTTERDAM, jh),
        ((ac, h9, c10), 1, PlayRule.KLAMMERN, jh),
    ]
    for trick, leader, rule, want in cases:
        got = all_legal(h, trick, leader, hearts, rule)
        assert set(got.values()) == {want}, (trick, rule, got)


@given(st.integers(0, 2**64))
def test_the_deal_shuffles_exactly_as_random_shuffle(seed: int) -> None:
    """``engine.deal`` writes CPython's shuffle out for speed: the same draws, the same deals
    (stored games replay from their seeds)."""
    from engine.deal import _shuffle

    a, b = list(range(32)), list(range(32))
    rng_a, rng_b = random.Random(seed), random.Random(seed)
    for _ in range(3):
        rng_a.shuffle(a)
        _shuffle(rng_b, b)  # type: ignore[arg-type]
        assert a == b
    assert rng_a.random() == rng_b.random()


def test_the_duty_table_is_the_one_in_docs_rules_md() -> None:
    """``engine.rules.VOID_DUTIES`` (which the engine's legal_mask reads) is §4.5's table."""
    from pathlib import Path

    from engine.rules import VOID_DUTIES, Situation

    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    rows = {
        "void, opponent winning": Situation.OPPONENT_WINNING,
        "void, partner winning with a plain card": Situation.PARTNER_WINNING_PLAIN,
        "void, partner winning with a trump": Situation.PARTNER_WINNING_TRUMP,
    }
    seen = 0
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] in rows:
            situation = rows[cells[0]]
            for rule, cell in zip((PlayRule.ROTTERDAM, PlayRule.AMSTERDAM), cells[1:], strict=True):
                sets = tuple(x.strip().replace("NT ∪ HT", "NT|HT") for x in cell.split(","))
                assert VOID_DUTIES[rule][situation] == sets, (rule, situation)
            seen += 1
    assert seen == 3
    # §9.4: Klammern must trump (or overtrump) also on the partner; else discard a non-trump.
    assert set(VOID_DUTIES[PlayRule.KLAMMERN].values()) == {("HT", "NT", "H")}
