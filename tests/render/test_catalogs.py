"""The gettext catalogues (docs/design.md §8): complete, placeholders intact, template current."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg

from bot.i18n import LANGUAGES
from tests.render.helpers import TRANSLATED, catalog, ids, key, placeholders, strings, template

ROOT = Path(__file__).resolve().parents[2]


def _pot_keys() -> set[tuple[str | None, str]]:
    return {key(m) for m in template() if m.id}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_non_fuzzy_translation(lang: str) -> None:
    missing = []
    for m in catalog(lang):
        if not m.id:
            continue
        if m.fuzzy or not all(s.strip() for s in strings(m)):
            missing.append(key(m))
    assert not missing, f"{lang}: untranslated or fuzzy: {missing}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogue_holds_exactly_the_template_messages(lang: str) -> None:
    keys = {key(m) for m in catalog(lang) if m.id}
    assert keys == _pot_keys()
    assert not catalog(lang).obsolete


@pytest.mark.parametrize("lang", LANGUAGES)
def test_placeholders_match_between_msgid_and_translation(lang: str) -> None:
    bad = []
    for m in catalog(lang):
        if not m.id:
            continue
        wanted = set().union(*(placeholders(i) for i in ids(m)))
        for form in strings(m):
            if form and placeholders(form) != wanted:
                bad.append((key(m), form))
    assert not bad, bad


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_forms_match_the_languages_rule(lang: str) -> None:
    cat = catalog(lang)
    for m in cat:
        if m.id and len(ids(m)) > 1:
            assert len(strings(m)) == cat.num_plurals, key(m)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_contain_no_markup(lang: str) -> None:
    """HTML stays in the code: translators cannot break Telegram's parser."""
    for m in catalog(lang):
        for s in strings(m):
            assert "<" not in s and ">" not in s, s


def test_sheet_marks_fit_the_sheet_column() -> None:
    for lang in LANGUAGES:
        cat = catalog(lang)
        for word in ("nat", "pit"):
            m = cat.get(word, context="sheet mark")
            assert m is not None
            assert len(strings(m)[0] or word) <= 3


def test_template_is_current_with_the_code() -> None:
    """Re-extract with Babel's API (babel.cfg) and compare with the committed .pot."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)  # type: ignore[no-untyped-call]
    extracted = set()
    for _file, _line, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options_map
    ):
        msgid = message[0] if isinstance(message, tuple) else message
        extracted.add((context, msgid))
    assert extracted == _pot_keys(), (
        "locales/messages.pot is out of date: run scripts/update-locales",
        extracted ^ _pot_keys(),
    )
