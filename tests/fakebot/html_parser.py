"""Telegram's ``parse_mode=HTML``: the same grammar and error messages as Telegram's parser.

Telegram (tdlib's ``parse_html``) works on the UTF-8 bytes of the text: tags are ``b``,
``strong``, ``i``, ``em``, ``u``, ``ins``, ``s``, ``strike``, ``del``, ``span`` (only with
``class="tg-spoiler"``), ``tg-spoiler``, ``a`` (``href``), ``code`` (``class="language-x"``),
``pre``, ``blockquote`` (``expandable``) and ``tg-emoji`` (``emoji-id``); entities are ``&lt;``
``&gt;`` ``&amp;`` ``&quot;`` and numeric ones.  Errors name a byte offset, for example
``Unsupported start tag "br" at byte offset 0``.  Entity offsets and lengths are counted in
UTF-16 code units.

Telegram itself keeps a bare ``&`` (one that starts no known entity) and a bare ``>`` as text.
With ``strict=True`` (the fake server's default) both are refused, so a missing
``html.escape`` shows up in tests even for names such as ``Tom & Jerry``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]

TAGS = frozenset(
    {
        "a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler",
        "tg-emoji", "span", "pre", "code", "blockquote",
    }
)  # fmt: skip
_SIMPLE = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline",
    "ins": "underline", "s": "strikethrough", "strike": "strikethrough",
    "del": "strikethrough", "tg-spoiler": "spoiler",
}  # fmt: skip
_NAMED = {b"lt": ord("<"), b"gt": ord(">"), b"amp": ord("&"), b"quot": ord('"')}
_SPACE = frozenset(b" \t\r\n\v\f\x00")  # tdlib's is_space; 0 also ends the text
_LT, _GT, _AMP, _SLASH, _EQ = ord("<"), ord(">"), ord("&"), ord("/"), ord("=")
# Telegram's order for entities sharing offset and length (tdlib's type priorities).
_PRIORITY = {
    "blockquote": 0, "expandable_blockquote": 0, "pre": 11, "code": 20, "text_link": 49,
    "text_mention": 49, "bold": 90, "italic": 91, "underline": 92, "strikethrough": 93,
    "spoiler": 94, "custom_emoji": 99,
}  # fmt: skip


class HtmlParseError(ValueError):
    """The text is not valid Telegram HTML; ``str(error)`` is Telegram's message."""


@dataclass(frozen=True, slots=True)
class FormattedText:
    """Text as Telegram stores it: plain text plus Bot API ``MessageEntity`` dicts."""

    text: str
    entities: list[JSONDict] = field(default_factory=list)


@dataclass(slots=True)
class _Open:
    tag: str
    argument: str
    offset: int  # UTF-16 offset in the output
    out_pos: int  # byte position in the output
    expandable: bool


def utf16_len(text: str) -> int:
    """Return the length of ``text`` in UTF-16 code units, as Telegram counts."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _decode_entity(data: bytes, pos: int) -> tuple[int, int] | None:
    """Decode the HTML entity at ``pos`` (which holds ``&``): (code point, next position)."""
    size = len(data)

    def at(i: int) -> int:
        return data[i] if i < size else 0

    end = pos + 1
    code = 0
    if at(end) == ord("#"):
        end += 1
        if at(end) == ord("x"):
            end += 1
            while chr(at(end)) in "0123456789abcdefABCDEF" and at(end):
                code = code * 16 + int(chr(data[end]), 16)
                end += 1
        else:
            while ord("0") <= at(end) <= ord("9"):
                code = code * 10 + data[end] - ord("0")
                end += 1
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return None
    else:
        while chr(at(end)).isascii() and chr(at(end)).isalpha():
            end += 1
        named = _NAMED.get(data[pos + 1 : end])
        if named is None:
            return None
        code = named
    if at(end) == ord(";"):
        end += 1
    return code, end


def _checked_link(url: str) -> str | None:
    """A simplified ``LinkManager::get_checked_link``: the normalized URL, or None."""
    if not url or any(ch.isspace() for ch in url):
        return None
    lowered = url.lower()
    if lowered.startswith(("tg:", "ton://")):
        return url
    if not lowered.startswith(("http://", "https://")):
        if "://" in lowered or ":" in lowered.split("/", 1)[0].split("?", 1)[0]:
            return None
        url = f"http://{url}"
    scheme, _, rest = url.partition("://")
    host, sep, tail = rest.partition("/")
    if not sep and ("?" in host or "#" in host):
        cut = min(i for i in (host.find("?"), host.find("#")) if i >= 0)
        host, tail, sep = host[:cut], host[cut:], "/"
    domain = host.rsplit("@", 1)[-1].split(":", 1)[0]
    if "." not in domain or not domain.rsplit(".", 1)[1].isalpha():
        return None
    return f"{scheme}://{host}/{tail}"


class _Parser:
    def __init__(
        self, source: str, strict: bool, resolve_user: Callable[[int], JSONDict | None] | None
    ) -> None:
        self.data = source.encode("utf-8", "surrogatepass")
        self.strict = strict
        self.resolve_user = resolve_user
        self.out = bytearray()
        self.u16 = 0
        self.entities: list[JSONDict] = []
        self.stack: list[_Open] = []
        self.saw_surrogate = False

    def at(self, i: int) -> int:
        return self.data[i] if i < len(self.data) else 0

    def run(self) -> FormattedText:
        i = 0
        while i < len(self.data):
            c = self.data[i]
            if c == _AMP:
                decoded = _decode_entity(self.data, i)
                if decoded is not None:
                    code, i = decoded
                    self.saw_surrogate |= 0xD800 <= code <= 0xDFFF
                    self.out += chr(code).encode("utf-8", "surrogatepass")
                    self.u16 += 2 if code > 0xFFFF else 1
                    continue
                if self.strict:
                    raise HtmlParseError(
                        f'Character "&" must be escaped as "&amp;" at byte offset {i} '
                        "(strict mode of the fake Bot API; Telegram keeps it as text)"
                    )
            if c == _GT and self.strict:
                raise HtmlParseError(
                    f'Character ">" must be escaped as "&gt;" at byte offset {i} '
                    "(strict mode of the fake Bot API; Telegram keeps it as text)"
                )
            if c != _LT:
                if c & 0xC0 != 0x80:  # first byte of a UTF-8 sequence
                    self.u16 += 2 if c >= 0xF0 else 1
                self.out.append(c)
                i += 1
                continue
            i = self.start_tag(i) if self.at(i + 1) != _SLASH else self.end_tag(i)
        if self.stack:
            raise HtmlParseError(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].tag}"'
            )
        if self.saw_surrogate:
            raise HtmlParseError(
                "Text contains invalid Unicode characters after decoding HTML entities, "
                "check for unmatched surrogate code units"
            )
        self.entities.sort(key=lambda e: (e["offset"], -e["length"], _PRIORITY[e["type"]]))
        return FormattedText(self.out.decode("utf-8"), self.entities)

    def start_tag(self, begin: int) -> int:
        at = self.at
        i = begin + 1
        while at(i) not in _SPACE and at(i) != _GT:
            i += 1
        if at(i) == 0:
            raise HtmlParseError(f"Unclosed start tag at byte offset {begin}")
        tag = self.data[begin + 1 : i].decode("utf-8", "replace").lower()
        if tag not in TAGS:
            raise HtmlParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
        argument, expandable = "", False
        while at(i) != _GT:
            while at(i) != 0 and at(i) in _SPACE:
                i += 1
            if at(i) == _GT:
                break
            name_begin = i
            while at(i) not in _SPACE and at(i) not in (_EQ, _GT):
                i += 1
            name = self.data[name_begin:i].decode("utf-8", "replace")
            if not name:
                raise HtmlParseError(
                    f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
                )
            while at(i) != 0 and at(i) in _SPACE:
                i += 1
            if at(i) != _EQ:
                if tag == "blockquote" and name == "expandable" and at(i) != 0:
                    expandable = True
                    continue
                raise HtmlParseError(
                    "Expected equal sign in declaration of an attribute of the tag "
                    f'"{tag}" at byte offset {begin}'
                )
            i += 1
            while at(i) != 0 and at(i) in _SPACE:
                i += 1
            if at(i) == 0:
                raise HtmlParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
            value, i = self.attribute_value(i)
            if at(i) == 0:
                raise HtmlParseError(f"Unclosed start tag at byte offset {begin}")
            if tag == "a" and name == "href":
                argument = value
            elif tag == "code" and name == "class" and value.startswith("language-"):
                argument = value.removeprefix("language-")
            elif tag == "span" and name == "class" and value.startswith("tg-"):
                argument = value.removeprefix("tg-")
            elif tag == "tg-emoji" and name == "emoji-id":
                argument = value
        if tag == "span" and argument != "spoiler":
            raise HtmlParseError(f'Tag "span" must have class "tg-spoiler" at byte offset {begin}')
        self.stack.append(_Open(tag, argument, self.u16, len(self.out), expandable))
        return i + 1

    def attribute_value(self, i: int) -> tuple[str, int]:
        at = self.at
        quote = at(i)
        if quote not in (ord("'"), ord('"')):
            token_begin = i
            while chr(at(i)).isascii() and (chr(at(i)).isalnum() or at(i) in b".-") and at(i):
                i += 1
            if at(i) not in _SPACE and at(i) != _GT:
                raise HtmlParseError(f"Unexpected end of name token at byte offset {token_begin}")
            return self.data[token_begin:i].decode("utf-8", "replace").lower(), i
        i += 1
        value = bytearray()
        while at(i) != quote and at(i) != 0:
            if at(i) == _AMP:
                decoded = _decode_entity(self.data, i)
                if decoded is not None:
                    code, i = decoded
                    value += chr(code).encode("utf-8", "surrogatepass")
                    continue
            value.append(at(i))
            i += 1
        if at(i) == quote:
            i += 1
        return value.decode("utf-8", "replace"), i

    def end_tag(self, begin: int) -> int:
        at = self.at
        if not self.stack:
            raise HtmlParseError(f"Unexpected end tag at byte offset {begin}")
        i = begin + 1
        while at(i) not in _SPACE and at(i) != _GT:
            i += 1
        end_name = self.data[begin + 2 : i].decode("utf-8", "replace").lower()
        while at(i) in _SPACE and at(i) != 0:
            i += 1
        if at(i) != _GT:
            raise HtmlParseError(f"Unclosed end tag at byte offset {begin}")
        top = self.stack[-1]
        if end_name and end_name != top.tag:
            raise HtmlParseError(
                f'Unmatched end tag at byte offset {begin}, expected "</{top.tag}>", '
                f'found "</{end_name}>"'
            )
        if self.u16 > top.offset:
            self.add_entity(top, top.offset, self.u16 - top.offset)
        self.stack.pop()
        return i + 1

    def add_entity(self, top: _Open, offset: int, length: int) -> None:
        tag, arg = top.tag, top.argument
        entity: JSONDict = {"offset": offset, "length": length}
        last = self.entities[-1] if self.entities else None
        same_span = last is not None and (last["offset"], last["length"]) == (offset, length)
        if tag in _SIMPLE or (tag == "span" and arg == "spoiler"):
            entity["type"] = _SIMPLE.get(tag, "spoiler")
        elif tag == "tg-emoji":
            if not arg.isdigit() or int(arg) == 0:
                raise HtmlParseError("Invalid custom emoji identifier specified")
            entity.update(type="custom_emoji", custom_emoji_id=arg)
        elif tag == "blockquote":
            entity["type"] = "expandable_blockquote" if top.expandable else "blockquote"
        elif tag == "a":
            url = arg or self.out[top.out_pos :].decode("utf-8", "replace")
            user = self._mentioned_user(url)
            if user is not None:
                entity.update(type="text_mention", user=user)
            else:
                link = _checked_link(url)
                if link is None:
                    return
                entity.update(type="text_link", url=link)
        elif tag == "pre":
            if same_span and last is not None and last["type"] == "code" and "language" in last:
                last["type"] = "pre"
                return
            entity["type"] = "pre"
        else:  # code
            if same_span and last is not None and last["type"] == "pre" and arg:
                last["language"] = arg
                return
            entity["type"] = "code"
            if arg:
                entity["language"] = arg  # kept only until an enclosing <pre> claims it
        self.entities.append(entity)

    def _mentioned_user(self, url: str) -> JSONDict | None:
        prefix = "tg://user?id="
        if self.resolve_user is None or not url.lower().startswith(prefix):
            return None
        user_id = url[len(prefix) :]
        if not user_id.isdigit():
            return None
        return self.resolve_user(int(user_id))


def parse_html(
    source: str,
    *,
    strict: bool = True,
    resolve_user: Callable[[int], JSONDict | None] | None = None,
) -> FormattedText:
    """Parse Telegram HTML into plain text and entities.

    Raises:
        HtmlParseError: with Telegram's message (``Unsupported start tag "x" at byte offset 3``).
    """
    result = _Parser(source, strict, resolve_user).run()
    for entity in result.entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    return result


def strip_text(text: str, entities: list[JSONDict]) -> FormattedText:
    """Strip leading and trailing whitespace as Telegram does, moving and clipping entities."""
    stripped = text.strip()
    if stripped == text:
        return FormattedText(text, entities)
    head = utf16_len(text[: len(text) - len(text.lstrip())])
    size = utf16_len(stripped)
    kept: list[JSONDict] = []
    for entity in entities:
        start = max(entity["offset"] - head, 0)
        end = min(entity["offset"] + entity["length"] - head, size)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return FormattedText(stripped, kept)
