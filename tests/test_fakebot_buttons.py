"""The fake Bot API checks inline keyboards like Telegram: button ``style`` (Bot API 9.4) only
"danger", "success" or "primary"; a disabled button (Bot API 10.3) only as ``"disabled": {}``
and as the button's one type; a server older than 10.3 refuses disabled buttons as text
buttons; at most 100 buttons and 8 a row; callback data of 1-64 bytes. Errors come with
Telegram's JSON shape and descriptions."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest

from tests.fakebot import FakeBotApi
from tests.fakebot.model import FakeChat


async def raw_send(api: FakeBotApi, chat: FakeChat, rows: Any) -> tuple[int, Any]:
    """sendMessage as a plain HTTP client sends it (JSON body, no PTB)."""
    body = {"chat_id": chat.id, "text": "Kies", "reply_markup": {"inline_keyboard": rows}}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{api.base_url}{api.token}/sendMessage", json=body) as response,
    ):
        return response.status, await response.json()


def _refused(description: str) -> dict[str, Any]:
    return {"ok": False, "error_code": 400, "description": description}


@pytest.fixture
def group(fake_api: FakeBotApi) -> FakeChat:
    return fake_api.add_group("Tafel", members=[fake_api.add_user("Anna")])


async def test_styles_of_the_bot_api_are_kept_and_others_refused(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat
) -> None:
    buttons = [
        InlineKeyboardButton(style, callback_data=style, style=style)
        for style in ("danger", "success", "primary")
    ]
    sent = await bot.send_message(group.id, "ok", reply_markup=InlineKeyboardMarkup([buttons]))
    stored = fake_api.last_message(group)
    assert [b.style for b in stored.buttons] == ["danger", "success", "primary"]
    assert sent.reply_markup is not None
    assert [b.style for b in sent.reply_markup.inline_keyboard[0]] == [
        "danger",
        "success",
        "primary",
    ]
    for style in ("red", "warning", "secondary", "default", "", 1):
        status, body = await raw_send(
            fake_api, group, [[{"text": "x", "callback_data": "y", "style": style}]]
        )
        assert (status, body) == (
            400,
            _refused(
                "Bad Request: can't parse inline keyboard button: Invalid button style specified"
            ),
        ), style
    with pytest.raises(
        BadRequest, match=r"^Can't parse inline keyboard button: invalid button style"
    ):
        bad = InlineKeyboardButton("x", callback_data="y", style="red")
        await bot.send_message(group.id, "x", reply_markup=InlineKeyboardMarkup([[bad]]))


async def test_a_disabled_button_is_accepted_only_as_its_own_type(
    fake_api: FakeBotApi, group: FakeChat
) -> None:
    ok = [
        [{"text": "·7♥·", "disabled": {}, "style": "danger"}, {"text": "B♥", "callback_data": "p"}]
    ]
    status, body = await raw_send(fake_api, group, ok)
    assert status == 200 and body["ok"]
    assert body["result"]["reply_markup"]["inline_keyboard"] == ok
    stored = fake_api.last_message(group)
    assert [(b.text, b.disabled, b.callback_data) for b in stored.buttons] == [
        ("·7♥·", True, None),
        ("B♥", False, "p"),
    ]
    with pytest.raises(LookupError, match="disabled"):
        await fake_api.add_user("Bob").tap(stored, "·7♥·")
    prefix = "Bad Request: can't parse inline keyboard button: "
    for button, description in (
        ({"text": "x", "disabled": True}, prefix + 'Field "disabled" must be of type Object'),
        ({"text": "x", "disabled": "yes"}, prefix + 'Field "disabled" must be of type Object'),
        ({"text": "x", "disabled": {}, "callback_data": "y"}, "Bad Request: BUTTON_TYPE_INVALID"),
        ({"text": "x", "disabled": {}, "url": "https://x.org"}, "Bad Request: BUTTON_TYPE_INVALID"),
    ):
        assert await raw_send(fake_api, group, [[button]]) == (400, _refused(description))


async def test_a_server_older_than_10_3_refuses_disabled_buttons_as_text_buttons(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat
) -> None:
    fake_api.disabled_buttons = False
    status, body = await raw_send(fake_api, group, [[{"text": "·7♥·", "disabled": {}}]])
    assert (status, body) == (
        400,
        _refused(
            "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the "
            "inline keyboard"
        ),
    )
    disabled = InlineKeyboardButton("·7♥·", api_kwargs={"disabled": {}})
    with pytest.raises(
        BadRequest, match=r"^Can't parse inline keyboard button: text buttons are unallowed"
    ):
        await bot.send_message(group.id, "x", reply_markup=InlineKeyboardMarkup([[disabled]]))
    assert not [m for m in group.all_messages if m.from_bot]
    # ordinary buttons still go
    await bot.send_message(
        group.id,
        "x",
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("7♥", callback_data="p")]]),
    )


async def test_too_many_buttons_are_refused(fake_api: FakeBotApi, group: FakeChat) -> None:
    def row(n: int) -> list[dict[str, str]]:
        return [{"text": str(i), "callback_data": str(i)} for i in range(n)]

    too_long = _refused("Bad Request: reply markup is too long")
    assert (await raw_send(fake_api, group, [row(8)] * 12 + [row(4)]))[0] == 200  # 100
    assert await raw_send(fake_api, group, [row(8)] * 12 + [row(5)]) == (400, too_long)  # 101
    assert await raw_send(fake_api, group, [row(9)]) == (400, too_long)
    status, body = await raw_send(fake_api, group, [[{"text": "a", "callback_data": "x" * 65}]])
    assert (status, body) == (400, _refused("Bad Request: BUTTON_DATA_INVALID"))
    # an edit is checked the same way
    message = fake_api.last_message(group)
    assert message is not None
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"{fake_api.base_url}{fake_api.token}/editMessageReplyMarkup",
            json={
                "chat_id": group.id,
                "message_id": message.message_id,
                "reply_markup": json.dumps({"inline_keyboard": [row(9)]}),
            },
        ) as response,
    ):
        assert (response.status, await response.json()) == (400, too_long)
