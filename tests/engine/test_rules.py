"""Rules tests named after the sections of ``shared/rules.md``."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.actions import (
    PLAY,
    Accept,
    Choose,
    ClaimRoem,
    Declare,
    Pass,
    PlayCard,
    parse_action,
)
from engine.cards import CARDS, SUIT_MASKS, Card, Seat, Suit, Team, card, cards_of, mask_of
from engine.deal import deal
from engine.errors import IllegalAction, NotationError, Reason, SettingsError
from engine.events import RoemClaimed, RoemLost, SuitTurned, TrickWon, TrumpChosen
from engine.game import GameState
from engine.round import Phase, RoundState, Trick
from engine.rules import TOTAL_CARD_POINTS, mask_points, roem
from engine.settings import PRESETS, FirstLead, PlayRule, RoemMode, Settings, TrumpSelection

from .helpers import (
    apply_all,
    fixed_deal,
    klaverjas_result,
    played_cards,
    random_game,
    round_from,
)

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
H, SP, D, C = Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS, Suit.CLUBS

# Dealer West: North is forehand. Hands chosen to exercise the duties of §4.
HANDS = [
    "JH 9H AH 7S 8S 9S 7D 8D",  # North
    "10H KH 10S JS QS KS 9D 10D",  # East
    "QH 8H AS JD QD KD AD 7C",  # South
    "7H 8C 9C 10C JC QC KC AC",  # West
]


def _round(
    settings: Settings | None = None, hands: list[str] = HANDS, dealer: int = 3
) -> RoundState:
    return round_from(settings or Settings(), fixed_deal(dealer, hands))


def _play(state: RoundState, *cards: str) -> RoundState:
    for c in cards:
        seat = state.to_act
        assert seat is not None
        state, _ = state.apply(PlayCard(seat, card(c)))
    return state


def _refusal(state: RoundState, seat: Seat, c: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        state.apply(PlayCard(seat, card(c)))
    return info.value


# --- §1 cards and points -------------------------------------------------------------------


def test_1_2_trump_suit_is_worth_62_and_1_3_plain_suit_30() -> None:
    for s in Suit:
        assert mask_points(SUIT_MASKS[s.ordinal], s) == 62
        assert mask_points(SUIT_MASKS[s.ordinal], H if s is not H else SP) == 30


def test_1_4_all_cards_are_152_plus_10_for_the_last_trick() -> None:
    assert mask_points(mask_of(CARDS), C) + 10 == TOTAL_CARD_POINTS


def test_card_notation_round_trips_and_rejects_bad_text() -> None:
    assert [str(Card.parse(str(c))) for c in CARDS] == [str(c) for c in CARDS]
    assert card("th") == card("10H")
    for bad in ["", "1H", "11S", "JX", "H", "10", "JSS"]:
        with pytest.raises(NotationError):
            card(bad)


def test_action_notation_round_trips() -> None:
    for text in [
        "0:pass",
        "1:choose:H",
        "3:accept",
        "2:play:10S",
        "0:roem",
        "0:kleintje:D",
        "1:beter",
        "2:contra",
        "3:re",
        "2:declare:10D-JD-QD",
    ]:
        assert parse_action(text).notation() == text
    assert parse_action("choose:D", seat=N).notation(with_seat=False) == "choose:D"
    assert isinstance(parse_action("2:declare:10D-JD-QD"), Declare)
    for bad in ["", "0", "4:pass", "0:fly", "0:choose", "0:play:1X", "x:pass"]:
        with pytest.raises(NotationError):
            parse_action(bad)


# --- §2 deal ------------------------------------------------------------------------------


def test_2_2_deal_is_3_2_3_starting_left_of_the_dealer() -> None:
    deck = list(CARDS)
    random.Random(5).shuffle(deck)
    d = deal(random.Random(5), Seat.SOUTH)
    assert d.hands[W][:3] == tuple(deck[0:3])
    assert d.hands[N][:3] == tuple(deck[3:6])
    assert d.hands[S][:3] == tuple(deck[9:12])
    assert d.hands[W][3:5] == tuple(deck[12:14])
    assert d.hands[S][5:] == tuple(deck[29:32])
    assert sorted(c.index for h in d.hands for c in h) == list(range(32))


def test_2_3_a_game_of_8_rounds_when_set() -> None:
    game = random_game(Settings.from_preset("utrecht", rounds=8), 11)
    assert game.is_over and len(game.rounds) == 8 and len(game.sheet()) == 8
    with pytest.raises(IllegalAction) as info:
        game.apply(Pass(N))
    assert info.value.reason is Reason.GAME_OVER


# --- §3 choosing trump ---------------------------------------------------------------------


def test_3_1_free_choice_passes_then_forehand_is_forced() -> None:
    state = _round()
    assert state.to_act == N
    state = apply_all(state, [Pass(N), Pass(E), Pass(S), Pass(W)])
    assert state.to_act == N and Pass(N) not in state.legal_actions()
    with pytest.raises(IllegalAction) as info:
        state.apply(Pass(N))
    assert info.value.reason is Reason.MUST_CHOOSE
    state, events = state.apply(Choose(N, D))
    assert state.phase is Phase.PLAY and state.trump is D and state.maker == N
    assert TrumpChosen(N, D, N) in events


def test_3_1_bidding_out_of_turn_is_refused() -> None:
    with pytest.raises(IllegalAction) as info:
        _round().apply(Choose(E, H))
    assert info.value.reason is Reason.NOT_YOUR_TURN and info.value.details == {"to_act": 0}


def test_3_2_mandatory_forehand_may_not_pass() -> None:
    state = _round(Settings.from_preset("utrecht"))
    assert state.legal_actions() == tuple(Choose(N, s) for s in Suit)
    with pytest.raises(IllegalAction):
        state.apply(Pass(N))


def test_3_3_turned_clubs_first_in_round_1_then_second_suit_then_free_choice() -> None:
    game = GameState.new(Settings.from_preset("klassiek"), 4)
    r = game.current
    assert r is not None and r.bid_status().shown == (C,)
    fh = r.forehand
    actions = [Pass(Seat((fh + i) % 4)) for i in range(4)]
    state = r
    events = []
    for a in actions:
        state, ev = state.apply(a)
        events += ev
    second = state.bid_status().shown[1]
    assert second is not C and SuitTurned(second) in events
    assert state.legal_actions() == (Accept(fh), Pass(fh))
    state = apply_all(state, [Pass(Seat((fh + i) % 4)) for i in range(4)])
    rest = [s for s in Suit if s not in (C, second)]
    assert state.legal_actions() == tuple(Choose(fh, s) for s in rest)
    with pytest.raises(IllegalAction) as info:
        state.apply(Choose(fh, C))
    assert info.value.reason is Reason.SUIT_NOT_ALLOWED


def test_3_3_accepting_the_second_suit_makes_it_trump() -> None:
    state = round_from(Settings.from_preset("klassiek"), fixed_deal(3, HANDS, (H, SP)))
    state = apply_all(state, [Pass(N), Pass(E), Pass(S), Pass(W), Pass(N), Accept(E)])
    assert (state.trump, state.maker, state.leader) == (SP, E, E)


def test_3_4_first_lead_forehand_or_maker() -> None:
    state = apply_all(_round(), [Pass(N), Choose(E, H)])
    assert state.leader == N
    state = apply_all(
        _round(Settings.from_preset("amsterdam", first_lead="maker")), [Pass(N), Choose(E, H)]
    )
    assert state.leader == E and state.to_act == E


# --- §4 play ------------------------------------------------------------------------------


def test_4_1_must_follow_suit_with_reason_and_details() -> None:
    state = _play(apply_all(_round(), [Choose(N, H)]), "7S")
    exc = _refusal(state, E, "10H")
    assert exc.reason is Reason.MUST_FOLLOW_SUIT
    assert exc.details["led"] == "S" and set(exc.details["legal"]) == {"10S", "JS", "QS", "KS"}
    assert state.apply(PlayCard(E, card("JS")))[0].to_act == S


def test_4_2_trump_led_must_overtrump_also_over_partner() -> None:
    hands = [
        "KH 7S 8S 9S 7D 8D 9D 10D",
        "7H 10S JS QS KS JD QD KD",
        "AH 8H AS 7C 8C 9C 10C AD",
        "JH 9H 10H QH JC QC KC AC",
    ]
    state = _play(apply_all(_round(hands=hands), [Choose(N, H)]), "KH", "7H")
    exc = _refusal(state, S, "8H")
    assert exc.reason is Reason.MUST_OVERTRUMP and exc.details["winning"] == "KH"
    assert [str(c) for c in played_cards(state.legal_actions())] == ["AH"]


def test_4_2_any_card_may_be_led() -> None:
    state = apply_all(_round(), [Choose(N, C)])
    assert set(played_cards(state.legal_actions())) == set(cards_of(state.hands[N]))


def test_4_3_rotterdam_must_undertrump_4_4_amsterdam_may_not() -> None:
    hands = [
        "AS 7S 8S 9S 10S JS QS KS",
        "JH 7D 8D 9D 10D JD QD KD",
        "8H 7H AC 7C 8C 9C 10C JC",
        "9H 10H QH KH AH AD QC KC",
    ]
    clubs = {"AC", "7C", "8C", "9C", "10C", "JC"}
    for rule, legal in (("rotterdam", {"8H", "7H"}), ("amsterdam", clubs)):
        state = round_from(Settings.from_preset(rule), fixed_deal(3, hands))
        state = _play(apply_all(state, [Choose(N, H)]), "AS", "JH")
        assert {str(c) for c in played_cards(state.legal_actions())} == legal, rule
        if rule == "amsterdam":
            assert _refusal(state, S, "8H").reason is Reason.MAY_NOT_UNDERTRUMP
        else:
            assert _refusal(state, S, "AC").reason is Reason.MUST_TRUMP


def test_4_4_amsterdam_void_partner_winning_with_plain_card_may_play_anything() -> None:
    hands = [
        "AS 8S 9S 10S JS QS KS 7D",
        "7S JH 8D 9D 10D JD QD KD",
        "8H 7H AC 7C 8C 9C 10C JC",
        "9H 10H QH KH AH AD QC KC",
    ]
    state = round_from(Settings.from_preset("amsterdam"), fixed_deal(3, hands))
    state = _play(apply_all(state, [Choose(N, H)]), "AS", "7S")
    assert set(played_cards(state.legal_actions())) == set(cards_of(state.hands[S]))
    rot = round_from(Settings.from_preset("rotterdam"), fixed_deal(3, hands))
    rot = _play(apply_all(rot, [Choose(N, H)]), "AS", "7S")
    assert {str(c) for c in played_cards(rot.legal_actions())} == {"8H", "7H"}
    assert _refusal(rot, S, "AC").reason is Reason.MUST_TRUMP


def test_4_6_and_4_8_trick_winner_leads_next_and_last_trick_is_kept() -> None:
    state = apply_all(_round(), [Choose(N, H)])
    state, events = state.apply(PlayCard(N, card("7S")))
    state = _play(state, "KS", "AS")
    state, events = state.apply(PlayCard(W, card("7H")))  # W must trump South's AS (§4.4)
    assert TrickWon(1, W, 15, 0) in events
    assert state.leader == W and state.to_act == W
    assert state.last_trick is not None and state.last_trick.winner == W
    assert state.last_trick.played()[0] == (N, card("7S"))


def test_4_7_a_card_not_in_hand_is_refused() -> None:
    state = apply_all(_round(), [Choose(N, H)])
    assert _refusal(state, N, "AC").reason is Reason.NOT_IN_HAND
    assert state.apply(PlayCard(N, card("7S")))  # state unchanged by the refusal


# --- §5 roem ------------------------------------------------------------------------------


def test_5_2_run_of_four_is_50_not_70() -> None:
    assert roem([card(x) for x in ["7D", "8D", "9D", "10D"]], C) == 50


def test_5_3_stuk_adds_to_a_run() -> None:
    assert roem([card(x) for x in ["JS", "QS", "KS", "AS"]], SP) == 70


def test_5_4_four_low_cards_setting() -> None:
    nines = [card(x) for x in ["9H", "9D", "9C", "9S"]]
    assert roem(nines, SP) == 0 and roem(nines, SP, four_low_cards=100) == 100


CLAIM_HANDS = [
    "8D AH KH QH 7S 8S 9S 10S",
    "9D JD QD KD AD 7D JS QS",
    "10D 7H 8H 9H 10H JH KS AS",
    "7C 8C 9C 10C JC QC KC AC",
]


def _claim_round() -> RoundState:
    """Klassiek rules: hearts turned and accepted by North, who leads (maker, §3.4)."""
    state = round_from(Settings.from_preset("klassiek"), fixed_deal(3, CLAIM_HANDS, (H, SP)))
    return apply_all(state, [Accept(N)])


def test_5_5_no_roem_to_claim_is_refused() -> None:
    state = _claim_round()
    with pytest.raises(IllegalAction) as info:
        state.apply(ClaimRoem(N))
    assert info.value.reason is Reason.NO_ROEM_TO_CLAIM


def test_5_5_winners_claim_roem_before_the_next_card() -> None:
    state = _play(_claim_round(), "8D", "9D", "10D", "7C")  # run 8-9-10: 20 for South
    assert state.last_trick is not None and state.last_trick.winner == S
    assert state.claimable_roem() == 20
    assert ClaimRoem(S) in state.legal_actions()
    assert state.legal_actions(N) == (ClaimRoem(N),)
    assert state.legal_actions(E) == ()
    with pytest.raises(IllegalAction) as info:
        state.apply(ClaimRoem(E))
    assert info.value.reason is Reason.NOT_YOUR_ROEM
    claimed, events = state.apply(ClaimRoem(N))
    assert events == [RoemClaimed(N, 1, 20)]
    assert claimed.team_roem() == {Team.NS: 20, Team.EW: 0}
    with pytest.raises(IllegalAction) as info:
        claimed.apply(ClaimRoem(S))
    assert info.value.reason is Reason.NO_ROEM_TO_CLAIM


def test_5_5_unclaimed_roem_is_lost_when_the_next_card_is_played() -> None:
    state = _play(_claim_round(), "8D", "9D", "10D", "7C")
    after, events = state.apply(PlayCard(S, card("KS")))
    assert events[0] == RoemLost(1, 20)
    assert after.team_roem() == {Team.NS: 0, Team.EW: 0}
    with pytest.raises(IllegalAction) as info:
        after.apply(ClaimRoem(N))
    assert info.value.reason is Reason.NO_ROEM_TO_CLAIM


def _before_last_trick() -> RoundState:
    """Claim-mode round with 7 tricks played and JD, QD, KD, 7S left (North leads)."""
    state = _claim_round()
    last = [card(x) for x in ("JD", "QD", "KD", "7S")]
    rest = [c for c in CARDS if c not in last]
    tricks = []
    for i in range(7):
        cards = tuple(rest[4 * i : 4 * i + 4])
        tricks.append(Trick(N, cards, N, mask_points(mask_of(cards), H), 0))
    return replace(
        state,
        hands=tuple(c.bit for c in last),
        tricks=tuple(tricks),
        claimed=(False,) * 7,
        leader=N,
    )


def test_5_5_last_trick_roem_window_before_scoring() -> None:
    state = _play(_before_last_trick(), "JD", "QD", "KD", "7S")
    assert state.phase is Phase.CLAIM and state.to_act == S
    assert set(state.legal_actions()) == {ClaimRoem(S), Pass(S)}
    with pytest.raises(IllegalAction) as info:
        state.apply(Pass(N))
    assert info.value.reason is Reason.NOT_YOUR_TURN
    claimed, _ = state.apply(ClaimRoem(N))
    skipped, events = state.apply(Pass(S))
    assert claimed.phase is Phase.SCORED and skipped.phase is Phase.SCORED
    assert events[0] == RoemLost(8, 20)
    assert klaverjas_result(claimed).roem[Team.NS] == 20
    assert klaverjas_result(skipped).roem[Team.NS] == 0


def test_5_5_last_trick_roem_belongs_to_its_winners_only() -> None:
    state = _before_last_trick()
    state = replace(state, hands=(card("JD").bit, card("QD").bit, card("7S").bit, card("KD").bit))
    state = _play(state, "JD", "QD", "7S", "KD")  # West's KD wins the run J-Q-K
    assert state.phase is Phase.CLAIM and state.to_act == W
    assert state.legal_actions(E) == (ClaimRoem(E),)
    assert state.legal_actions(N) == ()
    scored, _ = state.apply(ClaimRoem(E))
    assert klaverjas_result(scored).roem[Team.EW] == 20


def test_5_5_auto_mode_counts_roem_without_claims() -> None:
    state = apply_all(_round(), [Choose(N, SP)])
    assert ClaimRoem(N) not in state.legal_actions()
    with pytest.raises(IllegalAction) as info:
        state.apply(ClaimRoem(N))
    assert info.value.reason is Reason.NOT_ALLOWED


# --- §7 presets and settings ---------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_7_presets_round_trip(preset: str) -> None:
    s = Settings.from_preset(preset)
    assert s.preset == preset and Settings.from_dict(s.to_dict()) == s
    assert s.rounds == 16 and s.four_low_cards == 0 and s.defender_pit


def test_7_preset_table() -> None:
    k = Settings.from_preset("klassiek")
    assert (k.trump_selection, k.play_rule, k.roem, k.first_lead) == (
        TrumpSelection.TURNED,
        PlayRule.AMSTERDAM,
        RoemMode.CLAIM,
        FirstLead.MAKER,
    )
    assert Settings.from_preset("rotterdam").play_rule is PlayRule.ROTTERDAM
    assert Settings.from_preset("utrecht").trump_selection is TrumpSelection.MANDATORY
    assert Settings() == Settings.from_preset("amsterdam")


@pytest.mark.parametrize(
    ("data", "name"),
    [
        ({"preset": "leiden"}, "preset"),
        ({"colour": "blue"}, "colour"),
        ({"rounds": 12}, "rounds"),
        ({"rounds": True}, "rounds"),
        ({"play_rule": "paris"}, "play_rule"),
        ({"defender_pit": "yes"}, "defender_pit"),
        ({"four_low_cards": 50}, "four_low_cards"),
        ({"trump_selection": "klammern"}, "play_rule"),
    ],
)
def test_7_invalid_settings_raise_naming_the_setting(data: dict[str, object], name: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_dict(data)
    assert info.value.setting == name
    assert name in str(info.value)


def test_teams_and_seats() -> None:
    assert [s.team for s in Seat] == [Team.NS, Team.EW, Team.NS, Team.EW]
    assert N.partner == S and W.left == N and Team.NS.other is Team.EW
    assert PLAY[2][card("JS").index] == PlayCard(S, card("JS"))
