"""The score sheet (boompje), ``/top``'s standings and the daily's board as pictures
drawn with Pillow.

One call gives the PNG of a :class:`~bot.render.sheet_view.SheetView`, the same data object
the text sheet renders (:func:`bot.render.sheet.render_sheet_view`), so the numbers cannot
disagree::

    view = sheet_view_of(state, players, viewer=seat)   # or build_sheet_view(...)
    png = render_sheet_png(view, tr)                    # bytes, 1000 px wide
    caption = sheet_caption(view, tr, game_end=True)    # HTML: the result as text

The standings and the board take the arguments of their texts
(:func:`bot.render.standings.top_text`, :func:`~bot.render.standings.board_text`; captions
:func:`~bot.render.standings.top_caption`, :func:`~bot.render.standings.daily_caption`)::

    png = render_top_png(tr, title, period, lines, names)
    png = render_board_png(tr, board, par=par)

The fonts ship inside the package (DejaVu Sans, free licence, ``fonts/LICENSE``), so the
picture is the same on every machine; nothing is fetched. Modules: :mod:`.sheet_layout`
(where everything goes, measured, as a :class:`.layout.Layout`), :mod:`.draw` (painting and
PNG), :mod:`.text` (fonts, names of any script, shortening), :mod:`.shaping` (Arabic forms
and right-to-left order), :mod:`.caption` (caption and the picture/text switch button),
:mod:`.board_layout` (the standings and the board), :mod:`.review_layout` (a player's review:
``render_review_png(tr, review, title=..., players=...)``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence

from bot.i18n import Translator
from bot.render.common import Player
from bot.render.picture.board_layout import layout_board, layout_top
from bot.render.picture.caption import (
    CAPTION_LIMIT,
    SHOW_PICTURE,
    SHOW_TEXT,
    sheet_caption,
    switch_button,
)
from bot.render.picture.draw import encode_png, paint
from bot.render.picture.layout import Layout
from bot.render.picture.review_layout import layout_review
from bot.render.picture.sheet_layout import WIDTH, layout_sheet
from bot.render.picture.text import FONT_FILES, FONTS_DIR
from bot.render.sheet_view import SheetView
from bot.render.standings import TOP_LINES
from bot.service import Board
from bot.standings import Standing
from bot.taps import Period
from engine.ai.review import Review
from storage.stats_rows import DailyPar

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


CACHED = 32
"""Standings, board and review pictures kept (the newest): the same ``/top`` asked again, a flood
of taps on a period button, is drawn once."""
_CACHE: OrderedDict[Hashable, bytes] = OrderedDict()


def _cached(key: Hashable, draw: Callable[[], Layout]) -> bytes:
    """The PNG of ``draw()``, from the cache when ``key`` was drawn lately (call it holding
    ``_RENDER``)."""
    png = _CACHE.get(key)
    if png is None:
        png = _CACHE[key] = encode_png(paint(draw()))
        while len(_CACHE) > CACHED:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(key)
    return png


def render_top_png(
    tr: Translator,
    title: str,
    period: Period,
    lines: Sequence[Standing],
    names: Mapping[int, str],
) -> bytes:
    """``/top``'s standings as PNG bytes (the arguments of
    :func:`bot.render.standings.top_text`; layout :func:`.board_layout.layout_top`).

    1000 px wide, about 1140 px high and 45 kB for 20 lines (``bench/bench_picture.py``).
    Some 30-70 ms of CPU: call it in a worker thread, like :func:`render_sheet_png`; the last
    :data:`CACHED` pictures are kept, so the same standings asked again are not drawn again.

    Raises:
        FileNotFoundError: the package was installed without its fonts.
    """
    shown = tuple(lines[:TOP_LINES])
    who = tuple((s.user_id, names.get(s.user_id, "")) for s in shown)
    key = ("top", tr.language, id(tr), title, period, shown, who, len(lines))
    with _RENDER:
        return _cached(key, lambda: layout_top(tr, title, period, lines, names))


def render_review_png(
    tr: Translator,
    review: Review,
    *,
    title: str = "",
    players: Sequence[Player] | None = None,
) -> bytes:
    """A player's review as PNG bytes (what :func:`bot.render.review.review_text` shows;
    layout :func:`.review_layout.layout_review`).

    1000 px wide, about 1700 px high and 45-60 kB with five decisions and 16 rounds, some
    2500 px and 70 kB with a daily's par and its three partings (``bench/bench_review.py
    --picture``); 100-400 ms of CPU. In a worker thread, cached, as
    :func:`render_top_png`.

    Raises:
        FileNotFoundError: the package was installed without its fonts.
    """
    who = tuple(players) if players is not None else None
    key = ("review", tr.language, id(tr), review, title, who)
    with _RENDER:
        return _cached(key, lambda: layout_review(tr, review, title=title, players=who))


def render_board_png(tr: Translator, board: Board, *, par: DailyPar | None = None) -> bytes:
    """A day's board as PNG bytes (what :func:`bot.render.standings.board_text` shows, with
    the difference to ``par`` when it is known; layout :func:`.board_layout.layout_board`).

    1000 px wide, about 275 + 46 px per line high (some 810 px and 30 kB for the top ten and
    the reader's line, 1650 px and 70 kB for 30 lines). In a worker thread, cached, as
    :func:`render_top_png`.

    Raises:
        FileNotFoundError: the package was installed without its fonts.
    """
    key = ("board", tr.language, id(tr), board, par.pars if par is not None else None)
    with _RENDER:
        return _cached(key, lambda: layout_board(tr, board, par=par))


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
    "layout_board",
    "layout_review",
    "layout_sheet",
    "layout_top",
    "render_board_png",
    "render_review_png",
    "render_sheet_png",
    "render_top_png",
    "sheet_caption",
    "switch_button",
]
