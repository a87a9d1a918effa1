"""Score sheet, standings and board pictures: render time per picture and PNG size.

Per sheet (16 Klaverjassen rounds in the group and in a private view, 16 rounds every one
nat with long right-to-left and emoji names, a whole Klammern game), and for ``/top`` (30
people, the 20 shown) and a daily board of 30 lines (with the par, the hostile names of
``tests/render/board_views.py``): median, p95 and max of the time from the data object to
PNG bytes over ``--renders`` renders after one warm-up (fonts loaded, glyph checks cached),
split into layout, painting and PNG encoding; then the picture's size in pixels and bytes.
The layouts are called directly, so the render cache of
:func:`bot.render.picture.render_top_png` does not count.

Run: ``python bench/bench_picture.py [--renders 50] [--lang nl]``. Prints numbers; asserts
nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.i18n import Translator, get_translator
from bot.render.picture.board_layout import layout_board, layout_top
from bot.render.picture.draw import encode_png, paint
from bot.render.picture.layout import Layout
from bot.render.picture.sheet_layout import layout_sheet
from bot.render.sheet_view import SheetView
from bot.taps import Period
from engine.cards import SEATS
from tests.render.board_views import PAR, board, standings
from tests.render.picture_views import all_nat_view, klammern_view, klaverjas_view

Picture = Callable[[Translator], Callable[[], Layout]]
"""A picture of the bench: given the translator, the layout call to time."""


def _sheet(make: Callable[[], SheetView]) -> Picture:
    view = make()
    return lambda tr: lambda: layout_sheet(view, tr)


def _top(n: int) -> Picture:
    lines, names = standings(n)
    return lambda tr: lambda: layout_top(tr, "Klaverjasclub De Ruiter", Period.MONTH, lines, names)


def _board(n: int) -> Picture:
    day = board(n)
    return lambda tr: lambda: layout_board(tr, day, par=PAR)


PICTURES: dict[str, Picture] = {
    "sheet: klaverjas 16 rounds, group": _sheet(lambda: klaverjas_view(16)),
    "sheet: klaverjas 16 rounds, private": _sheet(lambda: klaverjas_view(16, viewer=SEATS[1])),
    "sheet: 16 x nat, hard names": _sheet(all_nat_view),
    "sheet: klammern to 3 big points": _sheet(klammern_view),
    "/top: 30 people (20 shown)": _top(30),
    "daily board: 30 lines, par": _board(30),
    "daily board: top 10 + own line, par": lambda tr: (
        lambda: layout_board(tr, board(10, entries=31, own_place=23), par=PAR)
    ),
}


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered) * 1000:6.1f}  p95 {p95 * 1000:6.1f}  " + (
        f"max {ordered[-1] * 1000:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--renders", type=int, default=50)
    parser.add_argument("--lang", default="nl")
    args = parser.parse_args()
    tr = get_translator(args.lang)
    for name, make in PICTURES.items():
        lay_out = make(tr)
        png = encode_png(paint(lay_out()))  # warm-up
        total, lay, draw, enc = [], [], [], []
        for _ in range(args.renders):
            t0 = time.perf_counter()
            layout = lay_out()
            t1 = time.perf_counter()
            image = paint(layout)
            t2 = time.perf_counter()
            png = encode_png(image)
            t3 = time.perf_counter()
            total.append(t3 - t0)
            lay.append(t1 - t0)
            draw.append(t2 - t1)
            enc.append(t3 - t2)
        print(f"{name}: {layout.width} x {layout.height} px, {len(png) / 1024:.0f} KiB PNG")
        print(f"  total   {_ms(total)}")
        print(f"  layout  {_ms(lay)}")
        print(f"  paint   {_ms(draw)}")
        print(f"  encode  {_ms(enc)}")


if __name__ == "__main__":
    main()
