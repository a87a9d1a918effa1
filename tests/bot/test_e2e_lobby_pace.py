"""End to end with the group's budget on a manual clock (``ManualClock``: the outbox's waits
move it, nothing waits in real time): a tap in the lobby is answered at once with a toast and
the lobby is redrawn within about a second of the first tap after a quiet spell, ahead of other
edits of the group; a burst of taps is drawn in few edits, the last one showing them all."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from bot.budget import GROUP, ChatBudget
from tests.fakebot import FakeBotApi, run_polling
from tests.fakebot.calls import MESSAGE_METHODS

from .helpers import by_action, make_app


class ManualClock:
    """Budget time that only moves when the outbox waits (or the test moves it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)
        await asyncio.sleep(0)


class LoggedBudget(ChatBudget):
    """The group's budget, remembering when (budget time) each call in a chat was counted."""

    def __init__(self, clock: ManualClock) -> None:
        super().__init__(GROUP, None, overall=None, clock=clock, sleep=clock.sleep)
        self.made: list[tuple[float, int, bool]] = []

    def record(self, chat_id: int, *, table: bool = False) -> None:
        self.made.append((self.clock(), chat_id, table))
        super().record(chat_id, table=table)


async def test_a_lobby_tap_is_drawn_within_a_second_and_bursts_coalesce(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    clock = ManualClock()
    budget = LoggedBudget(clock)
    anna, bert, cas, dirk = (
        fake_api.add_user(n, language_code="en", started=True)
        for n in ("Anna", "Bert", "Cas", "Dirk")
    )
    group = fake_api.add_group("Club", members=[anna, bert, cas, dirk])
    app = make_app(fake_api, tmp_path / "db.sqlite3", budget=budget, default_language="en")
    async with run_polling(app, fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        await (await bert.tap(lobby, by_action("sit:1"))).wait_answered()
        await bot.settle()
        clock.now += 1.5  # a quiet spell, shorter than the table's own pace
        tapped, calls = clock.now, len(fake_api.calls)
        tap = await cas.tap(lobby, by_action("sit:2"))
        await tap.wait_answered()  # the toast at once
        await bot.settle()
        group_calls = fake_api.calls.filter(*MESSAGE_METHODS, chat_id=group.id, since=calls)
        assert group_calls and group_calls[0].method == "editMessageText"
        assert "Cas" in str(group_calls[0].params["text"])
        drawn = [t for t, chat, _ in budget.made if chat == group.id and t >= tapped]
        assert drawn and drawn[0] - tapped <= 1.0, drawn
        # A burst: five taps, drawn at most once a (budget) second, the last edit showing
        # the last tap; never more than the table's share of the group's budget.
        calls, since = len(fake_api.calls), len(budget.made)
        for user, action in (
            (dirk, "sit:3"), (dirk, "leave"), (dirk, "sit:3"), (cas, "leave"), (cas, "sit:2"),
        ):  # fmt: skip
            await (await user.tap(lobby, by_action(action))).wait_answered()
        await bot.settle()
        edits = fake_api.calls.filter("editMessageText", chat_id=group.id, since=calls)
        assert 1 <= len(edits) <= 5
        last = str(edits[-1].params["text"])
        assert "Dirk" in last and "Cas" in last
        times = [t for t, chat, table in budget.made[since - 1 :] if chat == group.id and table]
        assert all(b - a >= GROUP.lobby_gap for a, b in itertools.pairwise(times))
        stamps = [t for t, chat, table in budget.made if chat == group.id and table]
        assert all(
            sum(1 for u in stamps if t <= u < t + GROUP.window) <= GROUP.table_limit for t in stamps
        )
    fake_api.assert_callbacks_answered_once()
