"""The score sheet (boompje) as a picture (issue 13), drawn with Pillow.

One call gives the PNG of a :class:`~bot.render.sheet_view.SheetView`, the same data object
the text sheet renders (:func:`bot.render.sheet.render_sheet_view`), so the numbers cannot
disagree::

    view = sheet_view_of(state, players, viewer=seat)   # or build_sheet_view(...)
    png = render_sheet_png(view, tr)                    # bytes, 1000 px wide
    caption = sheet_caption(view, tr, game_end=True)    # HTML: the result as text

The fonts ship inside the package (DejaVu Sans, free licence, ``fonts/LICENSE``), so the
picture is the same on every machine; nothing is fetched. Modules: :mod:`.sheet_layout`
(where everything goes, measured, as a :class:`.layout.Layout`), :mod:`.draw` (painting and
PNG), :mod:`.text` (fonts, names of any script, shortening), :mod:`.shaping` (Arabic forms
and right-to-left order), :mod:`.caption` (caption and the picture/text switch button).
"""

from __future__ import annotations

import threading

from bot.i18n import Translator
from bot.render.picture.caption import (
    CAPTION_LIMIT,
    SHOW_PICTURE,
    SHOW_TEXT,
    sheet_caption,
    switch_button,
)
from bot.render.picture.draw import encode_png, paint
from bot.render.picture.layout import Layout
from bot.render.picture.sheet_layout import WIDTH, layout_sheet
from bot.render.picture.text import FONT_FILES, FONTS_DIR
from bot.render.sheet_view import SheetView

_RENDER = threading.Lock()

MAX_PHOTO_BYTES = 10 * 1024 * 1024
"""Telegram's limit for an uploaded photo (``sendPhoto``)."""
MAX_PHOTO_SIDES = 10_000
"""Telegram's limit for width + height of a photo."""
MAX_PHOTO_RATIO = 20
"""Telegram's limit for the ratio of the longer side to the shorter."""


def render_sheet_png(view: SheetView, tr: Translator) -> bytes:
    """The score sheet picture of ``view`` as PNG bytes, in the reader's language.

    About 1000 × 1250 pixels and 60–100 kB for 16 rounds (well within Telegram's photo
    limits: :data:`MAX_PHOTO_BYTES`, :data:`MAX_PHOTO_SIDES`, :data:`MAX_PHOTO_RATIO`).
    Pure apart from reading the shipped fonts once. Takes some 40-90 ms of CPU: call it in a
    worker thread (``await asyncio.to_thread(render_sheet_png, view, tr)``) so the event loop
    goes on; renders run one at a time (the cached FreeType fonts are not safe to share
    between threads at once).

    Raises:
        FileNotFoundError: the package was installed without its fonts.
    """
    with _RENDER:
        return encode_png(paint(layout_sheet(view, tr)))


__all__ = [
    "CAPTION_LIMIT",
    "FONTS_DIR",
    "FONT_FILES",
    "MAX_PHOTO_BYTES",
    "MAX_PHOTO_RATIO",
    "MAX_PHOTO_SIDES",
    "SHOW_PICTURE",
    "SHOW_TEXT",
    "WIDTH",
    "Layout",
    "layout_sheet",
    "render_sheet_png",
    "sheet_caption",
    "switch_button",
]
