"""Fonts and text for the picture: the shipped DejaVu fonts, glyph coverage, names of any
script made drawable, shortened to a width with a visible "…", wrapped lines.

The fonts are package data (``bot/render/picture/fonts/``, with their licence), loaded with
:attr:`PIL.ImageFont.Layout.BASIC` so a picture is the same on every machine whether or not
libraqm is installed. A name goes through :func:`drawable`:

* NFC normalisation, control and format characters (bidi overrides, zero-width joiners,
  variation selectors) removed, runs of white space made one space;
* *clusters*: a character with its combining marks (at most :data:`MAX_MARKS`, so stacked
  marks cannot grow into the row above), an emoji with its modifiers and ``ZWJ`` sequence, a
  flag's two regional indicators;
* a cluster the font has no glyph for (most emoji, CJK, Thai, ...) becomes one visible
  :data:`PLACEHOLDER`, never a silent ``.notdef`` box; a name with no drawable letter left
  is replaced by the caller's fallback (the seat name);
* Arabic joining forms and right-to-left order (:mod:`bot.render.picture.shaping`).

:func:`fit` then shortens the clusters from the end with :data:`ELLIPSIS` until the drawn
width fits. Every width is measured with the font (``getlength``), never guessed.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from io import BytesIO

from PIL import ImageFont

from bot.render.picture.shaping import join_arabic, visual_order

FONTS_DIR: Traversable = files("bot.render.picture") / "fonts"
"""The shipped fonts (package data of :mod:`bot.render.picture`)."""

REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
FONT_FILES = (REGULAR, BOLD, "LICENSE")
"""The files of :data:`FONTS_DIR` the wheel must ship."""

PLACEHOLDER = "\ufffd"
"""Drawn for a character the font lacks (U+FFFD "�", which DejaVu has)."""

ELLIPSIS = "…"
MAX_MARKS = 2
"""Combining marks kept per character, those of a precomposed letter included (more would
stack above the line)."""

_ZWJ = "\u200d"
_KEYCAP = "\u20e3"
_TAG = range(0xE0020, 0xE0080)
_SKIN = range(0x1F3FB, 0x1F400)
_REGIONAL = range(0x1F1E6, 0x1F200)
_VARIATION = frozenset(chr(c) for c in range(0xFE00, 0xFE10))
_MARKS = frozenset({"Mn", "Mc", "Me"})
_SPACES = frozenset({"Zs", "Zl", "Zp"})


@cache
def _font_bytes(name: str) -> bytes:
    return (FONTS_DIR / name).read_bytes()


@cache
def font(size: int, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu Sans (``bold``: DejaVu Sans Bold) at ``size`` pixels, basic layout.

    Raises:
        FileNotFoundError: the package was installed without its fonts.
    """
    data = _font_bytes(BOLD if bold else REGULAR)
    return ImageFont.truetype(BytesIO(data), size, layout_engine=ImageFont.Layout.BASIC)


def _signature(f: ImageFont.FreeTypeFont, text: str) -> tuple[object, ...]:
    mask = f.getmask(text)
    return (mask.size, bytes(mask), f.getlength(text))


@cache
def _notdef(bold: bool) -> tuple[object, ...]:
    """How the font draws a character it lacks (its ``.notdef`` glyph)."""
    return _signature(font(32, bold=bold), "\U0010fffd")  # a private-use noncharacter


@cache
def has_glyph(char: str, *, bold: bool = False) -> bool:
    """Whether the shipped font draws ``char`` (one character) with a glyph of its own, i.e.
    not with its ``.notdef`` box."""
    return _signature(font(32, bold=bold), char) != _notdef(bold)


def clusters(text: str) -> list[str]:
    """Split ``text`` into clusters: a character followed by its combining marks, variation
    selectors, emoji modifiers and tags, ``ZWJ`` + the next character, or a pair of
    regional indicators (a flag)."""
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        cat = unicodedata.category(ch)
        joined = bool(out) and (
            cat in _MARKS
            or ch in _VARIATION
            or ch in (_ZWJ, _KEYCAP)
            or cp in _SKIN
            or cp in _TAG
            or out[-1].endswith(_ZWJ)
            or (cp in _REGIONAL and _open_flag(out[-1]))
        )
        if joined:
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _open_flag(cluster: str) -> bool:
    """A cluster that is a single regional indicator (the first half of a flag)."""
    return len(cluster) == 1 and ord(cluster) in _REGIONAL


def _clean_cluster(cluster: str, bold: bool) -> str | None:
    """The cluster as drawn: its base and up to :data:`MAX_MARKS` marks, or
    :data:`PLACEHOLDER` when the font lacks a part of it; None to drop it (a stray format or
    control character)."""
    base = cluster[0]
    cat = unicodedata.category(base)
    if cat in _SPACES:
        return " "
    if cat.startswith("C") and len(cluster) == 1:  # Cc, Cf, Co, Cn, Cs: nothing to draw
        return None
    sequence = _ZWJ in cluster or _KEYCAP in cluster
    if sequence or ord(base) in _REGIONAL or ord(base) in _SKIN or cat.startswith("C"):
        return PLACEHOLDER
    marks = [ch for ch in cluster[1:] if unicodedata.category(ch) in _MARKS]
    marks = [ch for ch in marks if ch not in _VARIATION and ord(ch) not in _TAG]
    composed = sum(unicodedata.combining(ch) > 0 for ch in unicodedata.normalize("NFD", base))
    kept = base + "".join(marks[: max(MAX_MARKS - composed, 0)])
    if any(ord(ch) in _SKIN or ord(ch) in _TAG for ch in cluster[1:]):
        return PLACEHOLDER
    if all(has_glyph(ch, bold=bold) for ch in kept):
        return kept
    if has_glyph(base, bold=bold):
        return base  # a mark the font lacks: the letter alone
    return PLACEHOLDER


def drawable(text: str, *, bold: bool = False) -> list[str]:
    """``text`` as clusters the font can draw, in logical order (see the module docs); an
    empty list when nothing is left. Runs of placeholders from one emoji sequence count
    once; spaces are collapsed and trimmed."""
    out: list[str] = []
    for cluster in clusters(unicodedata.normalize("NFC", text)):
        cleaned = _clean_cluster(cluster, bold)
        if cleaned is None:
            continue
        if cleaned == " " and (not out or out[-1] == " "):
            continue
        out.append(cleaned)
    while out and out[-1] == " ":
        out.pop()
    return out


def readable(parts: list[str]) -> bool:
    """Whether drawable clusters hold at least one letter or digit (not only placeholders
    and punctuation)."""
    return any(unicodedata.category(c[0])[0] in "LN" for c in parts)


def visual(parts: list[str]) -> str:
    """Drawable clusters (logical order) as the string to draw left to right."""
    return "".join(visual_order(join_arabic(parts)))


def fit(
    text: str,
    f: ImageFont.FreeTypeFont,
    width: float,
    *,
    bold: bool = False,
    fallback: str = "",
) -> str:
    """``text`` made drawable and shortened to at most ``width`` pixels in font ``f``: the
    whole text when it fits, else its longest start that fits followed by "…" (logical
    order, so a right-to-left name loses its end, drawn on the left). A text with no
    letter or digit the font can draw is replaced by ``fallback`` (shortened the same way).

    Returns:
        The string to draw left to right ("" when not even "…" fits ``width``).
    """
    parts = drawable(text, bold=bold)
    if not readable(parts):
        parts = drawable(fallback, bold=bold) if fallback else parts
    whole = visual(parts)
    if f.getlength(whole) <= width:
        return whole
    lo, hi = 0, len(parts) - 1  # the longest start (lo clusters) that fits with "…"
    best = ELLIPSIS if f.getlength(ELLIPSIS) <= width else ""
    while lo <= hi:
        mid = (lo + hi) // 2
        head = parts[:mid]
        while head and head[-1] == " ":
            head = head[:-1]
        candidate = visual([*head, ELLIPSIS])
        if f.getlength(candidate) <= width:
            best = candidate
            lo = mid + 1
        else:
            hi = mid - 1
    return best


def wrap(text: str, f: ImageFont.FreeTypeFont, width: float) -> list[str]:
    """Break a left-to-right text of ours (a legend, a result line) into lines of at most
    ``width`` pixels at spaces (not at no-break spaces, French puts one before ":"); a single
    word wider than ``width`` is shortened with "…"."""
    lines: list[str] = []
    current = ""
    for word in (w for w in text.split(" ") if w):  # a no-break space is no break
        trial = f"{current} {word}" if current else word
        if f.getlength(trial) <= width:
            current = trial
            continue
        if current:
            lines.append(current)
        current = word if f.getlength(word) <= width else fit(word, f, width)
    if current:
        lines.append(current)
    return lines
