"""Where the players' hands are shown, and what it costs: hands in the private chat (as
before) against hands in the group (ephemeral messages each player alone sees), against the
fake Bot API on 127.0.0.1 with Telegram's limits on and the production message budget.

Time for the budget and the fake's rate model runs ``--speed`` times faster than real time
(a 60 s window takes 60/speed real seconds). Four humans play in a group; scenarios:

* ``private``: hands in the private chat;
* ``group``: hands in the group (every player tapped "🂠 my cards" once);
* ``talk``: hands in the group, and a ``/score`` every 4 s in the group.

Prints per scenario, per human card played: chat switches for the player who plays it
(looking at the table in the group, tapping the card where the hand is: 2 when the hand is
in the private chat, 0 in the group), sends+edits in the group (ephemeral ones included)
and in the private chats, the peak group sends+edits in any 60 s, 429s, and tap → the
tapper's hand updated and tap → the next player's hand updated, p50 / p95, in seconds of
the scaled clock (what a player would wait).

Run: ``python bench/bench_hands.py [--cards 32] [--speed 20] [--pace 1.5]`` (``--pace``: the
seconds a player takes after the previous move). Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bot.helpers import FastTime, active_buttons, by_action, hand_message, make_app, pick
from tests.bot.test_e2e_hands_in_group import cards_here, group_hand, open_table
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.flood import RateLimits
from tests.fakebot.model import FakeChat, FakeMessage

COUNTED = (
    "sendMessage",
    "editMessageText",
    "editEphemeralMessageText",
    "editEphemeralMessageReplyMarkup",
)


def _hand(api: FakeBotApi, group: FakeChat, user: SimUser, in_group: bool) -> FakeMessage | None:
    return group_hand(api, group, user) if in_group else hand_message(user)


def _mark(message: FakeMessage | None) -> tuple[int, int]:
    """What changes when a hand is redrawn: its message, or its edits."""
    return (0, 0) if message is None else (message.message_id, len(message.history))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * q), len(ordered) - 1)] if ordered else float("nan")


async def run(
    scenario: str, cards: int, speed: float, seed: int, pace: float = 1.5
) -> dict[str, float]:
    """Play ``cards`` human card taps of ``scenario``; return the measurements."""
    fast = FastTime(speed)
    in_group = scenario != "private"
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeBotApi(clock=fast.now) as api:
            api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
            humans = [api.add_user(n, language_code="nl", started=True) for n in "ABCD"]
            group = api.add_group("Club", members=humans, admins=humans[:1])
            app = make_app(api, Path(tmp) / "bench.sqlite3", budget=fast.budget())
            rng = random.Random(seed)
            own: list[float] = []
            following: list[float] = []
            switches: list[int] = []
            async with run_polling(app, api) as bot:
                await open_table(api, bot, group, humans, in_group=in_group, rounds=False)
                if in_group:
                    for user in humans:
                        await cards_here(api, bot, group, user)
                start = len(api.calls)
                played = commands = 0
                next_command = fast.now()
                while played < cards:
                    if scenario == "talk" and fast.now() >= next_command:
                        await humans[commands % 4].send(group, "/score")
                        commands += 1
                        next_command += 4.0
                    turn = next(
                        (
                            (i, m)
                            for i, u in enumerate(humans)
                            if (m := _hand(api, group, u, in_group)) is not None
                            and active_buttons(m)
                        ),
                        None,
                    )
                    if turn is None:
                        await fast.sleep(0.5)
                        continue
                    index, message = turn
                    user, after = humans[index], humans[(index + 1) % 4]
                    _, action = pick(active_buttons(message), rng)
                    mine = _mark(message)
                    theirs = _mark(_hand(api, group, after, in_group))
                    t0 = fast.now()
                    tap = await user.tap(message, by_action(action))
                    query = await tap.wait_answered(timeout=60)
                    if query.show_alert:  # a hand not yet redrawn: look again
                        await fast.sleep(0.5)
                        continue
                    seen = await _changed(api, group, user, mine, in_group, speed)
                    if seen:
                        own.append(fast.now() - t0)
                    if action.startswith("play:"):
                        played += 1
                        switches.append(0 if message.chat_id == group.id else 2)
                        if await _changed(api, group, after, theirs, in_group, speed):
                            following.append(fast.now() - t0)
                    await fast.sleep(pace)  # 1.5: a quick player
                await bot.settle(timeout=60)
                calls = [c for c in api.calls.filter(*COUNTED, since=start) if c.ok]
            group_calls = sum(1 for c in calls if c.chat_id == group.id)
            return {
                "human_cards": played,
                "switches_per_card": sum(switches) / len(switches),
                "group_per_card": group_calls / played,
                "private_per_card": (len(calls) - group_calls) / played,
                "group_peak_60s": api.calls.max_in_window(group.id, 60.0, COUNTED),
                "429s": sum(1 for c in api.calls.errors(start) if c.status == 429),
                "own_hand_s_p50": _pct(own, 0.5),
                "own_hand_s_p95": _pct(own, 0.95),
                "next_hand_s_p50": _pct(following, 0.5),
                "next_hand_s_p95": _pct(following, 0.95),
            }


async def _changed(
    api: FakeBotApi,
    group: FakeChat,
    user: SimUser,
    before: tuple[int, int],
    in_group: bool,
    speed: float,
) -> bool:
    """Wait (at most 120 s of the scaled clock) until the user's hand was redrawn."""
    try:
        await api.wait_for(
            lambda: _mark(_hand(api, group, user, in_group)) != before, timeout=120 / speed
        )
    except AssertionError:
        return False
    return True


def main() -> None:
    """Command line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=32)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pace", type=float, default=1.5, help="seconds between moves")
    parser.add_argument("--scenario", choices=("private", "group", "talk"), action="append")
    args = parser.parse_args()
    for scenario in args.scenario or ("private", "group", "talk"):
        result = asyncio.run(run(scenario, args.cards, args.speed, args.seed, args.pace))
        print(scenario, " ".join(f"{k}={v:.2f}" for k, v in result.items()), flush=True)


if __name__ == "__main__":
    main()
