"""Photo methods: ``sendPhoto`` and ``editMessageMedia``, with Telegram's photo limits.

An uploaded photo (multipart) is decoded with Pillow to learn its size; a photo given by
``file_id`` must be one this server handed out; a URL is accepted unseen (the fake fetches
nothing) as 800 × 600. Limits as the Bot API documents them for ``sendPhoto``: at most 10 MB,
width + height at most 10000, the ratio of the sides at most 20; the caption at most 1024
characters after entity parsing (:mod:`.content`). Refusals use the descriptions Telegram
sends: ``PHOTO_SAVE_FILE_INVALID`` (too big), ``PHOTO_INVALID_DIMENSIONS``,
``IMAGE_PROCESS_FAILED`` (not an image).

``editMessageMedia`` replaces the photo and caption of a photo message, or adds a photo to a
text message (Bot API: "edit ... photo ... messages, or ... add media to text messages");
only ``type: photo`` is modelled. A photo message can never become a text message:
``editMessageText`` on it answers "there is no text in the message to edit".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from io import BytesIO
from typing import TYPE_CHECKING, Any

from PIL import Image, UnidentifiedImageError

from . import errors
from .api_messages import _own_message, _post
from .content import check_reply_markup, format_text
from .errors import bad_request
from .params import Params
from .registry import api_method

if TYPE_CHECKING:
    from .calls import ApiCall
    from .server import FakeBotApi

JSONDict = dict[str, Any]

MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_PHOTO_SIDES = 10_000
MAX_PHOTO_RATIO = 20
_URL_SIZE = (800, 600)
_SCALES = (90, 320, 800, 1280)
"""Longest side of the sizes Telegram keeps of a photo (the last one capped at the
original)."""


@dataclass(frozen=True, slots=True)
class Photo:
    """A photo as the server stored it: its ``file_id``, bytes (empty for a URL) and size."""

    file_id: str
    data: bytes
    width: int
    height: int

    def sizes(self) -> list[JSONDict]:
        """The ``PhotoSize`` array of a ``Message.photo``, smallest first."""
        out = []
        longest = max(self.width, self.height)
        for i, side in enumerate(_SCALES):
            scale = min(1.0, side / longest)
            w, h = max(1, round(self.width * scale)), max(1, round(self.height * scale))
            last = i == len(_SCALES) - 1 or side >= longest
            out.append(
                {
                    "file_id": self.file_id if last else f"{self.file_id}_{side}",
                    "file_unique_id": f"u{self.file_id}_{side}",
                    "width": w,
                    "height": h,
                    "file_size": len(self.data) if last else min(len(self.data), side * side),
                }
            )
            if last:
                break
        return out


def _dimensions(data: bytes) -> tuple[int, int]:
    try:
        with Image.open(BytesIO(data)) as image:
            return image.size
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise bad_request(errors.IMAGE_PROCESS_FAILED) from exc


def _check_limits(size: int, width: int, height: int) -> None:
    if size > MAX_PHOTO_BYTES:
        raise bad_request(errors.PHOTO_TOO_BIG)
    short, long = sorted((width, height))
    if width + height > MAX_PHOTO_SIDES or long > MAX_PHOTO_RATIO * short:
        raise bad_request(errors.PHOTO_INVALID_DIMENSIONS)


def store_photo(api: FakeBotApi, chat_id: int, value: Any, uploads: Params) -> Photo:
    """Check and keep a photo given as upload bytes, ``attach://<name>`` (a file part of
    ``uploads``), a ``file_id`` from this server, or a URL."""
    if isinstance(value, str) and value.startswith("attach://"):
        value = uploads.raw.get(value.removeprefix("attach://"))
        if value is None:
            raise bad_request("can't find attached file")
    if value is None or value == "":
        raise bad_request("there is no photo in the request")
    if isinstance(value, bytes):
        width, height = _dimensions(value)
        _check_limits(len(value), width, height)
        file_id = f"AgACfake{chat_id}x{len(api.photos) + 1}"
        photo = Photo(file_id, value, width, height)
    elif str(value) in api.photos:
        return api.photos[str(value)]
    elif str(value).lower().startswith(("http://", "https://")):
        file_id = f"AgACfake{chat_id}x{len(api.photos) + 1}"
        photo = Photo(file_id, b"", *_URL_SIZE)
    else:
        raise bad_request("wrong file identifier/HTTP URL specified")
    api.photos[photo.file_id] = photo
    api.files[photo.file_id] = photo.data
    return photo


def _caption(api: FakeBotApi, p: Params) -> Any:
    return format_text(
        p,
        text_field="caption",
        entities_field="caption_entities",
        required=False,
        strict_html=api.strict_html,
        resolve_user=api.world.user_json,
    )


@api_method("sendPhoto")
async def send_photo(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Post a photo with an optional caption and keyboard; the bytes are kept on the
    message (``FakeMessage.photo_bytes``)."""
    chat = api.world.writable_chat(p.chat_id())
    photo = store_photo(api, chat.id, p.raw.get("photo"), p)
    formatted = _caption(api, p)
    return _post(
        api,
        chat,
        p,
        formatted,
        photo=photo.sizes(),
        photo_bytes=photo.data,
        caption=formatted.text if formatted else None,
    )


@api_method("editMessageMedia")
async def edit_message_media(api: FakeBotApi, p: Params, call: ApiCall) -> Any:
    """Replace a photo message's photo and caption, or turn a text message into a photo
    message; without ``reply_markup`` the keyboard is removed."""
    chat, message = _own_message(api, p)
    media = p.decoded("media", "InputMedia")
    if not isinstance(media, dict) or not media.get("media"):
        raise bad_request("can't parse InputMedia JSON object")
    if media.get("type") != "photo":
        raise bad_request(f"the fake Bot API models photo media only, not {media.get('type')!r}")
    inner = Params({k: media.get(k) for k in ("caption", "parse_mode", "caption_entities")})
    formatted = _caption(api, inner)
    markup = check_reply_markup(p, inline_only=True, disabled_buttons=api.disabled_buttons)
    photo = store_photo(api, chat.id, media["media"], p)
    caption = formatted.text if formatted else None
    same = (
        message.photo is not None
        and message.photo[-1]["file_id"] == photo.file_id
        and message.caption == caption
        and markup == message.reply_markup
    )
    if same:
        raise bad_request(errors.NOT_MODIFIED)
    message.history.append((message.text or message.caption, message.reply_markup))
    message.text = None
    message.source_text = None
    message.photo = photo.sizes()
    message.photo_bytes = photo.data
    message.caption = caption
    message.entities = formatted.entities if formatted else []
    message.parse_mode = inner.text("parse_mode")
    message.reply_markup = markup
    message.edit_date = int(time.time())
    return message.to_api(chat)
