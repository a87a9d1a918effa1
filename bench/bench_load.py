"""Load (issue 10 item 7): tap → answer with many tables at once, in real time.

Each table is a solo game in a private chat: one human and three computer players (the
``strong`` level in the bot's process pool, ``--workers`` processes), the computers shown at
the default pace (1 s a move). Every human thinks 0.5–2 s before each tap. The fake Bot API
(127.0.0.1, in this process) enforces Telegram's limits (one message a second per private
chat, 20 a minute per group). Optionally a group floods meanwhile (``--flood``: 300 /help and
/score from 30 members in about a second).

Prints, per number of tables: taps, tap → callback answer p50 / p95 / max (ms), taps answered
after 1 s and after Telegram's 15 s, ``BrokenProcessPool`` / error log lines, resident memory
per table (KiB, the whole process's growth divided by the tables: the fake's share included).

Run: ``python bench/bench_load.py [--tables 1 10 50 100] [--seconds 60] [--flood]``.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.budget import ChatBudget
from tests.bot.helpers import active_buttons, by_action, hand_message, make_app, pick
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.flood import RateLimits


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def _player(
    api: FakeBotApi,
    user: SimUser,
    rng: random.Random,
    until: float,
    latencies: list[float],
) -> None:
    """One human: wait for the turn, think, tap; until the time is up."""
    chat = user.private_chat
    while time.monotonic() < until:
        message = hand_message(user, chat)
        buttons = active_buttons(message) if message is not None else []
        if message is None or not buttons:
            await api.wait_for(
                lambda: (m := hand_message(user, chat)) is not None and bool(active_buttons(m)),
                timeout=max(until - time.monotonic(), 0.1) + 60,
                what="a turn",
            )
            continue
        await asyncio.sleep(rng.uniform(0.5, 2.0))
        message = hand_message(user, chat)
        if message is None or not active_buttons(message):
            continue
        _, action = pick(active_buttons(message), rng)
        t0 = time.monotonic()
        tap = await user.tap(message, by_action(action))
        await tap.wait_answered(timeout=60)
        latencies.append(time.monotonic() - t0)
        await asyncio.sleep(0.05)  # let the hand edit arrive before looking again


async def run(tables: int, seconds: float, workers: int, flood: bool) -> dict[str, float]:
    """``tables`` solo games for ``seconds``; returns the measurements."""
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with FakeBotApi() as api:
                api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
                humans = [
                    api.add_user(f"P{i}", language_code="nl", started=True) for i in range(tables)
                ]
                crowd = [api.add_user(f"M{i}", language_code="nl", started=True) for i in range(30)]
                busy = api.add_group("Busy", members=crowd, admins=crowd[:1])
                app = make_app(
                    api,
                    Path(tmp) / "db.sqlite3",
                    level="strong",
                    workers=workers,
                    budget=ChatBudget(),
                    computer_delay=1.0,
                )
                latencies: list[float] = []
                async with run_polling(app, api, fail_on_log_errors=False, shutdown_timeout=30):
                    rss0 = _rss_kib()
                    for user in humans:
                        await user.send(user.private_chat, "/klaverjas")
                    until = time.monotonic() + seconds
                    rngs = [random.Random(i) for i in range(tables)]
                    players = [
                        asyncio.create_task(_player(api, u, r, until, latencies))
                        for u, r in zip(humans, rngs, strict=True)
                    ]
                    if flood:
                        await asyncio.sleep(min(10.0, seconds / 3))
                        for i in range(300):
                            await crowd[i % 30].send(busy, "/help" if i % 2 else "/score")
                    await asyncio.gather(*players, return_exceptions=True)
                    rss1 = _rss_kib()
    finally:
        logging.getLogger().removeHandler(errors)
    latencies.sort()
    n = len(latencies)
    return {
        "taps": n,
        "p50_ms": latencies[n // 2] * 1000 if n else 0.0,
        "p95_ms": latencies[int(n * 0.95)] * 1000 if n else 0.0,
        "max_ms": latencies[-1] * 1000 if n else 0.0,
        "over_1s": sum(1 for x in latencies if x > 1.0),
        "over_15s": sum(1 for x in latencies if x > 15.0),
        "pool_errors": sum(1 for line in errors.lines if "Broken" in line or "pool" in line),
        "error_logs": len(errors.lines),
        "kib_per_table": (rss1 - rss0) / tables,
    }


def main() -> None:
    """Command line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 50, 100])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--flood", action="store_true")
    args = parser.parse_args()
    for tables in args.tables:
        result = asyncio.run(run(tables, args.seconds, args.workers, args.flood))
        line = " ".join(
            f"{k}={v:.0f}" if isinstance(v, int) else f"{k}={v:.1f}" for k, v in result.items()
        )
        print(f"tables={tables}{' flood' if args.flood else ''} {line}", flush=True)


if __name__ == "__main__":
    main()
