"""Klammern rules tests for ``shared/rules.md`` §9.7–9.9, plus observe, records, the oracle and
self-play for Klammern."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.actions import Accept, Choose, Contra, Pass, PlayCard, Re, parse_action
from engine.cards import Seat, Suit, Team, card
from engine.errors import IllegalAction, Reason
from engine.events import (
    BigPointsWon,
    ContraCalled,
    Event,
    GameOver,
    KlammernRoundScored,
    Passed,
    ReCalled,
)
from engine.game import GameState
from engine.klammern import (
    KlammernScore,
    Tally,
    big_points,
    klammern_state,
    next_tally,
    score_klammern_round,
)
from engine.klammern.scoring import ZERO_TALLY, tallies
from engine.observe import observe
from engine.oracle import answer
from engine.players import RandomPlayer
from engine.record import game_export, replay, round_export, to_record
from engine.round import Phase, RoundState
from engine.selfplay import play_game
from engine.selfplay import run as selfplay_run
from engine.settings import Settings

from .helpers import apply_all, fixed_deal, play_round_randomly, random_game, round_from
from .test_klammern_rules import KL_HANDS, KLAMMERN, kround, play, refused

N, E, S, W = Seat.NORTH, Seat.EAST, Seat.SOUTH, Seat.WEST
NS, EW = Team.NS, Team.EW
HEARTS = Suit.HEARTS


def teams(ns: int, ew: int) -> dict[Team, int]:
    return {NS: ns, EW: ew}


# --- §9.7 contra and re ------------------------------------------------------------------------


def test_9_7_contra_only_by_a_defender_in_or_out_of_turn() -> None:
    state = kround()  # North accepted: NS plays, North is to lead
    assert state.legal_actions(E) == (Contra(E), Pass(E))
    assert state.legal_actions(W) == (Contra(W), Pass(W))
    assert not [a for a in state.legal_actions(N) if isinstance(a, Contra | Re)]
    assert state.legal_actions(S) == ()
    exc = refused(state, Contra(S))
    assert exc.reason is Reason.WRONG_TEAM and exc.details["playing_team"] == "NS"
    after, events = state.apply(Contra(W))
    assert events == [ContraCalled(W)] and after.to_act == N
    km = klammern_state(after)
    assert km is not None and km.contra == W


def test_9_7_contra_only_once() -> None:
    state, _ = kround().apply(Contra(E))
    assert refused(state, Contra(W)).reason is Reason.ALREADY_CALLED
    assert refused(state, Contra(E)).details == {"call": "contra", "by": 1}
    assert state.legal_actions(W) == ()


def test_9_7_contra_until_the_first_trick_is_complete() -> None:
    state = play(kround(), "AS", "JS", "9S", "7S")  # first trick complete, on the table
    assert state.legal_actions(E) == (Contra(E), Pass(E))
    state = play(state, "7C")  # the second trick begins
    assert state.legal_actions(E) == (PlayCard(E, card("8C")),)
    exc = refused(state, Contra(E))
    assert exc.reason is Reason.TOO_LATE and exc.details["window"] == "first_trick"


def test_9_7_re_only_after_contra() -> None:
    state = kround()
    assert refused(state, Re(N)).reason is Reason.NO_CONTRA
    state, _ = state.apply(Contra(E))
    assert Re(N) in state.legal_actions() and state.legal_actions(S) == (Re(S), Pass(S))
    state, events = state.apply(Re(S))
    assert events == [ReCalled(S)]
    assert refused(state, Re(N)).reason is Reason.ALREADY_CALLED
    assert not [a for a in state.legal_actions(N) if isinstance(a, Re)]


def test_9_7_re_only_by_the_playing_team() -> None:
    state, _ = kround().apply(Contra(E))
    exc = refused(state, Re(W))
    assert exc.reason is Reason.WRONG_TEAM and exc.details["call"] == "re"


def test_9_7_re_until_the_second_trick_is_complete() -> None:
    state = play(kround(), "AS", "JS", "9S")
    state, _ = state.apply(Contra(W))
    state = play(state, "7S", "7C", "8C", "JC", "AC")  # two tricks complete
    assert state.legal_actions(N) == (Re(N), Pass(N))
    state = play(state, str(state.hand(W)[0]))  # the third trick begins
    assert not [a for a in state.legal_actions(N) if isinstance(a, Re)]
    exc = refused(state, Re(N))
    assert exc.reason is Reason.TOO_LATE and exc.details["window"] == "second_trick"


def test_9_7_a_seat_not_to_play_may_say_no_to_contra() -> None:
    state = play(kround(), "AS", "JS", "9S", "7S")  # first trick complete, North to lead
    assert state.to_act == N
    after, events = state.apply(Pass(E))
    assert events == [Passed(E)]
    km = klammern_state(after)
    assert km is not None and km.declined == (E,)
    assert after.legal_actions(E) == ()
    assert after.legal_actions(W) == (Contra(W), Pass(W))
    exc = refused(after, Contra(E))
    assert exc.reason is Reason.ALREADY_CALLED and exc.details == {
        "call": "contra",
        "declined": True,
    }
    assert refused(after, Pass(E)).reason is Reason.WRONG_PHASE
    after, _ = after.apply(Contra(W))  # the partner still may
    km = klammern_state(after)
    assert km is not None and km.contra == W


def test_9_7_the_seat_to_play_declines_by_playing_not_by_passing() -> None:
    state = kround()  # North to lead: its team cannot call contra anyway
    state = play(state, "AS")  # East to play, a defender with contra open
    assert state.to_act == E
    assert Pass(E) not in state.legal_actions(E)
    assert refused(state, Pass(E)).reason is Reason.WRONG_PHASE
    assert refused(state, Pass(S)).reason is Reason.WRONG_PHASE  # no call to decline


def test_9_7_saying_no_to_re() -> None:
    state, _ = kround().apply(Contra(E))
    state, events = state.apply(Pass(S))
    assert events == [Passed(S)] and state.legal_actions(S) == ()
    assert refused(state, Re(S)).details == {"call": "re", "declined": True}
    assert Re(N) in state.legal_actions(N)


def test_9_7_declining_replays_from_the_record() -> None:
    game = GameState.new(KLAMMERN, 11)
    while game.current is not None and game.current.phase is Phase.BIDDING:
        game, _ = game.apply(game.legal_actions()[0])
    cur = game.current
    assert cur is not None and cur.maker is not None
    defender = next(s for s in (N, E, S, W) if s.team is not cur.maker.team and s != game.to_act)
    game, _ = game.apply(Pass(defender))
    assert "pass" in to_record(game)["actions"][-1]
    again = replay(to_record(game))
    assert again == game
    assert again.current is not None
    km = klammern_state(again.current)
    assert km is not None and km.declined == (defender,)
    assert round_export(again.current)["declined"] == [int(defender)]


def test_9_7_no_contra_in_bidding_or_in_klaverjassen() -> None:
    assert refused(kround(bids=()), Contra(E)).reason is Reason.WRONG_PHASE
    klaverjas = apply_all(round_from(Settings(), fixed_deal(3, KL_HANDS)), [Choose(N, HEARTS)])
    assert refused(klaverjas, Contra(E)).reason is Reason.NOT_ALLOWED
    assert refused(klaverjas, Re(N)).reason is Reason.NOT_ALLOWED
    assert klaverjas.legal_actions(E) == ()


def test_9_7_contra_and_re_are_public() -> None:
    state, _ = kround().apply(Contra(E))
    state, _ = state.apply(Re(N))
    for viewer in (N, E, S, W, None):
        km = observe(state, viewer).klammern
        assert km is not None and (km.contra, km.re) == (E, N)


# --- §9.8 scoring a round ----------------------------------------------------------------------


def _score(ns: int, ew: int = 0, **kw: object) -> KlammernScore:
    return score_klammern_round(NS, teams(ns, ew or 162 - ns), {}, HEARTS, **kw)  # type: ignore[arg-type]


def test_9_8_the_team_with_more_points_wins_one_small_point() -> None:
    r = _score(82)
    assert (r.winner, r.small_points, r.multiplier, r.nat) == (NS, teams(1, 0), 1, False)
    r = _score(80)
    assert (r.winner, r.small_points, r.nat) == (EW, teams(0, 1), True)


def test_9_8_equal_points_the_defenders_win() -> None:
    assert _score(81).winner is EW
    d = score_klammern_round(EW, teams(81, 81), {}, HEARTS)
    assert d.winner is NS


def test_9_8_contra_doubles_re_doubles_again() -> None:
    assert _score(100, contra=True).small_points == teams(2, 0)
    assert _score(60, contra=True).small_points == teams(0, 2)
    assert _score(60, contra=True, re=True).small_points == teams(0, 4)
    assert _score(100, contra=True, re=True).multiplier == 4
    with pytest.raises(ValueError):
        _score(100, re=True)


def test_9_8_points_are_cards_last_trick_declarations_and_bella() -> None:
    decl = {NS: [tuple(card(x) for x in ("7D", "8D", "9D", "10D"))], EW: []}
    r = score_klammern_round(NS, teams(60, 102), decl, HEARTS, bella=EW)
    assert r.points == teams(110, 122) and r.winner is EW
    r = score_klammern_round(NS, teams(75, 87), decl, HEARTS, bella=NS)
    assert r.points == teams(145, 87) and r.winner is NS and r.bella == teams(20, 0)
    assert json.loads(json.dumps(r.to_dict()))["declarations"]["NS"] == [["7D", "8D", "9D", "10D"]]


def test_9_8_a_played_round_is_scored_by_its_own_result() -> None:
    state, _ = kround().apply(Contra(E))
    done = play_round_randomly(state, random.Random(8))
    r = done.result
    assert isinstance(r, KlammernScore) and r.contra and r.multiplier in (2, 4)
    assert sum(r.card_points.values()) == 162 and sum(r.tricks.values()) == 8
    assert sum(r.small_points.values()) == r.multiplier == r.small_points[r.winner]


# --- §9.9 small and big points -----------------------------------------------------------------


def test_9_9_five_small_points_make_one_big_point() -> None:
    assert big_points(teams(5, 2)) == teams(1, 0)
    assert big_points(teams(6, 3)) == teams(1, 0)
    assert big_points(teams(4, 4)) == teams(0, 0)


def test_9_9_five_to_nothing_makes_two_big_points() -> None:
    assert big_points(teams(0, 5)) == teams(0, 2)
    assert big_points(teams(0, 8)) == teams(0, 2)


def test_9_9_both_teams_start_again_at_zero_and_extra_small_points_are_lost() -> None:
    t = next_tally(ZERO_TALLY, teams(0, 1))
    t = next_tally(t, teams(4, 0))
    assert (t.small, t.big, t.reset) == (teams(4, 1), teams(0, 0), False)
    t = next_tally(t, teams(4, 0))  # re: 4 + 4 = 8
    assert t.reached == teams(8, 1) and t.big_won == teams(1, 0) and t.reset
    assert t.small == teams(0, 0) and t.big == teams(1, 0)
    t = next_tally(t, teams(0, 2))
    assert t.small == teams(0, 2) and t.big == teams(1, 0)


def test_9_9_tallies_fold_the_rounds() -> None:
    won = [teams(1, 0), teams(0, 2), teams(4, 0), teams(0, 1)]
    got = tallies(won)
    assert [x.small for x in got] == [teams(1, 0), teams(1, 2), teams(0, 0), teams(0, 1)]
    assert got[2].big_won == teams(1, 0) and got[-1].big == teams(1, 0)
    assert isinstance(got[0], Tally)


def test_9_9_a_game_ends_when_a_team_reaches_the_target_big_points() -> None:
    for target in (1, 3):
        game = random_game(Settings.from_preset("klammern", target_big_points=target), 5)
        assert game.is_over and game.current is None
        marks = game.tallies()
        assert len(marks) == len(game.rounds) == len(game.sheet())
        assert max(marks[-1].big.values()) >= target
        assert all(max(t.big.values()) < target for t in marks[:-1])
        w = game.winner()
        assert w is not None and game.totals()[w] >= target > game.totals()[w.other]


def test_9_9_klammern_has_no_rounds_limit() -> None:
    game = random_game(Settings.from_preset("klammern", rounds=8, target_big_points=6), 3)
    assert game.is_over and len(game.rounds) > 8


def test_9_9_events_at_the_end_of_a_round_and_of_the_game() -> None:
    game = GameState.new(Settings.from_preset("klammern", target_big_points=1), 12)
    rng = random.Random(12)
    seen: list[Event] = []
    while not game.is_over:
        legal = game.legal_actions()
        game, events = game.apply(legal[rng.randrange(len(legal))])
        seen += events
    scored = [e for e in seen if isinstance(e, KlammernRoundScored)]
    assert len(scored) == len(game.rounds)
    assert [e.small_points for e in scored] == [
        {t.value: v for t, v in r.result.small_points.items()}
        for r in game.rounds
        if isinstance(r.result, KlammernScore)
    ]
    big = [e for e in seen if isinstance(e, BigPointsWon)]
    assert len(big) == 1 and big[0].small_points[big[0].team.value] >= 5
    assert isinstance(seen[-1], GameOver) and seen[-1].winner is big[0].team
    assert seen[-1].totals == {t.value: v for t, v in game.totals().items()}


def test_9_9_sheet_rows_carry_small_and_big_points() -> None:
    game = random_game(Settings.from_preset("klammern"), 9)
    rows = game.sheet()
    assert all(row.tally is not None for row in rows)
    assert rows[-1].tally == game.tally()
    assert all(
        row.total(row.result.winner) >= 1 for row in rows if isinstance(row.result, KlammernScore)
    )
    klaverjas = random_game(Settings.from_preset("amsterdam", rounds=8), 9)
    assert all(row.tally is None for row in klaverjas.sheet()) and klaverjas.tallies() == ()


# --- observe, records, oracle, players -----------------------------------------------------------


def test_observe_shows_the_game_small_points_and_big_points() -> None:
    game = random_game(Settings.from_preset("klammern", target_big_points=5), 4, steps=120)
    assert not game.is_over and game.rounds
    obs = observe(game, N)
    assert obs.small_points == game.small_points() and obs.totals == game.totals()
    assert observe(GameState.new(Settings(), 1), N).small_points is None


def test_records_replay_klammern_games_with_voided_deals() -> None:
    game = GameState.new(KLAMMERN, 30)
    assert game.current is not None
    fh = game.current.forehand
    for i in range(8):
        game, _ = game.apply(Pass(Seat((fh + i) % 4)))
    rng = random.Random(30)
    for _ in range(200):
        legal = game.legal_actions()
        game, _ = game.apply(legal[rng.randrange(len(legal))])
    record = to_record(game)
    assert replay(json.loads(json.dumps(record))) == game
    export = json.loads(json.dumps(game_export(game)))
    assert export["variant"] == "klammern" and len(export["voided"]) == 1
    assert export["voided"][0]["bids"] == [a.notation() for a in game.voided[0].bids]
    first = export["rounds"][0]
    assert first["proposed"] == str(game.rounds[0].deal.dealer_middle_card)
    assert first["tally"] == game.tallies()[0].to_dict()
    assert first["points"] == game.rounds[0].result.to_dict()["points"]  # type: ignore[union-attr]
    for key in ("declarations", "bella", "contra", "re", "small_points", "winner", "multiplier"):
        assert key in first
    assert export["small_points"] == {t.value: v for t, v in game.small_points().items()}


def test_round_export_of_a_klammern_round_lists_the_declarations() -> None:
    state = play(kround(), "AS")
    state, _ = state.apply(parse_action("1:declare:JS-QS-KS"))
    state, _ = state.apply(Contra(E))
    out = round_export(state)
    assert out["declarations"] == [{"seat": 1, "cards": ["JS", "QS", "KS"], "points": 20}]
    assert out["contra"] == 1 and out["re"] is None and out["winner"] is None
    assert out["proposed"] == "10H" and out["bids"] == ["0:accept"]
    done = round_export(play_round_randomly(state, random.Random(3)))
    assert done["small_points"][done["winner"]] >= 2
    klaverjas = round_export(
        play_round_randomly(round_from(Settings(), fixed_deal(3, KL_HANDS)), random.Random(3))
    )
    assert "proposed" not in klaverjas and klaverjas["nat"] in (True, False)


def test_action_notation_of_klammern_moves_round_trips() -> None:
    for text in [
        "0:kleintje:D",
        "1:beter",
        "2:declare:10D-JD-QD",
        "3:bella:KH",
        "1:contra",
        "0:re",
    ]:
        assert parse_action(text).notation() == text
    assert parse_action("2:declare:QD-10D-JD").notation() == "2:declare:10D-JD-QD"
    assert isinstance(parse_action("3:bella:QH"), PlayCard)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (
            {
                "kind": "declarations",
                "input": {
                    "trump": "H",
                    "declarations": {
                        "NS": [["7S", "8S", "9S"], ["JC", "QC", "KC", "AC"]],
                        "EW": [["9H", "10H", "JH", "QH", "KH", "AH"]],
                    },
                },
            },
            {"NS": 0, "EW": 50},
        ),
        (
            {
                "kind": "declarations",
                "input": {
                    "trump": "D",
                    "declarations": {
                        "NS": [["7S", "8S", "9S"], ["JC", "QC", "KC"]],
                        "EW": [["8H", "9H", "10H"]],
                    },
                },
            },
            {"NS": 40, "EW": 0},
        ),
        (
            {
                "kind": "declarations",
                "input": {
                    "trump": "S",
                    "declarations": {
                        "NS": [["10C", "JC", "QC", "KC", "AC"]],
                        "EW": [["7H", "8H", "9H", "10H"]],
                    },
                },
            },
            {"NS": 50, "EW": 0},
        ),
        (
            {
                "kind": "declarations",
                "input": {
                    "trump": "C",
                    "declarations": {"NS": [["10D", "JD", "QD"]], "EW": [["10C", "JC", "QC"]]},
                },
            },
            {"NS": 0, "EW": 20},
        ),
        (
            {"kind": "big_points", "input": {"small_points": {"NS": 6, "EW": 3}}},
            {"big_points": {"NS": 1, "EW": 0}},
        ),
        (
            {"kind": "big_points", "input": {"small_points": {"NS": 2, "EW": 4}}},
            {"big_points": {"NS": 0, "EW": 0}},
        ),
        (
            {
                "kind": "bidding",
                "input": {
                    "dealer": 1,
                    "dealer_last_three": ["7H", "QS", "AD"],
                    "actions": ["2:pass", "3:accept"],
                },
            },
            {"trump": "S", "maker": 3, "playing_team": "EW", "leader": 2},
        ),
        (
            {
                "kind": "bidding",
                "input": {
                    "dealer": 0,
                    "proposed": "D",
                    "actions": ["1:pass"]
                    + [f"{s}:pass" for s in (2, 3, 0)]
                    + ["1:pass", "2:kleintje:S", "3:pass"],
                },
            },
            {"to_act": 0, "legal": ["beter", "pass"]},
        ),
        (
            {
                "kind": "legal_moves",
                "input": {
                    "trump": "H",
                    "trick": [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "7S"}],
                    "seat": 2,
                    "hand": ["7H", "8H", "AC", "KD"],
                },
            },
            {"legal": ["7H", "8H"]},
        ),
    ],
)
def test_oracle_answers_more_klammern_cases(case: dict[str, Any], expected: dict[str, Any]) -> None:
    out = answer({"id": "x", "settings": {"preset": "klammern"}, **case})
    assert "actual" in out, out
    for key, value in expected.items():
        got = out["actual"][key]
        assert (sorted(got) if isinstance(got, list) else got) == (
            sorted(value) if isinstance(value, list) else value
        )


def test_oracle_reports_a_voided_deal_and_refuses_a_card_in_two_declarations() -> None:
    passes = [f"{(1 + i) % 4}:pass" for i in range(8)]
    out = answer(
        {
            "id": "v",
            "kind": "bidding",
            "settings": {"preset": "klammern"},
            "input": {"dealer": 0, "proposed": "H", "actions": passes},
        }
    )
    assert out["actual"]["redeal"] is True and out["actual"]["trump"] is None
    out = answer(
        {
            "id": "d",
            "kind": "declarations",
            "settings": {"preset": "klammern"},
            "input": {
                "trump": "H",
                "declarations": {"NS": [["7S", "8S", "9S"]], "EW": [["7S", "8S", "9S"]]},
            },
        }
    )
    assert "error" in out


def test_random_players_play_whole_klammern_games() -> None:
    settings = Settings.from_preset("klammern", target_big_points=2)
    rng = random.Random(1)
    game = play_game(settings, 77, [RandomPlayer() for _ in range(4)], rng)
    assert game.is_over and game.winner() is not None
    summary = selfplay_run(2, "klammern", 3)
    assert summary["games"] == 2 and "contra_share" in summary


def test_start_of_a_klammern_round_has_no_declarations_yet() -> None:
    state = round_from(KLAMMERN, fixed_deal(3, KL_HANDS))
    km = klammern_state(state)
    assert km is not None and km.declarations == ()
    assert isinstance(state, RoundState) and state.phase is Phase.BIDDING
    with pytest.raises(IllegalAction):
        state.apply(PlayCard(N, card("AS")))
    assert apply_all(state, [Accept(N)]).phase is Phase.PLAY
