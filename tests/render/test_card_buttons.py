"""Cards that read at a glance: on every hand keyboard (cards, trump choice, bids, Klammern's
bella and declarations) a button about a red suit (♥ ♦) is red and one about a black suit has
the app's colour, trump cards are marked ★, unplayable cards are marked and disabled; in every
language; and every hand keyboard keeps within Telegram's limits."""

from __future__ import annotations

from functools import cache

import pytest

from bot.i18n import LANGUAGES, get_translator
from bot.render.bids import action_button, declaration_label
from bot.render.cards import TRUMP_MARK, card_button_label, card_label, suit_colour
from bot.render.common import Button, Colour
from bot.render.hand import illegal_label, render_hand
from bot.render.table import render_table
from bot.taps import DECLARE_ALL
from bot.telegram_buttons import check_limits, configure
from bot.telegram_io import markup
from engine.actions import (
    Accept,
    Bella,
    Beter,
    Choose,
    ClaimRoem,
    Contra,
    Declare,
    Kleintje,
    Pass,
    PlayCard,
    Re,
    parse_action,
)
from engine.cards import SEATS, Card, Suit, card
from engine.game import GameState
from engine.observe import Observation, observe
from engine.round import Phase
from tests.render.helpers import PLAYERS, PRESET_NAMES, random_states, tok

RED = (Suit.HEARTS, Suit.DIAMONDS)


@cache
def states(preset: str) -> tuple[GameState, ...]:
    return tuple(g for seed in (1, 2) for g in random_states(preset, seed, 200) if not g.is_over)


def _observations(preset: str, every: int = 1) -> list[Observation]:
    return [observe(g, s) for g in states(preset)[::every] for s in SEATS]


def _suit_of(obs: Observation, button: Button) -> Suit | None:
    """The one suit a hand button is about (None: pass, contra, roem, declare all...)."""
    if tok(button) == DECLARE_ALL:
        return None
    assert obs.seat is not None
    action = parse_action(tok(button), obs.seat)
    if isinstance(action, PlayCard | Bella):
        return action.card.suit
    if isinstance(action, Choose | Kleintje):
        return action.suit
    if isinstance(action, Declare):
        return action.cards[0].suit
    if isinstance(action, Accept):
        return obs.shown[-1]
    return None


def test_suit_colours_and_the_trump_mark() -> None:
    tr = get_translator("nl")
    assert [suit_colour(s) for s in Suit] == [
        None if s in (Suit.SPADES, Suit.CLUBS) else Colour.RED for s in Suit
    ]
    jack = card("JH")
    assert card_button_label(tr, jack, Suit.HEARTS) == "★B♥"
    assert card_button_label(tr, jack, Suit.SPADES) == "B♥"
    assert card_button_label(tr, jack, None) == "B♥"
    assert card_label(tr, jack) == "B♥"  # texts keep the plain label


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_hand_button_has_its_suits_colour_and_trump_mark(preset: str, lang: str) -> None:
    tr = get_translator(lang)
    seen_red = seen_trump = seen_disabled = False
    for obs in _observations(preset, every=3):
        rendered = render_hand(obs, PLAYERS, tr, table_title="T")
        assert TRUMP_MARK not in rendered.text  # the mark is for buttons
        legal = {a.card for a in obs.legal if isinstance(a, PlayCard)}
        my_turn = obs.phase is Phase.PLAY and obs.to_act == obs.seat
        for row in rendered.keyboard:
            for b in row:
                suit = _suit_of(obs, b)
                assert b.colour is (suit_colour(suit) if suit is not None else None), b
                seen_red |= b.colour is Colour.RED
                trump = obs.trump is not None and suit is obs.trump
                is_card = tok(b).startswith(("play:", "bella:", "declare:"))
                assert (TRUMP_MARK in b.label) == (trump and is_card), b
                seen_trump |= TRUMP_MARK in b.label
                if not tok(b).startswith("play:"):
                    assert not b.disabled
                    continue
                card = Card.parse(tok(b).removeprefix("play:"))
                label = card_button_label(tr, card, obs.trump)
                unplayable = my_turn and card not in legal
                assert b.disabled is unplayable
                assert b.label == (illegal_label(label) if unplayable else label)
                seen_disabled |= b.disabled
    assert seen_red and seen_trump and seen_disabled


@pytest.mark.parametrize("lang", LANGUAGES)
def test_bid_and_klammern_buttons_take_the_suits_colour(lang: str) -> None:
    tr = get_translator(lang)
    obs = next(o for o in _observations("klammern") if o.trump is Suit.HEARTS and o.hand)
    assert obs.seat is not None
    seat = obs.seat
    hearts = [card(c) for c in ("7H", "8H", "9H")]
    spades = [card(c) for c in ("7S", "8S", "9S")]
    king = card("KH")
    cases: list[tuple[object, Colour | None, bool]] = [
        (Choose(seat, Suit.DIAMONDS), Colour.RED, False),
        (Choose(seat, Suit.CLUBS), None, False),
        (Kleintje(seat, Suit.HEARTS), Colour.RED, False),
        (Beter(seat), None, False),
        (Declare(seat, tuple(hearts)), Colour.RED, True),
        (Declare(seat, tuple(spades)), None, False),
        (Bella(seat, king), Colour.RED, True),
        (Pass(seat), None, False),
        (Contra(seat), None, False),
        (Re(seat), None, False),
        (ClaimRoem(seat), None, False),
    ]
    for action, colour, marked in cases:
        b = action_button(tr, action, obs)  # type: ignore[arg-type]
        assert b.colour is colour, action
        assert (TRUMP_MARK in b.label) is marked, (action, b.label)
        assert not b.disabled
    assert declaration_label(tr, hearts) == declaration_label(
        tr, hearts, trump=Suit.HEARTS
    ).replace(TRUMP_MARK, "")


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_accept_is_coloured_by_the_shown_suit(preset: str) -> None:
    tr = get_translator("de")
    found = False
    for obs in _observations(preset):
        for a in obs.legal:
            if isinstance(a, Accept):
                b = action_button(tr, a, obs)
                assert b.colour is suit_colour(obs.shown[-1])
                found = True
    assert found or preset not in ("klassiek", "klammern")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_keyboard_keeps_within_telegrams_limits(preset: str, lang: str) -> None:
    """At most 8 buttons a row and 100 in all, callback data of at most 64 bytes, also for the
    largest game id and version the callback data can hold; as disabled buttons and as their
    dimmed fallback."""
    tr = get_translator(lang)
    game_id, version = 10**18 - 1, 10**9 - 1
    for obs in _observations(preset, every=2):
        keyboard = render_hand(obs, PLAYERS, tr, table_title="T", awaited=True).keyboard
        if not keyboard:
            continue
        for b in (b for row in keyboard for b in row):
            assert b.label.strip() and len(b.label) <= 64
        for supported in (True, False):
            configure(disabled=supported)
            try:
                sent = markup(keyboard, game_id, version)
            finally:
                configure(disabled=True)
            assert sent is not None
            check_limits(sent)
    for game in states(preset)[::5]:
        table = render_table(observe(game, None), PLAYERS, tr, hand_url="https://t.me/b?start=x")
        if table.keyboard:
            check_limits(markup(table.keyboard, game_id, version))  # type: ignore[arg-type]
