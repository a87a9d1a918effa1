"""Names of any script on the picture: glyph coverage, placeholders for what the
shipped font lacks, right-to-left order, Arabic joining, shortening with "…"."""

from __future__ import annotations

import unicodedata

import pytest

from bot.render.picture import FONT_FILES, FONTS_DIR
from bot.render.picture.shaping import join_arabic, visual_order
from bot.render.picture.text import (
    ELLIPSIS,
    MAX_MARKS,
    PLACEHOLDER,
    clusters,
    drawable,
    fit,
    font,
    has_glyph,
    visual,
    wrap,
)


def test_the_fonts_and_their_licence_ship_in_the_package() -> None:
    for name in FONT_FILES:
        assert (FONTS_DIR / name).is_file(), name
    licence = (FONTS_DIR / "LICENSE").read_text(encoding="utf-8")
    assert "Bitstream Vera" in licence and "Arev" in licence


@pytest.mark.parametrize("bold", [False, True])
def test_the_font_has_the_suits_and_accented_letters(bold: bool) -> None:
    for char in "♠♥♦♣●★■…Σ×–·éèëêàçñßøåæœÅÉÖÜŁđğışț€":
        assert has_glyph(char, bold=bold), char


def test_missing_glyphs_are_recognised() -> None:
    for char in "🏆🙂李ห":
        assert not has_glyph(char), char


def test_clusters_keep_marks_flags_and_emoji_sequences_together() -> None:
    family = "👨\u200d👩\u200d👧"
    assert clusters("e\u0301a") == ["e\u0301", "a"]
    assert clusters("🇳🇱🇩🇪") == ["🇳🇱", "🇩🇪"]
    assert clusters(f"a{family}b") == ["a", family, "b"]
    assert clusters("👍🏽!") == ["👍🏽", "!"]
    assert clusters("♥\ufe0f") == ["♥\ufe0f"]


def test_what_the_font_lacks_becomes_one_visible_placeholder_each() -> None:
    family = "👨\u200d👩\u200d👧"
    assert drawable(f"Anna {family} 🇳🇱") == [*"Anna ", PLACEHOLDER, " ", PLACEHOLDER]
    assert drawable("♥\ufe0f Cas") == ["♥", " ", "C", "a", "s"]  # the font has ♥
    assert drawable("李小龍") == [PLACEHOLDER] * 3


def test_controls_and_bidi_overrides_are_dropped_and_spaces_collapsed() -> None:
    assert "".join(drawable("\u202eAnna\u202c\u200b  \t Cas \n")) == "Anna Cas"
    assert drawable("\x00\x07") == []


def test_stacked_marks_are_capped() -> None:
    zalgo = "q" + "\u0302\u0303\u0304\u0305\u0306" + "a"  # no precomposed q with marks
    assert drawable(zalgo) == ["q" + "\u0302\u0303\u0304\u0305\u0306"[:MAX_MARKS], "a"]
    composed = drawable("Z\u0301\u0302\u0303")  # NFC: Ź, which holds one mark already
    assert composed == ["Ź\u0302"]


def test_decomposed_accents_are_composed() -> None:
    assert drawable("Jose\u0301") == [*"José"]


def test_hebrew_is_drawn_right_to_left_with_numbers_and_brackets() -> None:
    def shown(text: str) -> str:
        return "".join(visual_order(clusters(text)))

    assert shown("שרה כהן") == "ןהכ הרש"
    assert shown("שרה כהן (Sara) 2") == "2 (Sara) ןהכ הרש"
    assert shown("Cas (כהן)") == "Cas (ןהכ)"
    assert shown("Anna 2") == "Anna 2"


def test_arabic_letters_join() -> None:
    shaped = join_arabic(clusters("محمد"))
    forms = [unicodedata.decomposition(c).split()[0] for c in shaped]
    assert forms == ["<initial>", "<medial>", "<medial>", "<final>"]
    lam_alef = join_arabic(clusters("لا"))
    assert lam_alef == ["\ufefb"]  # the lam-alef ligature, isolated
    assert visual(drawable("محمد 2")).startswith("2 ")


@pytest.mark.parametrize(
    "name",
    [
        "Maximiliaan van der Wijngaarden-Oosterhuis 🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉",
        "שרה כהן שרה כהן שרה כהן שרה כהן שרה כהן שרה כהן",
        "محمد عبد الله محمد عبد الله محمد عبد الله",
    ],
)
def test_fit_shortens_visibly_to_the_width(name: str) -> None:
    f = font(22)
    shown = fit(name, f, 180)
    assert f.getlength(shown) <= 180
    assert ELLIPSIS in shown
    assert fit(name, f, 5000) == visual(drawable(name))  # wide enough: the whole name


def test_fit_falls_back_when_nothing_can_be_drawn() -> None:
    f = font(22)
    assert fit("李小龍 🐉", f, 180, fallback="West") == "West"
    assert fit("Anna 🐉", f, 180, fallback="West") == f"Anna {PLACEHOLDER}"
    assert fit("Anna", f, 1) == ""  # not even "…" fits


def test_wrap_breaks_at_spaces_within_the_width() -> None:
    f = font(18)
    text = "Per ronde: punten +roem; nat = de spelende partij ging nat, pit = alle acht slagen."
    lines = wrap(text, f, 300)
    assert len(lines) > 1 and " ".join(lines) == text
    assert all(f.getlength(line) <= 300 for line in lines)
