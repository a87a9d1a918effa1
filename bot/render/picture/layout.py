"""The picture as measured records, before drawing: boxes, rules and texts.

A :class:`Layout` holds plain records with pixel coordinates (x to the right, y down, origin
at the top left). Every text carries the cell it may use and the box its glyphs cover
(``ink``, measured with the font), so a test can check that nothing overlaps and nothing
leaves the picture without looking at pixels; :mod:`bot.render.picture.draw` only paints the
records. :mod:`bot.render.picture.sheet_layout` fills one for the score sheet; standings or
a daily board can be laid out with the same pieces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot.render.picture import text as txt

PAPER = "#fbf7ec"
INK = "#22252a"
GREY = "#6b6f76"

OVERHANG = 4
"""Pixels kept free in a cell's width: glyphs may reach a little past their advance."""

Align = Literal["left", "right", "center"]
_ANCHORS: dict[Align, str] = {"left": "ls", "right": "rs", "center": "ms"}


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle: left, top, right, bottom in pixels (right and bottom exclusive)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        """``x1 - x0``."""
        return self.x1 - self.x0

    def intersects(self, other: Box) -> bool:
        """Whether the two rectangles share any area (touching edges do not count)."""
        return (
            self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1
        )

    def within(self, other: Box) -> bool:
        """Whether this rectangle lies inside ``other`` (edges may touch)."""
        return (
            self.x0 >= other.x0
            and self.y0 >= other.y0
            and self.x1 <= other.x1
            and self.y1 <= other.y1
        )


@dataclass(frozen=True, slots=True)
class Style:
    """How a text looks: font size in pixels, DejaVu Sans Bold or not, colour
    (``#rrggbb``) and alignment in its cell."""

    size: int
    bold: bool = False
    fill: str = INK
    align: Align = "left"


@dataclass(frozen=True, slots=True)
class TextItem:
    """One text to draw.

    Attributes:
        text: the string, already drawable and in visual (left-to-right) order.
        style: size, weight, colour, alignment.
        x, y: the anchor point; ``anchor``: Pillow's anchor (``ls``, ``rs`` or ``ms``: left,
            right or middle, on the baseline).
        cell: the area the text may use; ``ink``: the area its glyphs cover (measured).
        role: what it is ("title", "name", "points", "roem", ...), for tests.
        source: what it shows before shortening (the raw name; a number as digits).
    """

    text: str
    style: Style
    x: float
    y: float
    anchor: str
    cell: Box
    ink: Box
    role: str
    source: str


@dataclass(frozen=True, slots=True)
class Rule:
    """A straight horizontal or vertical line from (x0, y0) to (x1, y1), ``width`` pixels
    thick."""

    x0: float
    y0: float
    x1: float
    y1: float
    width: int
    fill: str

    @property
    def box(self) -> Box:
        """The area the line covers."""
        half = self.width / 2
        return Box(
            min(self.x0, self.x1) - half,
            min(self.y0, self.y1) - half,
            max(self.x0, self.x1) + half,
            max(self.y0, self.y1) + half,
        )


@dataclass(frozen=True, slots=True)
class Rect:
    """A filled rectangle with rounded corners (``radius`` pixels)."""

    box: Box
    fill: str
    radius: int = 0


@dataclass(slots=True)
class Layout:
    """Everything on one picture, in drawing order: rects, then rules, then texts.

    Attributes:
        width, height: the picture's size in pixels.
        background: the paper's colour.
    """

    width: int
    height: int = 0
    background: str = PAPER
    rects: list[Rect] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    texts: list[TextItem] = field(default_factory=list)

    @property
    def frame(self) -> Box:
        """The whole picture."""
        return Box(0, 0, self.width, self.height)

    def line(self, x0: float, y0: float, x1: float, y1: float, width: int, fill: str) -> None:
        """Add a rule."""
        self.rules.append(Rule(x0, y0, x1, y1, width, fill))

    def text(self, text: str, cell: Box, style: Style, role: str, source: str = "") -> None:
        """Put ``text`` (already drawable, visual order) in ``cell``: aligned as ``style``
        says, vertically centred on the font's ascent and descent. An empty text adds
        nothing."""
        if not text:
            return
        f = txt.font(style.size, bold=style.bold)
        ascent, descent = f.getmetrics()
        y = cell.y0 + (cell.y1 - cell.y0 - ascent - descent) / 2 + ascent
        x = {"left": cell.x0, "right": cell.x1, "center": (cell.x0 + cell.x1) / 2}[style.align]
        anchor = _ANCHORS[style.align]
        left, top, right, bottom = f.getbbox(text, anchor=anchor)
        # a glyph may overhang its advance ("J", "f", italics of some scripts): nudge the
        # text back into its cell when there is room
        if x + left < cell.x0:
            x = cell.x0 - left
        elif x + right > cell.x1 and right - left <= cell.width:
            x = cell.x1 - right
        ink = Box(x + left, y + top, x + right, y + bottom)
        self.texts.append(TextItem(text, style, x, y, anchor, cell, ink, role, source or text))

    def number(self, value: str, cell: Box, style: Style, role: str, source: str = "") -> None:
        """A number (or a row of marks) in ``cell``: never shortened; the font shrinks
        until it fits the cell's width."""
        size = style.size
        room = cell.width - OVERHANG
        while size > 8 and txt.font(size, bold=style.bold).getlength(value) > room:
            size -= 1
        if size != style.size:
            style = Style(size, style.bold, style.fill, style.align)
        self.text(value, cell, style, role, source)

    def fitted(self, raw: str, cell: Box, style: Style, role: str, fallback: str = "") -> None:
        """A name or label in ``cell``: made drawable and shortened with "…" to the cell's
        width less :data:`OVERHANG` (:func:`bot.render.picture.text.fit`; ``fallback`` when
        nothing of ``raw`` can be drawn)."""
        f = txt.font(style.size, bold=style.bold)
        shown = txt.fit(raw, f, cell.width - OVERHANG, bold=style.bold, fallback=fallback)
        self.text(shown, cell, style, role, raw)
