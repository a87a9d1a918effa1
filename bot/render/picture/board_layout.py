"""The standings of ``/top`` and the daily's board as pictures: one table on the
sheet's paper, with its fonts, shortening and records (:mod:`.layout`, :mod:`.text`).

Both are pure functions of the data objects the text renders (:mod:`bot.render.standings`:
:func:`~bot.render.standings.top_text`, :func:`~bot.render.standings.board_text`), with the
same numbers formatted by the same functions, so a test can compare the two:

* :func:`layout_top`: the title ("Standings of Club, this month", the group's name shortened
  to the room it leaves), the number of players, then per person (the first
  :data:`~bot.render.standings.TOP_LINES`, like the text) the rank, name, rating
  (μ − 3σ), games and win %; the rating's legend below.
* :func:`layout_board`: the title ("Board of 14-03-2025", or "Club: board of ..."), the
  number of players, then per line the place (equal results share it), the name, the
  points of the player's team and of the computers, and with the day's par known the
  difference to it; the reader's own line on a tinted band, set apart below "…" when it is
  not among the top lines; a legend (the order, the par).

Geometry (pixels): :data:`WIDTH` wide (the sheet's), rows of :data:`ROW`; places 1-3 on a
gold, silver or bronze pill. Names go through :meth:`~.layout.Layout.fitted` (any script,
shortened with "…" to their column); a name the font cannot draw at all reads "a player".
Numbers are never shortened (the font shrinks instead).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.i18n import Translator
from bot.render.picture import text as txt
from bot.render.picture.layout import GREY, INK, OVERHANG, Box, Layout, Rect, Style
from bot.render.picture.sheet_layout import NAT, PIT, RULING, WIDTH
from bot.render.standings import (
    TOP_LINES,
    board_title,
    number,
    own_below,
    percent,
    player_count,
    rating_legend,
    top_title,
)
from bot.service import Board, NamedLine
from bot.standings import Standing, ordinal
from bot.taps import Period
from storage.stats_rows import DailyPar

MARGIN = 32
ROW = 46
"""Height of one line of the table."""
GAP = 30
"""Height of the "…" between the top lines and the reader's own line below them."""

GOLD = "#f3e3a6"
SILVER = "#e1e4e8"
BRONZE = "#efd0b0"
MEDALS = {1: GOLD, 2: SILVER, 3: BRONZE}
"""The pill behind places 1, 2 and 3."""
OWN = "#dcebf8"
"""The band behind the reader's own line."""

TITLE = Style(36, bold=True)
SUBTITLE = Style(22, fill=GREY)
HEADING = Style(16, fill=GREY)
HEADING_RIGHT = Style(16, fill=GREY, align="right")
PLACE = Style(24, bold=True, align="center")
NAME = Style(26)
ME = Style(26, bold=True)
NOBODY = Style(26, fill=GREY)
"""A name that is not shown ("hidden", "a player")."""
MAIN = Style(28, bold=True, align="right")
"""The line's main number: the rating, the team's points."""
SECOND = Style(26, align="right")
MINOR = Style(24, fill=GREY, align="right")
EMPTY = Style(26, fill=GREY, align="center")
LEGEND = Style(18, fill=GREY)

_PLACE = (MARGIN, MARGIN + 64)
_NAME_LEFT = MARGIN + 80
_RIGHT = WIDTH - MARGIN - 8


@dataclass(frozen=True, slots=True)
class Column:
    """A number column of the table: its role (the texts' ``role``), edges in pixels, and
    the grey word above it."""

    role: str
    x0: float
    x1: float
    heading: str


def _columns(widths: Sequence[tuple[str, int, str]]) -> list[Column]:
    """Number columns laid out from the right edge, 20 px apart, in the given order (left to
    right)."""
    out: list[Column] = []
    x1: float = _RIGHT
    for role, width, heading in reversed(widths):
        out.append(Column(role, x1 - width, x1, heading))
        x1 -= width + 20
    return out[::-1]


class _Table:
    """Lays out one table top to bottom; ``y`` is the top of the next free band."""

    def __init__(self) -> None:
        self.out = Layout(WIDTH)
        self.y: float = MARGIN

    def title(self, template: str, raw: str, fallback: str, count: str) -> None:
        """The title: ``template`` with ``"\\0"`` where the group's raw name ``raw`` goes
        (shortened to what the rest leaves; ``fallback`` when the font can draw none of it),
        then ``count`` below in grey."""
        room = WIDTH - 2 * MARGIN - OVERHANG
        shown, style = fill(template, raw, TITLE, room, fallback)
        box = Box(MARGIN, self.y, WIDTH - MARGIN, self.y + 50)
        self.out.text(shown, box, style, "title", template.replace("\0", raw))
        self.y += 50
        box = Box(MARGIN, self.y, WIDTH - MARGIN, self.y + 30)
        self.out.fitted(count, box, SUBTITLE, "count")
        self.y += 30 + 16

    def headings(self, name: str, columns: Sequence[Column]) -> None:
        """The grey words over the columns, and a rule below them."""
        top, bottom = self.y, self.y + 26
        place = Box(_PLACE[0], top, _PLACE[1], bottom)
        self.out.text("#", place, Style(16, fill=GREY, align="center"), "heading")
        name_right = columns[0].x0 - 16 if columns else _RIGHT
        self.out.fitted(name, Box(_NAME_LEFT, top, name_right, bottom), HEADING, "heading")
        for c in columns:
            self.out.fitted(c.heading, Box(c.x0, top, c.x1, bottom), HEADING_RIGHT, "heading")
        self.y = bottom + 3
        self.out.line(MARGIN, self.y, WIDTH - MARGIN, self.y, 3, INK)
        self.y += 3

    def row(
        self,
        place: int,
        name: tuple[str, Style, str],
        numbers: Sequence[tuple[Column, str, Style, str]],
        *,
        own: bool = False,
        first: bool = False,
    ) -> None:
        """One line: the place (a medal pill for 1-3), ``name`` (raw text, style, fallback),
        and per column (column, shown text, style, source). ``own``: the reader's line, on a
        tinted band. ``first``: no ruling above it."""
        out = self.out
        top, bottom = self.y, self.y + ROW
        if not first:
            out.line(MARGIN, top, WIDTH - MARGIN, top, 1, RULING)
        if own:
            out.rects.append(Rect(Box(MARGIN, top + 1, WIDTH - MARGIN, bottom - 1), OWN, 8))
        pill = Box(_PLACE[0] + 8, top + 6, _PLACE[1] - 8, bottom - 6)
        if place in MEDALS:
            out.rects.append(Rect(pill, MEDALS[place], radius=17))
            cell = Box(pill.x0 + 2, pill.y0, pill.x1 - 2, pill.y1)
        else:
            cell = Box(_PLACE[0], top + 1, _PLACE[1], bottom - 1)
        out.number(str(place), cell, PLACE, "place")
        raw, style, fallback = name
        name_right = numbers[0][0].x0 - 16 if numbers else _RIGHT
        out.fitted(raw, Box(_NAME_LEFT, top + 1, name_right, bottom - 1), style, "name", fallback)
        for column, shown, number_style, source in numbers:
            cell = Box(column.x0, top + 1, column.x1, bottom - 1)
            out.number(shown, cell, number_style, column.role, source)
        self.y = bottom

    def gap(self) -> None:
        """ "…" between the top lines and the reader's own line below them."""
        box = Box(_PLACE[0], self.y, _PLACE[1], self.y + GAP)
        self.out.text("…", box, Style(22, fill=GREY, align="center"), "gap")
        self.y += GAP

    def empty(self, text: str) -> None:
        """The one grey line of a table without lines."""
        f = txt.font(EMPTY.size)
        for line in txt.wrap(text, f, WIDTH - 2 * MARGIN - OVERHANG):
            self.out.text(line, Box(MARGIN, self.y, WIDTH - MARGIN, self.y + 44), EMPTY, "empty")
            self.y += 44

    def legend(self, paragraphs: Sequence[str]) -> None:
        """Small grey lines under the table (a rule above them)."""
        self.out.line(MARGIN, self.y + 1, WIDTH - MARGIN, self.y + 1, 1, INK)
        self.y += 12
        f = txt.font(LEGEND.size)
        for paragraph in paragraphs:
            for line in txt.wrap(paragraph, f, WIDTH - 2 * MARGIN - OVERHANG):
                box = Box(MARGIN, self.y, WIDTH - MARGIN, self.y + 26)
                self.out.text(line, box, LEGEND, "legend")
                self.y += 26

    def finish(self) -> Layout:
        """The layout, its height set to what was laid out plus the bottom margin."""
        self.out.height = int(self.y + MARGIN - 8)
        return self.out


def fill(
    template: str, raw: str, style: Style, width: float, fallback: str = ""
) -> tuple[str, Style]:
    """A line of ours with a name in it, fitted to ``width`` pixels: ``template`` is the text
    with ``"\\0"`` where the name goes (a template without one is returned as it is, in a
    smaller font when it is too wide). The name ``raw`` is made drawable and shortened
    with "…" to the room the rest leaves (:func:`~bot.render.picture.text.fit`,
    ``fallback`` when nothing of it can be drawn); when the rest leaves less than a third of
    ``width``, the font shrinks (down to 18 px) first.

    Returns:
        The line to draw left to right, and the style to draw it in (``style`` or a smaller
        size of it).
    """
    before, marker, after = template.partition("\0")
    size = style.size
    while True:
        f = txt.font(size, bold=style.bold)
        room = width - f.getlength(before + after)
        enough = room >= width / 3 if marker else room >= 0
        if enough or size <= 18:
            break
        size -= 1
    if size != style.size:
        style = Style(size, style.bold, style.fill, style.align)
    if not marker:
        return template, style
    name = txt.fit(raw, f, max(room, 0), bold=style.bold, fallback=fallback)
    return before + name + after, style


# --- /top ----------------------------------------------------------------------------------------


def layout_top(
    tr: Translator,
    title: str,
    period: Period,
    lines: Sequence[Standing],
    names: Mapping[int, str],
) -> Layout:
    """The picture of ``/top``'s standings (the arguments of
    :func:`bot.render.standings.top_text`): ``title`` the group's raw title ("" for none),
    ``lines`` best first (the first :data:`~bot.render.standings.TOP_LINES` are drawn),
    ``names`` user id → raw display name.

    Returns:
        A :class:`~bot.render.picture.layout.Layout` :data:`WIDTH` pixels wide and about
        220 + 46 per line high (some 1140 px for 20 lines). Texts by role: "title", "count",
        "place", "name" (``source``: the raw name), "rating", "games", "won" (``source``:
        the games won, or "" for none), "empty", "legend".
    """
    table = _Table()
    template = top_title(tr, title, period, "\0") if title else top_title(tr, "", period)
    player = tr.gettext("a player")
    table.title(template, title, tr.gettext("this group"), player_count(tr, len(lines)))
    if not lines:
        table.empty(tr.gettext("No games recorded in this period yet."))
    else:
        columns = _columns(
            (
                ("rating", 130, tr.pgettext("board column", "rating")),
                ("games", 110, tr.pgettext("board column", "games")),
                ("won", 110, tr.pgettext("board column", "won")),
            )
        )
        table.headings(tr.pgettext("board column", "player"), columns)
        rating, games, won = columns
        for i, s in enumerate(lines[:TOP_LINES], start=1):
            raw = names.get(s.user_id, "")
            name = (raw, NAME, "") if _drawable(raw) else (player, NOBODY, "")
            value = number(tr, ordinal(s.rating))
            share = percent(tr, s.stats.win_share)
            cells = [
                (rating, value, MAIN, value),
                (games, str(s.stats.games), SECOND, str(s.stats.games)),
                (won, share, MINOR, str(s.stats.wins) if s.stats.games else ""),
            ]
            table.row(i, name, cells, first=i == 1)
    table.legend([rating_legend(tr)])
    return table.finish()


# --- the daily's board ---------------------------------------------------------------------------


def par_total(par: DailyPar | None) -> int | None:
    """The day's par: the strong computer's points in the player's seat over all its deals
    (None when it is not known yet)."""
    return sum(par.pars) if par is not None else None


def _who(tr: Translator, named: NamedLine) -> tuple[str, Style, str]:
    """The name of a board line as :func:`bot.render.standings.board_who` says it: "you"
    (bold), "hidden", the name, or "a player" (also for a name the font cannot draw)."""
    player = tr.gettext("a player")
    if named.me:
        return tr.gettext("you"), ME, ""
    if named.hidden:
        return tr.gettext("hidden"), NOBODY, ""
    if _drawable(named.name):
        return named.name, NAME, ""
    return player, NOBODY, ""


def _drawable(name: str) -> bool:
    """Whether the font can draw a letter or digit of ``name`` (else it reads "a player")."""
    return txt.readable(txt.drawable(name))


def layout_board(tr: Translator, board: Board, *, par: DailyPar | None = None) -> Layout:
    """The picture of a day's board (what :func:`bot.render.standings.board_text` shows):
    the top lines, then "…" and the reader's own line when it is not among them; with
    ``par`` (the day's, None: not known yet) a column with each line's points minus the
    day's par, and the par in the legend.

    Returns:
        A :class:`~bot.render.picture.layout.Layout` :data:`WIDTH` pixels wide and about
        275 + 46 per line high (30 more for the "…" above the reader's own line). Texts by
        role: "title", "count", "place", "name" (``source``: the raw name, or the word
        shown), "points", "against", "par" (``source``: the difference as a number), "gap",
        "empty", "legend".
    """
    table = _Table()
    if board.group is not None:
        template, raw = board_title(tr, board, "\0"), board.group
    else:
        template, raw = board_title(tr, board), ""
    table.title(template, raw, tr.gettext("this group"), player_count(tr, board.entries))
    total = par_total(par)
    legend = [
        tr.gettext(
            "Ordered by the points of your team, then by fewer points for the computers; "
            "equal on both share a place."
        )
    ]
    if not board.top:
        table.empty(tr.gettext("Nobody is on the board yet."))
    else:
        widths = [
            ("points", 120, tr.pgettext("board column", "points")),
            ("against", 150, tr.pgettext("board column", "computers")),
        ]
        if total is not None:
            widths.append(("par", 120, tr.pgettext("board column", "vs par")))
        columns = _columns(widths)
        table.headings(tr.pgettext("board column", "player"), columns)
        for i, named in enumerate(board.top):
            _board_row(tr, table, named, columns, total, first=i == 0)
        if board.own is not None and own_below(board):
            table.gap()
            _board_row(tr, table, board.own, columns, total, first=True)
    if total is not None:
        legend.append(
            tr.gettext(
                "Par {par}: what the strong computer scores in your seat on these deals."
            ).format(par=total)
        )
    table.legend(legend)
    return table.finish()


def _board_row(
    tr: Translator,
    table: _Table,
    named: NamedLine,
    columns: Sequence[Column],
    par: int | None,
    *,
    first: bool,
) -> None:
    """One line of the board: place, name, points, the computers' points, ± par."""
    line = named.line
    cells: list[tuple[Column, str, Style, str]] = [
        (columns[0], str(line.points), MAIN, str(line.points)),
        (columns[1], str(line.against), MINOR, str(line.against)),
    ]
    if par is not None:
        diff = line.points - par
        colour = PIT if diff >= 0 else NAT
        cells.append((columns[2], f"{diff:+d}", Style(24, fill=colour, align="right"), str(diff)))
    table.row(line.place, _who(tr, named), cells, own=named.me, first=first)
