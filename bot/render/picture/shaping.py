"""Right-to-left text for Pillow's basic layout: Arabic joining forms and visual order.

Pillow draws with :attr:`PIL.ImageFont.Layout.BASIC` here (libraqm is optional and would make
the picture depend on the machine), which puts glyphs left to right in logical order and
never joins Arabic letters. This module does the two steps a shaping engine would do for a
player's name, on *clusters* (a base character with its combining marks, see
:func:`bot.render.picture.text.clusters`):

1. :func:`join_arabic`: each Arabic letter becomes its isolated, initial, medial or final
   presentation form (Unicode's Arabic Presentation Forms, derived from
   :mod:`unicodedata` decompositions, so no table is kept here); lam + alef become the
   ligature.
2. :func:`visual_order`: a small subset of the Unicode bidirectional algorithm (strong
   types, numbers, neutrals between equal strong types, rule L2 reversal, mirrored
   brackets), enough for a name: "Anna", "שרה כהן", "محمد 2", "Cas (כהן)".

Both are pure and work on lists of strings; the caller measures the result with the font.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import cache

_RTL = frozenset({"R", "AL"})
_NUMBER = frozenset({"EN", "AN"})
_MIRROR = str.maketrans("()[]{}<>«»‹›", ")(][}{><»«›‹")

_FORMS = ("isolated", "initial", "medial", "final")


@cache
def _presentation() -> dict[tuple[str, str], str]:
    """(base letters, form) → presentation character, from the compatibility decompositions
    of Arabic Presentation Forms-A and -B (e.g. U+FE91 is ``<initial> 0628``)."""
    table: dict[tuple[str, str], str] = {}
    for block in (range(0xFB50, 0xFE00), range(0xFE70, 0xFF00)):
        for cp in block:
            parts = unicodedata.decomposition(chr(cp)).split()
            if len(parts) < 2 or not parts[0].startswith("<"):
                continue
            form = parts[0].strip("<>")
            if form not in _FORMS:
                continue
            base = "".join(chr(int(p, 16)) for p in parts[1:])
            table.setdefault((base, form), chr(cp))
    return table


def _joining(letter: str) -> str:
    """ "D" (joins both sides), "R" (joins only the letter before it) or "" (does not join),
    read off which presentation forms exist for ``letter``."""
    table = _presentation()
    if (letter, "medial") in table or (letter, "initial") in table:
        return "D"
    if (letter, "final") in table:
        return "R"
    return "D" if letter == "\u0640" else ""  # tatweel joins both sides and has no forms


_LAM = "\u0644"
_ALEFS = frozenset("\u0622\u0623\u0625\u0627")


def join_arabic(clusters: Sequence[str]) -> list[str]:
    """Replace each Arabic letter (the first character of a cluster) by its contextual
    presentation form; lam followed by alef becomes one ligature cluster. Other clusters
    are returned unchanged. Combining marks stay after their letter."""
    table = _presentation()
    out: list[str] = []
    i = 0
    n = len(clusters)
    while i < n:
        cluster = clusters[i]
        base, marks = cluster[:1], cluster[1:]
        kind = _joining(base) if base else ""
        if not kind:
            out.append(cluster)
            i += 1
            continue
        prev = clusters[i - 1][:1] if i > 0 else ""
        joins_prev = _joining(prev) == "D"
        nxt_index = i + 1
        letters = base
        if base == _LAM and i + 1 < n and clusters[i + 1][:1] in _ALEFS:
            letters = base + clusters[i + 1][:1]
            marks += clusters[i + 1][1:]
            kind = "R"  # the ligature ends the join, like alef
            nxt_index = i + 2
        nxt = clusters[nxt_index][:1] if nxt_index < n else ""
        joins_next = kind == "D" and _joining(nxt) in ("D", "R")
        form = {
            (False, False): "isolated",
            (False, True): "initial",
            (True, True): "medial",
            (True, False): "final",
        }[(joins_prev, joins_next)]
        shaped = table.get((letters, form)) or table.get((letters, "isolated"))
        if shaped is None:  # no presentation form: keep the letters as they are
            out.append(cluster if len(letters) == 1 else cluster + clusters[i + 1])
        else:
            out.append(shaped + marks)
        i = nxt_index
    return out


def _direction(cluster: str) -> str:
    """ "R", "L", "N" (number) or "" (neutral) for a cluster's base character."""
    kind = unicodedata.bidirectional(cluster[:1]) if cluster else ""
    if kind in _RTL:
        return "R"
    if kind == "L":
        return "L"
    if kind in _NUMBER:
        return "N"
    return ""


def has_rtl(clusters: Sequence[str]) -> bool:
    """True when any cluster is right-to-left (Hebrew, Arabic, ...)."""
    return any(_direction(c) == "R" for c in clusters)


def visual_order(clusters: Sequence[str]) -> list[str]:
    """The clusters in the order to draw them left to right (a subset of UAX #9).

    The paragraph direction is that of the first strong character. Numbers keep their
    left-to-right order; a neutral (space, punctuation) between two characters of the same
    direction takes it, otherwise the paragraph's. Right-to-left brackets are mirrored.
    Text without a right-to-left character is returned as it is.
    """
    if not has_rtl(clusters):
        return list(clusters)
    kinds = [_direction(c) for c in clusters]
    strong = [k for k in kinds if k in ("R", "L")]
    base = 1 if strong[0] == "R" else 0
    # numbers after a right-to-left letter count as right-to-left for the neutrals (N1)
    resolved: list[str] = []
    last_strong = "R" if base else "L"
    for k in kinds:
        if k in ("R", "L"):
            last_strong = k
        resolved.append(k if k != "N" else ("NR" if last_strong == "R" else "NL"))
    _brackets(clusters, resolved, "R" if base else "L")
    levels: list[int] = []
    for i, kind in enumerate(resolved):
        if kind:
            levels.append(_level(kind, base))
            continue
        before = next((_side(x) for x in reversed(resolved[:i]) if x), "")
        after = next((_side(x) for x in resolved[i + 1 :] if x), "")
        levels.append(
            _level(before if before and before == after else ("R" if base else "L"), base)
        )
    order = list(range(len(clusters)))
    for level in range(max(levels), 0, -1):
        i = 0
        while i < len(order):
            if levels[order[i]] >= level:
                j = i
                while j < len(order) and levels[order[j]] >= level:
                    j += 1
                order[i:j] = reversed(order[i:j])
                i = j
            else:
                i += 1
    return [clusters[i].translate(_MIRROR) if levels[i] % 2 else clusters[i] for i in order]


_OPEN = {"(": ")", "[": "]", "{": "}"}


def _brackets(clusters: Sequence[str], resolved: list[str], embedding: str) -> None:
    """Rule N0 of UAX #9 for paired brackets, in place: a pair enclosing a character of the
    paragraph's direction takes it; a pair enclosing only the other direction takes that
    one when the text before the pair has it too, else the paragraph's."""
    stack: list[tuple[str, int]] = []
    pairs: list[tuple[int, int]] = []
    for i, cluster in enumerate(clusters):
        ch = cluster[:1]
        if ch in _OPEN:
            stack.append((_OPEN[ch], i))
        elif stack and ch == stack[-1][0]:
            pairs.append((stack.pop()[1], i))
    for start, end in sorted(pairs):
        inside = {_side(k) for k in resolved[start + 1 : end] if k}
        if not inside:
            continue
        kind = embedding
        if embedding not in inside:  # only the other direction inside: the context decides
            kind = next((_side(k) for k in reversed(resolved[:start]) if k), embedding)
        resolved[start] = resolved[end] = kind


def _side(kind: str) -> str:
    """The direction a resolved type stands for when it surrounds a neutral."""
    return "R" if kind in ("R", "NR") else "L"


def _level(kind: str, base: int) -> int:
    """The embedding level of a resolved type in a paragraph of level ``base`` (0 or 1)."""
    if kind == "R":
        return 1
    if kind == "NR":
        return 2
    if kind == "NL":
        return 2 if base else 0
    return 2 if base else 0  # "L"
