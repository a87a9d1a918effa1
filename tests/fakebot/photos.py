"""Small images for photo tests (made with Pillow, nothing read from disk)."""

from __future__ import annotations

from io import BytesIO

from PIL import Image


def png(width: int, height: int, color: str = "#fbf7ec") -> bytes:
    """A plain PNG of ``width`` × ``height`` pixels."""
    buf = BytesIO()
    Image.new("RGB", (width, height), color).save(buf, format="PNG")
    return buf.getvalue()


def tiny_png() -> bytes:
    """A 4 × 3 PNG."""
    return png(4, 3)
