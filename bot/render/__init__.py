"""Player-facing text: pure functions from engine objects to HTML text and abstract buttons.

No Telegram calls, no I/O. Every function takes a :class:`bot.i18n.Translator`; every
user-supplied name is HTML-escaped where it is put into HTML. Keyboards are rows of
:class:`Button` with abstract action tokens that the bot encodes into callback data.
"""

from bot.render.common import Button, Keyboard, Player, Rendered

__all__ = ["Button", "Keyboard", "Player", "Rendered"]
