"""Memory of the bot over many games (bounded memory): resident memory after 1,000 games
played one after another, against after 100.

Each game is played through the game service (``bot.service``, as the handlers drive it) on an
SQLite file: a group table opened by one person who sits, three random-level computers (no
pace, a thread of this process), 8 rounds; the person taps random legal actions. The groups
(50) and people (200) rotate, so per-chat and per-person state is exercised too. After each
game, its finished state is looked up again as ``/start h<id>`` and ``/score`` do, and the
presenter's per-game memory is forgotten as the table driver does at a game's end.

Prints the resident set size (``VmRSS``, after a garbage collection) at the checkpoints, the
growth from game 100 to the last, and the sizes of the service's per-game structures. The
bar: growth within +20 MB. Run: ``python bench/bench_memory.py [--games 1000]`` (a few
minutes). Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.computer import ComputerPlayers
from bot.service import GameService
from bot.taps import Move
from engine.cards import Seat
from storage import GameStatus, SeatKind, open_repository
from tests.bot.helpers import lobby_payload

GROUPS = 50
PEOPLE = 200


def rss_mib() -> float:
    """This process's resident memory in MiB (Linux ``/proc``), after a collection."""
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def _no() -> bool:
    return False


async def play_one(svc: GameService, n: int, rng: random.Random) -> None:
    """Game ``n``: open, sit, three computers, 8 rounds, start, play to the end."""
    chat, user = -1000 - n % GROUPS, 1 + n % PEOPLE
    out = await svc.lobby.open_table(chat, "group", f"Club {chat}", user, f"user{user}")
    gid = out.game_id
    assert gid is not None, out.refusal
    for action in ("rounds:toggle", "sit:0", "bot:add", "bot:add", "bot:add", "start"):
        table = await svc.tables.load(gid)
        assert table is not None
        done = await svc.lobby.lobby_action(gid, table.version, user, lobby_payload(action), _no)
        assert done.ok, (action, done.refusal)
    while True:
        await svc.play.run_computers(gid)
        table = await svc.tables.load(gid)
        assert table is not None and table.state is not None
        if table.row.status is not GameStatus.ACTIVE:
            break
        seat = next(s for s in table.row.seats if s.kind is SeatKind.HUMAN)
        legal = table.state.legal_actions(Seat(seat.index))
        if not legal:
            continue
        move = Move(rng.choice(legal).notation(with_seat=False))
        assert (await svc.play.act(gid, table.version, user, move)).ok
    await svc.tables.view(gid)  # an old game's link or sheet


async def run(games: int, seed: int) -> list[tuple[int, float]]:
    """Play ``games`` games; returns (games played, RSS MiB) at the checkpoints."""
    rng = random.Random(seed)
    marks = {1, 10, 100, 250, 500, 750, games}
    points: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        repo = await open_repository(Path(tmp) / "bench.sqlite3")
        svc = GameService(repo, ComputerPlayers("random", 0), default_timeout=0)
        if hasattr(svc, "limits"):  # no caps in the way
            svc.lobby.limits = type(svc.lobby.limits)(per_creator=1000, total=1000, lobby_idle=3600)
        try:
            for uid in range(1, PEOPLE + 1):
                await svc.people.touch_user(uid, f"user{uid}", "nl")
                await svc.people.user_started(uid)
            start = time.perf_counter()
            for n in range(1, games + 1):
                await play_one(svc, n, rng)
                if n in marks:
                    points.append((n, rss_mib()))
                    print(
                        f"{n:5d} games  RSS {points[-1][1]:7.1f} MiB  "
                        f"cached games {len(svc.tables.cache)}  locks {len(svc.tables.locks)}  "
                        f"{time.perf_counter() - start:6.1f} s",
                        flush=True,
                    )
        finally:
            svc.computers.shutdown()
            await repo.close()
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    points = dict(asyncio.run(run(args.games, args.seed)))
    if 100 in points:
        growth = points[args.games] - points[100]
        print(f"growth from game 100 to game {args.games}: {growth:+.1f} MiB (bar: +20 MB)")


if __name__ == "__main__":
    main()
