"""Score sheet picture (issue 13): render time per picture and PNG size.

Per sheet (16 Klaverjassen rounds in the group and in a private view, 16 rounds every one
nat with long right-to-left and emoji names, a whole Klammern game): median, p95 and max of
the time from a :class:`~bot.render.sheet_view.SheetView` to PNG bytes over ``--renders``
renders after one warm-up (fonts loaded, glyph checks cached), split into layout, painting
and PNG encoding; then the picture's size in pixels and bytes.

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

from bot.i18n import get_translator
from bot.render.picture import render_sheet_png
from bot.render.picture.draw import encode_png, paint
from bot.render.picture.sheet_layout import layout_sheet
from bot.render.sheet_view import SheetView
from engine.cards import SEATS
from tests.render.picture_views import all_nat_view, klammern_view, klaverjas_view

SHEETS: dict[str, Callable[[], SheetView]] = {
    "klaverjas 16 rounds, group": lambda: klaverjas_view(16),
    "klaverjas 16 rounds, private": lambda: klaverjas_view(16, viewer=SEATS[1]),
    "16 x nat, hard names": all_nat_view,
    "klammern to 3 big points": klammern_view,
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
    for name, make in SHEETS.items():
        view = make()
        png = render_sheet_png(view, tr)  # warm-up
        total, lay, draw, enc = [], [], [], []
        for _ in range(args.renders):
            t0 = time.perf_counter()
            layout = layout_sheet(view, tr)
            t1 = time.perf_counter()
            image = paint(layout)
            t2 = time.perf_counter()
            png = encode_png(image)
            t3 = time.perf_counter()
            total.append(t3 - t0)
            lay.append(t1 - t0)
            draw.append(t2 - t1)
            enc.append(t3 - t2)
        print(f"{name} ({view.played} rounds): {layout.width} x {layout.height} px, "
              f"{len(png) / 1024:.0f} KiB PNG")  # fmt: skip
        print(f"  total   {_ms(total)}")
        print(f"  layout  {_ms(lay)}")
        print(f"  paint   {_ms(draw)}")
        print(f"  encode  {_ms(enc)}")


if __name__ == "__main__":
    main()
