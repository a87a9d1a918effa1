"""Shared pieces of the renderers: buttons, rendered messages, players, seats and teams.

Everything here is pure. Texts are HTML for ``parse_mode=HTML`` unless a docstring says
"plain": every user-supplied name goes through :func:`esc` exactly once, at the point where it
is put into HTML.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from bot.i18n import Translator
from bot.taps import GlobalTap, Payload
from engine.cards import Seat, Team

T = TypeVar("T")

NAME_LIMIT = 24
"""Names longer than this are shortened with "…" (Telegram allows 64 + 64 characters)."""


class Colour(Enum):
    """The colour of a button (drawn by Telegram apps that know button styles; the others
    show the label alone, so a colour never carries meaning the label lacks)."""

    RED = "red"
    GREEN = "green"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Button:
    """One inline button, independent of Telegram.

    Attributes:
        label: the text on the button (plain text, not HTML).
        action: what a tap does (a :mod:`bot.taps` payload such as ``Move("play:JH")`` or
            ``Sit(2)``), which the bot encodes into callback data; None for a URL button.
        url: for a link button (deep link into the private chat, a message link), else None.
        colour: the button's colour (None: the app's own), e.g. red for a card of hearts.
        disabled: a tap would be refused (a card that may not be played now): the button is
            drawn greyed and does nothing where Telegram supports disabled buttons, else it
            is an ordinary button whose tap is answered with the reason. Its label is marked
            either way.
    """

    label: str
    action: Payload | GlobalTap | None = None
    url: str | None = None
    colour: Colour | None = None
    disabled: bool = False


Keyboard = tuple[tuple[Button, ...], ...]
"""Rows of buttons, top to bottom."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """A message ready to send: HTML text and an inline keyboard (possibly empty).

    Two renderings are equal exactly when text and keyboard are, so the bot can skip an edit
    that would change nothing.
    """

    text: str
    keyboard: Keyboard = ()


@dataclass(frozen=True, slots=True)
class Player:
    """Who sits in a seat, as the renderers need it.

    Attributes:
        name: the raw display name (not escaped; the renderers escape it). Ignored for
            computer players, which are named by seat in the reader's language.
        computer: a computer player.
        user_id: the Telegram user id, to mention the player in the group
            (``tg://user?id=``); None for no mention.
    """

    name: str
    computer: bool = False
    user_id: int | None = None


def esc(text: str) -> str:
    """Escape user-supplied text for Telegram HTML (``&``, ``<``, ``>``, quotes)."""
    return html.escape(text, quote=True)


def shorten(text: str, limit: int = NAME_LIMIT) -> str:
    """``text`` cut to ``limit`` characters with a trailing "…" when it was longer (plain)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def bold(html_text: str) -> str:
    """Wrap already-escaped HTML in ``<b>``."""
    return f"<b>{html_text}</b>"


def labelled(tr: Translator, label: str, value: str) -> str:
    """ "label: value" with the language's punctuation ("label : value" in French). The parts
    are inserted as given (plain or HTML alike)."""
    return tr.gettext("{label}: {value}").format(label=label, value=value)


def seat_name(tr: Translator, seat: Seat) -> str:
    """The seat's compass name: Noord / Nord / Nord / North (``rules.md`` §2.1). Plain."""
    names = (
        tr.pgettext("seat", "North"),
        tr.pgettext("seat", "East"),
        tr.pgettext("seat", "South"),
        tr.pgettext("seat", "West"),
    )
    return names[seat]


def seat_letter(tr: Translator, seat: Seat) -> str:
    """One letter for the seat: N O Z W in Dutch, N E S O in French. Plain."""
    letters = (
        tr.pgettext("seat letter", "N"),
        tr.pgettext("seat letter", "E"),
        tr.pgettext("seat letter", "S"),
        tr.pgettext("seat letter", "W"),
    )
    return letters[seat]


def player_name(tr: Translator, players: Sequence[Player], seat: Seat) -> str:
    """The plain, shortened name of the player in ``seat`` ("Computer Noord" for a computer).

    Not escaped: for callback alerts (plain text) or to pass through :func:`esc`.
    """
    p = players[seat]
    if p.computer:
        return tr.gettext("Computer {seat}").format(seat=seat_name(tr, seat))
    return shorten(p.name) or seat_name(tr, seat)


def player_html(tr: Translator, players: Sequence[Player], seat: Seat) -> str:
    """The escaped name of the player in ``seat`` for HTML (with a 🤖 for a computer)."""
    name = esc(player_name(tr, players, seat))
    return f"🤖 {name}" if players[seat].computer else name


def mention_html(tr: Translator, players: Sequence[Player], seat: Seat) -> str:
    """Like :func:`player_html`, but a ``tg://user`` mention link when the user id is known."""
    p = players[seat]
    if p.computer or p.user_id is None:
        return bold(player_html(tr, players, seat))
    return f'<a href="tg://user?id={int(p.user_id)}">{player_html(tr, players, seat)}</a>'


def team_name(tr: Translator, players: Sequence[Player], team: Team) -> str:
    """The team named by its players, "Anna & Cas" (plain, shortened names)."""
    a, b = team.seats
    return tr.gettext("{first} & {second}").format(
        first=player_name(tr, players, a), second=player_name(tr, players, b)
    )


def team_html(tr: Translator, players: Sequence[Player], team: Team) -> str:
    """:func:`team_name` escaped for HTML."""
    return esc(team_name(tr, players, team))


def us_them(tr: Translator, team: Team, viewer: Seat) -> str:
    """ "Wij" or "Zij" (nl), "Wir"/"Sie", "Nous"/"Eux", "Us"/"Them": ``team`` seen from the
    viewer's seat, as on a paper score sheet (``rules.md`` §2.1). Plain."""
    if team is viewer.team:
        return tr.pgettext("score sheet", "Us")
    return tr.pgettext("score sheet", "Them")


def chunk(items: Sequence[T], width: int) -> tuple[tuple[T, ...], ...]:
    """Split ``items`` into rows of at most ``width``, as evenly as possible (7 → 4 + 3,
    5 → 3 + 2), keeping the order."""
    n = len(items)
    if n == 0:
        return ()
    rows = -(-n // width)
    base, extra = divmod(n, rows)
    out: list[tuple[T, ...]] = []
    i = 0
    for r in range(rows):
        size = base + (1 if r < extra else 0)
        out.append(tuple(items[i : i + size]))
        i += size
    return tuple(out)
