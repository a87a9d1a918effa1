"""Do other tables keep responding while computers think?

Two tables against the fake Bot API: table A has one human and three computer players of the
given level, table B four humans. Both humans tap as fast as the bot answers. Prints how long
B's players wait for the answer to a tap, with the computers' search in a process pool
(``--workers 2``) and in a thread of the bot process (``--workers 0``).

Run: ``python bench/bench_loop.py [--level strong] [--taps 60]``. Asserts nothing.
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

from tests.bot.helpers import (
    active_buttons,
    by_action,
    hand_message,
    make_app,
    open_and_fill,
    pick,
)
from tests.fakebot import FakeBotApi, SimUser, run_polling


async def _tapper(users: list[SimUser], taps: int, rng: random.Random, waits: list[float]) -> None:
    """Tap whichever of ``users`` may act, ``taps`` times; record tap → answer seconds."""
    done = 0
    while done < taps:
        for user in users:
            message = hand_message(user)
            buttons = active_buttons(message) if message else []
            if buttons:
                break
        else:
            await asyncio.sleep(0.01)
            continue
        assert message is not None
        _, action = pick(buttons, rng)
        t0 = time.monotonic()
        tap = await user.tap(message, by_action(action))
        await tap.wait_answered(timeout=60)
        waits.append(time.monotonic() - t0)
        done += 1
        await asyncio.sleep(0.05)  # let the bot redraw before looking again


async def run(level: str, workers: int, taps: int) -> list[float]:
    """B's tap → answer times in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotApi() as api:
            anna = api.add_user("Anna", language_code="nl", started=True)
            quad = [api.add_user(n, language_code="nl", started=True) for n in "BCDE"]
            group_a = api.add_group("A", members=[anna])
            group_b = api.add_group("B", members=quad)
            app = make_app(api, Path(tmp) / "db.sqlite3", level=level, workers=workers)
            async with run_polling(app, api, shutdown_timeout=60) as bot:
                await open_and_fill(api, bot, group_a, [anna], computers=3)
                await open_and_fill(api, bot, group_b, quad)
                waits_a: list[float] = []
                waits_b: list[float] = []
                await asyncio.gather(
                    _tapper([anna], taps, random.Random(1), waits_a),
                    _tapper(quad, taps, random.Random(2), waits_b),
                )
                await bot.settle(timeout=60)
            return waits_b


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--level", default="strong")
    parser.add_argument("--taps", type=int, default=60)
    args = parser.parse_args()
    for workers in (0, 2):
        waits = sorted(asyncio.run(run(args.level, workers, args.taps)))
        ms = [w * 1000 for w in waits]
        print(
            f"workers={workers}: table B tap → answer  median {statistics.median(ms):6.1f} ms"
            f"  p95 {ms[int(0.95 * (len(ms) - 1))]:6.1f} ms  max {ms[-1]:6.1f} ms  (n={len(ms)})"
        )


if __name__ == "__main__":
    main()
