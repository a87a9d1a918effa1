"""The score sheet picture: the same numbers as the text sheet, every language and
preset within Telegram's photo limits, the edge cases drawn without overlap or clipping, and
a few reference pictures.

Reference pictures live in ``tests/render/reference/``; after an intended change of the
picture, write them anew and look at them before committing::

    KLAVERJAS_UPDATE_PICTURES=1 python -m pytest tests/render/test_picture.py -k reference

They are compared with a tolerance (the whole picture's mean difference and the worst
32 × 32 tile's), not byte for byte: FreeType and zlib differ a little between Pillow versions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from io import BytesIO

import pytest
from PIL import Image

from bot.i18n import LANGUAGES, Translator, get_translator
from bot.render import messages
from bot.render.common import Player
from bot.render.picture import (
    Layout,
    layout_sheet,
    render_sheet_png,
    sheet_caption,
    switch_button,
)
from bot.render.picture.layout import TextItem
from bot.render.picture.sheet_layout import ROW, TEAM_COLUMNS
from bot.render.picture.text import ELLIPSIS, PLACEHOLDER
from bot.render.sheet import render_sheet_view
from bot.render.sheet_view import SheetView, Status, build_sheet_view, sheet_view_of
from bot.taps import ShowSheet
from engine.cards import SEATS
from tests.render.helpers import (
    PLAYERS,
    PRESET_NAMES,
    finished_game,
    random_states,
    untranslated,
    visible_text,
)
from tests.render.picture_checks import (
    REFERENCE,
    UPDATE,
    check_caption,
    check_layout,
    check_png,
    difference,
    shown,
)
from tests.render.picture_views import (
    HARD,
    LONG_NAME,
    all_nat_view,
    klammern_view,
    klaverjas_view,
    stopped_view,
)

# --- the numbers of both renderers ---------------------------------------------------------------


def _pre_lines(text: str) -> list[str]:
    body = re.search(r"<pre>(.*)</pre>", text, re.S)
    assert body is not None
    return visible_text(body.group(1)).split("\n")


def _num(text: str) -> str:
    """A number of the text sheet: "+20" → "20", "" → "0"."""
    return text.strip().lstrip("+") or "0"


def text_numbers(text: str, klammern: bool) -> dict[str, object]:
    """What the text sheet's ``<pre>`` table says: per round and column the points, roem and
    mark (Klammern: small points won, reached, big points won), then the footer. Columns are
    13 characters wide, at 3 and 17."""
    lines = _pre_lines(text)
    end = next(i for i, line in enumerate(lines) if line.startswith("-"))
    rounds: list[tuple[int, list[tuple[str, str, str]]]] = []
    for line in lines[1:end]:
        cols = [line[3:16].ljust(13), line[17:30].ljust(13)]
        if klammern:
            cells = [(_num(c[0:3]), c[4:7].strip(), str(c[8:].count("●"))) for c in cols]
        else:
            cells = [(c[0:4].strip(), _num(c[4:9]), c[9:].strip()) for c in cols]
        rounds.append((int(line[:2]), cells))
    footer = [line.ljust(30) for line in lines[end + 1 :]]
    if klammern:
        (big,) = footer
        return {"rounds": rounds, "totals": [big[3:10].strip(), big[17:24].strip()]}
    sums, totals = footer
    return {
        "rounds": rounds,
        "sums": [(sums[3:7].strip(), _num(sums[7:12])), (sums[17:21].strip(), _num(sums[21:26]))],
        "totals": [totals[3:7].strip(), totals[17:21].strip()],
    }


def picture_numbers(layout: Layout, klammern: bool) -> dict[str, object]:
    """The same numbers read off the picture's layout (by role, row and column)."""
    split = TEAM_COLUMNS[1]  # the T's upright: left team column | right team column
    rows = sorted((t for t in layout.texts if t.role == "round"), key=lambda t: t.cell.y0)

    def in_row(top: float) -> Callable[[TextItem], bool]:
        return lambda t: top <= t.cell.y0 < top + ROW - 2

    def column(items: list[TextItem], role: str, right: bool, default: str) -> str:
        found = [t.source for t in items if t.role == role and (t.ink.x0 >= split) == right]
        assert len(found) <= 1, (role, found)
        return found[0] if found else default

    rounds = []
    for r in rows:
        items = [t for t in layout.texts if in_row(r.cell.y0)(t)]
        cols: list[tuple[str, str, str]] = []
        for right in (False, True):
            if klammern:
                big = column(items, "big_won", right, "0")
                won, reached = column(items, "won", right, "0"), column(items, "reached", right, "")
                cols.append((won, reached, big))
            else:
                mark = column(items, "nat", right, "") or column(items, "pit", right, "")
                points = column(items, "points", right, "")
                cols.append((points, column(items, "roem", right, "0"), mark))
        rounds.append((int(r.text), cols))
    totals = sorted((t for t in layout.texts if t.role == "total"), key=lambda t: t.x)
    out: dict[str, object] = {"rounds": rounds, "totals": [t.text for t in totals]}
    if not klammern:
        sums = sorted((t for t in layout.texts if t.role == "points_sum"), key=lambda t: t.x)
        roem = {t.ink.x0 >= split: t.source for t in layout.texts if t.role == "roem_sum"}
        out["sums"] = [(s.text, roem.get(i == 1, "0")) for i, s in enumerate(sums)]
    return out


def _views() -> list[tuple[str, SheetView, Translator]]:
    out = []
    for preset in PRESET_NAMES:
        game = finished_game(preset, 1)
        out.append((f"{preset}-group", sheet_view_of(game, PLAYERS), get_translator("nl")))
        private = sheet_view_of(game, PLAYERS, viewer=SEATS[1])
        out.append((f"{preset}-private", private, get_translator("fr")))
        midway = next(g for g in random_states(preset, 2) if len(g.sheet()) == 3)
        stopped = sheet_view_of(midway, PLAYERS, viewer=SEATS[2], stopped=True)
        out.append((f"{preset}-stopped", stopped, get_translator("de")))
    return out


@pytest.mark.parametrize(("name", "view", "tr"), _views(), ids=[v[0] for v in _views()])
def test_the_picture_shows_the_numbers_of_the_text_sheet(
    name: str, view: SheetView, tr: Translator
) -> None:
    text = render_sheet_view(view, tr)
    layout = layout_sheet(view, tr)
    from_text = text_numbers(text, view.klammern)
    from_picture = picture_numbers(layout, view.klammern)
    assert len(from_text["rounds"]) == view.played > 0  # type: ignore[arg-type]
    assert from_picture == from_text


def _with_points(view: SheetView, index: int, column: int, points: int) -> SheetView:
    """``view`` with other card points in one cell (nothing else changed)."""
    line = view.lines[index]
    team = view.order[column]
    cells = {**line.cells, team: replace(line.cells[team], points=points)}
    lines = (*view.lines[:index], replace(line, cells=cells), *view.lines[index + 1 :])
    return replace(view, lines=lines)


def test_a_changed_number_shows_in_both_renderers() -> None:
    """The comparison above can fail: the renderers read the view's cells."""
    view = klaverjas_view(4)
    other = _with_points(view, 2, 0, 99)
    tr = get_translator("en")
    before, after = (text_numbers(render_sheet_view(v, tr), False) for v in (view, other))
    assert before != after
    assert after["rounds"][2][1][0][0] == "99"  # type: ignore[index]
    assert picture_numbers(layout_sheet(other, tr), False) == after


# --- every language and preset -------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_language_and_preset_renders_within_the_limits(preset: str, lang: str) -> None:
    tr = get_translator(lang)
    game = finished_game(preset, 1)
    midway = next(g for g in random_states(preset, 3) if len(g.sheet()) == 2)
    views = [
        (sheet_view_of(game, PLAYERS), True, None),
        (sheet_view_of(game, PLAYERS, viewer=SEATS[3]), False, None),
        (sheet_view_of(midway, PLAYERS, viewer=SEATS[0]), False, None),
        (sheet_view_of(midway, PLAYERS, stopped=True), False, "<b>&Bob</b>"),
    ]
    for view, game_end, stopped_by in views:
        layout = layout_sheet(view, tr)
        check_layout(layout)
        check_png(render_sheet_png(view, tr), layout)
        if lang != "en":
            assert not untranslated(shown(layout), lang), untranslated(shown(layout), lang)
        check_caption(sheet_caption(view, tr, game_end=game_end, stopped_by=stopped_by), lang)


def test_an_empty_sheet_renders() -> None:
    tr = get_translator("nl")
    view = build_sheet_view((), {}, PLAYERS)
    layout = layout_sheet(view, tr)
    check_layout(layout)
    check_png(render_sheet_png(view, tr), layout)
    assert [t.text for t in layout.texts if t.role == "total"] == ["0", "0"]


# --- the edge cases of the issue -----------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_all_nat_three_digit_roem_long_and_right_to_left_names(lang: str) -> None:
    tr = get_translator(lang)
    for viewer in (None, SEATS[1]):
        view = all_nat_view(viewer=viewer)
        layout = layout_sheet(view, tr)
        check_layout(layout)
        check_png(render_sheet_png(view, tr), layout)
        nat = [t for t in layout.texts if t.role == "nat"]
        assert len(nat) == 16
        assert {t.source for t in layout.texts if t.role == "roem"} >= {"400", "700", "600"}
        dealers = [t for t in layout.texts if t.role == "dealer"]
        longest = [t for t in dealers if t.source == LONG_NAME]
        assert longest and all(ELLIPSIS in t.text for t in longest)  # shortened visibly
        heads = [t for t in layout.texts if t.role == "name" and LONG_NAME[:11] in t.source]
        assert heads and PLACEHOLDER in heads[0].text  # the emoji: a visible mark
        assert any("ןהכ הרש" in t.text for t in dealers)  # Hebrew drawn right to left
        assert any(t.text == seat for t in dealers for seat in ("West", "Ouest"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_dealer_column_shows_the_computers_names_whole(lang: str) -> None:
    """Every seat a computer ("Computer Noord", "Ordinateur Ouest"), and people's names
    that fit: whole in the dealer column, never cut."""
    tr = get_translator(lang)
    for players in (
        (Player("", computer=True),) * 4,
        (Player("Wilhelmina Zuid"), Player("", computer=True), Player("Anna"), Player("Jo")),
    ):
        layout = layout_sheet(klaverjas_view(16, players=players), tr)
        check_layout(layout)
        dealers = [t for t in layout.texts if t.role == "dealer"]
        assert len(dealers) == 16
        assert all(t.text == t.source and ELLIPSIS not in t.text for t in dealers), [
            t.text for t in dealers if t.text != t.source
        ]


def test_the_winner_line_keeps_a_long_team_name_on_its_own_line() -> None:
    tr = get_translator("de")
    layout = layout_sheet(all_nat_view((Player(LONG_NAME),) * 4), tr)
    result = [t for t in layout.texts if t.role == "result"]
    assert len(result) == 2
    assert result[1].text.startswith("gewinnen mit ")


def test_a_game_stopped_after_one_round() -> None:
    state = next(g for g in random_states("amsterdam", 4) if len(g.sheet()) == 1)
    for lang in LANGUAGES:
        tr = get_translator(lang)
        view = sheet_view_of(state, HARD, stopped=True)
        layout = layout_sheet(view, tr)
        check_layout(layout)
        check_png(render_sheet_png(view, tr), layout)
        assert [t.role for t in layout.texts].count("round") == 1
        assert view.winner is None
        result = [t.text for t in layout.texts if t.role == "result"]
        assert result == ["■ " + tr.gettext("The game was stopped early: no winner.")]


# --- the caption ---------------------------------------------------------------------------------


def test_caption_at_the_end_is_the_game_over_message() -> None:
    game = finished_game("amsterdam", 1)
    for lang in LANGUAGES:
        tr = get_translator(lang)
        view = sheet_view_of(game, PLAYERS)
        caption = sheet_caption(view, tr, game_end=True)
        assert caption == messages.game_over(tr, game.totals(), PLAYERS)
        later = sheet_caption(view, tr)
        assert str(max(game.totals().values())) in visible_text(later)
        assert "/klaverjas" not in later
        check_caption(later, lang)


def test_caption_of_a_stopped_game_has_the_score_and_no_winner() -> None:
    view = klaverjas_view(3, players=PLAYERS, status=Status.STOPPED)
    tr = get_translator("nl")
    caption = visible_text(sheet_caption(view, tr, stopped_by="Anna"))
    for team in view.order:
        assert str(view.sum_total(team)) in caption
    assert "Anna" in caption and "🏆" not in caption
    klammern = replace(klammern_view(), lines=klammern_view().lines[:2], status=Status.STOPPED)
    assert tr.gettext("Small points: {score}").split("{")[0] in visible_text(
        sheet_caption(klammern, tr)
    )


def test_caption_during_the_game_has_the_progress_and_the_score() -> None:
    view = klaverjas_view(5, status=Status.PLAYING, viewer=SEATS[0])
    tr = get_translator("nl")
    caption = visible_text(sheet_caption(view, tr))
    assert "na ronde 5 van 16" in caption
    assert f"Wij {view.sum_total(SEATS[0].team)}" in caption


def test_caption_with_the_longest_names_fits_telegrams_limit() -> None:
    long = tuple(type(p)(LONG_NAME * 2) for p in HARD)
    for lang in LANGUAGES:
        tr = get_translator(lang)
        for view in (all_nat_view(long), stopped_view(long), klammern_view(players=long)):
            for game_end in (True, False):
                caption = sheet_caption(view, tr, game_end=game_end, stopped_by=LONG_NAME)
                check_caption(caption, lang)


def test_switch_buttons_say_what_they_show() -> None:
    tr = get_translator("nl")
    assert switch_button(tr, to_picture=True).label == "🖼 Plaatje"
    assert switch_button(tr, to_picture=False).action == ShowSheet(picture=False)


# --- reference pictures --------------------------------------------------------------------------

REFERENCES: dict[str, tuple[Callable[[], SheetView], str]] = {
    "klaverjas_group_nl": (lambda: klaverjas_view(16), "nl"),
    "klammern_private_de": (lambda: klammern_view(viewer=SEATS[1]), "de"),
    "edge_all_nat_fr": (all_nat_view, "fr"),
    "stopped_en": (stopped_view, "en"),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reference_pictures(name: str) -> None:
    make, lang = REFERENCES[name]
    png = render_sheet_png(make(), get_translator(lang))
    path = REFERENCE / f"{name}.png"
    if UPDATE:
        path.write_bytes(png)
        pytest.skip(f"wrote {path}")
    with Image.open(BytesIO(png)) as now, Image.open(path) as then:
        assert now.size == then.size
        whole, worst = difference(now, then)
    # Pillow 10.0 against 13.0 (FreeType 2.13 / 2.14): 0.002 and 0.06; one digit changed:
    # a tile of 40; everything moved by one pixel: 5.6 and 27.
    assert whole <= 1.0 and worst <= 8.0, (whole, worst)


def test_the_reference_comparison_sees_a_changed_digit() -> None:
    view = klaverjas_view(16)
    points = view.lines[7].cells[view.order[1]].points
    changed = _with_points(view, 7, 1, points + 1 if points % 10 < 9 else points - 1)
    tr = get_translator("nl")
    with (
        Image.open(BytesIO(render_sheet_png(view, tr))) as a,
        Image.open(BytesIO(render_sheet_png(changed, tr))) as b,
    ):
        assert difference(a, b)[1] > 8.0
