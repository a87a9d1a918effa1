"""Klammern rules tests named after the sections of ``shared/rules.md`` §9 (9.1–9.6)."""

from __future__ import annotations

import random

import pytest

from engine.actions import Accept, Action, Bella, Beter, Choose, Declare, Kleintje, Pass, PlayCard
from engine.cards import Card, Seat, Suit, Team, card, mask_of, parse_cards
from engine.deal import deal
from engine.errors import IllegalAction, Reason
from engine.events import (
    BellaAnnounced,
    BeterCalled,
    CardPlayed,
    CardProposed,
    DealVoided,
    DeclarationsCompared,
    Declared,
    Event,
    KleintjeCalled,
    RoundDealt,
    TrumpChosen,
)
from engine.game import GameState
from engine.klammern import (
    Declaration,
    KlammernScore,
    declaration_key,
    declaration_points,
    klammern_state,
    runs,
    sequence_value,
)
from engine.observe import observe
from engine.round import Phase, RoundState
from engine.rules import TOTAL_CARD_POINTS, legal_cards
from engine.settings import PlayRule, Settings

from .helpers import apply_all, fixed_deal, play_round_randomly, round_from

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
H, SP, D, C = Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS
KLAMMERN = Settings.from_preset("klammern")
AUTO = Settings.from_preset("klammern", auto_declare=True)

# Dealer West (its 7th card, 10H, is the proposed card: hearts); North is forehand and leads.
KL_HANDS = [
    "7D 8D 9D 10D KH QH AS 7C",  # North: fifty 7-10 of diamonds; K and Q of hearts (bella)
    "JS QS KS 7H 8H JD QD 8C",  # East: terz J-Q-K of spades
    "9C 10C JC AH 9S 10S KD AD",  # South: terz 9-J of clubs
    "7S 8S JH 9H AC QC 10H KC",  # West: terz Q-A of clubs, terz 9-J of hearts
]


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def kround(settings: Settings = KLAMMERN, bids: tuple[Action, ...] = (Accept(N),)) -> RoundState:
    """The KL_HANDS round after ``bids`` (default: North accepts hearts)."""
    return apply_all(round_from(settings, fixed_deal(3, KL_HANDS)), list(bids))


def play(state: RoundState, *texts: str) -> RoundState:
    for t in texts:
        seat = state.to_act
        assert seat is not None
        state, _ = state.apply(PlayCard(seat, card(t)))
    return state


def refused(state: RoundState, action: Action) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    return info.value


# --- §9.1 cards and points -----------------------------------------------------------------


def test_9_1_klammern_round_has_162_card_points_and_no_trick_roem() -> None:
    state = play_round_randomly(kround(), random.Random(1))
    assert state.phase is Phase.SCORED and isinstance(state.result, KlammernScore)
    assert sum(state.result.card_points.values()) == TOTAL_CARD_POINTS
    assert all(t.roem == 0 for t in state.tricks)


# --- §9.2 the proposed card ------------------------------------------------------------------


def test_9_2_proposed_card_is_the_middle_of_the_dealers_last_three() -> None:
    d = deal(random.Random(9), Seat.SOUTH)
    assert d.dealer_middle_card == d.hands[S][6]  # packets 3-2-3: the last three are 5, 6, 7
    state, events = RoundState.start(KLAMMERN, 1, d)
    assert events == [CardProposed(S, d.hands[S][6])]
    assert state.bid_status().shown == (d.hands[S][6].suit,)


def test_9_2_proposed_card_stays_in_the_dealers_hand_and_is_public() -> None:
    state = kround(bids=())
    assert state.hands[W] & card("10H").bit
    for viewer in (N, E, S, W, None):
        assert observe(state, viewer).proposed_card == card("10H")
    # Once West has played it, it is no longer "proposed".
    state = play(apply_all(state, [Accept(N)]), "AS", "JS", "9S", "7S")
    assert observe(state, N).proposed_card == card("10H")
    state = play(state, "10D", "JD", "KD")
    state, _ = state.apply(PlayCard(W, card("10H")))  # West is void in diamonds: trumps
    assert observe(state, N).proposed_card is None


# --- §9.3 bidding ----------------------------------------------------------------------------


def test_9_3_accept_round_forehand_first_accept_ends_the_auction() -> None:
    state = kround(bids=())
    assert state.to_act == N and state.legal_actions() == (Accept(N), Pass(N))
    state, events = apply_all(state, [Pass(N)]).apply(Accept(E))
    assert (state.trump, state.maker, state.leader) == (H, E, N)
    assert events == [TrumpChosen(E, H, N)]
    assert state.phase is Phase.PLAY


def test_9_3_kleintje_round_names_any_suit_after_all_pass() -> None:
    state = kround(bids=(Pass(N), Pass(E), Pass(S), Pass(W)))
    assert state.to_act == N
    assert set(state.legal_actions()) == {*(Kleintje(N, s) for s in Suit), Pass(N)}
    assert refused(state, Accept(N)).reason is Reason.NOT_ALLOWED
    state, events = apply_all(state, [Pass(N)]).apply(Kleintje(E, H))
    assert events == [KleintjeCalled(E, H)]
    assert state.to_act == S and state.legal_actions() == (Beter(S), Pass(S))
    state = apply_all(state, [Pass(S), Pass(W), Pass(N)])
    assert (state.trump, state.maker, state.leader) == (H, E, N)


def test_9_3_beter_makes_clubs_trump_and_the_caller_plays() -> None:
    state = kround(bids=(Pass(N), Pass(E), Pass(S), Pass(W), Kleintje(N, D), Pass(E)))
    state, events = state.apply(Beter(S))
    assert events == [BeterCalled(S), TrumpChosen(S, C, N)]
    assert (state.trump, state.maker, state.playing_team, state.leader) == (C, S, Team.NS, N)


def test_9_3_all_pass_twice_voids_the_deal_and_the_same_dealer_deals_again() -> None:
    game = GameState.new(KLAMMERN, 21)
    first = game.current
    assert first is not None
    fh = first.forehand
    events: list[Event] = []
    for i in range(8):
        game, ev = game.apply(Pass(Seat((fh + i) % 4)))
        events += ev
    again = game.current
    assert again is not None and again.number == 1 and again.dealer == first.dealer
    assert again.deal.hands != first.deal.hands and again.phase is Phase.BIDDING
    assert DealVoided(1, first.dealer) in events
    assert RoundDealt(1, first.dealer) in events
    assert CardProposed(first.dealer, again.deal.dealer_middle_card) in events
    assert game.rounds == () and game.redeals == 1 and len(game.voided) == 1
    assert game.voided[0].deal == first.deal and game.voided[0].phase is Phase.REDEAL


# --- §9.4 play ---------------------------------------------------------------------------------


def _legal(hand: str, trick: list[str], trump: Suit = H) -> set[str]:
    """Legal cards of South (seat 2) after a trick led by North."""
    got = legal_cards(cards(hand), cards(" ".join(trick)), S, N, trump, PlayRule.KLAMMERN)
    return {str(c) for c in got}


def test_9_4_must_follow_suit() -> None:
    assert _legal("7S AH AC", ["AS", "8S"]) == {"7S"}


def test_9_4_void_must_trump_also_when_the_partner_is_winning() -> None:
    assert _legal("7H 8H AC KD", ["AS", "7S"]) == {"7H", "8H"}  # partner North wins with AS


def test_9_4_must_overtrump_also_over_the_partner() -> None:
    # North leads a spade, East trumps with 9H, ... South void: must beat 9H with JH.
    assert _legal("JH 7H AC", ["AS", "9H"]) == {"JH"}


def test_9_4_cannot_overtrump_discard_a_non_trump() -> None:
    assert _legal("7H 8H AC KD", ["AS", "JH"]) == {"AC", "KD"}


def test_9_4_undertrump_only_with_nothing_but_lower_trumps() -> None:
    assert _legal("7H 8H", ["AS", "JH"]) == {"7H", "8H"}


def test_9_4_void_without_trumps_any_card() -> None:
    assert _legal("AC KD", ["AS", "JH"]) == {"AC", "KD"}


def test_9_4_trump_led_as_4_2() -> None:
    assert _legal("7H AH AC", ["10H", "KH"]) == {"AH"}  # beat the highest trump
    assert _legal("7H 8H AC", ["10H", "KH"]) == {"7H", "8H"}  # else any trump
    assert _legal("AC KD", ["10H", "KH"]) == {"AC", "KD"}


def test_9_4_refusal_reasons_in_a_round() -> None:
    state = play(kround(), "AS")  # East holds spades
    assert refused(state, PlayCard(E, card("7H"))).reason is Reason.MUST_FOLLOW_SUIT


# --- §9.5 declarations -------------------------------------------------------------------------


def test_9_5_terz_is_20_fifty_is_50_and_a_run_of_seven_is_one_fifty() -> None:
    assert sequence_value(cards("10D JD QD")) == 20
    assert sequence_value(cards("10D JD QD KD")) == 50
    assert runs(mask_of(cards("7D 8D 9D 10D JD QD KD"))) == (cards("7D 8D 9D 10D JD QD KD"),)
    assert Declaration(N, cards("7D 8D 9D 10D JD QD KD")).points == 50
    assert Declaration(N, cards("7D 8D 9D 10D JD QD KD AD")).points == 50


def test_9_5_sequences_use_the_natural_order_and_do_not_wrap() -> None:
    assert runs(mask_of(cards("KD AD 7D 8D"))) == ()
    assert runs(mask_of(cards("9H 10H JH QH 8S 9S 10S"))) == (
        cards("8S 9S 10S"),
        cards("9H 10H JH QH"),
    )
    with pytest.raises(ValueError):
        sequence_value(cards("9H JH QH"))


def test_9_5_fifty_beats_terz() -> None:
    points = declaration_points(
        {Team.NS: [cards("QH KH AH")], Team.EW: [cards("7C 8C 9C 10C")]}, SP
    )
    assert points == {Team.NS: 0, Team.EW: 50}


def test_9_5_fifties_compare_by_top_card_not_by_length() -> None:
    long, short = cards("7C 8C 9C 10C JC QC"), cards("10D JD QD KD")
    assert declaration_points({Team.NS: [long], Team.EW: [short]}, H) == {Team.NS: 0, Team.EW: 50}


def test_9_5_higher_top_card_wins_then_trump_then_suit_order() -> None:
    assert declaration_key(cards("JH QH KH"), SP) > declaration_key(cards("10D JD QD"), SP)
    trump_terz, diamonds = cards("10S JS QS"), cards("10D JD QD")
    assert declaration_points({Team.NS: [diamonds], Team.EW: [trump_terz]}, SP) == {
        Team.NS: 0,
        Team.EW: 20,
    }
    terzes = [cards(f"10{s} J{s} Q{s}") for s in "DHSC"]
    keys = [declaration_key(seq, C) for seq in terzes]
    assert max(keys) == keys[3]  # the clubs terz: trump
    assert keys[:3] == sorted(keys[:3], reverse=True)  # ♦ > ♥ > ♠ when not trump
    keys = [declaration_key(seq, H) for seq in terzes]
    assert keys[1] > keys[0] > keys[2] > keys[3]  # hearts trump, then ♦ > ♠ > ♣


def test_9_5_only_the_best_team_scores_and_then_all_its_declarations() -> None:
    ns = [cards("7D 8D 9D 10D"), cards("9C 10C JC")]
    ew = [cards("JS QS KS"), cards("QC KC AC"), cards("9H 10H JH")]
    assert declaration_points({Team.NS: ns, Team.EW: ew}, H) == {Team.NS: 70, Team.EW: 0}
    assert declaration_points({Team.NS: ns[1:], Team.EW: ew}, H) == {Team.NS: 0, Team.EW: 60}
    assert declaration_points({Team.NS: [], Team.EW: []}, H) == {Team.NS: 0, Team.EW: 0}


def test_9_5_declarable_sequences_are_offered_with_the_first_card() -> None:
    state = kround()
    legal = state.legal_actions()
    assert legal[0] == Declare(N, cards("7D 8D 9D 10D"))
    assert sum(isinstance(a, Declare) for a in legal) == 1
    state = play(state, "AS")
    assert Declare(E, cards("JS QS KS")) in state.legal_actions()
    assert not [a for a in state.legal_actions(N) if isinstance(a, Declare)]
    west = play(state, "JS", "9S")
    assert [a for a in west.legal_actions() if isinstance(a, Declare)] == [
        Declare(W, cards("9H 10H JH")),
        Declare(W, cards("QC KC AC")),
    ]


def test_9_5_a_seat_declares_several_disjoint_sequences_and_they_are_public() -> None:
    state = play(kround(), "AS", "JS", "9S")
    state, events = state.apply(Declare(W, cards("QC KC AC")))
    assert events == [Declared(W, cards("QC KC AC"), 20)]
    state, _ = state.apply(Declare(W, cards("JH 10H 9H")))  # any order of the cards
    assert [a for a in state.legal_actions() if isinstance(a, Declare)] == []
    for viewer in (N, E, S, W, None):
        obs = observe(state, viewer)
        assert obs.klammern is not None
        assert [d.cards for d in obs.klammern.declarations] == [
            cards("QC KC AC"),
            cards("9H 10H JH"),
        ]


def test_9_5_a_sequence_not_in_the_hand_or_not_whole_is_refused() -> None:
    state = kround()
    for bad in ("JS QS KS", "8D 9D 10D", "7D 8D 9D 10D JD", "7D 8D 10D", "KH QH"):
        exc = refused(state, Declare(N, cards(bad)))
        assert exc.reason is Reason.NO_SUCH_DECLARATION, bad
        assert exc.details["declarable"] == ["7D-8D-9D-10D"]


def test_9_5_declaring_twice_is_refused() -> None:
    state, _ = kround().apply(Declare(N, cards("7D 8D 9D 10D")))
    exc = refused(state, Declare(N, cards("7D 8D 9D 10D")))
    assert exc.reason is Reason.ALREADY_DECLARED


def test_9_5_after_the_first_card_it_is_too_late() -> None:
    state = play(kround(), "AS")
    assert refused(state, Declare(N, cards("7D 8D 9D 10D"))).reason is Reason.TOO_LATE
    state = play(state, "JS", "9S", "7S")  # first trick complete: nobody may declare
    assert refused(state, Declare(N, cards("7D 8D 9D 10D"))).reason is Reason.TOO_LATE


def test_9_5_declaring_out_of_turn_or_outside_play_is_refused() -> None:
    state = kround()
    assert refused(state, Declare(E, cards("JS QS KS"))).reason is Reason.NOT_YOUR_TURN
    bidding = kround(bids=())
    assert refused(bidding, Declare(N, cards("7D 8D 9D 10D"))).reason is Reason.WRONG_PHASE
    klaverjas = round_from(Settings(), fixed_deal(3, KL_HANDS))
    exc = refused(klaverjas, Declare(N, cards("7D 8D 9D 10D")))
    assert exc.reason is Reason.NOT_ALLOWED


def test_9_5_declarations_are_compared_after_the_first_trick() -> None:
    state, _ = kround().apply(Declare(N, cards("7D 8D 9D 10D")))
    state = play(state, "AS")
    state, _ = state.apply(Declare(E, cards("JS QS KS")))
    state = play(state, "JS", "9S")
    assert observe(state, S).declaration_points == {Team.NS: 0, Team.EW: 0}
    state, events = state.apply(PlayCard(W, card("7S")))
    assert events[-1] == DeclarationsCompared(Team.NS, 50)
    assert observe(state, E).declaration_points == {Team.NS: 50, Team.EW: 0}
    done = play_round_randomly(state, random.Random(2))
    assert isinstance(done.result, KlammernScore)
    assert done.result.declaration_points == {Team.NS: 50, Team.EW: 0}
    assert done.result.declarations[Team.EW] == (cards("JS QS KS"),)
    r = done.result
    assert r.points[Team.NS] == r.card_points[Team.NS] + 50 + r.bella[Team.NS]


def test_9_5_undeclared_sequences_score_nothing() -> None:
    state = play(kround(), "AS")  # North does not declare its fifty
    state, _ = state.apply(Declare(E, cards("JS QS KS")))
    state = play(state, "JS", "9S")
    state, events = state.apply(PlayCard(W, card("7S")))
    assert events[-1] == DeclarationsCompared(Team.EW, 20)


def test_9_5_auto_declare_declares_every_sequence_with_the_first_card() -> None:
    state = kround(AUTO)
    assert not [a for a in state.legal_actions() if isinstance(a, Declare | Bella)]
    assert refused(state, Declare(N, cards("7D 8D 9D 10D"))).reason is Reason.NOT_ALLOWED
    state, events = state.apply(PlayCard(N, card("AS")))
    assert events == [Declared(N, cards("7D 8D 9D 10D"), 50), CardPlayed(N, card("AS"))]
    state = play(state, "JS", "9S")
    state, events = state.apply(PlayCard(W, card("7S")))
    assert events[:2] == [
        Declared(W, cards("9H 10H JH"), 20),
        Declared(W, cards("QC KC AC"), 20),
    ]
    assert events[-1] == DeclarationsCompared(Team.NS, 70)  # North's fifty and South's terz
    km = klammern_state(state)
    assert km is not None and len(km.declarations) == 5


# --- §9.6 bella ----------------------------------------------------------------------------------


def test_9_6_bella_is_announced_with_the_first_of_king_and_queen_of_trump() -> None:
    state = kround()
    assert [a for a in state.legal_actions() if isinstance(a, Bella)] == [
        Bella(N, card("QH")),
        Bella(N, card("KH")),
    ]
    state, events = state.apply(Bella(N, card("QH")))
    assert events == [BellaAnnounced(N, card("QH")), CardPlayed(N, card("QH"))]
    km = klammern_state(state)
    assert km is not None and km.bella == N
    assert observe(state, E).klammern == state.klammern
    done = play_round_randomly(state, random.Random(4))
    assert isinstance(done.result, KlammernScore)
    assert done.result.bella == {Team.NS: 20, Team.EW: 0}
    assert (
        done.result.points[Team.NS]
        == done.result.card_points[Team.NS] + 20 + (done.result.declaration_points[Team.NS])
    )


def test_9_6_bella_forgotten_is_lost() -> None:
    state, events = kround().apply(PlayCard(N, card("KH")))
    assert events == [CardPlayed(N, card("KH"))]  # no event: it would reveal the QH
    state = play(state, "7H", "AH", "9H")
    assert state.to_act == W  # 9H won
    assert not [a for a in state.legal_actions(N) if isinstance(a, Bella)]
    rest = play_round_randomly(state, random.Random(5))
    assert isinstance(rest.result, KlammernScore)
    assert rest.result.bella == {Team.NS: 0, Team.EW: 0}


def test_9_6_bella_needs_both_cards() -> None:
    state = kround()
    assert refused(state, Bella(N, card("AS"))).reason is Reason.NO_BELLA
    hands = [
        h.replace("KH", "KS") if i == 0 else h.replace("KS", "KH") for i, h in enumerate(KL_HANDS)
    ]
    split = apply_all(round_from(KLAMMERN, fixed_deal(3, hands)), [Accept(N)])
    assert not [a for a in split.legal_actions() if isinstance(a, Bella)]
    assert refused(split, Bella(N, card("QH"))).reason is Reason.NO_BELLA
    klaverjas = apply_all(round_from(Settings(), fixed_deal(3, KL_HANDS)), [Choose(N, H)])
    assert refused(klaverjas, Bella(N, card("QH"))).reason is Reason.NOT_ALLOWED


def test_9_6_bella_may_come_after_the_first_trick() -> None:
    state = play(kround(), "AS", "JS", "9S", "7S")  # North won the first trick and leads
    assert Bella(N, card("KH")) in state.legal_actions()
    state, events = state.apply(Bella(N, card("KH")))
    assert events[0] == BellaAnnounced(N, card("KH"))


def test_9_6_bella_only_with_a_legal_king_or_queen() -> None:
    state = play(kround(), "10D", "JD", "KD", "JH")  # West trumps and wins, then leads clubs
    state = play(state, "AC")
    assert state.to_act == N and state.legal_actions() == (PlayCard(N, card("7C")),)
    exc = refused(state, Bella(N, card("KH")))
    assert exc.reason is Reason.MUST_FOLLOW_SUIT


def test_9_6_bella_is_announced_automatically_with_auto_declare() -> None:
    state = kround(AUTO)
    state, events = state.apply(PlayCard(N, card("KH")))
    assert events == [
        Declared(N, cards("7D 8D 9D 10D"), 50),
        BellaAnnounced(N, card("KH")),
        CardPlayed(N, card("KH")),
    ]
    assert refused(kround(AUTO), Bella(N, card("KH"))).reason is Reason.NOT_ALLOWED


def test_9_6_bella_is_never_compared_with_the_other_team() -> None:
    state, _ = kround().apply(Bella(N, card("QH")))  # NS bella, no NS declaration
    state = play(state, "7H")
    state, _ = state.apply(Declare(S, cards("9C 10C JC")))
    state = play(state, "AH")
    state, _ = state.apply(Declare(W, cards("QC KC AC")))  # EW has the better declaration
    state = play(state, "9H")
    done = play_round_randomly(state, random.Random(6))
    assert isinstance(done.result, KlammernScore)
    assert done.result.declaration_points == {Team.NS: 0, Team.EW: 20}
    assert done.result.bella == {Team.NS: 20, Team.EW: 0}
