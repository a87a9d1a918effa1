"""Shared helpers of the render tests: a Telegram-HTML checker, game states from random legal
play, the catalogue's English fragments, and test players with hostile names."""

from __future__ import annotations

import html
import random
import re
import string
from collections.abc import Iterator
from functools import cache

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from bot.i18n import LANGUAGES, LOCALES_DIR, po_path
from bot.render.common import Button, Player
from bot.taps import AlertsOff, DailyTap, ForgetMe, PickLanguage, TopPeriod, encode, token
from engine.game import GameState
from engine.settings import PRESETS, Settings

PRESET_NAMES = tuple(PRESETS)
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != "en")
HOSTILE = "<b>&Bob</b>"
PLAYERS = (
    Player("Anna", user_id=11),
    Player(HOSTILE, user_id=12),
    Player("Cas & <i>Co</i>"),
    Player("", computer=True),
)

ALLOWED_TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre",
    "tg-spoiler", "span", "blockquote", "tg-emoji",
}  # fmt: skip
_TOKEN = re.compile(
    r"<(?P<close>/?)(?P<tag>[a-zA-Z][a-zA-Z-]*)(?P<attrs>(?:\s+[a-z-]+=\"[^\"<>]*\")*)\s*>"
    r"|&(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);"
    r"|(?P<bad>[<>&])"
)


def check_telegram_html(text: str) -> None:
    """Raise AssertionError unless ``text`` is valid for ``parse_mode=HTML``: only Telegram's
    tags, balanced and properly nested, links with an href, no raw ``<``, ``>`` or ``&``, and
    at most 4096 characters after parsing."""
    stack: list[str] = []
    for m in _TOKEN.finditer(text):
        if m.group("bad"):
            raise AssertionError(
                f"raw {m.group('bad')!r} at {m.start()}: {text[m.start() - 30 : m.start() + 30]!r}"
            )
        tag = m.group("tag")
        if tag is None:
            continue
        tag = tag.lower()
        assert tag in ALLOWED_TAGS, f"tag <{tag}> not allowed"
        if m.group("close"):
            assert stack and stack[-1] == tag, f"unbalanced </{tag}> in {text!r}"
            stack.pop()
        else:
            if tag == "a":
                assert "href=" in m.group("attrs"), "link without href"
            assert "pre" not in stack or tag == "code", f"<{tag}> inside <pre>"
            stack.append(tag)
    assert not stack, f"unclosed tags {stack}"
    assert len(visible_text(text)) <= 4096


def visible_text(text: str) -> str:
    """What Telegram shows: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def random_states(preset: str, seed: int, max_steps: int = 300) -> Iterator[GameState]:
    """Game states along random legal play from a fresh game (every state, including the
    first), until the game ends or ``max_steps`` actions."""
    game = GameState.new(Settings.from_preset(preset, rounds=8), seed)
    rng = random.Random(seed)
    yield game
    for _ in range(max_steps):
        if game.is_over:
            return
        legal = game.legal_actions()
        game, _ = game.apply(legal[rng.randrange(len(legal))])
        yield game


def sample_states(preset: str, seed: int, every: int = 7, max_steps: int = 300) -> list[GameState]:
    """Every ``every``-th state of :func:`random_states`, plus the last one."""
    states = list(random_states(preset, seed, max_steps))
    return [*states[::every], states[-1]]


@cache
def finished_game(preset: str, seed: int) -> GameState:
    """A whole 16-round game of random legal play, finished."""
    game = GameState.new(Settings.from_preset(preset), seed)
    rng = random.Random(seed)
    while not game.is_over:
        legal = game.legal_actions()
        game, _ = game.apply(legal[rng.randrange(len(legal))])
    return game


@cache
def catalog(lang: str) -> Catalog:
    """The parsed ``.po`` catalogue of a language."""
    with po_path(lang).open("rb") as f:
        return read_po(f)


@cache
def template() -> Catalog:
    """The parsed ``messages.pot``."""
    with (LOCALES_DIR / "messages.pot").open("rb") as f:
        return read_po(f)


def ids(message: Message) -> tuple[str, ...]:
    """A message's msgid, or its singular and plural msgids."""
    raw = message.id
    return tuple(raw) if isinstance(raw, tuple | list) else (str(raw),)


def strings(message: Message) -> tuple[str, ...]:
    """A message's translation, or its plural forms ("" when untranslated)."""
    raw = message.string
    if isinstance(raw, tuple | list):
        return tuple(raw)
    return (raw or "",)


def key(message: Message) -> tuple[str | None, str]:
    """``(msgctxt, msgid)``: what identifies a message in a catalogue."""
    return (message.context, ids(message)[0])


def placeholders(text: str) -> set[str]:
    """The named ``{placeholders}`` of a message."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def literal_fragments(text: str) -> list[str]:
    """The literal text between placeholders, stripped."""
    return [lit.strip() for lit, _, _, _ in string.Formatter().parse(text) if lit.strip()]


@cache
def english_fragments(lang: str) -> frozenset[str]:
    """English text fragments of the msgids that must not show up in ``lang`` output: at
    least five characters with a letter, and not also part of any ``lang`` translation (so
    shared words such as "Roem!", "Klammern" or "Start" do not count)."""
    cat = catalog(lang)
    blob = "\n".join(s for m in cat for s in strings(m) if s)
    out = set()
    for m in cat:
        if not m.id:
            continue
        for msgid in ids(m):
            for frag in literal_fragments(msgid):
                if len(frag) >= 5 and any(c.isalpha() for c in frag) and frag not in blob:
                    out.add(frag)
    return frozenset(out)


def untranslated(text: str, lang: str) -> list[str]:
    """English fragments found in rendered ``text`` of a translated language."""
    shown = visible_text(text)
    return sorted(f for f in english_fragments(lang) if f in shown)


def tok(button: Button) -> str:
    """The wire token of a button's tap (``sit:2``, ``play:JH``, ``lang:nl``; "" for a link)."""
    if isinstance(button.action, PickLanguage):
        return f"lang:{button.action.language}"
    if isinstance(button.action, DailyTap | TopPeriod | ForgetMe | AlertsOff):
        return encode(button.action)
    return token(button.action) if button.action is not None else ""
