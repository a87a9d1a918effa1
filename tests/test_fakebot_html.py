"""The fake's HTML parser agrees with Telegram's (cases from tdlib's own test suite)."""

from __future__ import annotations

import pytest

from tests.fakebot import HtmlParseError, parse_html, utf16_len
from tests.fakebot.html_parser import strip_text

E = "🏟 🏟"  # two 4-byte characters around a space: 9 bytes, 5 UTF-16 units


@pytest.mark.parametrize(
    ("html", "error"),
    [
        (f"{E}&lt;<abacaba", "Unclosed start tag at byte offset 13"),
        (f"{E}&lt;<abac aba>", 'Unsupported start tag "abac" at byte offset 13'),
        (f"{E}&lt;<abac>", 'Unsupported start tag "abac" at byte offset 13'),
        (f"{E}&lt;<i   =aba>", 'Empty attribute name in the tag "i" at byte offset 13'),
        (
            f"{E}&lt;<i    aba>",
            'Expected equal sign in declaration of an attribute of the tag "i" at byte offset 13',
        ),
        (f"{E}&lt;<i    aba  =  ", 'Unclosed start tag "i" at byte offset 13'),
        (f"{E}&lt;<i    aba  =  190azAz-.,", "Unexpected end of name token at byte offset 27"),
        (f'{E}&lt;<i    aba  =  "&lt;&gt;&quot;>', "Unclosed start tag at byte offset 13"),
        (f"{E}&lt;</", "Unexpected end tag at byte offset 13"),
        (f"{E}&lt;<b></b></", "Unexpected end tag at byte offset 20"),
        (f"{E}&lt;<i>a</i   ", "Unclosed end tag at byte offset 17"),
        (
            f"{E}&lt;<i>a</em   >",
            'Unmatched end tag at byte offset 17, expected "</i>", found "</em>"',
        ),
        ("<b>x", 'Can\'t find end tag corresponding to start tag "b"'),
        ('<tg-emoji emoji-id="x">y</tg-emoji>', "Invalid custom emoji identifier specified"),
        ("&#57311;", "Text contains invalid Unicode characters after decoding HTML entities"),
    ],
)
def test_malformed_html_gets_telegrams_message(html: str, error: str) -> None:
    with pytest.raises(HtmlParseError) as caught:
        parse_html(html, strict=False)
    assert str(caught.value).startswith(error)


@pytest.mark.parametrize(
    ("html", "text", "entities"),
    [
        ("&lt;&gt;&amp;&quot;&laquo;&#12345678;", '<>&"&laquo;&#12345678;', []),
        (f"{E}<i>{E}</i>", E * 2, [("italic", 5, 5)]),
        (f"{E}<i>🏟 &lt🏟</i>", f"{E}🏟 <🏟", [("italic", 5, 6)]),
        (
            f"{E}<i>🏟 &gt;<b aba   =   caba>&lt🏟</b></i>",
            f"{E}🏟 ><🏟",
            [("italic", 5, 7), ("bold", 9, 3)],
        ),
        (f"{E}&lt;<i>a</    >", f"{E}<a", [("italic", 6, 1)]),
        (f"{E}&lt;<b></b>", f"{E}<", []),
        (
            "<code><i><b> </b></i></code>",
            " ",
            [("code", 0, 1), ("bold", 0, 1), ("italic", 0, 1)],
        ),
        ('<pre><code class="language-py">x</code></pre>', "x", [("pre", 0, 1)]),
        ("<pre><code>x</code></pre>", "x", [("pre", 0, 1), ("code", 0, 1)]),
        ('<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler>', "st",
         [("spoiler", 0, 1), ("spoiler", 1, 1)]),
        ("<blockquote>q</blockquote>", "q", [("blockquote", 0, 1)]),
        ("<blockquote expandable>q</blockquote>", "q", [("expandable_blockquote", 0, 1)]),
        ('<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>', "👍",
         [("custom_emoji", 0, 2)]),
        ("<s>a</s><strike>b</strike><del>c</del><u>d</u><ins>e</ins>", "abcde",
         [("strikethrough", 0, 1), ("strikethrough", 1, 1), ("strikethrough", 2, 1),
          ("underline", 3, 1), ("underline", 4, 1)]),
    ],
)  # fmt: skip
def test_valid_html_gives_text_and_entities(
    html: str, text: str, entities: list[tuple[str, int, int]]
) -> None:
    parsed = parse_html(html, strict=False)
    assert parsed.text == text
    assert [(e["type"], e["offset"], e["length"]) for e in parsed.entities] == entities


@pytest.mark.parametrize(
    ("html", "url"),
    [
        ("<a href=telegram.org>x</a>", "http://telegram.org/"),
        ("<a   href=  'telegram.org?&lt;'   >x</a>", "http://telegram.org/?<"),
        ("<a>telegram.org</a>", "http://telegram.org/"),
        ('<a href="https://t.me/bot?start=g1">x</a>', "https://t.me/bot?start=g1"),
        ("<a>telegram.org </a>", None),
        ("<a href='asdasd'>x</a>", None),
    ],
)
def test_links_are_checked_like_telegram(html: str, url: str | None) -> None:
    entities = parse_html(html, strict=False).entities
    assert [e["url"] for e in entities] == ([url] if url else [])


def test_user_links_become_text_mentions() -> None:
    def resolve(user_id: int) -> dict[str, object] | None:
        return {"id": user_id, "is_bot": False, "first_name": "Anna"} if user_id == 7 else None

    parsed = parse_html('<a href="tg://user?id=7">Anna</a>', resolve_user=resolve)
    assert parsed.entities == [
        {
            "type": "text_mention",
            "offset": 0,
            "length": 4,
            "user": {"id": 7, "is_bot": False, "first_name": "Anna"},
        }
    ]


@pytest.mark.parametrize("html", ["Tom & Jerry", "10 > 9", "&laquo;"])
def test_strict_mode_refuses_what_telegram_would_keep_as_text(html: str) -> None:
    assert parse_html(html, strict=False).text == html
    with pytest.raises(HtmlParseError, match="must be escaped"):
        parse_html(html, strict=True)


def test_stripping_moves_entities_in_utf16_units() -> None:
    parsed = parse_html("\n 😀 <b>vet</b> \n")
    stripped = strip_text(parsed.text, parsed.entities)
    assert stripped.text == "😀 vet"
    assert stripped.entities == [{"offset": 3, "length": 3, "type": "bold"}]
    assert utf16_len(stripped.text) == 6
