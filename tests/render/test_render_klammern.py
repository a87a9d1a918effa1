"""Klammern in every language (``rules.md`` §9): the table with declarations, bella,
contra / re and the small / big points, the hand's Klammern buttons, the sheet and round
summary, the final result, the event lines, the refusals and the lobby."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from bot.i18n import LANGUAGES, get_translator
from bot.render.announce import describe_event
from bot.render.hand import render_hand
from bot.render.lobby import Lobby, render_lobby
from bot.render.messages import game_over
from bot.render.reasons import _EXPLAINERS, ALERT_LIMIT, explain
from bot.render.sheet import render_sheet, round_summary
from bot.render.table import render_table
from bot.taps import DECLARE_ALL
from engine.actions import Bella, Contra, Declare, Pass, PlayCard, Re
from engine.cards import SEATS, Seat, Team
from engine.errors import IllegalAction, Reason
from engine.events import Event
from engine.game import GameState
from engine.klammern import runs
from engine.observe import observe
from engine.round import Phase
from engine.settings import Settings
from tests.render.helpers import (
    HOSTILE,
    PLAYERS,
    TRANSLATED,
    check_telegram_html,
    random_states,
    tok,
    untranslated,
    visible_text,
)

KLAMMERN = Settings.from_preset("klammern")
KLAMMERN_EVENTS = {
    "card_proposed",
    "kleintje_called",
    "beter_called",
    "deal_voided",
    "declared",
    "declarations_compared",
    "bella_announced",
    "contra_called",
    "re_called",
    "klammern_round_scored",
    "big_points_won",
}


def check(text: str, lang: str, limit: int = 4096) -> None:
    check_telegram_html(text)
    assert HOSTILE not in text, "a user name was not escaped"
    assert len(visible_text(text)) <= limit
    if lang in TRANSLATED:
        assert not untranslated(text, lang), untranslated(text, lang)


@cache
def games(seed: int = 7) -> tuple[tuple[GameState, tuple[Event, ...]], ...]:
    """Every state (with the events that led to it) of a whole eager Klammern game."""
    rng = random.Random(seed)
    game = GameState.new(KLAMMERN, seed)
    out: list[tuple[GameState, tuple[Event, ...]]] = [(game, ())]
    while not game.is_over:
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        for kind in (Declare, Bella, Contra, Re):
            found = [a for a in legal if isinstance(a, kind)]
            if found and rng.random() < 0.9:
                action = found[0]
                break
        game, events = game.apply(action)
        out.append((game, tuple(events)))
    return tuple(out)


def _live() -> list[GameState]:
    return [g for g, _ in games() if not g.is_over]


def test_the_eager_game_has_every_klammern_feature() -> None:
    names = {e.name for _, events in games() for e in events}
    assert KLAMMERN_EVENTS - {"deal_voided", "kleintje_called", "beter_called"} <= names
    final = games()[-1][0]
    assert final.is_over and max(final.totals().values()) >= KLAMMERN.target_big_points


@pytest.mark.parametrize("lang", LANGUAGES)
def test_klammern_table_shows_declarations_bella_calls_and_points(lang: str) -> None:
    tr = get_translator(lang)
    seen = set()
    for game in _live()[::3]:
        obs = observe(game, None)
        text = render_table(obs, PLAYERS, tr, hand_url="https://t.me/b?start=h1").text
        check(text, lang, limit=2000)
        km = obs.klammern
        if km is None:
            continue
        if km.declarations:
            seen.add("declarations")
            assert "📣" in text
        if km.bella is not None:
            seen.add("bella")
            assert "👑" in text
        if km.contra is not None:
            seen.add("contra")
            assert "⚔️" in text
        if obs.phase is Phase.PLAY and obs.tricks and any(obs.declaration_points.values()):  # type: ignore[union-attr]
            seen.add("compared")
        if obs.number > 1:
            assert tr.gettext("Big points: {score}").split("{")[0] in text
    assert seen == {"declarations", "bella", "contra", "compared"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_table_says_whom_the_computers_wait_for(lang: str) -> None:
    tr = get_translator(lang)
    game = next(
        g
        for g in _live()
        if g.current is not None
        and g.current.phase is Phase.PLAY
        and len(g.current.tricks) == 1
        and not g.current.trick
        and any(Pass(s) in g.legal_actions(s) for s in SEATS)
    )
    seat = next(s for s in SEATS if Pass(s) in game.legal_actions(s))
    text = render_table(observe(game, None), PLAYERS, tr, waiting=[seat]).text
    check(text, lang)
    assert "⏳" in text and "👉" not in text.split("⏳")[1]
    hand = render_hand(observe(game, seat), PLAYERS, tr, table_title="T", awaited=True)
    check(hand.text, lang)
    tokens = [tok(b) for row in hand.keyboard for b in row]
    assert "pass" in tokens and ("contra" in tokens or "re" in tokens)
    no = next(b.label for row in hand.keyboard for b in row if tok(b) == "pass")
    assert no in (tr.gettext("No contra"), tr.gettext("No re"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_hand_offers_declarations_declare_all_bella_and_calls(lang: str) -> None:
    tr = get_translator(lang)
    kinds: set[str] = set()
    for game in _live():
        for seat in SEATS:
            obs = observe(game, seat)
            if not obs.legal:
                continue
            hand = render_hand(obs, PLAYERS, tr, table_title=HOSTILE)
            check(hand.text, lang)
            buttons = [b for row in hand.keyboard for b in row]
            tokens = [tok(b) for b in buttons]
            assert all(len(t.encode()) <= 40 for t in tokens)
            declares = [a for a in obs.legal if isinstance(a, Declare)]
            if declares:
                kinds.add("declare")
                assert tr.pgettext("declaration", "Terz") in hand.text or declares
            if len(declares) > 1:
                kinds.add("declare_all")
                assert DECLARE_ALL in tokens
            for a in obs.legal:
                if isinstance(a, Bella):
                    kinds.add("bella")
                    assert a.notation(with_seat=False) in tokens
                    assert PlayCard(seat, a.card).notation(with_seat=False) in tokens
                if isinstance(a, Contra | Re):
                    kinds.add(a.kind)
                    assert a.kind in tokens
    assert {"declare", "bella", "contra", "re"} <= kinds


def test_declare_all_is_offered_for_two_sequences() -> None:
    tr = get_translator("de")
    for seed in range(1000):
        game = GameState.new(KLAMMERN, seed)
        assert game.current is not None
        hands = game.current.hands
        seat = next((s for s in SEATS if len(runs(hands[s])) >= 2), None)
        if seat is not None:
            break
    else:
        raise AssertionError("no hand with two sequences")
    while game.to_act != seat or game.current.phase is Phase.BIDDING:
        legal = game.legal_actions()
        game, _ = game.apply(next((a for a in legal if type(a) is PlayCard), legal[0]))
        assert game.current is not None
    hand = render_hand(observe(game, seat), PLAYERS, tr, table_title="T")
    labels = {tok(b): b.label for row in hand.keyboard for b in row}
    assert labels[DECLARE_ALL] == "📣 Alles melden"
    assert sum(1 for t in labels if t.startswith("declare:") and t != DECLARE_ALL) >= 2


@pytest.mark.parametrize("lang", LANGUAGES)
def test_klammern_sheet_and_summaries_show_small_and_big_points(lang: str) -> None:
    tr = get_translator(lang)
    final = games()[-1][0]
    rows = final.sheet()
    for viewer in (None, *SEATS):
        text = render_sheet(
            rows, final.totals(), PLAYERS, tr, viewer=viewer, final=True, klammern_target=3
        )
        check(text, lang)
        pre = re.search(r"<pre>(.*)</pre>", text, re.S)
        assert pre is not None
        lines = visible_text(pre.group(1)).splitlines()
        assert len(lines) == len(rows) + 3 and max(len(line) for line in lines) <= 30
        assert lines[-1].split() == ["●", *(str(final.totals()[t]) for t in _order(viewer))]
        assert "🏆" in text
    big_rounds = 0
    for row in rows:
        text = round_summary(row, PLAYERS, tr)
        check(text, lang, limit=1000)
        assert row.tally is not None
        if row.tally.reset:
            big_rounds += 1
            assert "🎉" in text
    assert big_rounds >= 1
    over = game_over(tr, final.totals(), PLAYERS, klammern=True)
    check(over, lang)
    big = final.totals()
    assert "🏆" in over and f"{max(big.values())}" in visible_text(over)


def _order(viewer: Seat | None) -> tuple[Team, ...]:
    from engine.cards import TEAMS

    return (viewer.team, viewer.team.other) if viewer is not None else TEAMS


def test_empty_klammern_sheet_before_the_first_round() -> None:
    tr = get_translator("nl")
    text = render_sheet((), {}, PLAYERS, tr, klammern_target=5)
    check(text, "nl")
    assert "tot 5 grote punten" in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_klammern_event_has_a_translated_line(lang: str) -> None:
    tr = get_translator(lang)
    kinds = set()
    for seed in (7, 8):
        for _, events in games(seed):
            for event in events:
                line = describe_event(tr, event, PLAYERS)
                if event.name == "game_over":
                    continue
                assert line is not None, event
                check(line, lang, limit=300)
                kinds.add(event.name)
    assert KLAMMERN_EVENTS - {"deal_voided", "kleintje_called", "beter_called"} <= kinds


def _refusals() -> list[IllegalAction]:
    """Klammern refusals from real states of the eager game."""
    out: list[IllegalAction] = []
    auto = GameState.new(Settings.from_preset("klammern", auto_declare=True), 3)
    while auto.current is not None and auto.current.phase is Phase.BIDDING:
        auto, _ = auto.apply(auto.legal_actions()[0])
    quiet = [  # random play calls less: contra and re come too late
        g for seed in (5, 6, 7, 8) for g in list(random_states("klammern", seed, 150))[::3]
    ]
    states = [*_live()[::2], *quiet, auto]
    for game in [g for g in states if g.current and g.current.phase is Phase.PLAY]:
        cur = game.current
        assert cur is not None
        for seat in SEATS:
            hand = cur.hand(seat)
            tries = [Contra(seat), Re(seat), Pass(seat)]
            tries += [Bella(seat, c) for c in hand[:2]]
            tries += [Declare(seat, hand[:3]), *(Declare(seat, r) for r in runs(cur.hands[seat]))]
            made = cur.klammern.declarations if cur.klammern else ()
            tries += [Declare(seat, d.cards) for d in made]
            for action in tries:
                try:
                    game.apply(action)
                except IllegalAction as e:
                    out.append(e)
    return out


@cache
def refusals() -> tuple[IllegalAction, ...]:
    return tuple(_refusals())


def test_every_reason_has_its_own_explainer() -> None:
    assert set(_EXPLAINERS) == set(Reason)


def test_the_klammern_refusals_are_all_there() -> None:
    seen = {e.reason for e in refusals()}
    assert {
        Reason.ALREADY_DECLARED,
        Reason.NO_BELLA,
        Reason.WRONG_TEAM,
        Reason.ALREADY_CALLED,
        Reason.NO_CONTRA,
        Reason.NO_SUCH_DECLARATION,
        Reason.TOO_LATE,
    } <= seen
    windows = {e.details.get("action") for e in refusals() if e.reason is Reason.TOO_LATE}
    assert {"declare", "contra", "re"} <= windows


@pytest.mark.parametrize("lang", LANGUAGES)
def test_klammern_refusals_get_short_specific_translated_texts(lang: str) -> None:
    tr = get_translator(lang)
    generic = {
        tr.gettext("That is not possible now."),
        tr.gettext("Too late: that was only possible earlier in the round."),
        tr.gettext("That is not allowed now."),
    }
    for e in refusals():
        text = explain(tr, e.reason, e.details, PLAYERS)
        assert 0 < len(text) <= ALERT_LIMIT
        assert text not in generic or e.reason in (Reason.WRONG_PHASE, Reason.NOT_YOUR_TURN), e
        if lang in TRANSLATED:
            assert not untranslated(text, lang), (e, text)


def test_refusal_texts_use_the_details() -> None:
    tr = get_translator("nl")
    text = explain(
        tr, Reason.NO_SUCH_DECLARATION, {"cards": ["7H", "8H", "9H"], "declarable": ["10D-JD-QD"]}
    )
    assert text == "Die reeks heb je niet. Je kunt melden: Terts ♦10–V."
    assert explain(tr, Reason.NO_SUCH_DECLARATION, {"declarable": []}) == (
        "Je hebt geen reeks om te melden."
    )
    assert "Anna" in explain(tr, Reason.ALREADY_CALLED, {"call": "contra", "by": 0}, PLAYERS)
    assert explain(tr, Reason.ALREADY_CALLED, {"call": "re", "declined": True}) == (
        "Je hebt al gezegd: geen re."
    )
    assert "H♥" in explain(tr, Reason.NO_BELLA, {"card": "KH"})
    assert explain(tr, Reason.TOO_LATE, {"action": "contra", "window": "first_trick"}) == (
        "Te laat voor contra: de tweede slag is begonnen."
    )
    assert explain(tr, Reason.NOT_ALLOWED, {"action": "bella", "auto_declare": True}) == (
        "Aan deze tafel gaan meldingen en bella vanzelf."
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_klammern_lobby_toggles_target_and_auto_declare(lang: str) -> None:
    tr = get_translator(lang)
    for settings in (KLAMMERN, KLAMMERN.replace(target_big_points=5, auto_declare=True)):
        r = render_lobby(Lobby(settings, [None] * 4, 60, HOSTILE), tr)
        check(r.text, lang)
        labels = {tok(b): b.label for row in r.keyboard for b in row}
        target = settings.target_big_points
        assert str(target) in labels["rounds:toggle"]
        assert "auto_declare:toggle" in labels
        if lang in TRANSLATED:
            assert not untranslated(labels["auto_declare:toggle"], lang)
