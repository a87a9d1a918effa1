"""Languages: one :class:`Translator` per update, never a global locale (``design.md`` §5).

The catalogues are ``locales/<lang>/LC_MESSAGES/messages.po`` (the source of truth, managed
with ``pybabel extract/update``, see ``locales/README.md``). ``locales`` is a data-only package:
the ``.po`` files are package data, read through :mod:`importlib.resources`, so a source
checkout, ``pip install -e .`` and an installed wheel all find them. They are compiled **in
memory** the first time a language is asked for (Babel's ``read_po`` + ``write_mo`` into a
``BytesIO``, then :class:`gettext.GNUTranslations`), so a fresh clone needs no compile step and
no ``.mo`` file.

Message ids are English; placeholders are named and filled with :meth:`str.format`::

    tr = get_translator("nl")
    tr.gettext("{name} plays").format(name=...)
    tr.ngettext("{n} trick", "{n} tricks", n).format(n=n)
    tr.pgettext("card rank", "J")          # "B" in Dutch, "V" in French

Which language a reader gets is :func:`resolve_language` (``design.md`` §5).
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from io import BytesIO

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LANGUAGES: tuple[str, ...] = ("nl", "de", "fr", "en")
"""The supported languages, in menu order."""

DEFAULT_LANGUAGE = "nl"
"""The fallback when nothing else decides ("else Dutch")."""

SOURCE_LANGUAGE = "en"
"""The language of the msgids."""

READER_FALLBACK = "en"
"""The language of a reader about whom nothing is known: no ``/language`` choice, no Telegram
language, a chat without a language (a private chat; a group always has one, see
:func:`reader_language`)."""

LANGUAGE_NAMES: dict[str, str] = {
    "nl": "Nederlands",
    "de": "Deutsch",
    "fr": "Français",
    "en": "English",
}
"""Each language's name in itself (endonyms: shown untranslated in the language picker)."""

LANGUAGE_FLAGS: dict[str, str] = {"nl": "🇳🇱", "de": "🇩🇪", "fr": "🇫🇷", "en": "🇬🇧"}

LOCALES_DIR: Traversable = files("locales")
"""Where the ``.po`` catalogues live: the ``locales`` package's data (the top-level
``locales/`` directory of the repository, or its installed copy)."""

DOMAIN = "messages"


@dataclass(frozen=True, slots=True, eq=False)
class Translator:
    """The texts of one language. Get one with :func:`get_translator`.

    Attributes:
        language: the language code (one of :data:`LANGUAGES`).
    """

    language: str
    _catalog: gettext.NullTranslations

    def gettext(self, message: str) -> str:
        """The translation of ``message`` (the English msgid itself when untranslated)."""
        return self._catalog.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        """The singular or plural form for the count ``n`` by the language's plural rule."""
        return self._catalog.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        """The translation of ``message`` in ``context`` (``msgctxt``), for short ambiguous
        words such as rank letters."""
        return self._catalog.pgettext(context, message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        """:meth:`ngettext` with a context."""
        return self._catalog.npgettext(context, singular, plural, n)


def normalize_language(code: str | None) -> str | None:
    """Map a language code to a supported language, or None.

    ``"de-AT"``, ``"de_CH"`` and ``"DE"`` give ``"de"``; ``"pt-br"``, ``""`` and None give None.
    """
    if not code:
        return None
    base = code.strip().replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


def resolve_language(
    chat_language: str | None,
    user_language: str | None,
    telegram_language_code: str | None,
    default: str = DEFAULT_LANGUAGE,
    *,
    private: bool,
) -> str:
    """The language in which to write to a reader (``design.md`` §5).

    Args:
        chat_language: the chat's ``/language`` setting (None if never set).
        user_language: the user's own ``/language`` setting from their private chat.
        telegram_language_code: ``User.language_code`` from Telegram (e.g. ``"de-AT"``).
        default: the bot's default language (``DEFAULT_LANGUAGE`` setting); an unsupported
            default falls back to Dutch.
        private: True when the text is for this user alone: a private chat (hand, welcome),
            and also callback-query alerts, which only the tapping user sees.
            False for a group message everybody reads; then ``telegram_language_code`` is
            that of the user the message answers (for a table: its creator).

    Returns:
        Private: the user's setting, else the Telegram language code, else the chat's setting,
        else the default. Group ("the group's setting, else the user's Telegram
        language, else Dutch"): the chat's setting, else the Telegram language code, else the
        default. Unsupported values are skipped (``de-AT`` counts as ``de``).
    """
    chain: tuple[str | None, ...]
    if private:
        chain = (user_language, telegram_language_code, chat_language)
    else:
        chain = (chat_language, telegram_language_code)
    for code in chain:
        lang = normalize_language(code)
        if lang is not None:
            return lang
    return normalize_language(default) or DEFAULT_LANGUAGE


def reader_language(
    user_language: str | None,
    telegram_language_code: str | None,
    chat_language: str | None,
) -> str:
    """The one language of a reader, used for everything written to them alone: their hands
    and sheets, the daily, ``/top``, ``/stats``, callback alerts (``design.md`` §5).

    Args:
        user_language: the reader's ``/language`` choice (None: never chose).
        telegram_language_code: the reader's Telegram ``language_code`` (the one of the
            update, else the last one stored).
        chat_language: the language of the chat the text belongs to: a group's (its
            setting, else the bot's default: always decided), a private chat's setting
            (usually None).

    Returns:
        The first supported of the three, else :data:`READER_FALLBACK` (English).
    """
    for code in (user_language, telegram_language_code, chat_language):
        lang = normalize_language(code)
        if lang is not None:
            return lang
    return READER_FALLBACK


def po_path(language: str, locales_dir: Traversable = LOCALES_DIR) -> Traversable:
    """The ``.po`` file of ``language`` (a path-like resource; open it with ``.open("rb")``)."""
    return locales_dir / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_catalog(po_file: Traversable) -> gettext.GNUTranslations:
    """Compile one ``.po`` file in memory (fuzzy entries are left out, as ``pybabel compile``
    does) and load it as a :class:`gettext.GNUTranslations`."""
    with po_file.open("rb") as f:
        catalog = read_po(f)
    buf = BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def get_translator(language: str | None) -> Translator:
    """The cached :class:`Translator` for a language code (normalized, so ``"de-AT"`` gives
    German; unsupported codes and None give the default language). Compiles the catalogue on
    first use.

    Raises:
        FileNotFoundError: when a supported language's ``.po`` file is missing.
    """
    return _load(normalize_language(language) or DEFAULT_LANGUAGE)


@cache
def _load(language: str) -> Translator:
    return Translator(language, compile_catalog(po_path(language)))


def preload() -> None:
    """Compile every catalogue now (call at start-up so a broken ``.po`` fails early)."""
    for lang in LANGUAGES:
        get_translator(lang)
