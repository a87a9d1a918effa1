"""Paint a :class:`~bot.render.picture.layout.Layout` with Pillow and encode it as PNG."""

from __future__ import annotations

from io import BytesIO

from PIL import Image, ImageDraw

from bot.render.picture import text as txt
from bot.render.picture.layout import Layout


def paint(layout: Layout) -> Image.Image:
    """The picture of ``layout`` (RGB, ``layout.width`` × ``layout.height`` pixels): the
    paper, the filled rectangles, the rules, then the texts."""
    image = Image.new("RGB", (layout.width, layout.height), layout.background)
    draw = ImageDraw.Draw(image)
    for rect in layout.rects:
        b = rect.box
        draw.rounded_rectangle((b.x0, b.y0, b.x1 - 1, b.y1 - 1), rect.radius, fill=rect.fill)
    for rule in layout.rules:
        draw.line((rule.x0, rule.y0, rule.x1, rule.y1), fill=rule.fill, width=rule.width)
    for item in layout.texts:
        f = txt.font(item.style.size, bold=item.style.bold)
        draw.text((item.x, item.y), item.text, font=f, fill=item.style.fill, anchor=item.anchor)
    return image


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of ``image``: a palette of at most 256 colours (the sheet has few colours, so
    the file is about a third of an RGB PNG and the text stays sharp; the fast octree method
    takes a third of the time of median cut), no dithering, zlib level 6."""
    palette = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = BytesIO()
    palette.save(buf, format="PNG", compress_level=6)
    return buf.getvalue()
