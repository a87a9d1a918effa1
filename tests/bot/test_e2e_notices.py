"""End to end against the fake Bot API: notices about seats live on the
table message (one line, replaced), reminders disappear once obsolete, and a reader without
a Telegram language reads the group's language everywhere."""

from __future__ import annotations

from pathlib import Path

from tests.bot.helpers import active_buttons, by_action, hand_message, make_app, open_and_fill
from tests.fakebot import FakeBotApi, run_polling
from tests.fakebot.model import Button, FakeChat


def _group_sends(api: FakeBotApi, group: FakeChat) -> int:
    return api.calls.count("sendMessage", chat_id=group.id)


def _reclaim(button: Button) -> bool:
    return "reclaim:" in str(button.callback_data)


async def test_hand_over_take_back_and_timeout_are_one_line_on_the_table(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """A hand-over, a take-back and a timeout post no group message of their own;
    the table's last line says the latest; the "⏰" reminder is deleted once the computer
    played for the player."""
    anna, bert = (fake_api.add_user(n, language_code="nl", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    app = make_app(fake_api, tmp_path / "db.sqlite3", timeout=4)
    async with run_polling(app, fake_api) as bot:
        # 💡 on: a seat handed over may come back in the same round
        table = await open_and_fill(fake_api, bot, group, [anna, bert], computers=2, tips=True)
        sends = _group_sends(fake_api, group)
        hand = hand_message(bert)
        assert hand is not None
        await (await bert.tap(hand, by_action("handover"))).wait_answered()
        await bot.settle()
        confirm = hand_message(bert)
        assert confirm is not None
        await (await bert.tap(confirm, by_action("handover:yes"))).wait_answered()
        await bot.settle()
        assert "Bert heeft de plaats" in table.body.splitlines()[-1]
        offer = next(
            m for m in reversed(bert.private_chat.messages) if any(map(_reclaim, m.buttons))
        )
        await (await bert.tap(offer, _reclaim)).wait_answered()
        await bot.settle()
        assert "Bert is terug" in table.body.splitlines()[-1]
        assert "Bert heeft de plaats" not in table.body
        assert _group_sends(fake_api, group) == sends
        # Nobody acts: the waiting player is reminded, then the computer plays for them.
        waiting = next(u for u in (anna, bert) if (m := hand_message(u)) and active_buttons(m))
        reminder = await fake_api.wait_for(
            lambda: next((m for m in waiting.private_chat.messages if "⏰" in m.body), None),
            timeout=10,
        )
        await fake_api.wait_for(lambda: "De tijd is om" in table.body, timeout=10)
        await bot.settle()
        assert "De tijd is om" in table.body.splitlines()[-1]
        assert "Bert is terug" not in table.body
        assert reminder.deleted
        assert _group_sends(fake_api, group) == sends


async def test_a_reader_without_telegram_language_reads_the_groups_language(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """A user whose Telegram sends no language, in a German group, gets German
    toasts, a German hand and German reminders (not the bot's default, Dutch)."""
    anna = fake_api.add_user("Anna", language_code=None, started=True)
    group = fake_api.add_group("Klub", members=[anna], admins=[anna])
    app = make_app(fake_api, tmp_path / "db.sqlite3", timeout=4, default_language="nl")
    async with run_polling(app, fake_api) as bot:
        await bot.app.bot_data["app"].service.people.set_chat_language(
            group.id, "group", "Klub", "de"
        )
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        seated = await anna.tap(lobby, by_action("sit:0"))
        await seated.wait_answered()
        assert seated.text is not None and "Nord" in seated.text
        for _ in range(3):
            await (await anna.tap(lobby, by_action("bot:add"))).wait_answered()
            await bot.settle()
        await (await anna.tap(lobby, by_action("start"))).wait_answered()
        await bot.settle()
        await fake_api.wait_for(
            lambda: (m := hand_message(anna)) is not None and bool(active_buttons(m)), timeout=10
        )
        hand = hand_message(anna)
        assert hand is not None
        assert any("Computer für mich spielen lassen" in b.text for b in hand.buttons)
        reminder = await fake_api.wait_for(
            lambda: next((m for m in anna.private_chat.messages if "⏰" in m.body), None),
            timeout=10,
        )
        assert "du bist am Zug" in reminder.body
        await bot.settle(timeout=10)
