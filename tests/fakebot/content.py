"""Checks on what the bot sends: formatted text (parse modes, length) and reply markup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import errors
from .errors import bad_request, parse_entities_error
from .html_parser import FormattedText, HtmlParseError, parse_html, strip_text, utf16_len
from .params import Params

JSONDict = dict[str, Any]

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64
MAX_BUTTONS = 100  # per keyboard, and per row below: Telegram's undocumented limits
MAX_ROW = 8  # (python-telegram-bot's InlineKeyboardMarkupLimit)
BUTTON_STYLES = ("danger", "success", "primary")  # Bot API 9.4: red, green, blue
_BUTTON_ACTIONS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay", "disabled",
)  # fmt: skip
_URL_SCHEMES = ("http://", "https://", "tg://")


def format_text(
    p: Params,
    *,
    text_field: str = "text",
    mode_field: str = "parse_mode",
    entities_field: str = "entities",
    required: bool = True,
    strict_html: bool = True,
    resolve_user: Callable[[int], JSONDict | None] | None = None,
) -> FormattedText | None:
    """Parse a text parameter like Telegram: parse mode, stripping, emptiness and length.

    Returns None for an absent optional text (a caption).  HTML is fully validated; Markdown
    and MarkdownV2 texts are stored unparsed (not validated by the fake).
    """
    is_caption = text_field == "caption"
    source = p.text(text_field)
    if not source:
        if required:
            raise bad_request(errors.TEXT_EMPTY)
        return None
    mode = (p.text(mode_field) or "").strip()
    if mode.lower() == "html":
        try:
            formatted = parse_html(source, strict=strict_html, resolve_user=resolve_user)
        except HtmlParseError as exc:
            raise parse_entities_error(str(exc)) from exc
    elif mode.lower() in ("markdown", "markdownv2"):
        formatted = FormattedText(source, [])
    elif mode:
        raise bad_request("unsupported parse_mode")
    else:
        entities = p.decoded(entities_field, "message entities")
        formatted = FormattedText(source, list(entities or []))
    formatted = strip_text(formatted.text, formatted.entities)
    if not formatted.text:
        if required:
            raise bad_request(errors.TEXT_EMPTY)
        return None
    limit = MAX_CAPTION if is_caption else MAX_TEXT
    if utf16_len(formatted.text) > limit:
        raise bad_request(errors.CAPTION_TOO_LONG if is_caption else errors.MESSAGE_TOO_LONG)
    return formatted


def check_reply_markup(
    p: Params, *, inline_only: bool = False, disabled_buttons: bool = True
) -> JSONDict | None:
    """Validate ``reply_markup``; return it decoded, or None when absent.

    Inline buttons need exactly one action (``disabled``, Bot API 10.3, counts as one: a
    ``DisabledButton`` object, ``{}``); ``callback_data`` must be 1-64 bytes
    (``BUTTON_DATA_INVALID``), ``url`` an http(s) or tg link (``BUTTON_URL_INVALID``) and
    ``style`` one of "danger", "success", "primary" (Bot API 9.4). At most 100 buttons, 8 a
    row ("reply markup is too long"). ``disabled_buttons=False`` models a server older than
    Bot API 10.3: it ignores ``disabled``, so a disabled button is a text button, refused.
    """
    markup = p.decoded("reply_markup", "reply keyboard markup JSON object")
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        if inline_only:
            raise bad_request("inline keyboard expected")
        return markup
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array')
    if sum(len(row) for row in rows) > MAX_BUTTONS or any(len(row) > MAX_ROW for row in rows):
        raise bad_request(errors.REPLY_MARKUP_TOO_LONG)
    for row in rows:
        for button in row:
            _check_button(button, disabled_buttons=disabled_buttons)
    return markup


def _check_button(button: Any, *, disabled_buttons: bool) -> None:
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad_request('can\'t find field "text"')
    style = button.get("style")
    if style is not None and style not in BUTTON_STYLES:
        raise bad_request(errors.BUTTON_STYLE_INVALID)
    known = _BUTTON_ACTIONS if disabled_buttons else _BUTTON_ACTIONS[:-1]
    actions = [name for name in known if name in button]
    if not actions:
        raise bad_request(errors.TEXT_BUTTONS_UNALLOWED)
    if "disabled" in actions:
        if not isinstance(button["disabled"], dict):
            raise bad_request(errors.DISABLED_NOT_OBJECT)
        if len(actions) > 1:
            # The Bot API: "Exactly one of the fields other than text, icon_custom_emoji_id,
            # and style must be used"; the fake refuses a disabled button with a second type.
            raise bad_request(errors.BUTTON_TYPE_INVALID)
    data = button.get("callback_data")
    if data is not None:
        size = len(str(data).encode("utf-8"))
        if not isinstance(data, str) or not 1 <= size <= MAX_CALLBACK_DATA:
            raise bad_request(errors.BUTTON_DATA_INVALID)
    url = button.get("url")
    if url is not None and (
        not isinstance(url, str) or not url.lower().startswith(_URL_SCHEMES) or " " in url
    ):
        raise bad_request(errors.BUTTON_URL_INVALID)
