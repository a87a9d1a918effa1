"""Load (issue 10 item 7): tap → answer with many tables at once, in real time.

The bot runs as it does in production, ``python -m bot`` in its own process (default
settings: the ``strong`` computers in a pool of ``--workers`` processes, shown at 1 s a move,
Telegram's per-chat budget), against the fake Bot API in this process (127.0.0.1, enforcing
Telegram's limits: one message a second per private chat, 20 a minute per group), which also
plays the humans. Each table is a solo game in a private chat: one human and three computer
players; every human thinks 0.5–2 s before each tap. Optionally a group floods meanwhile
(``--flood``: 300 /help and /score from 30 members in about a second). On a 2-core machine the
fake and its players share the cores with the bot (Telegram would not): ``--fake-niceness 5``
runs them at a lower CPU priority than the bot.

Prints, per number of tables: taps, tap → callback answer p50 / p95 / max (ms, as the
players see it: the fake's own delays in delivering the tap included), the bot's share of it
(``bot_*``: from the moment ``getUpdates`` handed the tap to the bot to its answer), taps
answered after 1 s and after Telegram's 15 s, error lines the bot logged
(``BrokenProcessPool`` among them), and the bot process's resident memory per table (KiB).

With ``--postgres`` the bot keeps its games in a throwaway PostgreSQL (``tests/pg.py``,
durable) and takes its updates by webhook; ``--bot-workers N`` starts N ``python -m bot``
processes on that database (``BOT_WORKERS=N``) and the fake delivers the updates to them
round-robin, as a load balancer would (issue 12: how many tables one and two workers carry
before tap → answer p95 passes 250 ms).

Run: ``python bench/bench_load.py [--tables 1 10 50 100] [--seconds 60] [--flood]
[--postgres] [--bot-workers 2]``. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bot.helpers import active_buttons, by_action, hand_message, pick
from tests.fakebot import FakeBotApi, SimUser
from tests.fakebot.flood import RateLimits
from tests.fakebot.ptb_webhook import free_port
from tests.pg import PostgresServer, find_bindir


def _rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` (KiB)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def _player(
    api: FakeBotApi,
    user: SimUser,
    rng: random.Random,
    until: float,
    latencies: list[float],
    in_bot: list[float],
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
        record = await tap.wait_answered(timeout=60)
        latencies.append(time.monotonic() - t0)
        if record.delivered_at is not None and record.answered_at is not None:
            in_bot.append(record.answered_at - record.delivered_at)
        await asyncio.sleep(0.05)  # let the hand edit arrive before looking again


async def run(
    tables: int,
    seconds: float,
    workers: int,
    flood: bool,
    fake_niceness: int = 0,
    database_url: str | None = None,
    bot_workers: int = 1,
) -> dict[str, float]:
    """``tables`` solo games for ``seconds``; returns the measurements. ``database_url``: a
    PostgreSQL database for ``bot_workers`` webhook workers (None: one polling process on an
    SQLite file)."""
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotApi() as api:
            api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
            humans = [api.add_user(f"P{i}", started=True) for i in range(tables)]
            crowd = [api.add_user(f"M{i}", started=True) for i in range(30)]
            busy = api.add_group("Busy", members=crowd, admins=crowd[:1])
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith("TELEGRAM_")},
                "TELEGRAM_BOT_TOKEN": api.token,
                "TELEGRAM_API_BASE_URL": api.base_url,
                "DATABASE_PATH": str(Path(tmp) / "db.sqlite3"),
                "COMPUTER_WORKERS": str(workers),
                "COMPUTER_LEVEL": os.environ.get("BENCH_LEVEL", "strong"),
                "TURN_TIMEOUT_SECONDS": "0",
                "LOG_LEVEL": "ERROR",
            }
            profile = os.environ.get("BENCH_PROFILE")  # a file: cProfile the bot's process
            wrap = ["-m", "cProfile", "-o", profile] if profile else []
            bots = []
            urls = []
            if database_url is not None:
                api.enable_webhook_delivery(attempts=4)
                env |= {"DATABASE_URL": database_url, "BOT_WORKERS": str(bot_workers)}
            for n in range(bot_workers if database_url is not None else 1):
                extra = {}
                if database_url is not None:
                    port = free_port()
                    urls.append(f"http://127.0.0.1:{port}/telegram")
                    extra = {
                        "WEBHOOK_URL": urls[-1],
                        "WEBHOOK_LISTEN": f"127.0.0.1:{port}",
                        "WEBHOOK_SECRET": "bench-secret",
                    }
                cwd = Path(tmp) / f"bot{n}"
                cwd.mkdir()
                bots.append(
                    await asyncio.create_subprocess_exec(
                        sys.executable, *wrap, "-m", "bot", cwd=cwd, env=env | extra,
                        stderr=asyncio.subprocess.PIPE,
                    )
                )  # fmt: skip
            bot = bots[0]
            latencies: list[float] = []
            in_bot: list[float] = []
            if fake_niceness:  # Telegram is not on the bot's machine: let the bot go first
                os.nice(fake_niceness)
            try:
                if urls:
                    await api.wait_for(
                        lambda: api.calls.count("setWebhook") >= len(urls), timeout=60
                    )
                    api.set_webhook_targets(urls)
                else:
                    await api.wait_for(lambda: api.calls.count("getUpdates") > 0, timeout=60)
                rss0 = _rss_kib(bot.pid)
                for user in humans:
                    await user.send(user.private_chat, "/klaverjas")
                until = time.monotonic() + seconds
                players = [
                    asyncio.create_task(_player(api, u, random.Random(i), until, latencies, in_bot))
                    for i, u in enumerate(humans)
                ]
                if flood:
                    await asyncio.sleep(min(10.0, seconds / 3))
                    for i in range(300):
                        await crowd[i % 30].send(busy, "/help" if i % 2 else "/score")
                await asyncio.gather(*players, return_exceptions=True)
                rss1 = _rss_kib(bot.pid)
            finally:
                for other in bots[1:]:
                    other.send_signal(signal.SIGINT)
                bot.send_signal(signal.SIGINT)
                _, err = await asyncio.wait_for(bot.communicate(), timeout=60)
                for other in bots[1:]:
                    await asyncio.wait_for(other.communicate(), timeout=60)
    errors = [line for line in err.decode().splitlines() if line.strip()]
    if errors and os.environ.get("BENCH_SHOW_ERRORS"):
        print("\n".join(errors[:60]), file=sys.stderr)
    latencies.sort()
    n = len(latencies)
    return {
        "taps": n,
        "p50_ms": latencies[n // 2] * 1000 if n else 0.0,
        "p95_ms": latencies[int(n * 0.95)] * 1000 if n else 0.0,
        "max_ms": latencies[-1] * 1000 if n else 0.0,
        "over_1s": sum(1 for x in latencies if x > 1.0),
        "bot_p50_ms": _quantile(in_bot, 0.5) * 1000,
        "bot_p95_ms": _quantile(in_bot, 0.95) * 1000,
        "bot_max_ms": max(in_bot, default=0.0) * 1000,
        "over_15s": sum(1 for x in latencies if x > 15.0),
        "error_lines": len(errors),
        "pool_errors": sum(1 for line in errors if "Broken" in line),
        "kib_per_table": (rss1 - rss0) / tables,
    }


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * q), len(ordered) - 1)] if ordered else 0.0


def main() -> None:
    """Command line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 50, 100])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--flood", action="store_true")
    parser.add_argument(
        "--fake-niceness",
        type=int,
        default=0,
        help="run the fake Telegram (and its players) this much lower in CPU priority than "
        "the bot (once: it stays for the following runs)",
    )
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL")
    parser.add_argument("--bot-workers", type=int, default=1, help="bot processes (PostgreSQL)")
    args = parser.parse_args()
    for tables in args.tables:
        niceness, args.fake_niceness = args.fake_niceness, 0  # os.nice adds up
        server = None
        if args.postgres:
            bindir = find_bindir()
            if bindir is None:
                raise SystemExit("no PostgreSQL binaries here (initdb, pg_ctl)")
            server = PostgresServer(bindir, durable=True)
            server.start()
        try:
            result = asyncio.run(
                run(
                    tables, args.seconds, args.workers, args.flood, niceness,
                    server.url if server is not None else None, args.bot_workers,
                )
            )  # fmt: skip
        finally:
            if server is not None:
                server.stop()
        line = " ".join(
            f"{k}={v:.0f}" if isinstance(v, int) else f"{k}={v:.1f}" for k, v in result.items()
        )
        where = f" postgres workers={args.bot_workers}" if args.postgres else ""
        print(f"tables={tables}{' flood' if args.flood else ''}{where} {line}", flush=True)


if __name__ == "__main__":
    main()
