"""What a game costs in the chat, against the fake Bot API on 127.0.0.1 with
Telegram's limits switched on and the production message budget and computer pace.

Time for the budget, the computers' pace and the fake's rate model runs ``--speed`` times
faster than real time (a 60 s window takes 60/speed real seconds); the tap → answer times
are real milliseconds. Scenarios:

* ``4h``: four humans in a group;
* ``1h3c``: one human and three computer players in a group;
* ``talk``: four humans and a command every 4 s in the group.

Prints per scenario: sends+edits per card in the group and in the private chats, the peak
group sends+edits in any 60 s, repository transactions per human card tap (up to the
moment the bot is idle again, computers' moves included) and per move (each human or
computer action), and tap → callback answer p50 / p95 in real milliseconds.

Run: ``python bench/bench_chat.py [--cards 64] [--speed 20]``. Asserts nothing.
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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

COUNTED = ("sendMessage", "editMessageText")


async def run(scenario: str, cards: int, speed: float, seed: int) -> dict[str, float]:
    """Play ``cards`` human card taps of ``scenario``; return the measurements."""
    fast = FastTime(speed)
    humans_n = 1 if scenario == "1h3c" else 4
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotApi(clock=fast.now) as api:
            api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
            humans = [api.add_user(n, language_code="nl", started=True) for n in "ABCD"[:humans_n]]
            group = api.add_group("Club", members=humans, admins=humans[:1])
            app = make_app(
                api,
                Path(tmp) / "bench.sqlite3",
                level="basic",
                budget=fast.budget(),
                computer_delay=1.0,
            )
            rng = random.Random(seed)
            answer_ms: list[float] = []
            transactions: list[int] = []
            moves: list[int] = []
            async with run_polling(app, api) as bot:
                await open_and_fill(api, bot, group, humans, computers=4 - humans_n)
                service = app.bot_data["app"].service
                repo = service.repo
                start = len(api.calls)
                played = commands = 0
                next_command = fast.now()
                while played < cards:
                    if scenario == "talk" and fast.now() >= next_command:
                        await humans[commands % 4].send(group, "/score")
                        commands += 1
                        next_command += 4.0
                    await bot.settle(timeout=60)
                    turn = next(
                        (
                            (u, m)
                            for u in humans
                            if (m := hand_message(u)) is not None and active_buttons(m)
                        ),
                        None,
                    )
                    if turn is None:
                        await fast.sleep(1.0)
                        continue
                    user, message = turn
                    _, action = pick(active_buttons(message), rng)
                    before = repo.transactions
                    moves_before = await _moves(service)
                    t0 = time.monotonic()
                    tap = await user.tap(message, by_action(action))
                    await tap.wait_answered(timeout=30)
                    answer_ms.append((time.monotonic() - t0) * 1000)
                    await bot.settle(timeout=60)
                    if action.startswith("play:"):
                        played += 1
                        transactions.append(repo.transactions - before)
                        moves.append(await _moves(service) - moves_before)
                    await fast.sleep(1.5)  # a quick player
                calls = [c for c in api.calls.filter(*COUNTED, since=start) if c.ok]
            group_calls = sum(1 for c in calls if c.chat_id == group.id)
            answer_ms.sort()
            return {
                "human_cards": played,
                "group_per_card": group_calls / played,
                "private_per_card": (len(calls) - group_calls) / played,
                "group_peak_60s": api.calls.max_in_window(group.id, 60.0, COUNTED),
                "429s": sum(1 for c in api.calls.errors(start) if c.status == 429),
                "transactions_per_tap": statistics.mean(transactions),
                "transactions_per_tap_max": max(transactions),
                "transactions_per_move": sum(transactions) / sum(moves),
                "answer_ms_p50": answer_ms[len(answer_ms) // 2],
                "answer_ms_p95": answer_ms[int(len(answer_ms) * 0.95)],
            }


async def _moves(service: Any) -> int:
    """Actions in the log of game 1 (a human's and the computers' moves)."""
    table = await service.tables.load(1)
    return len(table.state.log) if table is not None and table.state is not None else 0


def main() -> None:
    """Command line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=64)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenario", choices=("4h", "1h3c", "talk"), action="append")
    args = parser.parse_args()
    for scenario in args.scenario or ("4h", "1h3c", "talk"):
        cards = args.cards if scenario != "1h3c" else max(8, args.cards // 4)
        result = asyncio.run(run(scenario, cards, args.speed, args.seed))
        print(scenario, " ".join(f"{k}={v:.2f}" for k, v in result.items()), flush=True)


if __name__ == "__main__":
    main()
