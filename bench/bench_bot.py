"""Telegram traffic of a game, measured against the fake Bot API on 127.0.0.1.

One human and three computer players in a group, the production settings (the outbox's
message budget: Telegram's limits, the table's edits within 15 a minute). The simulated
human waits ``--think`` seconds before each tap, like a quick player. Prints:

* Bot API calls per card played (everything but getUpdates and start-up calls);
* the largest number of group messages (sent + edited) in any 60 s;
* the time from a tap to the callback answer and to the last API call it caused.

Run: ``python bench/bench_bot.py [--rounds 2] [--think 2.0] [--level basic]`` (real time:
about rounds × 9 × think seconds). Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.budget import ChatBudget
from tests.bot.helpers import (
    active_buttons,
    by_action,
    hand_message,
    make_app,
    open_and_fill,
    pick,
)
from tests.fakebot import FakeBotApi, run_polling

IGNORED = {"getUpdates", "setMyCommands", "deleteWebhook", "getMe", "logOut", "close"}


async def run(rounds: int, think: float, level: str, seed: int) -> dict[str, float]:
    """Play ``rounds`` rounds and return the measurements."""
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotApi() as api:
            human = api.add_user("Anna", language_code="nl", started=True)
            group = api.add_group("Club", members=[human], admins=[human])
            app = make_app(
                api,
                Path(tmp) / "bench.sqlite3",
                level=level,
                budget=ChatBudget(),
                computer_delay=1.0,
                timeout=0,
            )
            rng = random.Random(seed)
            answer_ms: list[float] = []
            last_call_ms: list[float] = []
            async with run_polling(app, api) as bot:
                await open_and_fill(api, bot, group, [human], computers=3)
                start_calls = len(api.calls)
                while True:
                    await bot.settle(timeout=30)
                    message = hand_message(human)
                    buttons = active_buttons(message) if message else []
                    if not buttons or _rounds_done(api, group) >= rounds:
                        break
                    await asyncio.sleep(think)
                    _, action = pick(buttons, rng)
                    assert message is not None
                    seen = len(api.calls)
                    t0 = time.monotonic()
                    tap = await human.tap(message, by_action(action))
                    record = await tap.wait_answered(timeout=30)
                    answer_ms.append(((record.answered_at or t0) - t0) * 1000)
                    await bot.settle(timeout=30)
                    caused = [c for c in api.calls.filter(since=seen) if c.method not in IGNORED]
                    if caused:
                        last_call_ms.append((max(c.finished for c in caused) - t0) * 1000)
                calls = [c for c in api.calls.filter(since=start_calls) if c.method not in IGNORED]
                cards = _cards_played(tmp)
            return {
                "rounds": _rounds_done(api, group),
                "cards": cards,
                "calls": len(calls),
                "calls_per_card": len(calls) / max(cards, 1),
                "group_max_per_60s": _max_in_window(api, group.id, start_calls),
                "answer_ms_median": statistics.median(answer_ms),
                "last_call_ms_median": statistics.median(last_call_ms),
                "last_call_ms_p95": _p95(last_call_ms),
            }


def _rounds_done(api: FakeBotApi, group: object) -> int:
    return sum(1 for m in api.chat(group).all_messages if m.from_bot and m.text.startswith("🏁"))  # type: ignore[arg-type]


def _cards_played(tmp: str) -> int:
    import sqlite3

    with sqlite3.connect(Path(tmp) / "bench.sqlite3") as db:
        return int(
            db.execute("SELECT count(*) FROM game_actions WHERE action LIKE '%:play:%'").fetchone()[
                0
            ]
        )


def _max_in_window(api: FakeBotApi, chat_id: int, since: int, window: float = 60.0) -> int:
    """Most group messages (sent + edited) in any ``window`` seconds of play (the lobby
    before the start is left out)."""
    times = sorted(
        c.started
        for c in api.calls.filter("sendMessage", "editMessageText", chat_id=chat_id, since=since)
        if c.status == 200
    )
    best = lo = 0
    for hi, t in enumerate(times):
        while t - times[lo] >= window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def _p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(0.95 * len(values)))]


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--think", type=float, default=2.0)
    parser.add_argument("--level", default="basic")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(run(args.rounds, args.think, args.level, args.seed))
    for key, value in result.items():
        print(f"{key:22s} {value:10.1f}")


if __name__ == "__main__":
    main()
