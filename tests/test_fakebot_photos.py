"""The fake Bot API's photo methods answer like Telegram: sendPhoto with its limits,
editMessageMedia and editMessageCaption (the score sheet as a picture)."""

from __future__ import annotations

import asyncio
import os
import random
from io import BytesIO
from unittest import mock

import pytest
from PIL import Image
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.error import BadRequest

from bot.budget import ChatBudget
from bot.i18n import get_translator
from bot.outbox import Content, Outbox
from bot.render.picture import render_sheet_png, sheet_caption, switch_button
from bot.telegram_io import markup
from tests.fakebot import FakeBotApi
from tests.fakebot.photos import png, tiny_png
from tests.render.helpers import PLAYERS as PLAYERS_HOSTILE
from tests.render.picture_views import all_nat_view


class FrozenClock:
    """Time stands still until the budget sleeps, which moves it on at once."""

    def __init__(self) -> None:
        self.t = 100.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


def switch(label: str, data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data)]])


async def test_send_photo_keeps_the_bytes_caption_and_keyboard(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    picture = png(1000, 1250)
    sent = await bot.send_photo(
        anna.id,
        picture,
        caption="🏆 <b>Anna &amp; Cas</b> winnen",
        parse_mode="HTML",
        reply_markup=switch("📝 Tekst", "s1.4.sheet:text"),
    )
    message = fake_api.last_message(anna.private_chat)
    assert message.photo_bytes == picture and message.text is None
    assert message.caption == "🏆 Anna & Cas winnen"
    assert message.entities[0]["type"] == "bold"
    assert message.keyboard_rows() == [[("📝 Tekst", "s1.4.sheet:text")]]
    largest = sent.photo[-1]
    assert (largest.width, largest.height) == (1000, 1250)
    assert largest.file_size == len(picture)
    assert sent.photo[0].width < largest.width  # a thumbnail first, like Telegram
    assert fake_api.find_messages(anna.private_chat, "winnen") == [message]


async def test_photo_limits_are_refused_with_telegrams_errors(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    with pytest.raises(BadRequest, match="Photo_invalid_dimensions"):
        await bot.send_photo(anna.id, png(9000, 1001))  # width + height > 10000
    with pytest.raises(BadRequest, match="Photo_invalid_dimensions"):
        await bot.send_photo(anna.id, png(2100, 100))  # ratio 21 > 20
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await bot.send_photo(anna.id, b"\x89PNG but not really")
    assert await bot.send_photo(anna.id, png(9000, 1000))  # exactly 10000, ratio 9: fine
    assert await bot.send_photo(anna.id, png(2000, 100))  # ratio exactly 20: fine


async def test_photo_over_ten_megabytes_is_refused(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna", started=True)
    noise = Image.frombytes("RGB", (1900, 1900), os.urandom(1900 * 1900 * 3))
    buf = BytesIO()
    noise.save(buf, format="PNG", compress_level=0)
    assert buf.tell() > 10 * 1024 * 1024
    with pytest.raises(BadRequest, match="Photo_save_file_invalid"):
        await bot.send_photo(anna.id, buf.getvalue())
    assert fake_api.chat(anna.private_chat).bot_messages == []


async def test_caption_is_limited_to_1024_characters_after_parsing(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    long = "<b>" + "x" * 1024 + "</b>"  # 1031 characters sent, 1024 shown
    sent = await bot.send_photo(anna.id, tiny_png(), caption=long, parse_mode="HTML")
    assert sent.caption == "x" * 1024
    with pytest.raises(BadRequest, match="Message caption is too long"):
        await bot.send_photo(anna.id, tiny_png(), caption="y" * 1025)
    with pytest.raises(BadRequest, match="Can't parse entities"):
        await bot.send_photo(anna.id, tiny_png(), caption="<b>open", parse_mode="HTML")


async def test_edit_media_replaces_the_picture_and_caption(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna", started=True)
    sent = await bot.send_photo(anna.id, png(10, 10), caption="ronde 3")
    new = png(20, 30, "#000000")
    edited = await bot.edit_message_media(
        InputMediaPhoto(new, caption="<b>ronde 4</b>", parse_mode="HTML"),
        chat_id=anna.id,
        message_id=sent.message_id,
        reply_markup=switch("📝 Tekst", "s1.5.sheet:text"),
    )
    assert not isinstance(edited, bool)
    message = fake_api.last_message(anna.private_chat)
    assert message.photo_bytes == new and message.caption == "ronde 4"
    assert (edited.photo[-1].width, edited.photo[-1].height) == (20, 30)
    assert message.history == [("ronde 3", None)] and message.edited
    same = edited.photo[-1].file_id  # the same file, caption and keyboard: nothing changes
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_media(
            InputMediaPhoto(same, caption="<b>ronde 4</b>", parse_mode="HTML"),
            chat_id=anna.id,
            message_id=sent.message_id,
            reply_markup=switch("📝 Tekst", "s1.5.sheet:text"),
        )
    with pytest.raises(BadRequest, match="Wrong file identifier"):
        await bot.edit_message_media(
            InputMediaPhoto("AgACnever-sent"), chat_id=anna.id, message_id=sent.message_id
        )


async def test_a_text_message_can_get_a_photo_but_a_photo_never_becomes_text(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna", started=True)
    text = await bot.send_message(anna.id, "<pre>boompje</pre>", parse_mode="HTML")
    await bot.edit_message_media(
        InputMediaPhoto(tiny_png(), caption="Boompje"), chat_id=anna.id, message_id=text.message_id
    )
    message = fake_api.last_message(anna.private_chat)
    assert message.text is None and message.caption == "Boompje"
    assert message.photo_bytes == tiny_png()
    with pytest.raises(BadRequest, match="There is no text in the message to edit"):
        await bot.edit_message_text("boompje", chat_id=anna.id, message_id=text.message_id)
    photo = await bot.send_photo(anna.id, tiny_png())
    with pytest.raises(BadRequest, match="Message caption is too long"):
        await bot.edit_message_caption(anna.id, photo.message_id, caption="z" * 1025)


async def test_edit_caption_keeps_the_photo(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna", started=True)
    picture = tiny_png()
    sent = await bot.send_photo(anna.id, picture, caption="na ronde 3")
    await bot.edit_message_caption(
        anna.id, sent.message_id, caption="<i>na ronde 4</i>", parse_mode="HTML"
    )
    message = fake_api.last_message(anna.private_chat)
    assert message.caption == "na ronde 4" and message.photo_bytes == picture
    assert message.history == [("na ronde 3", None)]
    text = await bot.send_message(anna.id, "tekst")
    with pytest.raises(BadRequest, match="There is no caption in the message to edit"):
        await bot.edit_message_caption(anna.id, text.message_id, caption="x")


async def test_messenger_sends_a_photo_within_the_budget(fake_api: FakeBotApi, bot: Bot) -> None:
    anna = fake_api.add_user("Anna", started=True)
    bert = fake_api.add_user("Bert")  # never started the bot
    forbidden: list[int] = []

    async def on_forbidden(chat_id: int) -> None:
        forbidden.append(chat_id)

    async def on_migrated(old: int, new: int) -> None:
        raise AssertionError("no migration here")

    clock = FrozenClock()
    budget = ChatBudget(clock=clock.now, sleep=clock.sleep)
    outbox = Outbox(bot, budget, on_migrated, on_forbidden)
    picture = png(100, 120)
    sent = await outbox.send_now(
        anna.id, Content("<b>Boompje</b>", switch("📝", "v1.1.sheet:text"), photo=picture)
    )
    assert sent is not None and sent.caption == "Boompje"
    assert fake_api.last_message(anna.private_chat).photo_bytes == picture
    assert budget.wait(anna.id) == 1.0  # it took the private chat's slot (1 a second)
    assert await outbox.send_now(bert.id, Content("x", photo=picture)) is None
    assert forbidden == [bert.id]
    refused = await outbox.send_now(anna.id, Content("x", photo=b"not a picture"))
    assert refused is None  # logged, never raised
    assert sum(clock.slept) >= 1.0  # the second photo to Anna waited for her chat's slot
    fallback = await outbox.send_now(anna.id, Content("x", photo=b"junk", alt="the sheet"))
    assert fallback is not None and fallback.text == "the sheet"  # refused: the text instead


async def test_a_rendered_sheet_and_its_caption_are_accepted_like_telegram_would(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    view = all_nat_view(PLAYERS_HOSTILE)
    tr = get_translator("fr")
    png_bytes = await asyncio.to_thread(render_sheet_png, view, tr)
    caption = sheet_caption(view, tr, game_end=True)
    outbox = Outbox(bot, ChatBudget(None, None), _never, _never_forbidden)
    button = switch_button(tr, to_picture=False)
    sent = await outbox.send_now(
        group.id, Content(caption, markup(((button,),), 1, 2), photo=png_bytes)
    )
    assert sent is not None
    message = fake_api.last_message(group)
    assert message.photo_bytes == png_bytes
    assert str(view.sum_total(view.winner or view.order[0])) in (message.caption or "")
    assert "<b>&Bob</b>" in (message.caption or "")  # escaped in the HTML, shown as typed
    assert message.keyboard_rows() == [[("📝 Texte", "v1.2.sheet:text")]]


async def _never(old: int, new: int) -> None:
    raise AssertionError("no migration here")


async def _never_forbidden(chat_id: int) -> None:
    raise AssertionError("no refusal here")


async def test_a_multipart_upload_that_arrives_in_uneven_pieces_is_read_whole() -> None:
    """CI of stop 28: aiohttp's multipart reader warns (``unread_data() is deprecated``) when
    a few bytes of a file part arrive alone and a large piece follows; under
    ``filterwarnings = error`` the fake answered 500 and the bot logged a traceback. Here the
    body is fed to the fake's parameter reader as 5 bytes, then 2¹⁸ + 1,000, over and over,
    each piece only once the reader has taken the one before."""
    import aiohttp
    from aiohttp.test_utils import make_mocked_request

    from tests.fakebot.params import read_params

    noise = Image.frombytes("L", (800, 800), random.Random(28).randbytes(800 * 800))
    buf = BytesIO()
    noise.save(buf, format="PNG")
    picture = buf.getvalue()
    assert len(picture) > 2 * 2**18  # more than twice aiohttp's read size for a file
    form = aiohttp.FormData()
    form.add_field("chat_id", "42")
    form.add_field("photo", picture, filename="sheet.png", content_type="image/png")
    payload = form()
    body = BytesIO()

    class Sink:
        async def write(self, data: bytes) -> None:
            body.write(data)

    await payload.write(Sink())  # type: ignore[arg-type]
    raw = body.getvalue()
    protocol = mock.Mock(_reading_paused=False)
    stream = aiohttp.StreamReader(protocol, 2**16, loop=asyncio.get_running_loop())
    request = make_mocked_request(
        "POST",
        "/botTOKEN/sendPhoto",
        headers={"Content-Type": payload.content_type, "Transfer-Encoding": "chunked"},
        payload=stream,
    )

    async def feed() -> None:
        start = 0
        while start < len(raw):
            for size in (5, 2**18 + 1000):
                stream.feed_data(raw[start : start + size])
                start += size
                # The reader takes each piece before the next: yield to it until its
                # buffer is empty or it waits for more (StreamReader has no event for that).
                while stream._buffer and stream._waiter is None:  # noqa: ASYNC110
                    await asyncio.sleep(0)
        stream.feed_eof()

    async with asyncio.timeout(30):  # a stuck reader fails the test instead of hanging it
        feeder = asyncio.create_task(feed())
        params = await read_params(request)
        await feeder
    assert params == {"chat_id": "42", "photo": picture}
