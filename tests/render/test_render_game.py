"""Table, hand, sheet and round summary on real engine states, every preset and language."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from bot.i18n import LANGUAGES, Translator, get_translator
from bot.render.announce import describe_event
from bot.render.cards import card_button_label, card_label
from bot.render.common import Button, esc, seat_name, shorten
from bot.render.hand import illegal_label, render_hand
from bot.render.sheet import render_sheet, round_summary
from bot.render.table import render_table
from bot.taps import DECLARE_ALL
from engine.actions import Declare, PlayCard, parse_action
from engine.cards import CARDS, SEATS, Card, Seat
from engine.game import GameState
from engine.observe import observe
from engine.round import Phase
from engine.rules import RoundScore
from tests.render.helpers import (
    HOSTILE,
    PLAYERS,
    PRESET_NAMES,
    check_telegram_html,
    finished_game,
    random_states,
    sample_states,
    tok,
    untranslated,
    visible_text,
)

SEEDS = (1, 2)


@cache
def states(preset: str, seed: int) -> tuple[GameState, ...]:
    return tuple(sample_states(preset, seed))


def _live(preset: str, seed: int) -> list[GameState]:
    return [g for g in states(preset, seed) if not g.is_over]


_LABEL = re.compile(r"(?<![\w·])(10|[7-9]|[A-Z])([♠♥♦♣])")


def shown_cards(tr: Translator, text: str) -> set[Card]:
    """Every card label that appears in a text."""
    by_label = {card_label(tr, c): c for c in CARDS}
    return {by_label[m.group(0)] for m in _LABEL.finditer(visible_text(text))}


def check_text(text: str, lang: str) -> None:
    check_telegram_html(text)
    assert HOSTILE not in text, "a user name was not escaped"
    if lang != "en":
        assert not untranslated(text, lang), untranslated(text, lang)


def check_keyboard(keyboard: tuple[tuple[Button, ...], ...]) -> None:
    for row in keyboard:
        assert 1 <= len(row) <= 4
        for b in row:
            assert b.label.strip()
            assert bool(b.action) != bool(b.url)
            assert len(tok(b).encode()) <= 40


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_table_is_valid_html_escaped_translated_and_short(preset: str, lang: str) -> None:
    tr = get_translator(lang)
    for seed in SEEDS:
        for game in _live(preset, seed):
            r = render_table(observe(game, None), PLAYERS, tr, hand_url="https://t.me/bot?start=g1")
            check_text(r.text, lang)
            check_keyboard(r.keyboard)
            assert len(r.text) < 2000


@pytest.mark.parametrize("lang", LANGUAGES)
def test_table_says_who_can_take_a_computer_seat_back(lang: str) -> None:
    tr = get_translator(lang)
    game = _live("amsterdam", 1)[-1]
    plain = render_table(observe(game, None), PLAYERS, tr)
    left = render_table(observe(game, None), PLAYERS, tr, left_by={Seat.EAST: HOSTILE})
    check_text(left.text, lang)
    extra = left.text.removeprefix(plain.text)
    assert extra.startswith("\n↩️ ") and extra.count("\n") == 1
    assert seat_name(tr, Seat.EAST) in extra
    assert esc(shorten(HOSTILE)) in extra


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_public_table_never_shows_a_hand(preset: str) -> None:
    tr = get_translator("nl")
    for seed in SEEDS:
        for game in _live(preset, seed):
            obs = observe(game, None)
            public = set(obs.trick)
            if obs.last_trick is not None:
                public |= set(obs.last_trick.cards)
            if obs.proposed_card is not None:
                public.add(obs.proposed_card)
            assert shown_cards(tr, render_table(obs, PLAYERS, tr).text) <= public


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_hand_shows_exactly_the_players_cards_and_valid_actions(preset: str, lang: str) -> None:
    tr = get_translator(lang)
    for game in _live(preset, SEEDS[0]):
        for seat in SEATS:
            obs = observe(game, seat)
            r = render_hand(obs, PLAYERS, tr, table_title="Klaverjas & <Co>")
            check_text(r.text, lang)
            check_keyboard(r.keyboard)
            tokens = [tok(b) for row in r.keyboard for b in row]
            played = [parse_action(t, seat) for t in tokens if t != DECLARE_ALL]
            cards = [a.card for a in played if type(a) is PlayCard]
            assert sorted(cards, key=lambda c: c.index) == list(obs.hand)
            others = {a for a in played if type(a) is not PlayCard}
            assert others == {a for a in obs.legal if type(a) is not PlayCard}
            declares = sum(1 for a in obs.legal if isinstance(a, Declare))
            assert (DECLARE_ALL in tokens) == (declares > 1)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_illegal_cards_are_marked_and_legal_cards_are_not(preset: str) -> None:
    tr = get_translator("de")
    marked_some = False
    for game in _live(preset, SEEDS[1]):
        seat = game.to_act
        assert seat is not None
        obs = observe(game, seat)
        if obs.phase is not Phase.PLAY:
            continue
        legal = {a.card for a in obs.legal if isinstance(a, PlayCard)}
        for row in render_hand(obs, PLAYERS, tr, table_title="").keyboard:
            for b in row:
                if not tok(b).startswith("play:"):
                    continue
                c = Card.parse(tok(b).split(":", 1)[1])
                if c in legal:
                    assert b.label == card_button_label(tr, c, obs.trump)
                    assert not b.disabled
                else:
                    assert b.label == illegal_label(card_button_label(tr, c, obs.trump))
                    assert b.disabled
                    marked_some = True
    assert marked_some


def test_hand_marks_no_card_when_it_is_not_the_players_turn() -> None:
    tr = get_translator("fr")
    game = next(g for g in random_states("amsterdam", 5) if g.current and g.current.trick)
    seat = next(s for s in SEATS if s != game.to_act)
    r = render_hand(observe(game, seat), PLAYERS, tr, table_title="T")
    cards = [b for row in r.keyboard for b in row if tok(b).startswith("play:")]
    assert cards and not any("·" in b.label or b.disabled for b in cards)


def test_hand_names_its_table_so_two_hands_are_distinguishable() -> None:
    tr = get_translator("nl")
    game = GameState.new(states("amsterdam", 1)[0].settings, 3)
    obs = observe(game, SEATS[0])
    a = render_hand(obs, PLAYERS, tr, table_title="Café De Klaver").text
    b = render_hand(obs, PLAYERS, tr, table_title="Familie <Jansen>").text
    assert "Café De Klaver" in a and "Familie &lt;Jansen&gt;" in b and a != b


def test_hand_of_the_public_view_is_refused() -> None:
    game = states("amsterdam", 1)[0]
    with pytest.raises(ValueError):
        render_hand(observe(game, None), PLAYERS, get_translator("nl"), table_title="")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_full_sixteen_round_sheet_fits_a_phone(lang: str) -> None:
    tr = get_translator(lang)
    game = finished_game("rotterdam", 4)
    assert game.is_over and len(game.sheet()) == 16
    for viewer in (None, *SEATS):
        text = render_sheet(
            game.sheet(), game.totals(), PLAYERS, tr, viewer=viewer, rounds_total=16, final=True
        )
        check_text(text, lang)
        pre = re.search(r"<pre>(.*)</pre>", text, re.S)
        assert pre is not None
        lines = visible_text(pre.group(1)).splitlines()
        assert len(lines) == 16 + 4
        assert max(len(line) for line in lines) <= 32


def test_private_sheet_says_us_and_them_from_the_viewers_side() -> None:
    game = finished_game("amsterdam", 9)
    for lang, us, them in (("nl", "Wij", "Zij"), ("de", "Wir", "Sie"), ("fr", "Nous", "Eux")):
        text = render_sheet(
            game.sheet(), game.totals(), PLAYERS, get_translator(lang), viewer=SEATS[1]
        )
        header = visible_text(text.split("<pre>")[1]).splitlines()[0]
        assert header.split() == ["#", us, them]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_round_summaries_mark_nat_and_pit_in_words(lang: str) -> None:
    tr = get_translator(lang)
    game = finished_game("klassiek", 2)
    nat_word = tr.gettext("Nat!")
    pit_word = tr.gettext("Pit!")
    for row in game.sheet():
        text = round_summary(row, PLAYERS, tr, totals=game.totals())
        check_text(text, lang)
        assert isinstance(row.result, RoundScore)  # klassiek, not Klammern
        assert (nat_word in text) == row.result.nat
        assert (pit_word in text) == (row.result.pit is not None)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_event_has_a_valid_translated_line(preset: str, lang: str) -> None:
    tr = get_translator(lang)
    game = GameState.new(states(preset, 1)[0].settings, 6)
    rng = random.Random(6)
    kinds = set()
    for _ in range(120):
        legal = game.legal_actions()
        game, events = game.apply(legal[rng.randrange(len(legal))])
        for event in events:
            line = describe_event(tr, event, PLAYERS)
            if event.name in ("round_scored", "game_over"):
                assert line is None
                continue
            assert line is not None
            check_text(line, lang)
            kinds.add(event.name)
    assert {"card_played", "trick_won", "trump_chosen", "round_dealt"} <= kinds
