"""``/top``'s standings and the daily's board as pictures: the same numbers as their
texts, every language within Telegram's limits, empty, one line and 30 lines, hostile names
(64 characters with emoji, right to left, a script the font lacks, HTML) drawn or
shortened visibly without overlap or clipping, captions within the caption limit, and two
reference pictures (compared with the sheet's tolerance; rewrite them with
``KLAVERJAS_UPDATE_PICTURES=1 python -m pytest tests/render/test_board_picture.py -k
reference`` and look at them before committing)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from io import BytesIO
from itertools import pairwise

import pytest
from PIL import Image

from bot.i18n import LANGUAGES, Translator, get_translator
from bot.render import standings as texts
from bot.render.common import NAME_LIMIT, shorten
from bot.render.picture import layout_board, layout_top, render_board_png, render_top_png
from bot.render.picture.board_layout import ROW, fill, par_total
from bot.render.picture.layout import Layout, Style, TextItem
from bot.render.picture.text import ELLIPSIS, PLACEHOLDER, font
from bot.service import Board
from bot.standings import Standing
from bot.taps import Period
from storage.stats_rows import Rating
from tests.render.board_views import NAMES, PAR, board, standings, summary
from tests.render.helpers import HOSTILE, untranslated, visible_text
from tests.render.picture_checks import (
    REFERENCE,
    UPDATE,
    check_caption,
    check_layout,
    check_png,
    difference,
    shown,
)
from tests.render.picture_views import LONG_NAME

CLUB = "Klaverjasclub De Zwarte Ruiter, Amsterdam-Noord 🃏"

# --- reading the numbers off both ----------------------------------------------------------------


def rows(layout: Layout) -> list[dict[str, TextItem]]:
    """The table's lines top to bottom, each as role → text (the texts of a line share the
    middle of their cells)."""
    by_middle: dict[float, dict[str, TextItem]] = {}
    for t in layout.texts:
        if t.role in ("place", "name", "rating", "games", "won", "points", "against", "par"):
            by_middle.setdefault((t.cell.y0 + t.cell.y1) / 2, {})[t.role] = t
    middles = sorted(by_middle)
    assert all(b - a >= ROW - 1 for a, b in pairwise(middles))
    return [by_middle[m] for m in middles]


def text_top(tr: Translator, text: str) -> list[tuple[str, str, str, str]]:
    """(rank, rating, games, win %) of each line of :func:`texts.top_text`."""
    prefix, _, suffix = tr.gettext("{share} won").partition("{share}")
    out = []
    for line in visible_text(text).split("\n"):
        m = re.fullmatch(r"(\d+)\. .* — (\S+) · (.+) · (.+)", line)
        if m is not None:
            games = re.search(r"\d+", m.group(3))
            assert games is not None
            won = m.group(4).removeprefix(prefix).removesuffix(suffix)
            out.append((m.group(1), m.group(2), games.group(), won))
    return out


def picture_top(layout: Layout) -> list[tuple[str, str, str, str]]:
    """The same read off the picture."""
    return [
        (r["place"].text, r["rating"].text, r["games"].text, r["won"].text) for r in rows(layout)
    ]


def text_board(text: str) -> list[tuple[str, str, str]]:
    """(place, points, computers' points) of each line of :func:`texts.board_text`, and
    ("…", "", "") where the reader's own line is set apart."""
    out = []
    for line in visible_text(text).split("\n"):
        m = re.fullmatch(r"(\d+)\. .* — (\d+) : (\d+)", line)
        if m is not None:
            out.append((m.group(1), m.group(2), m.group(3)))
        elif line == "…":
            out.append(("…", "", ""))
    return out


def picture_board(layout: Layout) -> list[tuple[str, str, str]]:
    """The same read off the picture ("…": the gap's place in the order of the lines)."""
    lines = rows(layout)
    out = [(r["place"].text, r["points"].text, r["against"].text) for r in lines]
    gaps = [t for t in layout.texts if t.role == "gap"]
    for gap in gaps:
        above = sum(1 for r in lines if r["place"].cell.y0 < gap.cell.y0)
        out.insert(above, ("…", "", ""))
    return out


# --- the same numbers as the text ----------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("n", [1, 7, 30])
def test_the_standings_picture_shows_the_numbers_of_the_text(lang: str, n: int) -> None:
    tr = get_translator(lang)
    lines, names = standings(n)
    for period in Period:
        text = texts.top_text(tr, CLUB, period, lines, names).text
        layout = layout_top(tr, CLUB, period, lines, names)
        from_text = text_top(tr, text)
        assert len(from_text) == min(n, texts.TOP_LINES)
        assert picture_top(layout) == from_text
        drawn = [r["name"].source for r in rows(layout)]
        for s, source in zip(lines, drawn, strict=False):  # the raw name, or "a player"
            assert source in (names[s.user_id], tr.gettext("a player"))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(
    "make",
    [
        lambda: board(10, entries=31, own_place=23),
        lambda: board(10, me=4),
        lambda: board(1, me=0),
        lambda: board(30, entries=30, own_place=None),
        lambda: board(3, own_place=None, group="Club"),
    ],
    ids=["own-below", "own-among", "one", "thirty", "group"],
)
def test_the_board_picture_shows_the_numbers_of_the_text(
    lang: str, make: Callable[[], Board]
) -> None:
    tr = get_translator(lang)
    b = make()
    for par in (None, PAR):
        layout = layout_board(tr, b, par=par)
        from_text = text_board(texts.board_text(tr, b))
        assert len(from_text) == len(b.top) + (2 if texts.own_below(b) else 0)
        assert picture_board(layout) == from_text
        diffs = [r["par"].source for r in rows(layout) if "par" in r]
        total = par_total(par)
        if total is None:
            assert diffs == []
        else:
            points = [int(r["points"].text) for r in rows(layout)]
            assert diffs == [str(p - total) for p in points]


def test_the_readers_par_difference_is_the_one_the_result_says() -> None:
    tr = get_translator("en")
    s = summary(board(10, entries=14, own_place=12))
    result = "\n".join(texts.daily_result_lines(tr, s))
    said = re.search(r"Par \(the strong computer in your seat\): (\d+), you ([+-]\d+)\.", result)
    assert said is not None
    own = rows(layout_board(tr, s.board, par=s.par))[-1]
    assert own["name"].text == "you" and own["par"].text == said.group(2)
    assert int(said.group(1)) == par_total(PAR)


def test_a_changed_number_shows_in_both_renderers() -> None:
    """The comparisons above can fail: both read the same data."""
    tr = get_translator("nl")
    lines, names = standings(5)
    changed = [*lines]
    changed[2] = replace(lines[2], rating=Rating(lines[2].rating.mu - 0.5, lines[2].rating.sigma))
    before = text_top(tr, texts.top_text(tr, "", Period.ALL, lines, names).text)
    after = text_top(tr, texts.top_text(tr, "", Period.ALL, changed, names).text)
    assert before != after
    assert picture_top(layout_top(tr, "", Period.ALL, changed, names)) == after
    b = board(4, me=1)
    top = list(b.top)
    top[3] = replace(top[3], line=replace(top[3].line, against=top[3].line.against + 1))
    other = replace(b, top=tuple(top))
    assert text_board(texts.board_text(tr, other)) != text_board(texts.board_text(tr, b))
    assert picture_board(layout_board(tr, other)) == text_board(texts.board_text(tr, other))


# --- every language, the limits, the edge cases --------------------------------------------------


def _pictures(tr: Translator) -> list[tuple[str, Layout, bytes]]:
    lines, names = standings(30)
    one, one_names = standings(1)
    boards = [
        board(10, entries=31, own_place=23),
        board(30),
        board(1, me=0),
        board(5, me=2, group=LONG_NAME),
    ]
    out = [
        ("top-30", layout_top(tr, CLUB, Period.MONTH, lines, names),
         render_top_png(tr, CLUB, Period.MONTH, lines, names)),
        ("top-1", layout_top(tr, "", Period.ALL, one, one_names),
         render_top_png(tr, "", Period.ALL, one, one_names)),
        ("top-empty", layout_top(tr, CLUB, Period.ALL, [], {}),
         render_top_png(tr, CLUB, Period.ALL, [], {})),
        ("board-empty", layout_board(tr, board(0)), render_board_png(tr, board(0))),
    ]  # fmt: skip
    for i, b in enumerate(boards):
        par = PAR if i % 2 == 0 else None
        out.append((f"board-{i}", layout_board(tr, b, par=par), render_board_png(tr, b, par=par)))
    return out


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_renders_within_the_limits(lang: str) -> None:
    tr = get_translator(lang)
    for name, layout, png in _pictures(tr):
        check_layout(layout)
        check_png(png, layout)
        assert layout.height <= 1800, (name, layout.height)
        if lang != "en":
            assert not untranslated(shown(layout), lang), (name, untranslated(shown(layout), lang))


def test_empty_standings_and_board_say_so() -> None:
    tr = get_translator("de")
    top = layout_top(tr, CLUB, Period.MONTH, [], {})
    assert [t.text for t in top.texts if t.role == "empty"] == [
        tr.gettext("No games recorded in this period yet.")
    ]
    empty = layout_board(tr, board(0))
    assert [t.text for t in empty.texts if t.role == "empty"] == [
        tr.gettext("Nobody is on the board yet.")
    ]
    for layout in (top, empty):
        assert rows(layout) == [] and layout.height < 400


def test_thirty_lines_stay_readable_and_the_standings_show_twenty() -> None:
    tr = get_translator("nl")
    lines, names = standings(30)
    top = layout_top(tr, CLUB, Period.MONTH, lines, names)
    assert len(rows(top)) == texts.TOP_LINES
    assert [t.text for t in top.texts if t.role == "count"] == ["30 spelers"]
    b = layout_board(tr, board(30), par=PAR)
    assert len(rows(b)) == 30
    assert all(t.style.size >= 22 for t in b.texts if t.role in ("name", "points", "place"))
    assert b.height <= 20 * b.width  # and check_png: width + height within 10000


def test_long_right_to_left_and_undrawable_names() -> None:
    tr = get_translator("en")
    lines, names = standings(len(NAMES))
    layout = layout_top(tr, "", Period.ALL, lines, names)
    drawn = {r["name"].source: r["name"] for r in rows(layout)}
    long = drawn[LONG_NAME]
    assert long.text.endswith(ELLIPSIS) and PLACEHOLDER in long.text  # shortened, emoji shown
    assert long.ink.x1 <= long.cell.x1
    assert drawn["שרה כהן (Sara) 2"].text.endswith("ןהכ הרש")  # drawn right to left
    arabic = drawn["محمد عبد الله"].text
    assert all("\ufb50" <= c <= "\ufeff" for c in arabic if not c.isspace())  # joined forms
    assert drawn[HOSTILE].text == HOSTILE  # a picture needs no escaping
    player = tr.gettext("a player")
    assert player in drawn and drawn[player].style.fill != drawn["Anna"].style.fill  # 李小龍, ""


def test_a_long_group_name_is_shortened_in_the_title_and_the_rest_stays() -> None:
    for lang in LANGUAGES:
        tr = get_translator(lang)
        layout = layout_board(tr, board(3, group=LONG_NAME * 2))
        (title,) = [t for t in layout.texts if t.role == "title"]
        assert ELLIPSIS in title.text and title.text.endswith("2025")
        assert title.ink.within(layout.frame)
        top = layout_top(tr, LONG_NAME, Period.MONTH, *standings(2))
        (title,) = [t for t in top.texts if t.role == "title"]
        assert title.text.startswith(texts.top_title(tr, "\0", Period.MONTH).split("\0")[0])
        assert title.text.endswith(texts.period_text(tr, Period.MONTH))


def test_fill_shrinks_the_font_before_the_name_gets_too_little_room() -> None:
    style = Style(36, bold=True)
    text, used = fill("A very long title of ours around \0 that goes on and on", "Anna", style, 600)
    assert used.size < 36
    assert font(used.size, bold=True).getlength(text) <= 600
    assert fill("No name here", "", style, 600) == ("No name here", style)


def test_the_own_line_is_highlighted_inside_and_below_the_top() -> None:
    tr = get_translator("en")
    for b in (board(10, entries=31, own_place=23), board(10, me=4)):
        layout = layout_board(tr, b)
        lines = rows(layout)
        own = next(r for r in lines if r["name"].text == "you")
        bands = [x for x in layout.rects if own["name"].ink.within(x.box)]
        assert len(bands) == 1 and bands[0].fill != layout.background
        others = [r for r in lines if r is not own]
        assert len(others) == len(lines) - 1
        assert not any(r["name"].ink.within(bands[0].box) for r in others)


# --- captions ------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_captions_carry_the_result_within_the_limit(lang: str) -> None:
    tr = get_translator(lang)
    lines, names = standings(12)
    caption = texts.top_caption(tr, CLUB, Period.MONTH, lines, names)
    check_caption(caption, lang)
    seen = visible_text(caption)
    assert texts.top_title(tr, shorten(CLUB), Period.MONTH) in seen
    first = lines[0]
    rating = texts.number(tr, first.rating.mu - 3 * first.rating.sigma)
    assert f"1. {shorten(names[first.user_id]) or tr.gettext('a player')} {rating}" in seen
    check_caption(texts.top_caption(tr, "", Period.ALL, [], {}), lang)
    s = summary(board(10, entries=31, own_place=23))
    daily = texts.daily_caption(tr, s)
    check_caption(daily, lang)
    seen = visible_text(daily)
    assert tr.gettext("Place {place} of {n}.").format(place=23, n=31) in seen
    assert s.result is not None and str(s.result.points) in seen  # the total


def test_captions_with_the_longest_names_fit_the_limit() -> None:
    huge = LONG_NAME * 4
    lines, _ = standings(30)
    names = dict.fromkeys((s.user_id for s in lines), huge)
    top = list(board(10, entries=40, own_place=33).top)
    top = [replace(x, name=huge, hidden=False) for x in top]
    b = replace(board(10, entries=40, own_place=33, group=huge), top=tuple(top))
    for lang in LANGUAGES:
        tr = get_translator(lang)
        check_caption(texts.top_caption(tr, huge, Period.MONTH, lines, names), lang)
        daily = texts.daily_caption(tr, summary(b, rounds=16))
        check_caption(daily, lang)
        assert len(visible_text(daily)) < 1024 - 400  # room to spare
        assert shorten(huge)[: NAME_LIMIT - 1] in visible_text(daily)


# --- cached renders ------------------------------------------------------------------------------


def test_a_render_is_cached_but_never_stale() -> None:
    tr = get_translator("en")
    lines, names = standings(4)
    png = render_top_png(tr, "Club", Period.MONTH, lines, names)
    assert render_top_png(tr, "Club", Period.MONTH, list(lines), dict(names)) is png
    renamed = {**names, lines[0].user_id: "Someone else"}
    assert render_top_png(tr, "Club", Period.MONTH, lines, renamed) != png
    assert render_top_png(get_translator("nl"), "Club", Period.MONTH, lines, names) != png
    b = board(3, me=0)
    assert render_board_png(tr, b) != render_board_png(tr, b, par=PAR)
    higher = replace(b, top=(replace(b.top[0], line=replace(b.top[0].line, points=1999)),))
    assert render_board_png(tr, higher) != render_board_png(tr, b)


# --- reference pictures --------------------------------------------------------------------------


def _reference_top() -> tuple[str, Callable[[], bytes]]:
    lines, names = standings(12, seed=4)
    tr = get_translator("nl")
    return "top_nl", lambda: render_top_png(tr, CLUB, Period.MONTH, lines, names)


def _reference_board() -> tuple[str, Callable[[], bytes]]:
    b = board(10, entries=31, own_place=23, seed=5)
    tr = get_translator("de")
    return "board_de", lambda: render_board_png(tr, b, par=PAR)


REFERENCES = dict([_reference_top(), _reference_board()])


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reference_pictures(name: str) -> None:
    png = REFERENCES[name]()
    path = REFERENCE / f"{name}.png"
    if UPDATE:
        path.write_bytes(png)
        pytest.skip(f"wrote {path}")
    with Image.open(BytesIO(png)) as now, Image.open(path) as then:
        assert now.size == then.size
        whole, worst = difference(now, then)
    assert whole <= 1.0 and worst <= 8.0, (whole, worst)  # the sheet's tolerance


def test_the_reference_comparison_sees_a_changed_number() -> None:
    tr = get_translator("de")
    b = board(10, entries=31, own_place=23, seed=5)
    first = b.top[0]
    line = replace(first.line, against=first.line.against + 1)
    changed = replace(b, top=(replace(first, line=line), *b.top[1:]))
    with (
        Image.open(BytesIO(render_board_png(tr, b, par=PAR))) as a,
        Image.open(BytesIO(render_board_png(tr, changed, par=PAR))) as c,
    ):
        assert difference(a, c)[1] > 8.0


def test_standings_of_one_person_without_a_name() -> None:
    tr = get_translator("fr")
    line = Standing(5, Rating(25.0, 8.3), standings(1)[0][0].stats)
    layout = layout_top(tr, "", Period.ALL, [line], {})
    check_layout(layout)
    (row,) = rows(layout)
    assert row["name"].text == tr.gettext("a player")
    assert row["rating"].text == texts.number(tr, 25.0 - 3 * 8.3)
