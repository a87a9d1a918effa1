"""Typed taps: callback data is decoded once into a closed set of typed taps; one
encode, one decode, and a round trip that gives back what was encoded (``docs/design.md`` §3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.taps import (
    DECLARE_ALL,
    MAX_BYTES,
    Again,
    Cancel,
    ComputerSeat,
    ConfirmStop,
    DailyAction,
    DailyTap,
    DeepLink,
    ForgetAnswer,
    ForgetMe,
    Handover,
    HandoverStep,
    Leave,
    MalformedCallback,
    Move,
    NextSetting,
    Payload,
    Period,
    PickLanguage,
    Ready,
    Reclaim,
    Setting,
    ShowSheet,
    Sit,
    Start,
    Tap,
    Target,
    Tip,
    TopPeriod,
    decode,
    decode_deep_link,
    encode,
    is_old_deep_link,
    move,
    new_link_token,
)
from engine.actions import Bella, Choose, Declare, Kleintje, PlayCard
from engine.cards import CARDS, SUITS, Seat

seats = st.integers(0, 3)
actions = st.one_of(
    st.sampled_from(["pass", "accept", "roem", "beter", "contra", "re", DECLARE_ALL]),
    st.builds(lambda c: PlayCard(Seat.NORTH, c).notation(False), st.sampled_from(CARDS)),
    st.builds(lambda c: Bella(Seat.NORTH, c).notation(False), st.sampled_from(CARDS)),
    st.builds(lambda s: Choose(Seat.NORTH, s).notation(False), st.sampled_from(SUITS)),
    st.builds(lambda s: Kleintje(Seat.NORTH, s).notation(False), st.sampled_from(SUITS)),
    st.builds(
        lambda cs: Declare(Seat.NORTH, tuple(cs)).notation(False),
        st.lists(st.sampled_from(CARDS), min_size=3, max_size=4, unique=True),
    ),
)
payloads: st.SearchStrategy[Payload] = st.one_of(
    st.builds(Sit, seats),
    st.just(Leave()),
    st.builds(ComputerSeat, st.booleans()),
    st.builds(NextSetting, st.sampled_from(Setting)),
    st.just(Start()),
    st.just(Cancel()),
    st.builds(Move, actions),
    st.builds(Handover, st.sampled_from(HandoverStep)),
    st.builds(Reclaim, seats),
    st.just(Tip()),
    st.builds(ConfirmStop, st.booleans()),
    st.builds(ShowSheet, st.booleans()),
    st.just(Again()),
    st.just(Ready()),
)
taps = st.builds(Tap, st.integers(1, 10**18 - 1), st.integers(0, 10**9 - 1), payloads)


@given(taps)
def test_every_tap_round_trips_within_telegrams_64_bytes(tap: Tap) -> None:
    data = encode(tap)
    assert len(data.encode()) <= MAX_BYTES
    assert decode(data) == tap


@given(st.sampled_from(Target), st.sampled_from(["nl", "de", "fr", "en"]))
def test_language_buttons_round_trip(target: Target, language: str) -> None:
    tap = PickLanguage(target, language)
    assert decode(encode(tap)) == tap


@given(st.text(max_size=80))
def test_anything_else_is_malformed_or_a_tap_that_encodes_back(data: str) -> None:
    """A forged string either fails to decode, or is exactly what encoding its tap gives."""
    try:
        tap = decode(data)
    except MalformedCallback:
        return
    assert encode(tap) == data


@pytest.mark.parametrize(
    "data",
    [
        "",
        "x1.1.start",
        "t1.1.start",  # the table message has no tap buttons
        "l1.1.play:JH",  # a card on the lobby
        "a1.1.start",  # a lobby button in a hand
        "s1.1.sit:2",
        "l1.1.sit:4",
        "a1.1.reclaim:9",
        "a1.1.reclaim",
        "a1.1.play:ZZ",
        "a1.1.play:jh",  # not canonical
        "a1.1.fly:away",
        "a0.1.pass",  # no game 0
        "a01.1.pass",
        "a1.01.pass",
        "l1.1.start" + "x" * 60,
        "g.x.nl",
        "l1.1.tip",  # the tip belongs to a hand
        "v1.1.tip",
        "a1.1.tip:JH",
        "a1.1.TIP",
        "l1.1.again",  # the rematch's buttons are their own scope
        "r1.1.start",
        "v1.1.ready",
    ],
)
def test_forged_and_foreign_data_is_malformed(data: str) -> None:
    with pytest.raises(MalformedCallback):
        decode(data)


@given(st.integers(1, 10**18 - 1), st.integers(1, 10**9 - 1))
def test_the_tip_button_is_a_hand_tap_with_game_and_version(game_id: int, version: int) -> None:
    """The 💡 button's data carries the game and the state version it was drawn at
    (checked by the service: a stale or foreign tip is refused)."""
    data = encode(Tap(game_id, version, Tip()))
    assert data == f"a{game_id}.{version}.tip"
    assert len(data.encode()) <= MAX_BYTES
    assert decode(data) == Tap(game_id, version, Tip())
    assert decode(f"l{game_id}.{version}.tips:toggle") == Tap(
        game_id, version, NextSetting(Setting.TIPS)
    )


def test_a_move_is_canonical_engine_notation() -> None:
    assert move("play:10H") == Move("play:10H")
    assert move(DECLARE_ALL) == Move(DECLARE_ALL)
    with pytest.raises(MalformedCallback):
        move("declare:JD-10D-QD")  # the engine prints sequences in card order


def test_deep_links_round_trip_and_refuse_what_is_not_ours() -> None:
    token = new_link_token()
    assert len(token) == 20 and token != new_link_token()
    for link in (DeepLink("j", token, 3), DeepLink("h", token)):
        assert decode_deep_link(link.encode()) == link
    for payload in (None, "", "j12", "h7_1", "j12_4", "x1", "j0_1", f"j{token}", f"h{token}_1"):
        assert decode_deep_link(payload) is None
    for payload in (f"x{token}", f"j{token}_4", f"h{token.upper()}"):
        assert decode_deep_link(payload) is None


def test_number_based_deep_links_are_recognised_as_old_and_never_followed() -> None:
    for payload in ("j12_3", "h7", "h123456"):
        assert is_old_deep_link(payload)
        assert decode_deep_link(payload) is None
    for other in (None, "", "daily", f"h{new_link_token()}", "h0"):
        assert not is_old_deep_link(other)


@pytest.mark.parametrize(
    ("tap", "wire"),
    [
        (DailyTap(DailyAction.AGAIN), "d.again"),
        (DailyTap(DailyAction.HIDE), "d.hide"),
        (DailyTap(DailyAction.SHOW), "d.show"),
        (TopPeriod(Period.MONTH), "t.month"),
        (TopPeriod(Period.ALL), "t.all"),
        (ForgetMe(ForgetAnswer.YES), "f.yes"),
        (ForgetMe(ForgetAnswer.NO), "f.no"),
    ],
)
def test_daily_and_standings_taps_round_trip(
    tap: DailyTap | TopPeriod | ForgetMe, wire: str
) -> None:
    assert encode(tap) == wire
    assert decode(wire) == tap


@pytest.mark.parametrize(
    "wire", ["d.nope", "t.week", "t.", "x.all", "d.AGAIN", "f.maybe", "f.YES", "f.", "f.yes.1"]
)
def test_unknown_daily_and_standings_taps_are_malformed(wire: str) -> None:
    with pytest.raises(MalformedCallback):
        decode(wire)
