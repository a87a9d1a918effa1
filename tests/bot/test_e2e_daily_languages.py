"""End to end: the daily reads in the reader's language from the first message to the result
(its caption, its buttons, every edit and alert). The reader's language is decided once: their
``/language`` choice, else their Telegram language, else the chat's, else English; the bot's
default (Dutch here, as in production) does not decide a private reader's language."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from tests.fakebot import FakeBotApi, run_polling
from tests.render.helpers import catalog, ids, literal_fragments, strings, visible_text

from .helpers import make_app, play_to_end
from .test_e2e_daily import Clock

LANGS = ("nl", "de", "fr", "en")

RESULT_START = {
    "de": "Tagesspiel",
    "fr": "Partie du jour du",
    "en": "Daily of",
}


@cache
def texts_of(lang: str) -> str:
    """Everything ``lang``'s catalogue writes (the msgids for English)."""
    cat = catalog("nl" if lang == "en" else lang)
    if lang == "en":
        return "\n".join(i for m in cat if m.id for i in ids(m))
    return "\n".join(s for m in cat for s in strings(m) if s)


@cache
def foreign_fragments(lang: str) -> frozenset[str]:
    """Text fragments (8+ characters) of the other languages that ``lang`` never writes."""
    own = texts_of(lang)
    out: set[str] = set()
    for other in LANGS:
        if other == lang:
            continue
        for text in texts_of(other).split("\n"):
            for frag in literal_fragments(text):
                if len(frag) >= 8 and any(c.isalpha() for c in frag) and frag not in own:
                    out.add(frag)
    return frozenset(out)


def foreign(text: str, lang: str) -> list[str]:
    """Fragments of other languages found in ``text``."""
    shown = visible_text(text)
    return sorted(f for f in foreign_fragments(lang) if f in shown)


@pytest.mark.parametrize("telegram", ["de", "fr", "en", None])
async def test_a_whole_daily_reads_in_the_readers_language(
    fake_api: FakeBotApi, tmp_path: Path, telegram: str | None
) -> None:
    lang = telegram or "en"
    kim = fake_api.add_user("Kim", language_code=telegram, started=True)
    app = make_app(
        fake_api,
        tmp_path / "db.sqlite3",
        clock=Clock(),
        default_language="nl",
        config={"daily_level": "random", "daily_secret": "test-secret"},
    )
    async with run_polling(app, fake_api) as bot:
        await kim.send(None, "/daily")
        await bot.settle()
        await play_to_end(bot, [kim], random.Random(5), chat=kim.private_chat)
        await bot.settle()
        await kim.send(None, "/daily")  # the board later that day
        await bot.settle()
    chat_id = kim.record.id
    got: list[str] = []
    for call in fake_api.calls.filter(chat_id=chat_id):
        for name in ("text", "caption"):
            if call.params.get(name):
                got.append(str(call.params[name]))
        markup = call.param("reply_markup")
        if isinstance(markup, dict):
            got += [b["text"] for row in markup.get("inline_keyboard", []) for b in row]
    got += [
        str(c.params["text"])
        for c in fake_api.calls.filter("answerCallbackQuery")
        if c.params.get("text")
    ]
    photos = fake_api.calls.filter("sendPhoto", chat_id=chat_id)
    result = [c for c in photos if RESULT_START[lang] in str(c.params.get("caption", ""))]
    assert result, [str(c.params.get("caption", ""))[:40] for c in photos]
    assert len(got) > 50
    leftovers = {t[:60]: foreign(t, lang) for t in got if foreign(t, lang)}
    assert not leftovers
