"""Load: taps answered at once with many busy private tables on one bot process, in real time.

The workload (the same as a user sees it): the bot runs as in production, ``python -m bot``
in its own process with default settings (the ``strong`` computers in a pool of
``--workers`` processes, shown at the default pace of 1 s a move, Telegram's per-chat
budget, SQLite), against the fake Bot API (``tests/fakebot``) in this process (127.0.0.1,
enforcing Telegram's limits: one message a second per private chat, 20 a minute per group),
which also plays the people. Each table is a private table: one person and three computers,
started with ``/klaverjas`` in the person's private chat. The person waits until it is their
turn (their hand message has active buttons), thinks 0.5–2 s, then taps a legal card (or a
bid), for ``--seconds``. Every number of tables gets a fresh bot process and a fresh
database. A probe user (a different one each second, so the bot's "same answer just sent"
filter never drops it) sends ``/help`` in their private chat once a second, from the moment
every table shows its first hand on (the steady state: not behind the N tables' own opening
replies, which all come at once at the start).

What it counts, per number of tables (all times on the fake's monotonic clock unless said):

* ``taps``: taps answered within the run. ``tap p50/p95/max``: tap → answer, from the
  moment the fake created the callback query (the person's tap) to the moment it received
  the bot's ``answerCallbackQuery`` for it (the fake's own delay in handing the tap over
  included); ``bot p95``: the bot's share (from ``getUpdates`` handing the tap over to the
  answer); ``>1s``: taps answered later than 1 s.
* ``help p50/p95``: ``/help`` probe sent → the fake received the bot's ``sendMessage`` in
  that chat (probes without an answer by the end count as ``help lost``).
* ``move p50/p95/max``: computer move delay: for each computer action stored during the run,
  the time from the previous action of its game to it (``game_actions.created_at``, the
  bot's wall clock at each commit). The pace (1 s) is part of it; the person's think time is
  not (only computer actions count). ``>5s``: computer moves later than 5 s.
* ``moves``: actions stored during the run (people's and computers'), ``moves/s``.
* ``cpu/move``: CPU time (user + system, ``/proc/<pid>/stat``) of the bot's main process
  during the run divided by ``moves`` (ms): the per-move cost of the event loop, measurable
  even on a busy machine where wall times are not. ``cpu%``: the main process's CPU over the
  run's wall time (100 = one core). ``workers cpu``: the computer pool's CPU seconds.
  ``fake cpu %``: this process (the fake Bot API and its players; near 100 the fake itself
  was the bottleneck, and the times above are the fake's).
* ``MB``: resident memory (``VmRSS``) of the bot process plus all its child processes (the
  computer workers), the largest seen while sampling once a second.
* ``errors``: error lines the bot logged (``pool`` among them: ``BrokenProcessPool``).

Optionally a group floods meanwhile (``--flood``: 300 /help and /score from 30 members in
about a second). On a 2-core machine the fake and its players share the cores with the bot
(Telegram would not): ``--fake-niceness 5`` runs them at a lower CPU priority than the bot.
``BENCH_PROFILE=/tmp/bot.prof`` runs the bot under cProfile counting the CPU time of its main
thread (``time.thread_time``: where the event loop spends CPU, not where it waits; one file
per run, suffixed with the number of tables; slower). ``BENCH_LEVEL`` sets ``COMPUTER_LEVEL``.

With ``--postgres`` the bot keeps its games in a throwaway PostgreSQL (``tests/pg.py``,
durable) and takes its updates by webhook; ``--bot-workers N`` starts N ``python -m bot``
processes on that database (``BOT_WORKERS=N``) and the fake delivers the updates to them
round-robin, as a load balancer would (the computer move delay and CPU are then not read).

Run: ``python bench/bench_load.py --tables 1,10,50,100 --seconds 40 [--json out.json]
[--flood] [--postgres] [--bot-workers 2]``. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bot.helpers import active_buttons, by_action, hand_message, pick
from tests.fakebot import FakeBotApi, SimUser
from tests.fakebot.calls import ApiCall
from tests.fakebot.flood import RateLimits
from tests.fakebot.ptb_webhook import free_port
from tests.pg import PostgresServer, find_bindir

TICK = os.sysconf("SC_CLK_TCK")
PROFILED = """
import cProfile, os, runpy, sys, time
profiler = cProfile.Profile(time.thread_time)  # CPU seconds of the event loop's thread only
sys.argv = ["bot"]
profiler.enable()
try:
    runpy.run_module("bot", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    profiler.disable()
    profiler.dump_stats(os.environ["BENCH_PROFILE_OUT"])
"""
"""The bot under cProfile counting CPU time of the main thread (``BENCH_PROFILE``): where the
event loop spends its CPU, not its waits."""
PROBE_USERS = 70
"""Users taking turns at the ``/help`` probe: each asks again only after 60 s (the bot drops
an answer equal to one it sent in the same chat in the last minute)."""


def _rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` (KiB; 0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    """Every descendant of process ``pid``."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids = [int(x) for x in f.read().split()]
        except OSError:
            continue
        for kid in kids:
            found += [kid, *_children(kid)]
    return found


def _tree_rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants (KiB)."""
    return sum(_rss_kib(p) for p in (pid, *_children(pid)))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


@dataclass
class Samples:
    """What the players and the probe saw (seconds)."""

    latencies: list[float] = field(default_factory=list)
    in_bot: list[float] = field(default_factory=list)
    probes: list[float] = field(default_factory=list)
    probes_lost: int = 0
    rss_max: int = 0


class ChatWatch:
    """Wakes the players of the chats the bot's calls touched (each call looked at once),
    so 100 players do not all re-read their chats on every call the fake gets."""

    def __init__(self, api: FakeBotApi) -> None:
        self.api = api
        self.events: dict[int, asyncio.Event] = {}
        self._seen = 0
        self._running: list[ApiCall] = []

    def fresh(self, chat_id: int) -> asyncio.Event:
        """The event set by the next finished call in ``chat_id`` (take it, then look)."""
        event = self.events[chat_id] = asyncio.Event()
        return event

    async def run(self) -> None:
        """Until cancelled: on every change of the fake, wake the chats of finished calls."""
        while True:
            change = self.api.change_event
            calls = self.api.calls
            new = [calls[i] for i in range(self._seen, len(calls))]
            self._seen = len(calls)
            still = []
            for call in (*self._running, *new):
                if call.finished is None:
                    still.append(call)
                elif call.chat_id is not None and (event := self.events.get(call.chat_id)):
                    event.set()
            self._running = still
            await change.wait()


async def _until(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), max(seconds, 0.01))


async def _player(
    api: FakeBotApi,
    watch: ChatWatch,
    user: SimUser,
    rng: random.Random,
    until: float,
    samples: Samples,
) -> None:
    """One person: wait for the turn, think 0.5–2 s, tap a legal card; until the time is up."""
    chat = user.private_chat
    while time.monotonic() < until:
        changed = watch.fresh(chat.id)
        message = hand_message(user, chat)
        if message is None or not active_buttons(message):
            await _until(changed, until - time.monotonic())
            continue
        await asyncio.sleep(rng.uniform(0.5, 2.0))
        if time.monotonic() >= until:
            return
        message = hand_message(user, chat)
        if message is None or not active_buttons(message):
            continue
        _, action = pick(active_buttons(message), rng)
        tap = await user.tap(message, by_action(action))
        record = tap.query
        while not record.answered and time.monotonic() < until + 60:
            changed = watch.fresh(chat.id)
            if record.answered:
                break
            await _until(changed, 1.0)
        if record.answered_at is not None:
            samples.latencies.append(record.answered_at - record.created)
            if record.delivered_at is not None:
                samples.in_bot.append(record.answered_at - record.delivered_at)
        await asyncio.sleep(0.05)  # let the hand edit arrive before looking again


async def _probe(
    api: FakeBotApi, users: list[SimUser], until: float, samples: Samples, tables: list[SimUser]
) -> None:
    """``/help`` once a second (a different user each time), once every one of ``tables``
    shows its first hand; the reply's time."""
    with contextlib.suppress(AssertionError):  # not all within the run: probe from then on
        await api.wait_for(
            lambda: all(hand_message(u) is not None for u in tables),
            timeout=max(until - time.monotonic(), 0.0),
        )
    sent: list[tuple[int, float, int]] = []  # chat, when, call log position
    i = 0
    while time.monotonic() < until:
        user = users[i % len(users)]
        i += 1
        sent.append((user.id, api.clock(), len(api.calls)))
        await user.send(user.private_chat, "/help")
        await asyncio.sleep(1.0)
    await asyncio.sleep(5.0)  # the last probes' answers
    for chat_id, at, position in sent:
        reply = next(
            (
                c
                for c in list(api.calls)[position:]
                if c.method == "sendMessage" and c.chat_id == chat_id and c.ok
            ),
            None,
        )
        if reply is None:
            samples.probes_lost += 1
        else:
            samples.probes.append(reply.started - at)


async def _sample_memory(pid: int, samples: Samples, until: float) -> None:
    while time.monotonic() < until:
        samples.rss_max = max(samples.rss_max, _tree_rss_kib(pid))
        await asyncio.sleep(1.0)


def _computer_delays(db: Path, since: float, until: float) -> tuple[list[float], int]:
    """Computer move delays (s) and all actions stored in ``[since, until]`` (epoch s)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        computers = {
            (g, s) for g, s in con.execute("SELECT game_id, seat FROM game_seats WHERE kind = ?",
                                           ("computer",))
        }  # fmt: skip
        rows = con.execute(
            "SELECT game_id, action, created_at FROM game_actions ORDER BY game_id, seq"
        ).fetchall()
    finally:
        con.close()
    delays: list[float] = []
    moves = 0
    previous: tuple[int, float] | None = None
    for game_id, action, at in rows:
        if since <= at <= until:
            moves += 1
            seat = int(action.split(":", 1)[0])
            if previous is not None and previous[0] == game_id and (game_id, seat) in computers:
                delays.append(at - previous[1])
        previous = (game_id, at)
    return delays, moves


async def run(
    tables: int,
    seconds: float,
    workers: int,
    flood: bool,
    fake_niceness: int = 0,
    database_url: str | None = None,
    bot_workers: int = 1,
) -> dict[str, Any]:
    """``tables`` private tables for ``seconds``; returns the measurements. ``database_url``:
    a PostgreSQL database for ``bot_workers`` webhook workers (None: one polling process on
    an SQLite file)."""
    samples = Samples()
    delays: list[float] = []
    moves = 0
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "db.sqlite3"
        async with FakeBotApi() as api:
            api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
            humans = [api.add_user(f"P{i}", started=True) for i in range(tables)]
            probers = [api.add_user(f"H{i}", started=True) for i in range(PROBE_USERS)]
            crowd = [api.add_user(f"M{i}", started=True) for i in range(30)]
            busy = api.add_group("Busy", members=crowd, admins=crowd[:1])
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith("TELEGRAM_")},
                "TELEGRAM_BOT_TOKEN": api.token,
                "TELEGRAM_API_BASE_URL": api.base_url,
                "DATABASE_PATH": str(db),
                "COMPUTER_WORKERS": str(workers),
                "COMPUTER_LEVEL": os.environ.get("BENCH_LEVEL", "strong"),
                "TURN_TIMEOUT_SECONDS": "0",
                "LOG_LEVEL": "ERROR",
            }
            profile = os.environ.get("BENCH_PROFILE")  # a file: cProfile the bot's process
            wrap = ["-c", PROFILED] if profile else []
            if profile:
                env["BENCH_PROFILE_OUT"] = f"{profile}.{tables}"
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
                for user in humans:
                    await user.send(user.private_chat, "/klaverjas")
                cpu0, wall0, epoch0 = _cpu_seconds(bot.pid), time.monotonic(), time.time()
                fake0 = _cpu_seconds(os.getpid())
                calls0 = len(api.calls)
                kids0 = sum(_cpu_seconds(p) for p in _children(bot.pid))
                until = time.monotonic() + seconds
                watch = ChatWatch(api)
                players = [
                    asyncio.create_task(_player(api, watch, u, random.Random(i), until, samples))
                    for i, u in enumerate(humans)
                ]
                extras = [
                    asyncio.create_task(watch.run()),
                    asyncio.create_task(_probe(api, probers, until, samples, humans)),
                    asyncio.create_task(_sample_memory(bot.pid, samples, until)),
                ]
                if flood:
                    await asyncio.sleep(min(10.0, seconds / 3))
                    for i in range(300):
                        await crowd[i % 30].send(busy, "/help" if i % 2 else "/score")
                await asyncio.gather(*players, return_exceptions=True)
                cpu1, wall1, epoch1 = _cpu_seconds(bot.pid), time.monotonic(), time.time()
                fake1 = _cpu_seconds(os.getpid())
                made = [c.method for c in list(api.calls)[calls0:] if c.method != "getUpdates"]
                calls = len(made)
                methods = {m: made.count(m) for m in sorted(set(made))}
                extras[0].cancel()
                kids1 = sum(_cpu_seconds(p) for p in _children(bot.pid))
                await asyncio.gather(*extras, return_exceptions=True)
            finally:
                for other in bots[1:]:
                    other.send_signal(signal.SIGINT)
                bot.send_signal(signal.SIGINT)
                _, err = await asyncio.wait_for(bot.communicate(), timeout=60)
                for other in bots[1:]:
                    await asyncio.wait_for(other.communicate(), timeout=60)
        if database_url is None:
            delays, moves = _computer_delays(db, epoch0, epoch1)
    errors = [line for line in err.decode().splitlines() if line.strip()]
    if errors and os.environ.get("BENCH_SHOW_ERRORS"):
        print("\n".join(errors[:60]), file=sys.stderr)
    lat = samples.latencies
    cpu = cpu1 - cpu0
    return {
        "tables": tables,
        "taps": len(lat),
        "tap_p50_ms": _quantile(lat, 0.5) * 1000,
        "tap_p95_ms": _quantile(lat, 0.95) * 1000,
        "tap_max_ms": max(lat, default=0.0) * 1000,
        "bot_p95_ms": _quantile(samples.in_bot, 0.95) * 1000,
        "taps_over_1s": sum(1 for x in lat if x > 1.0),
        "help_p50_ms": _quantile(samples.probes, 0.5) * 1000,
        "help_p95_ms": _quantile(samples.probes, 0.95) * 1000,
        "help_lost": samples.probes_lost,
        "move_p50_s": _quantile(delays, 0.5),
        "move_p95_s": _quantile(delays, 0.95),
        "move_max_s": max(delays, default=0.0),
        "moves_over_5s": sum(1 for x in delays if x > 5.0),
        "moves": moves,
        "moves_per_s": moves / (wall1 - wall0),
        "tg_calls_per_move": calls / moves if moves else 0.0,
        "cpu_ms_per_move": cpu / moves * 1000 if moves else 0.0,
        "cpu_pct": cpu / (wall1 - wall0) * 100,
        "workers_cpu_s": kids1 - kids0,
        "fake_cpu_pct": (fake1 - fake0) / (wall1 - wall0) * 100,
        "memory_mb": samples.rss_max / 1024,
        "error_lines": len(errors),
        "pool_errors": sum(1 for line in errors if "Broken" in line),
        "calls_by_method": methods,
    }


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * q), len(ordered) - 1)] if ordered else 0.0


COLUMNS = [
    ("tables", "tables", "{:.0f}"),
    ("taps", "taps", "{:.0f}"),
    ("tap_p50_ms", "tap p50 ms", "{:.0f}"),
    ("tap_p95_ms", "tap p95 ms", "{:.0f}"),
    ("tap_max_ms", "tap max ms", "{:.0f}"),
    ("bot_p95_ms", "bot p95 ms", "{:.0f}"),
    ("taps_over_1s", ">1s", "{:.0f}"),
    ("help_p50_ms", "help p50 ms", "{:.0f}"),
    ("help_p95_ms", "help p95 ms", "{:.0f}"),
    ("help_lost", "help lost", "{:.0f}"),
    ("move_p50_s", "move p50 s", "{:.2f}"),
    ("move_p95_s", "move p95 s", "{:.2f}"),
    ("move_max_s", "move max s", "{:.2f}"),
    ("moves_over_5s", ">5s", "{:.0f}"),
    ("moves", "moves", "{:.0f}"),
    ("tg_calls_per_move", "calls/move", "{:.2f}"),
    ("cpu_ms_per_move", "cpu/move ms", "{:.2f}"),
    ("cpu_pct", "cpu %", "{:.0f}"),
    ("workers_cpu_s", "workers cpu s", "{:.0f}"),
    ("fake_cpu_pct", "fake cpu %", "{:.0f}"),
    ("memory_mb", "MB", "{:.0f}"),
    ("error_lines", "errors", "{:.0f}"),
]


def _table(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table, one row per number of tables."""
    head = "| " + " | ".join(title for _, title, _ in COLUMNS) + " |"
    rule = "|" + "|".join("---" for _ in COLUMNS) + "|"
    rows = [
        "| " + " | ".join(fmt.format(r.get(key, 0.0)) for key, _, fmt in COLUMNS) + " |"
        for r in results
    ]
    return "\n".join([head, rule, *rows])


def _counts(values: list[str]) -> list[int]:
    """``--tables 1,10,50`` or ``--tables 1 10 50``."""
    return [int(x) for v in values for x in v.split(",") if x.strip()]


def main() -> None:
    """Command line entry."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["1,10,50,100"], help="e.g. 1,10,50,100")
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--workers", type=int, default=2, help="COMPUTER_WORKERS")
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
    parser.add_argument(
        "--json", metavar="FILE", help="also write the results as JSON ('-': stdout)"
    )
    args = parser.parse_args()
    results = []
    for tables in _counts(args.tables):
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
        results.append(result)
        line = " ".join(f"{k}={v:.3g}" if isinstance(v, float | int) else f"{k}={v}"
                        for k, v in result.items())  # fmt: skip
        print(line, file=sys.stderr, flush=True)
    where = f", postgres, {args.bot_workers} bot workers" if args.postgres else ", SQLite"
    flood = ", flood" if args.flood else ""
    print(
        f"\nbench_load: {args.seconds:g} s a run{where}{flood}, {args.workers} computer workers\n"
    )
    print(_table(results), flush=True)
    if args.json:
        text = json.dumps(
            {"seconds": args.seconds, "postgres": args.postgres, "flood": args.flood,
             "results": results},
            indent=2,
        )  # fmt: skip
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")


if __name__ == "__main__":
    main()
