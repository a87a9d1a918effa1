"""Lobby, /help, /rules, command menus and the other bot messages, in every language."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from bot.i18n import LANGUAGES, get_translator
from bot.render import messages as m
from bot.render.common import Player, Rendered
from bot.render.lobby import Lobby, deep_link_keyboard, render_lobby
from bot.render.rules_text import rules_text
from bot.render.sheet import round_summary
from bot.taps import Target
from engine.cards import Seat, Team, card
from engine.game import SheetRow
from engine.rules import score_round
from engine.settings import PRESETS, Settings
from tests.render.helpers import (
    HOSTILE,
    PLAYERS,
    TRANSLATED,
    check_telegram_html,
    tok,
    untranslated,
    visible_text,
)

LOBBY_ACTIONS = re.compile(
    r"^(sit:[0-3]|leave|bot:add|bot:remove|preset:next|rounds:toggle|auto_declare:toggle"
    r"|timeout:next|tips:toggle|hands:toggle|start|cancel)$"
)


def _check(text: str, lang: str) -> None:
    check_telegram_html(text)
    assert HOSTILE not in text
    if lang in TRANSLATED:
        assert not untranslated(text, lang), untranslated(text, lang)


def _check_rendered(r: Rendered, lang: str) -> None:
    _check(r.text, lang)
    for row in r.keyboard:
        for b in row:
            assert b.label.strip() and (bool(b.action) != bool(b.url))
            if lang in TRANSLATED:
                assert not untranslated(b.label, lang), b.label


def _lobby(preset: str, seats: Sequence[Player | None], timeout: int | None = 60) -> Lobby:
    return Lobby(Settings.from_preset(preset), seats, timeout, HOSTILE)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_lobby_shows_seats_rules_and_abstract_actions(preset: str, lang: str) -> None:
    tr = get_translator(lang)
    for seats, timeout in (
        ([None, None, None, None], None),
        ([PLAYERS[0], None, PLAYERS[2], Player("", computer=True)], 60),
        (list(PLAYERS), 300),
    ):
        r = render_lobby(
            _lobby(preset, seats, timeout), tr, private_chat_url="https://t.me/b?start=x"
        )
        _check_rendered(r, lang)
        actions = [tok(b) for row in r.keyboard for b in row if b.action]
        assert all(LOBBY_ACTIONS.match(a) for a in actions), actions
        assert {f"sit:{i}" for i in range(4)} <= set(actions)
        assert {"start", "cancel", "leave", "bot:add", "bot:remove", "preset:next"} <= set(actions)
        assert "rounds:toggle" in actions
        assert ("auto_declare:toggle" in actions) == (preset == "klammern")
        assert "tips:toggle" in actions
        urls = [b.url for row in r.keyboard for b in row if b.url]
        assert urls == ["https://t.me/b?start=x"]


def test_lobby_seats_partners_on_one_row() -> None:
    r = render_lobby(_lobby("amsterdam", [None] * 4), get_translator("nl"))
    assert [tok(b) for b in r.keyboard[0]] == ["sit:0", "sit:2"]
    assert [tok(b) for b in r.keyboard[1]] == ["sit:1", "sit:3"]
    assert r.keyboard[0][0].label == "Noord: ➕ vrij"


def test_deep_link_keyboard_is_one_url_button() -> None:
    kb = deep_link_keyboard(get_translator("de"), "https://t.me/bot?start=seat_1")
    assert len(kb) == 1 and kb[0][0].url == "https://t.me/bot?start=seat_1"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_rules_text_explains_the_tables_rules(preset: str, lang: str) -> None:
    tr = get_translator(lang)
    for overrides in ({}, {"rounds": 8}, {"four_low_cards": 100, "defender_pit": False}):
        if preset == "klammern" and overrides:
            continue
        text = rules_text(tr, Settings.from_preset(preset, **overrides))
        _check(text, lang)
        assert len(text) < 4096


def test_rules_text_differs_per_play_rule() -> None:
    tr = get_translator("nl")
    ams = rules_text(tr, Settings.from_preset("amsterdam"))
    rot = rules_text(tr, Settings.from_preset("rotterdam"))
    assert "ook als je maat de slag heeft" in rot and "ook als je maat de slag heeft" not in ams
    assert "B (20) 9 (14) A (11) 10 (10) H (4) V (3) 8 (0) 7 (0)" in ams


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_and_command_menu(lang: str) -> None:
    tr = get_translator(lang)
    _check(m.help_text(tr), lang)
    commands = m.command_descriptions(tr)
    assert [c for c, _ in commands] == list(m.COMMANDS)
    for _, description in commands:
        assert 3 <= len(description) <= 256
        if lang in TRANSLATED:
            assert not untranslated(description, lang)
    for command in m.COMMANDS:
        assert f"/{command}" in m.help_text(tr)
    # The tip button is explained, in the language's own words.
    tip_line = next(line for line in m.help_text(tr).splitlines() if "💡" in line)
    assert {"nl": "tips", "de": "Tipps", "fr": "conseils", "en": "tips"}[lang] in tip_line


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_valid_translated_html(lang: str) -> None:
    tr = get_translator(lang)
    settings = Settings.from_preset("klassiek")
    texts = [
        m.language_set(tr),
        m.game_stopped(tr, HOSTILE),
        m.stop_cancelled(tr),
        m.lobby_cancelled(tr, HOSTILE),
        m.game_started(tr, settings, PLAYERS),
        m.hand_in_private(tr),
        m.welcome(tr, HOSTILE),
        m.seated_via_link(tr, Seat.EAST, HOSTILE),
        m.solo_started(tr),
        m.turn_reminder(tr, PLAYERS, Seat.EAST, 20),
        m.turn_reminder(tr, PLAYERS, Seat.NORTH, 1),
        m.computer_played(tr, PLAYERS, Seat.EAST, card("JH")),
        m.computer_played(tr, PLAYERS, Seat.EAST),
        m.seat_handed_over(tr, HOSTILE, Seat.WEST),
        m.seat_taken_over(tr, HOSTILE, Seat.WEST),
        m.seat_taken_back(tr, HOSTILE, Seat.WEST),
        m.ack_reclaimed(tr),
        m.reclaim_offer(tr, Seat.EAST, HOSTILE),
        m.redeal(tr, PLAYERS, Seat.SOUTH),
        m.game_over(tr, {Team.NS: 1500, Team.EW: 1300}, PLAYERS),
        m.game_over(tr, {Team.NS: 1400, Team.EW: 1400}, PLAYERS),
        m.game_finished_notice(tr),
        m.something_went_wrong(tr),
        m.ack_seated(tr, Seat.SOUTH),
        m.ack_left(tr),
    ]
    for text in texts:
        _check(text, lang)
    for r in (
        m.language_prompt(tr, Target.USER, "fr"),
        m.stop_confirm(tr),
        m.need_private_chat(tr, HOSTILE, "https://t.me/b?start=x"),
        m.table_already_open(tr, "https://t.me/c/1/2"),
        m.table_already_open(tr),
        m.handover_confirm(tr),
    ):
        _check_rendered(r, lang)
    assert tok(m.handover_button(tr)) == "handover"
    assert tok(m.reclaim_button(tr, Seat.WEST)) == "reclaim:3"


def test_language_prompt_offers_every_language_with_the_current_ticked() -> None:
    r = m.language_prompt(get_translator("de"), Target.CHAT, "de")
    buttons = [b for row in r.keyboard for b in row]
    assert [tok(b) for b in buttons] == [f"lang:{code}" for code in LANGUAGES]
    assert [b for b in buttons if b.label.startswith("✓")] == [buttons[1]]


@pytest.mark.parametrize(
    ("lang", "confirmation"),
    [("nl", "Nederlands"), ("de", "Deutsch"), ("fr", "français"), ("en", "English")],
)
def test_language_confirmation_is_written_in_the_new_language(lang: str, confirmation: str) -> None:
    assert confirmation in m.language_set(get_translator(lang))


def test_stop_confirmation_has_yes_and_no() -> None:
    r = m.stop_confirm(get_translator("nl"))
    assert [tok(b) for b in r.keyboard[0]] == ["stop:yes", "stop:no"]


def test_turn_reminder_mentions_the_player_and_pluralises() -> None:
    nl = get_translator("nl")
    text = m.turn_reminder(nl, PLAYERS, Seat.NORTH, 20)
    assert '<a href="tg://user?id=11">Anna</a>' in text and "20 seconden" in text
    assert "1 seconde." in m.turn_reminder(nl, PLAYERS, Seat.NORTH, 1)


def _row(
    playing: Team, card_points: dict[Team, int], roem: dict[Team, int], tricks: dict[Team, int]
) -> SheetRow:
    result = score_round(playing, card_points, roem, tricks)
    maker = Seat.NORTH if playing is Team.NS else Seat.EAST
    return SheetRow(3, Seat.WEST, maker, "H", result)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_round_summary_in_words_for_made_nat_and_pit(lang: str) -> None:
    tr = get_translator(lang)
    made = _row(
        Team.NS, {Team.NS: 100, Team.EW: 62}, {Team.NS: 20, Team.EW: 0}, {Team.NS: 5, Team.EW: 3}
    )
    nat = _row(
        Team.NS, {Team.NS: 81, Team.EW: 81}, {Team.NS: 0, Team.EW: 0}, {Team.NS: 4, Team.EW: 4}
    )
    pit = _row(
        Team.EW, {Team.NS: 0, Team.EW: 162}, {Team.NS: 0, Team.EW: 50}, {Team.NS: 0, Team.EW: 8}
    )
    texts = {
        name: round_summary(row, PLAYERS, tr, totals={Team.NS: 10, Team.EW: 20})
        for name, row in (("made", made), ("nat", nat), ("pit", pit))
    }
    for text in texts.values():
        _check(text, lang)
    assert tr.gettext("Nat!") in texts["nat"] and tr.gettext("Nat!") not in texts["made"]
    assert tr.gettext("Pit!") in texts["pit"] and tr.gettext("Pit!") not in texts["made"]
    assert "312" in visible_text(texts["pit"])  # 162 + 50 roem + 100 pit
