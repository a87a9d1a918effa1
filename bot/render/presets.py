"""Names of the table presets and settings in the reader's language (``rules.md`` §7)."""

from __future__ import annotations

from bot.i18n import Translator
from engine.settings import FirstLead, PlayRule, RoemMode, Settings, TrumpSelection, Variant


def preset_name(tr: Translator, preset: str) -> str:
    """The preset's name: "Amsterdams", "Rotterdamer", "Classique", "Klammern"... Plain.

    Unknown presets are shown as given (they come from the engine's own list)."""
    names = {
        "amsterdam": tr.pgettext("preset", "Amsterdam"),
        "rotterdam": tr.pgettext("preset", "Rotterdam"),
        "utrecht": tr.pgettext("preset", "Utrecht"),
        "klassiek": tr.pgettext("preset", "Classic"),
        "klammern": tr.pgettext("preset", "Klammern"),
    }
    return names.get(preset, preset)


def game_name(tr: Translator, settings: Settings) -> str:
    """ "Klaverjassen" or "Klammern" (``rules.md`` §9). Plain."""
    if settings.variant is Variant.KLAMMERN:
        return tr.pgettext("game", "Klammern")
    return tr.pgettext("game", "Klaverjassen")


def trump_selection_text(tr: Translator, mode: TrumpSelection) -> str:
    """How trump is chosen, in a few words (``rules.md`` §3, §9.3). Plain."""
    texts = {
        TrumpSelection.FREE: tr.gettext("free choice of trump, passing allowed"),
        TrumpSelection.MANDATORY: tr.gettext("the forehand must choose trump"),
        TrumpSelection.TURNED: tr.gettext("a suit is turned up: play it or pass"),
        TrumpSelection.KLAMMERN: tr.gettext("proposed card, kleintje and beter"),
    }
    return texts[mode]


def play_rule_text(tr: Translator, rule: PlayRule) -> str:
    """The play rule's name (``rules.md`` §4.3–4.4, §9.4). Plain."""
    texts = {
        PlayRule.AMSTERDAM: tr.gettext("Amsterdam trumping"),
        PlayRule.ROTTERDAM: tr.gettext("Rotterdam trumping"),
        PlayRule.KLAMMERN: tr.gettext("always trump when void"),
    }
    return texts[rule]


def roem_mode_text(tr: Translator, mode: RoemMode) -> str:
    """How roem is scored (``rules.md`` §5.5, §9.5). Plain."""
    texts = {
        RoemMode.AUTO: tr.gettext("roem is counted automatically"),
        RoemMode.CLAIM: tr.gettext("roem must be claimed"),
        RoemMode.DECLARATIONS: tr.gettext("terz, fifty and bella are declared"),
    }
    return texts[mode]


def first_lead_text(tr: Translator, first_lead: FirstLead) -> str:
    """Who leads the first trick (``rules.md`` §3.4). Plain."""
    if first_lead is FirstLead.MAKER:
        return tr.gettext("the player who chose trump leads")
    return tr.gettext("the forehand leads")


def settings_summary(tr: Translator, settings: Settings) -> str:
    """One line describing a table's rules: "vrij troef kiezen · Amsterdams troeven · ...".
    Plain."""
    parts = [
        trump_selection_text(tr, settings.trump_selection),
        play_rule_text(tr, settings.play_rule),
        roem_mode_text(tr, settings.roem),
    ]
    if settings.variant is Variant.KLAVERJASSEN:
        parts.append(first_lead_text(tr, settings.first_lead))
    else:
        parts.append(declaring_text(tr, settings))
    return " · ".join(parts)


def declaring_text(tr: Translator, settings: Settings) -> str:
    """Klammern (``rules.md`` §9.5–9.6): "melden met knoppen" or "melden gaat vanzelf". Plain."""
    if settings.auto_declare:
        return tr.gettext("declarations and bella automatic")
    return tr.gettext("declarations and bella with buttons")


def rounds_text(tr: Translator, settings: Settings) -> str:
    """The game's length: "16 rondes (boompje)", "8 rondes", or for Klammern "tot 3 grote
    punten" (``rules.md`` §2.3, §9.9). Plain."""
    if settings.variant is Variant.KLAMMERN:
        n = settings.target_big_points
        return tr.ngettext("up to {n} big point", "up to {n} big points", n).format(n=n)
    n = settings.rounds
    if n == 16:
        return tr.gettext("16 rounds (a boompje)")
    return tr.ngettext("{n} round", "{n} rounds", n).format(n=n)


def timeout_text(tr: Translator, seconds: int | None) -> str:
    """The turn time: "60 s" or "no limit" (``None`` or 0 = off). Plain."""
    if not seconds:
        return tr.gettext("no time limit")
    if seconds % 60 == 0 and seconds >= 120:
        m = seconds // 60
        return tr.ngettext("{n} minute", "{n} minutes", m).format(n=m)
    return tr.ngettext("{n} second", "{n} seconds", seconds).format(n=seconds)
