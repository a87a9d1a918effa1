"""Checks the picture tests share (the score sheet, the standings, the board): a PNG within
Telegram's photo limits, a layout without overlap or clipping, a caption within Telegram's
limit, and the tolerant comparison with a reference picture."""

from __future__ import annotations

import os
from io import BytesIO
from pathlib import Path

from PIL import Image, ImageChops, ImageStat

from bot.render.picture import CAPTION_LIMIT, MAX_PHOTO_RATIO, MAX_PHOTO_SIDES, WIDTH, Layout
from bot.render.picture.text import has_glyph
from tests.render.helpers import check_telegram_html, untranslated, visible_text

REFERENCE = Path(__file__).parent / "reference"
UPDATE = bool(os.environ.get("KLAVERJAS_UPDATE_PICTURES"))
MAX_PNG = 1024 * 1024
"""Our own limit, far below Telegram's 10 MB."""


# --- checks ------------------------------------------------------------------------------------


def check_png(png: bytes, layout: Layout) -> None:
    """A PNG of the layout's size, small, within Telegram's photo limits."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) < MAX_PNG
    with Image.open(BytesIO(png)) as image:
        width, height = image.size
    assert (width, height) == (layout.width, layout.height) and width == WIDTH
    assert width + height <= MAX_PHOTO_SIDES
    assert max(width, height) <= MAX_PHOTO_RATIO * min(width, height)


def check_layout(layout: Layout) -> None:
    """Nothing leaves the picture or its cell, no two texts overlap, no line crosses a text,
    a badge holds only its own label, and every character drawn has a glyph in the font."""
    frame = layout.frame
    texts = layout.texts
    for t in texts:
        assert t.cell.within(frame), (t.role, t.text, t.cell)
        assert t.ink.within(t.cell), (t.role, t.text, t.ink, t.cell)
        missing = [c for c in t.text if not c.isspace() and not has_glyph(c, bold=t.style.bold)]
        assert not missing, (t.role, t.text, missing)
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            assert not a.ink.intersects(b.ink), ((a.role, a.text), (b.role, b.text))
    for rule in layout.rules:
        assert rule.box.within(frame)
        for t in texts:
            assert not rule.box.intersects(t.ink), (rule, t.role, t.text)
    for rect in layout.rects:
        assert rect.box.within(frame)
        for t in texts:
            if rect.box.intersects(t.ink):
                assert t.ink.within(rect.box), (rect, t.role, t.text)


def check_caption(caption: str, lang: str) -> None:
    check_telegram_html(caption)
    assert len(visible_text(caption)) <= CAPTION_LIMIT
    if lang != "en":
        assert not untranslated(caption, lang), untranslated(caption, lang)


def shown(layout: Layout) -> str:
    return "\n".join(t.text for t in layout.texts)


def difference(a: Image.Image, b: Image.Image, tile: int = 32) -> tuple[float, float]:
    """The mean absolute difference per pixel and channel (0-255) over the whole picture,
    and the largest over any ``tile`` × ``tile`` square."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB")).convert("L")
    whole = ImageStat.Stat(diff).mean[0]
    worst = 0.0
    for y in range(0, diff.height, tile):
        for x in range(0, diff.width, tile):
            worst = max(worst, ImageStat.Stat(diff.crop((x, y, x + tile, y + tile))).mean[0])
    return whole, worst
