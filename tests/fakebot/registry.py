"""The table of Bot API methods the fake server implements.

Method names are case-insensitive, as on Telegram; a handler gets the server, the call's
parameters and its call-log entry, and returns the ``result`` or raises ``ApiError``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .calls import ApiCall
    from .params import Params
    from .server import FakeBotApi

Handler = Callable[["FakeBotApi", "Params", "ApiCall"], Awaitable[Any]]

#: lower-case method name -> (canonical name, handler)
METHODS: dict[str, tuple[str, Handler]] = {}


def api_method(*names: str) -> Callable[[Handler], Handler]:
    """Register a coroutine function as the handler of one or more Bot API methods."""

    def register(handler: Handler) -> Handler:
        for name in names:
            METHODS[name.lower()] = (name, handler)
        return handler

    return register


def lookup(name: str) -> tuple[str, Handler] | None:
    """The canonical name and handler of a method, or None if the fake does not have it."""
    return METHODS.get(name.lower())
