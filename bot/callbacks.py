"""Callback data: a compact, versioned claim (``design.md`` §4), never an authority.

Format (ASCII, at most 64 bytes): ``<scope><game>.<version>.<action>``

* scope ``l`` lobby, ``a`` an action in a player's hand, ``t`` the group's table message,
  ``s`` the stop confirmation;
* ``game``: the game id, ``version``: the game's state version when the button was drawn
  (``0`` for display-only buttons that never change the state);
* ``action``: an abstract token such as ``sit:2``, ``play:JH``, ``choose:H``, ``start``.

Language buttons carry no game: ``g.<scope>.<code>`` (``g.c.nl``: the chat, ``g.u.de``: the user).
Everything is re-checked against storage and the tapping user by the service.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BYTES = 64
SCOPES = frozenset("lats")
_GAME = re.compile(r"^([lats])(\d{1,18})\.(\d{1,9})\.([A-Za-z0-9:_\-]{1,40})$")
_LANG = re.compile(r"^g\.([cu])\.([a-z]{2})$")


class MalformedCallback(ValueError):
    """Callback data that is not in our format (forged, truncated or from an old bot)."""


@dataclass(frozen=True, slots=True)
class GameCallback:
    """A tap on a game button.

    Attributes:
        scope: ``l``, ``a``, ``t`` or ``s`` (see the module docstring).
        game_id: the game the button belongs to.
        version: the state version it was drawn at (0: display only).
        action: the abstract action token.
    """

    scope: str
    game_id: int
    version: int
    action: str

    def encode(self) -> str:
        """The callback data string.

        Raises:
            ValueError: when it would not fit Telegram's 64 bytes or the fields are invalid.
        """
        data = f"{self.scope}{self.game_id}.{self.version}.{self.action}"
        if self.scope not in SCOPES or not _GAME.match(data) or len(data) > MAX_BYTES:
            raise ValueError(f"cannot encode callback {data!r}")
        return data


@dataclass(frozen=True, slots=True)
class LanguageCallback:
    """A tap on a language button: ``target`` is ``c`` (the chat) or ``u`` (the user)."""

    target: str
    language: str

    def encode(self) -> str:
        """The callback data string."""
        return f"g.{self.target}.{self.language}"


def decode(data: str | None) -> GameCallback | LanguageCallback:
    """Parse callback data.

    Raises:
        MalformedCallback: for anything that is not exactly our format.
    """
    if not data or len(data.encode("utf-8", "replace")) > MAX_BYTES:
        raise MalformedCallback(data)
    m = _GAME.match(data)
    if m:
        return GameCallback(m[1], int(m[2]), int(m[3]), m[4])
    m = _LANG.match(data)
    if m:
        return LanguageCallback(m[1], m[2])
    raise MalformedCallback(data)


def game_button(scope: str, game_id: int, version: int, action: str) -> str:
    """Shorthand: encoded data for a game button."""
    return GameCallback(scope, game_id, version, action).encode()


_DEEP = re.compile(r"^(j|h)(\d{1,18})(?:_(\d))?$")


@dataclass(frozen=True, slots=True)
class DeepLink:
    """The payload of ``t.me/<bot>?start=<payload>``: ``j<game>_<seat>`` joins a seat,
    ``h<game>`` sends the player's hand."""

    kind: str
    game_id: int
    seat: int | None = None

    def encode(self) -> str:
        """The payload (``[A-Za-z0-9_]``, at most 64 characters)."""
        return f"{self.kind}{self.game_id}" + (f"_{self.seat}" if self.seat is not None else "")


def decode_deep_link(payload: str | None) -> DeepLink | None:
    """Parse a ``/start`` payload; None when absent or not ours."""
    if not payload:
        return None
    m = _DEEP.match(payload.strip())
    if not m:
        return None
    seat = int(m[3]) if m[3] is not None else None
    if m[1] == "j" and (seat is None or seat > 3):
        return None
    return DeepLink(m[1], int(m[2]), seat)
