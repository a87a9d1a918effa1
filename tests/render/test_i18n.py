"""bot.i18n: language resolution (design.md §5) and in-memory catalogues."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    LOCALES_DIR,
    get_translator,
    normalize_language,
    resolve_language,
)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("de-AT", "de"),
        ("de_CH", "de"),
        ("DE", "de"),
        ("nl", "nl"),
        ("fr-BE", "fr"),
        ("en-GB", "en"),
        ("pt-br", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_language_maps_regional_codes_to_the_base_language(
    code: str | None, expected: str | None
) -> None:
    assert normalize_language(code) == expected


def test_private_chat_prefers_the_users_own_setting() -> None:
    assert resolve_language("fr", "de", "en-US", private=True) == "de"


def test_private_chat_falls_back_to_the_telegram_language_code() -> None:
    assert resolve_language("fr", None, "de-AT", private=True) == "de"


def test_private_chat_then_the_chat_setting_then_the_default() -> None:
    assert resolve_language("fr", None, None, private=True) == "fr"
    assert resolve_language(None, None, None, private=True) == DEFAULT_LANGUAGE
    assert resolve_language(None, None, "pt-br", "en", private=True) == "en"


def test_unsupported_user_code_is_skipped_not_fatal() -> None:
    assert resolve_language("fr", "xx", "pt", private=True) == "fr"


def test_group_uses_the_chats_setting_else_the_users_telegram_language() -> None:
    assert resolve_language("fr", "de", "en", private=False) == "fr"
    assert resolve_language(None, "de", "en", private=False) == "en"
    assert resolve_language(None, "de", "pt-BR", private=False) == DEFAULT_LANGUAGE
    assert resolve_language(None, "de", None, "de", private=False) == "de"


def test_default_language_is_dutch_and_a_bad_default_falls_back_to_dutch() -> None:
    assert DEFAULT_LANGUAGE == "nl"
    assert resolve_language(None, None, None, "klingon", private=False) == "nl"


def test_translators_are_cached_per_language() -> None:
    assert get_translator("de") is get_translator("de")
    assert get_translator("de-AT") is get_translator("de")
    assert get_translator("xx").language == DEFAULT_LANGUAGE


def test_resolved_translator_translates() -> None:
    tr = get_translator(resolve_language(None, None, "fr-CA", private=True))
    assert tr.language == "fr"


@pytest.mark.parametrize(("lang", "jack"), [("nl", "B"), ("de", "B"), ("fr", "V"), ("en", "J")])
def test_pgettext_translates_the_jack_per_language(lang: str, jack: str) -> None:
    assert get_translator(lang).pgettext("card rank", "J") == jack


def test_ngettext_uses_each_languages_plural_rule() -> None:
    nl, fr = get_translator("nl"), get_translator("fr")
    assert nl.ngettext("{n} trick", "{n} tricks", 0).format(n=0) == "0 slagen"
    assert nl.ngettext("{n} trick", "{n} tricks", 1).format(n=1) == "1 slag"
    assert fr.ngettext("{n} trick", "{n} tricks", 0).format(n=0) == "0 pli"
    assert fr.ngettext("{n} trick", "{n} tricks", 2).format(n=2) == "2 plis"


def test_npgettext_is_available() -> None:
    tr = get_translator("de")
    assert tr.npgettext("nothing", "{n} thing", "{n} things", 2) == "{n} things"


def test_catalogues_are_compiled_in_memory_without_mo_files() -> None:
    source = Path(__file__).resolve().parents[2] / "locales"
    assert Path(str(LOCALES_DIR)) == source  # a source checkout reads its own catalogues
    assert not list(source.rglob("*.mo"))
    for lang in LANGUAGES:
        assert get_translator(lang).language == lang
