"""End to end with Telegram's group limit on (time 20 times faster, ``FastTime``): four quick
players, edits of the group's table paced within the budget, and still every trick reaches the
group: the table shows the last complete trick (its four cards, who won it, points and roem)
beside the trick in play, and a line for each trick that passed since its last edit; a
round's summary shows its last tricks the same way."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

from bot.i18n import get_translator
from bot.render.cards import card_label
from engine.cards import CARDS
from tests.bot.helpers import (
    FastTime,
    active_buttons,
    by_action,
    hand_message,
    make_app,
    open_and_fill,
    pick,
)
from tests.fakebot import FakeBotApi, run_polling
from tests.fakebot.flood import RateLimits

ROUNDS = 2
LABELS = {card_label(get_translator("en"), c) for c in CARDS}
CARD = re.compile(r"(?:10|[789JQKA])[♠♥♦♣]")


def cards_seen(texts: list[str]) -> dict[int, set[str]]:
    """Round number → the card labels the group saw in that round's trick lines (the table
    of the round, and the round's summary)."""
    seen: dict[int, set[str]] = {}
    for text in texts:
        head = re.search(r"round (\d+)/16", text)
        summary = re.search(r"Round (\d+)</b> · trump", text)
        if head is not None and "Trick " in text:
            number, part = int(head[1]), text[text.index("Trick ") :]
        elif summary is not None and "Last trick" in text:
            start = text.find("Trick ")
            number = int(summary[1])
            part = text[start if start >= 0 else text.index("Last trick") :]
        else:
            continue
        seen.setdefault(number, set()).update(c for c in CARD.findall(part) if c in LABELS)
    return seen


async def test_every_card_of_a_fast_game_reaches_the_group(tmp_path: Path) -> None:
    fast = FastTime()
    async with FakeBotApi(clock=fast.now) as api:
        api.enable_rate_limits(RateLimits(group_per_minute=20))
        humans = [api.add_user(n, language_code="en", started=True) for n in "ABCD"]
        group = api.add_group("Club", members=humans, admins=humans[:1])
        app = make_app(
            api, tmp_path / "db.sqlite3", budget=fast.budget(private=False), default_language="en"
        )
        async with run_polling(app, api) as bot:
            await open_and_fill(api, bot, group, humans)
            rng = random.Random(11)
            chat = api.chat(group)
            while (
                sum(
                    f"Round {ROUNDS}</b>" in c.params.get("text", "")
                    for c in api.calls.filter("sendMessage", "editMessageText", chat_id=group.id)
                )
                == 0
            ):
                for user in humans:
                    message = hand_message(user)
                    buttons = active_buttons(message) if message else []
                    if message is not None and buttons:
                        _, action = pick(buttons, rng)
                        await (await user.tap(message, by_action(action))).wait_answered()
                        break
                await asyncio.sleep(0.5 / fast.factor)  # quick players: two moves a second
            await bot.settle(timeout=30)
            assert chat.bot_messages
        texts = [
            str(c.params.get("text", ""))
            for c in api.calls.filter("sendMessage", "editMessageText", chat_id=group.id, ok=True)
        ]
        seen = cards_seen(texts)
        shown = sum(len(seen.get(r, ())) for r in range(1, ROUNDS + 1))
        print(f"cards shown / cards played: {shown} / {32 * ROUNDS}")
        assert shown == 32 * ROUNDS, {r: sorted(LABELS - seen.get(r, set())) for r in seen}
