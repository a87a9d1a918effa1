"""The score sheet picture's layout: a :class:`~bot.render.sheet_view.SheetView` on paper.

The paper boompje (``rules.md`` §2.3, §6.6): a title with how far the game is, a head per
team (the players' names in the group, "Wij"/"Zij" with the names below in a private view,
§2.1), the big T of two lines, one row per round with the dealer (§2.2) and per team the
trump suit (in the column of the team that chose it, §3), the card points, the roem apart,
nat or pit and the running total; then the sums, the totals (the winner's on a gold ground),
the result (§2.4) and a legend. Klammern (§9.8–9.9): per team the small points won (a ×2 or
×4 badge after contra or re, §9.7), the small points reached, a ● per big point won and the
big points so far; at the bottom the small points standing and the big points.

Column geometry (pixels): the round number, the dealer, then two team columns of
:data:`TEAM_WIDTH`, on a picture :data:`WIDTH` wide.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import ImageFont

from bot.i18n import Translator
from bot.render.cards import suit_symbol
from bot.render.common import Player, seat_name, us_them
from bot.render.picture import text as txt
from bot.render.picture.layout import GREY, INK, OVERHANG, Box, Layout, Rect, Style
from bot.render.sheet import mark_label, sheet_legend, sheet_progress
from bot.render.sheet_klammern import BIG_MARK
from bot.render.sheet_klammern import legend as klammern_legend
from bot.render.sheet_view import Cell, Mark, SheetLine, SheetView, Status
from engine.cards import Seat, Suit, Team

WIDTH = 1000
"""The picture's width in pixels (readable on a phone)."""
MARGIN = 32
ROW = 46
"""Height of one round's row."""
TEAM_WIDTH = 344

RULING = "#d5e1ec"
ROEM = "#1f5fa8"
NAT = "#c62828"
PIT = "#2e7d32"
RED_SUIT = "#d32f2f"
BLACK_SUIT = "#1b1b1b"
GOLD = "#f3e3a6"
BIG = "#b71c1c"
WHITE = "#ffffff"

TITLE = Style(40, bold=True)
PROGRESS = Style(26, fill=GREY, align="right")
TARGET = Style(22, fill=GREY)
US_THEM = Style(34, bold=True, align="center")
TEAM_NAME = Style(20, fill=GREY, align="center")
TEAM = Style(28, bold=True, align="center")
PLAYER = Style(26, bold=True, align="center")
CAPTION = Style(16, fill=GREY, align="center")
ROUND = Style(22, fill=GREY, align="right")
DEALER = Style(22)
DEALER_SMALLEST = 18
"""The dealer column's font shrinks (for the whole sheet) down to this size so that every
dealer's name fits whole ("Computer Noord"); a name too long even then ends in "…"."""
POINTS = Style(30, align="right")
ROEM_TEXT = Style(24, fill=ROEM)
RUNNING = Style(22, fill=GREY, align="right")
BADGE = Style(17, bold=True, fill=WHITE, align="center")
WON = Style(30, bold=True, align="right")
REACHED = Style(24, fill=GREY, align="right")
BIG_WON = Style(24, fill=BIG, align="center")
LABEL = Style(26, bold=True, align="right")
SUM = Style(28, bold=True, align="right")
TOTAL = Style(40, bold=True, align="center")
SMALL_NOW = Style(28, fill=GREY, align="center")
RESULT = Style(28, bold=True, align="center")
LEGEND = Style(18, fill=GREY)

_NUM = (MARGIN, MARGIN + 48)
_DEALER = (MARGIN + 56, MARGIN + 240)
TEAM_COLUMNS = (MARGIN + 248, MARGIN + 248 + TEAM_WIDTH)
"""Left edges of the two team columns (the T's upright between them)."""
_TEAMS = TEAM_COLUMNS
# sub-columns, as offsets inside a team column
_TRUMP = (8, 40)
_POINTS = (40, 120)
_ROEM = (128, 200)
_MARK = (204, 258)
_RUNNING = (262, 336)
_WON = (40, 104)
_MULT = (108, 156)
_REACHED = (160, 212)
_BIG_WON = (220, 282)
_BIG = (284, 336)
_SMALL_HEAD = (40, 212)
_BIG_HEAD = (220, 336)


def display_name(tr: Translator, players: Sequence[Player], seat: Seat) -> str:
    """The name to draw for a seat: the whole display name (the picture shortens it to the
    space it has), "Computer Noord" for a computer, the seat's name when the font can draw
    no letter of it (empty, CJK only, emoji only). Plain."""
    p = players[seat]
    if p.computer:
        return tr.gettext("Computer {seat}").format(seat=seat_name(tr, seat))
    name = " ".join(p.name.split())
    return name if txt.readable(txt.drawable(name)) else seat_name(tr, seat)


def team_display(tr: Translator, players: Sequence[Player], team: Team) -> str:
    """ "Anna & Cas" with whole names (plain)."""
    a, b = team.seats
    return tr.gettext("{first} & {second}").format(
        first=display_name(tr, players, a), second=display_name(tr, players, b)
    )


def dealer_style(view: SheetView, tr: Translator) -> Style:
    """The dealer column's style for ``view``: :data:`DEALER`, or a size down to
    :data:`DEALER_SMALLEST` at which every dealer's name that can fit the column whole
    does; a name too long even at the smallest size is shortened with "…"."""
    width = _DEALER[1] - _DEALER[0] - OVERHANG
    names = [
        (display_name(tr, view.players, line.dealer), seat_name(tr, line.dealer))
        for line in view.lines
    ]

    def whole(size: int, name: str, fallback: str) -> bool:
        f = txt.font(size)
        return txt.fit(name, f, width, fallback=fallback) == txt.fit(
            name, f, 10 * WIDTH, fallback=fallback
        )

    # the names that fit whole at some size; a longer one is shortened at any size
    fitting = [(n, b) for n, b in set(names) if whole(DEALER_SMALLEST, n, b)]
    for size in range(DEALER.size, DEALER_SMALLEST, -1):
        if all(whole(size, n, b) for n, b in fitting):
            return Style(size)
    return Style(DEALER_SMALLEST)


def _suit_style(suit: Suit) -> Style:
    red = suit in (Suit.HEARTS, Suit.DIAMONDS)
    return Style(28, bold=True, fill=RED_SUIT if red else BLACK_SUIT, align="center")


def _sub(x0: float, span: tuple[int, int], y0: float, y1: float) -> Box:
    return Box(x0 + span[0], y0, x0 + span[1], y1)


def _row(span: tuple[int, int], y0: float, y1: float) -> Box:
    return Box(span[0], y0, span[1], y1)


class _Sheet:
    """Lays out one sheet top to bottom; ``y`` is the top of the next free band."""

    def __init__(self, view: SheetView, tr: Translator) -> None:
        self.view = view
        self.tr = tr
        self.out = Layout(WIDTH)
        self.y: float = MARGIN
        self.table_top: float = 0
        self.dealer = dealer_style(view, tr)

    def columns(self) -> list[tuple[float, Team]]:
        """(left edge, team) of the two team columns, left to right."""
        return list(zip(_TEAMS, self.view.order, strict=True))

    def build(self) -> Layout:
        self.title()
        self.heads()
        self.captions()
        for index, line in enumerate(self.view.lines):
            if index:
                self.out.line(MARGIN, self.y, WIDTH - MARGIN, self.y, 1, RULING)
            self.round_row(line, self.y + 1, self.y + ROW - 1)
            self.y += ROW
        self.footer()
        self.result()
        self.legend()
        self.out.height = int(self.y + MARGIN - 8)
        return self.out

    # --- above the table ---------------------------------------------------------------------

    def title(self) -> None:
        tr, view, out = self.tr, self.view, self.out
        top, bottom = self.y, self.y + 56
        title = tr.gettext("Score sheet")
        out.fitted(title, Box(MARGIN, top, WIDTH / 2, bottom), TITLE, "title")
        title_end = out.texts[-1].ink.x1 if out.texts else MARGIN
        progress = Box(title_end + 24, top, WIDTH - MARGIN, bottom)
        out.fitted(sheet_progress(view, tr), progress, PROGRESS, "progress")
        self.y = bottom
        if view.klammern_target is not None:
            n = view.klammern_target
            target = tr.ngettext("up to {n} big point", "up to {n} big points", n).format(n=n)
            out.fitted(target, Box(MARGIN, self.y, WIDTH - MARGIN, self.y + 34), TARGET, "target")
            self.y += 34
        self.y += 14

    def heads(self) -> None:
        """Private view: "Wij" / "Zij" and the names below; group: the team's names on one
        line, or each player on a line of their own when they do not fit."""
        view, tr, out = self.view, self.tr, self.out
        top, bottom = self.y, self.y + 88
        mid = (top + bottom) / 2
        self.table_top = top
        for x0, team in self.columns():
            left, right = x0 + 10, x0 + TEAM_WIDTH - 10
            names = team_display(tr, view.players, team)
            if view.viewer is not None:
                out.fitted(
                    us_them(tr, team, view.viewer), Box(left, top + 4, right, mid + 8),
                    US_THEM, "team",
                )  # fmt: skip
                out.fitted(names, Box(left, mid + 8, right, bottom - 4), TEAM_NAME, "name")
                continue
            whole = txt.visual(txt.drawable(names, bold=True))
            font = txt.font(TEAM.size, bold=True)
            if txt.readable(txt.drawable(names)) and font.getlength(whole) <= right - left:
                out.text(whole, Box(left, top + 4, right, bottom - 4), TEAM, "team", names)
                continue
            for seat, y0, y1 in ((team.seats[0], top + 4, mid), (team.seats[1], mid, bottom - 4)):
                name = display_name(tr, view.players, seat)
                out.fitted(name, Box(left, y0, right, y1), PLAYER, "name", seat_name(tr, seat))
        self.y = bottom

    def captions(self) -> None:
        """The small grey words over the columns, and the T's crossbar below them."""
        tr, out = self.tr, self.out
        top, bottom = self.y, self.y + 28
        out.text("#", _row(_NUM, top, bottom), Style(16, fill=GREY, align="right"), "caption")
        dealer = tr.pgettext("sheet column", "Dealer")
        out.fitted(dealer, _row(_DEALER, top, bottom), Style(16, fill=GREY), "caption")
        if self.view.klammern:
            heads = [
                (_SMALL_HEAD, tr.pgettext("sheet column", "small points")),
                (_BIG_HEAD, tr.pgettext("sheet column", "big points")),
            ]
        else:
            heads = [
                (_POINTS, tr.pgettext("sheet column", "points")),
                (_ROEM, tr.pgettext("sheet column", "roem")),
                (_RUNNING, tr.pgettext("sheet column", "total")),
            ]
        for x0, _team in self.columns():
            for span, word in heads:
                out.fitted(word, _sub(x0, span, top, bottom), CAPTION, "caption")
        self.y = bottom + 4
        out.line(MARGIN, self.y, WIDTH - MARGIN, self.y, 3, INK)
        self.y += 4

    # --- one round ---------------------------------------------------------------------------

    def round_row(self, line: SheetLine, top: float, bottom: float) -> None:
        tr, view, out = self.tr, self.view, self.out
        out.number(str(line.number), _row(_NUM, top, bottom), ROUND, "round")
        dealer = display_name(tr, view.players, line.dealer)
        fallback = seat_name(tr, line.dealer)
        out.fitted(dealer, _row(_DEALER, top, bottom), self.dealer, "dealer", fallback)
        for x0, team in self.columns():
            if team is line.playing_team:
                trump = _sub(x0, _TRUMP, top, bottom)
                out.text(suit_symbol(line.trump), trump, _suit_style(line.trump), "trump")
            cell = line.cells[team]
            if view.klammern:
                self.klammern_cell(x0, cell, line.multiplier, top, bottom)
            else:
                self.klaverjas_cell(x0, cell, top, bottom)

    def klaverjas_cell(self, x0: float, cell: Cell, top: float, bottom: float) -> None:
        out = self.out
        out.number(str(cell.points), _sub(x0, _POINTS, top, bottom), POINTS, "points")
        if cell.roem:
            roem = _sub(x0, _ROEM, top, bottom)
            out.number(f"+{cell.roem}", roem, ROEM_TEXT, "roem", str(cell.roem))
        if cell.mark is not None:
            fill = NAT if cell.mark is Mark.NAT else PIT
            label = mark_label(self.tr, cell.mark)[:3]
            self.badge(label, _sub(x0, _MARK, top + 9, bottom - 9), fill, cell.mark.value)
        out.number(str(cell.total), _sub(x0, _RUNNING, top, bottom), RUNNING, "running")

    def klammern_cell(
        self, x0: float, cell: Cell, multiplier: int, top: float, bottom: float
    ) -> None:
        out = self.out
        if cell.points:
            out.number(f"+{cell.points}", _sub(x0, _WON, top, bottom), WON, "won", str(cell.points))
            if multiplier > 1:
                self.badge(f"×{multiplier}", _sub(x0, _MULT, top + 9, bottom - 9), ROEM, "call")
        out.number(str(cell.reached), _sub(x0, _REACHED, top, bottom), REACHED, "reached")
        if cell.big_won:
            marks = BIG_MARK * cell.big_won
            big_won = _sub(x0, _BIG_WON, top, bottom)
            out.number(marks, big_won, BIG_WON, "big_won", str(cell.big_won))
        out.number(str(cell.total), _sub(x0, _BIG, top, bottom), RUNNING, "running")

    def badge(self, label: str, box: Box, fill: str, role: str) -> None:
        """White bold letters on a coloured rounded rectangle (nat, pit, ×2, ×4)."""
        self.out.rects.append(Rect(box, fill, radius=6))
        self.out.fitted(label, Box(box.x0 + 3, box.y0, box.x1 - 3, box.y1), BADGE, role)

    # --- below the rounds --------------------------------------------------------------------

    def footer(self) -> None:
        """Σ (Klaverjassen: card points and roem), then the totals, the T's upright."""
        view, out = self.view, self.out
        out.line(MARGIN, self.y + 1, WIDTH - MARGIN, self.y + 1, 3, INK)
        self.y += 4
        if not view.klammern:
            top, bottom = self.y, self.y + ROW
            out.text("Σ", _row(_NUM, top, bottom), LABEL, "label")
            for x0, team in self.columns():
                out.number(
                    str(view.points_sum(team)), _sub(x0, _POINTS, top, bottom), SUM,
                    "points_sum",
                )  # fmt: skip
                if roem := view.roem_sum(team):
                    box = _sub(x0, (_ROEM[0], _MARK[1]), top, bottom)
                    out.number(f"+{roem}", box, ROEM_TEXT, "roem_sum", str(roem))
            self.y = bottom
            out.line(MARGIN, self.y, WIDTH - MARGIN, self.y, 1, RULING)
        top, bottom = self.y, self.y + 64
        out.text(BIG_MARK if view.klammern else "=", _row(_NUM, top, bottom), LABEL, "label")
        for x0, team in self.columns():
            if view.klammern:  # the small points standing now, then the big points (§9.9)
                small = _sub(x0, _SMALL_HEAD, top, bottom)
                out.number(str(view.small[team]), small, SMALL_NOW, "small")
                box, value = _sub(x0, _BIG_HEAD, top + 6, bottom - 6), view.big[team]
            else:
                box = Box(x0 + 40, top + 6, x0 + TEAM_WIDTH - 8, bottom - 6)
                value = view.sum_total(team)
            if team is view.winner:
                out.rects.append(Rect(box, GOLD, radius=10))
            out.number(str(value), Box(box.x0 + 8, box.y0, box.x1 - 8, box.y1), TOTAL, "total")
        self.y = bottom
        for offset in (2, 6):  # the double line under the totals
            out.line(_TEAMS[0] + 8, self.y + offset, WIDTH - MARGIN, self.y + offset, 1, INK)
        out.line(_TEAMS[1], self.table_top, _TEAMS[1], self.y, 3, INK)
        out.line(_TEAMS[0], self.table_top, _TEAMS[0], self.y, 1, GREY)
        self.y += 12

    def result(self) -> None:
        """The winner, the draw, or "stopped: no winner", centred under the totals."""
        view, tr = self.view, self.tr
        f = txt.font(RESULT.size, bold=True)
        avail = WIDTH - 2 * MARGIN - OVERHANG
        lines: list[str] = []
        if view.status is Status.STOPPED:
            lines = txt.wrap("■ " + tr.gettext("The game was stopped early: no winner."), f, avail)
        elif view.draw:
            draw = tr.gettext("A draw: {score} – {score}.").format(score=view.result[Team.NS])
            lines = txt.wrap(draw, f, avail)
        elif view.winner is not None:
            lines = self.winner_lines(view.winner, f, avail)
        for line in lines:
            box = Box(MARGIN, self.y, WIDTH - MARGIN, self.y + 42)
            self.out.text(line, box, RESULT, "result")
            self.y += 42
        self.y += 6 if lines else 0

    def winner_lines(self, win: Team, f: ImageFont.FreeTypeFont, avail: float) -> list[str]:
        """ "★ Anna & Cas winnen met 1454 tegen 1120!" on one line when it fits; else split
        at the team's name, which is shortened only when it does not fit a line of its own."""
        view, tr = self.view, self.tr
        res = view.result
        if view.klammern:
            message = tr.ngettext(
                "{team} win with {n} big point against {other}!",
                "{team} win with {n} big points against {other}!",
                res[win],
            ).format(team="\0", n=res[win], other=res[win.other])
        else:
            message = tr.gettext("{team} win with {points} against {other}!").format(
                team="\0", points=res[win], other=res[win.other]
            )
        before, _, after = ("★ " + message).partition("\0")
        name = team_display(tr, view.players, win)
        whole = txt.visual(txt.drawable(name, bold=True))
        if f.getlength(before + whole + after) <= avail:
            return [before + whole + after]
        if f.getlength(before) < avail / 2:
            shown = txt.fit(name, f, avail - f.getlength(before), bold=True)
            return [before + shown, *txt.wrap(after, f, avail)]
        shown = txt.fit(name, f, avail, bold=True)
        return [*txt.wrap(before, f, avail), shown, *txt.wrap(after, f, avail)]

    def legend(self) -> None:
        """What the marks mean, and where the trump suit is written (small, grey)."""
        tr, view = self.tr, self.view
        f = txt.font(LEGEND.size)
        trump = tr.gettext("{suit} = trump, in the column of the playing team.")
        paragraphs = [
            klammern_legend(tr) if view.klammern else sheet_legend(tr),
            trump.format(suit="♠ ♥ ♦ ♣"),
        ]
        for paragraph in paragraphs:
            for line in txt.wrap(paragraph, f, WIDTH - 2 * MARGIN - OVERHANG):
                self.out.text(
                    line, Box(MARGIN, self.y, WIDTH - MARGIN, self.y + 26), LEGEND, "legend"
                )
                self.y += 26


def layout_sheet(view: SheetView, tr: Translator) -> Layout:
    """The layout of the score sheet picture of ``view``, in the reader's language.

    Returns:
        A :class:`~bot.render.picture.layout.Layout` :data:`WIDTH` pixels wide; its height
        grows with the rounds (about 1240 px for 16 rounds).
    """
    return _Sheet(view, tr).build()
