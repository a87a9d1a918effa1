"""The review of a player's game (:mod:`engine.ai.review`) as a picture: what the text
review says (:func:`bot.render.review.review_text`), with the same labels and numbers, on the
sheet's paper with its fonts, shortening and records (:mod:`.layout`, :mod:`.text`).

Top to bottom:

* the title ("Review of your play"), the game's name below it (shortened with "…"), and the
  line on what was judged with the estimated total;
* per costly decision a panel: "1. Round 2, trick 3, trump ♥" with the estimated points
  lost on the right; the trick as it stood as drawn cards (rank and suit in the suit's
  colour on a white card) with who played each below; on the right the player's choice and
  the computer's, each a drawn card (or a short label for a bid, a call, a declaration)
  with the expected round score after it below; the reason line; the hindsight number
  (double-dummy with all hands shown), named as such;
* the cost per round: a cell per round with the points lost and the decisions where the
  computer chose otherwise;
* a daily: the comparison with the day's par: both totals, then panels like the
  decisions' for the first decision where the game left the par's line and the partings
  whose rounds cost the most (your choice and the par's, with both round scores);
* small grey notes (Klammern's unit).

Geometry in pixels: :data:`WIDTH` wide (the sheet's), a panel :data:`PANEL` high plus its
lines, a round cell :data:`CELL` wide. Names go through :meth:`~.layout.Layout.fitted`;
numbers are never shortened (the font shrinks instead).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Translator
from bot.render.cards import rank_letter, suit_symbol
from bot.render.common import Player, seat_name
from bot.render.picture import text as txt
from bot.render.picture.layout import GREY, INK, OVERHANG, Box, Layout, Rect, Style
from bot.render.picture.sheet_layout import (
    BLACK_SUIT,
    NAT,
    PIT,
    RED_SUIT,
    RULING,
    WHITE,
    WIDTH,
    display_name,
)
from bot.render.review import (
    choice_label,
    par_summary,
    par_title,
    parting_scores,
    where_label,
    why_text,
)
from engine.actions import Action, Bella, Choose, Kleintje, PlayCard
from engine.ai.review import Judgement, ParComparison, Parting, Review
from engine.cards import Card, Seat, Suit
from engine.settings import Variant

MARGIN = 32
PANEL = 140
"""Height of a panel's cards row."""
CARD_W, CARD_H = 60, 86
"""A drawn card."""
SLOT = 150
"""Width of a card of the trick with its player's name."""
CELL = 108
"""Width of a round's cell."""
CHOICE = 176
"""Width of a choice column (yours, the computer's)."""

CARD_EDGE = "#b9b2a2"
CELL_FILL = "#f1ebdc"

TITLE = Style(36, bold=True)
SUBTITLE = Style(22, fill=GREY)
BODY = Style(22)
HEADING = Style(28, bold=True)
WHERE = Style(24, bold=True)
LOST = Style(24, bold=True, fill=NAT, align="right")
NAME = Style(16, fill=GREY, align="center")
WHO = Style(18, fill=GREY, align="center")
LABEL = Style(22, bold=True, align="center")
VALUE = Style(20, fill=GREY, align="center")
WHY = Style(20)
HINDSIGHT = Style(18, fill=GREY)
NOTE = Style(18, fill=GREY)
ROUND = Style(16, fill=GREY, align="center")
ROUND_COST = Style(22, bold=True, fill=NAT, align="center")
ROUND_NONE = Style(22, bold=True, fill=PIT, align="center")
ROUND_DIFF = Style(16, fill=GREY, align="center")

_RIGHT = WIDTH - MARGIN
_CHOICES_X = _RIGHT - 2 * CHOICE
"""Left edge of the two choice columns."""


def suit_fill(suit: Suit) -> str:
    """The colour of a suit: red hearts and diamonds, black spades and clubs."""
    return RED_SUIT if suit in (Suit.HEARTS, Suit.DIAMONDS) else BLACK_SUIT


class _Sheet:
    """Lays out the review top to bottom; ``y`` is the top of the next free band;
    ``klammern``: the choices are labelled as in Klammern."""

    def __init__(self, tr: Translator, klammern: bool) -> None:
        self.tr = tr
        self.klammern = klammern
        self.out = Layout(WIDTH)
        self.y: float = MARGIN

    def line(self, text: str, style: Style, role: str, height: float) -> None:
        """One line of ours across the picture, shortened with "…" if it must be."""
        box = Box(MARGIN, self.y, _RIGHT, self.y + height)
        self.out.fitted(text, box, style, role)
        self.y += height

    def paragraph(self, text: str, style: Style, role: str, height: float) -> None:
        """A text of ours wrapped to the picture's width."""
        f = txt.font(style.size, bold=style.bold)
        for piece in txt.wrap(text, f, _RIGHT - MARGIN - OVERHANG):
            self.line(piece, style, role, height)

    def rule(self, fill: str = RULING, width: int = 1) -> None:
        """A horizontal line across, with a little room."""
        self.y += 8
        self.out.line(MARGIN, self.y, _RIGHT, self.y, width, fill)
        self.y += 8 + width

    def card(self, card: Card, x: float, y: float, role: str) -> None:
        """A drawn card with its top left corner at (x, y): a white face with an edge, the
        rank above the suit in the suit's colour."""
        edge = Box(x, y, x + CARD_W, y + CARD_H)
        self.out.rects.append(Rect(edge, CARD_EDGE, 8))
        self.out.rects.append(Rect(Box(x + 2, y + 2, x + CARD_W - 2, y + CARD_H - 2), WHITE, 7))
        colour = suit_fill(card.suit)
        rank = Box(x + 4, y + 6, x + CARD_W - 4, y + 40)
        self.out.number(
            rank_letter(self.tr, card.rank),
            rank,
            Style(26, True, colour, "center"),
            role,
            str(card),
        )
        suit = Box(x + 4, y + 42, x + CARD_W - 4, y + CARD_H - 6)
        self.out.text(
            suit_symbol(card.suit), suit, Style(30, True, colour, "center"), role + "_suit"
        )

    def choice(
        self, x: float, top: float, who: str, action: Action, other: Action, value: str, role: str
    ) -> None:
        """A choice column at ``x``: who chose (grey), the card drawn (or the choice's short
        label), and ``value`` below."""
        self.out.fitted(who, Box(x, top, x + CHOICE, top + 24), WHO, role + "_who")
        body = top + 26
        if isinstance(action, PlayCard) and not isinstance(action, Bella):
            self.card(action.card, x + (CHOICE - CARD_W) / 2, body, role)
        else:  # a label of ours: the font shrinks to fit (no emoji: the font has none)
            label = choice_label(self.tr, action, self.klammern, other).removeprefix("👑 ")
            suit = action.suit if isinstance(action, Choose | Kleintje) else None
            style = LABEL if suit is None else Style(LABEL.size, True, suit_fill(suit), "center")
            self.out.number(label, Box(x + 4, body, x + CHOICE - 4, body + CARD_H), style, role)
        self.out.number(
            value, Box(x, body + CARD_H + 2, x + CHOICE, top + PANEL), VALUE, role + "_value"
        )

    def trick(
        self, table: Sequence[Card], leader: Seat, players: Sequence[Player] | None, top: float
    ) -> None:
        """The trick as it stood: its cards drawn left to right with who played each."""
        for i, card in enumerate(table):
            seat = Seat((int(leader) + i) % 4)
            x = MARGIN + i * SLOT
            self.card(card, x + (SLOT - CARD_W) / 2 - 8, top + 4, "table")
            name = display_name(self.tr, players, seat) if players else seat_name(self.tr, seat)
            cell = Box(x, top + CARD_H + 8, x + SLOT - 16, top + PANEL)
            self.out.fitted(name, cell, NAME, "table_name", seat_name(self.tr, seat))

    def panel(
        self,
        head: str,
        lost: str,
        table: Sequence[Card],
        leader: Seat,
        players: Sequence[Player] | None,
        sides: tuple[tuple[str, Action, str], tuple[str, Action, str]],
        notes: Sequence[tuple[str, Style, str]],
        lead_note: str = "",
    ) -> None:
        """One decision: ``head`` and ``lost`` on the first line, the trick as it stood (or
        ``lead_note`` when there was none), the two choices (who, action, value), then the
        ``notes`` (text, style, role)."""
        self.rule()
        top = self.y
        lost_w = txt.font(LOST.size, bold=True).getlength(lost) + OVERHANG + 8 if lost else 0
        self.out.fitted(head, Box(MARGIN, top, _RIGHT - lost_w - 16, top + 36), WHERE, "where")
        if lost:
            self.out.number(lost, Box(_RIGHT - lost_w, top, _RIGHT, top + 36), LOST, "lost")
        top += 40
        if table:
            self.trick(table, leader, players, top)
        elif lead_note:
            box = Box(MARGIN, top + 30, _CHOICES_X - 16, top + 66)
            self.out.fitted(lead_note, box, Style(20, fill=GREY), "lead")
        (you, yours, your_value), (it, its, its_value) = sides
        self.choice(_CHOICES_X, top, you, yours, its, your_value, "yours")
        self.choice(_CHOICES_X + CHOICE, top, it, its, yours, its_value, "its")
        self.y = top + PANEL + 4
        for text, style, role in notes:
            self.paragraph(text, style, role, 30)

    def rounds(self, review: Review) -> None:
        """A cell per round: its number, the points lost, the decisions where the computer
        chose otherwise of those judged."""
        tr = self.tr
        self.rule(INK, 2)
        self.line(tr.gettext("Per round"), HEADING, "heading", 40)
        self.paragraph(
            tr.gettext("round, points lost, decisions where the computer chose otherwise"),
            NOTE, "legend", 26,
        )  # fmt: skip
        per_row = int((_RIGHT - MARGIN + 8) // (CELL + 8))
        self.y += 6
        for i, r in enumerate(review.rounds):
            col = i % per_row
            if col == 0 and i:
                self.y += 92
            x = MARGIN + col * (CELL + 8)
            box = Box(x, self.y, x + CELL, self.y + 84)
            self.out.rects.append(Rect(box, CELL_FILL, 8))
            self.out.number(
                str(r.number), Box(x + 4, box.y0 + 2, box.x1 - 4, box.y0 + 24), ROUND, "round"
            )
            cost = round(r.cost)
            shown, style = (f"−{cost}", ROUND_COST) if cost else ("0", ROUND_NONE)
            self.out.number(
                shown,
                Box(x + 4, box.y0 + 24, box.x1 - 4, box.y0 + 56),
                style,
                "round_cost",
                str(cost),
            )
            diff = f"{r.differed}/{r.decisions}"
            self.out.number(
                diff, Box(x + 4, box.y0 + 56, box.x1 - 4, box.y1 - 4), ROUND_DIFF, "round_diff"
            )
        if review.rounds:
            self.y += 84

    def finish(self) -> Layout:
        """The layout, its height set to what was laid out plus the bottom margin."""
        self.out.height = int(self.y + MARGIN)
        return self.out


def _points(tr: Translator, value: float) -> str:
    return tr.gettext("−{points} points").format(points=round(value))


def _value(value: float) -> str:
    """An expected score, rounded, with a real minus sign."""
    return str(round(value)).replace("-", "−")


def _signed(tr: Translator, cost: float) -> str:
    n = round(cost)
    if n > 0:
        return tr.gettext("−{points} points").format(points=n)
    if n < 0:
        return tr.gettext("+{points} points").format(points=-n)
    return tr.gettext("no difference")


def _labelled(tr: Translator, label: str, value: str) -> str:
    return tr.gettext("{label}: {value}").format(label=label, value=value)


def _decision(s: _Sheet, j: Judgement, n: int, players: Sequence[Player] | None) -> None:
    tr = s.tr
    notes: list[tuple[str, Style, str]] = []
    if j.why is not None:
        notes.append((_labelled(tr, tr.gettext("Why"), why_text(tr, j.why)), WHY, "why"))
    if j.hindsight is not None:
        text = _labelled(tr, tr.gettext("Hindsight, all hands shown"), _signed(tr, j.hindsight))
        notes.append((text, HINDSIGHT, "hindsight"))
    lead = tr.gettext("You were to lead.") if j.kind.value == "card" and not j.table else ""
    s.panel(
        f"{n}. {where_label(tr, j)}",
        _points(tr, j.cost),
        j.table,
        j.leader,
        players,
        (
            (tr.gettext("You"), j.yours, _value(j.your_value)),
            (tr.gettext("Computer"), j.its, _value(j.its_value)),
        ),
        notes,
        lead,
    )


def _parting(s: _Sheet, p: Parting, head: str, players: Sequence[Player] | None) -> None:
    tr = s.tr
    lost = _points(tr, p.cost) if p.cost > 0 else ""
    s.panel(
        head,
        lost,
        p.table,
        p.leader,
        players,
        (
            (tr.gettext("You"), p.yours, str(p.your_score)),
            (tr.gettext("Par"), p.par, str(p.par_score)),
        ),
        [(parting_scores(tr, p), WHY, "par_scores")],
        tr.gettext("You were to lead.") if p.trick and not p.table else "",
    )


def _par(s: _Sheet, par: ParComparison, players: Sequence[Player] | None) -> None:
    tr = s.tr
    s.rule(INK, 2)
    s.line(par_title(tr), HEADING, "heading", 40)
    s.paragraph(par_summary(tr, par), BODY, "par_summary", 30)
    if par.first is None:
        s.paragraph(tr.gettext("You played every decision as the par did."), BODY, "par_none", 30)
        return
    s.paragraph(tr.gettext("Under each choice: the round score of that line."), NOTE, "legend", 26)
    first = par.first
    _parting(s, first, _labelled(tr, tr.gettext("First parted"), where_label(tr, first)), players)
    shown = [p for p in par.worst if p != first]
    if shown:
        s.y += 8
        s.line(tr.gettext("Costliest partings"), WHERE, "heading", 36)
        for i, p in enumerate(shown, 1):
            _parting(s, p, f"{i}. {where_label(tr, p)}", players)


def layout_review(
    tr: Translator,
    review: Review,
    *,
    title: str = "",
    players: Sequence[Player] | None = None,
) -> Layout:
    """The picture of ``review`` (the arguments of :func:`bot.render.review.review_text`):
    ``title`` the game's raw name ("" for none), ``players`` the seats' players, to name who
    played the cards of a trick.

    Returns:
        A :class:`~bot.render.picture.layout.Layout` :data:`WIDTH` pixels wide and about
        300 + 220 per decision shown + 100 per row of eight rounds high (+ 320 + 220 per
        parting for a daily's par). Texts by role: "title", "game", "summary", "legend",
        "where", "lost", "table"/"table_suit"/"table_name" (the trick's cards and who
        played them), "yours"/"its" (the choices; "_who", "_value", "_suit" parts), "why",
        "hindsight", "lead", "heading", "round", "round_cost", "round_diff", "par_summary",
        "par_scores", "par_none", "note".
    """
    s = _Sheet(tr, review.variant is Variant.KLAMMERN)
    s.line(tr.gettext("Review of your play"), TITLE, "title", 50)
    if title:
        s.line(title, SUBTITLE, "game", 32)
    s.y += 6
    summary = tr.ngettext(
        "The computer judged your {n} decision from what you could see (your hand, "
        "the bidding, the cards played): about {points} points lost against its choice.",
        "The computer judged your {n} decisions from what you could see (your hand, "
        "the bidding, the cards played): about {points} points lost against its choices.",
        review.decisions,
    ).format(n=review.decisions, points=round(review.total))
    s.paragraph(summary, BODY, "summary", 30)
    if review.worst:
        s.y += 6
        s.line(tr.gettext("Costliest decisions"), HEADING, "heading", 40)
        s.paragraph(
            tr.gettext("Under each choice: the expected round score after it."), NOTE, "legend", 26
        )
        for i, j in enumerate(review.worst, 1):
            _decision(s, j, i, players)
    else:
        s.paragraph(tr.gettext("No decision cost you points. Well played!"), BODY, "summary", 30)
    s.rounds(review)
    if review.par is not None:
        _par(s, review.par, players)
    if s.klammern:
        s.rule()
        s.paragraph(
            tr.gettext("Klammern: a won round counts as 60 points in these estimates."),
            NOTE, "note", 26,
        )  # fmt: skip
    return s.finish()


__all__ = ["layout_review", "suit_fill"]
