"""Driving the real bot application against the fake Bot API in end-to-end tests, and the one
way the service-level tests build a :class:`~bot.service.GameService` (:func:`make_service`)."""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bot.app import build_application
from bot.budget import GROUP, PRIVATE, ChatBudget
from bot.computer import ComputerPlayers
from bot.config import BotConfig
from bot.context import KlaverjasApp
from bot.outcome import Outcome
from bot.service import GameService, TableLimits
from bot.service.core import Scheduler
from bot.taps import (
    Again,
    ConfirmStop,
    Handover,
    LobbyPayload,
    Move,
    MyCards,
    Ready,
    Reclaim,
    ReviewPlay,
    ShowSheet,
    Tap,
    Tip,
    WantAlerts,
    decode,
)
from storage import Repository
from tests.fakebot import FakeBotApi, SimUser
from tests.fakebot.model import Button, FakeChat, FakeMessage

ACTION = re.compile(r"^a(\d+)\.(\d+)\.(.+)$")


def lobby_payload(token: str) -> LobbyPayload:
    """The lobby tap of a wire token (``sit:0``, ``start``, ``preset:next``...), for tests
    that call the service directly."""
    tap = decode(f"l1.1.{token}")
    assert isinstance(tap, Tap) and not isinstance(tap.payload, Move | Handover | Reclaim | Tip)
    assert not isinstance(
        tap.payload, ConfirmStop | ShowSheet | ReviewPlay | Again | Ready | WantAlerts | MyCards
    )
    return tap.payload


def make_service(
    repo: Repository,
    *,
    timeout: int = 0,
    clock: Callable[[], float] | None = None,
    seeds: int | Callable[[], int] | None = 7,
    scheduler: Scheduler | None = None,
    limits: TableLimits | None = None,
    computer_watch: float = 0.0,
) -> GameService:
    """The game service the service-level tests drive (no Telegram): random computers moving
    in-process (a pool of 0 workers), on ``repo``.

    Args:
        timeout: the default turn time in seconds (0: none).
        clock: UTC epoch seconds (None: the real time).
        seeds: the deals' seeds: an int for consecutive seeds from it, a callable for its
            values, None for random ones (as in production).
        scheduler: where the service arms its timers (None: nowhere).
        limits: the table limits (None: the defaults).
        computer_watch: seconds after which a computer's pending turn counts as a timer (0:
            never; several workers on one database).
    """
    return GameService(
        repo,
        ComputerPlayers("random", 0),
        default_timeout=timeout,
        clock=clock or time.time,
        seeds=itertools.count(seeds).__next__ if isinstance(seeds, int) else seeds,
        scheduler=scheduler,
        limits=limits,
        computer_watch=computer_watch,
    )


async def drive(svc: GameService, out: Outcome) -> Outcome:
    """What the table driver does with ``out`` (:meth:`bot.driver.TableDriver.submit`), at
    once and without presenting: when it moved a game on, that game's computers move until a
    person is to act. Returns ``out``."""
    moved = out.changed or out.started or out.resync
    if out.game_id is not None and out.ok and moved and not out.ended:
        await svc.play.run_computers(out.game_id)
    return out


def make_app(
    api: FakeBotApi,
    db: Path,
    *,
    timeout: int = 0,
    level: str = "random",
    workers: int = 0,
    **kw: Any,
) -> KlaverjasApp:
    """The real bot application, pointed at the fake server and a database file."""
    config = BotConfig(
        telegram_bot_token=SecretStr(api.token),
        telegram_api_base_url=api.base_url,
        database_path=str(db),
        turn_timeout_seconds=timeout,
        computer_level=level,
        computer_workers=workers,
        default_language=kw.pop("default_language", "nl"),
        **kw.pop("config", {}),
    )
    counter = itertools.count(kw.pop("first_seed", 1000))
    return build_application(
        config,
        computers=ComputerPlayers(level, workers),
        rate_limiter=kw.pop("rate_limiter", None),
        seeds=kw.pop("seeds", lambda: next(counter)),
        budget=kw.pop("budget", ChatBudget(group=None, private=None, overall=None)),
        computer_delay=kw.pop("computer_delay", 0.0),
        **kw,
    )


def hand_message(user: SimUser, chat: FakeChat | None = None) -> FakeMessage | None:
    """The user's newest hand message (a bot message with card/bid buttons) in the private
    chat (or in ``chat`` for a private solo game)."""
    where = chat if chat is not None else user.private_chat
    for message in reversed(where.all_messages):
        if message.deleted or not message.from_bot:
            continue
        if any(
            target and ACTION.match(target) for row in message.keyboard_rows() for _, target in row
        ):
            return message
    return None


CARDS = "cards"
"""The action token of the table's "🂠 my cards" button."""


def group_hand(api: FakeBotApi, group: FakeChat, user: SimUser) -> FakeMessage | None:
    """The user's newest hand shown in the group (an ephemeral message with hand buttons)."""
    for message in reversed(api.ephemeral_messages(group, user)):
        if any(t and ACTION.match(t) for row in message.keyboard_rows() for _, t in row):
            return message
    return None


def shown_table(api: FakeBotApi, group: FakeChat) -> FakeMessage | None:
    """The group's current table message (the one with "🂠 my cards"), None before it is
    shown."""
    for message in reversed(api.chat(group).bot_messages):
        if any(t and t.endswith("." + CARDS) for row in message.keyboard_rows() for _, t in row):
            return message
    return None


def table_message(api: FakeBotApi, group: FakeChat) -> FakeMessage:
    """The group's current table message (the one with "🂠 my cards")."""
    table = shown_table(api, group)
    if table is None:
        raise AssertionError("no table message with a 'my cards' button")
    return table


def active_buttons(message: FakeMessage) -> list[tuple[str, str]]:
    """``(label, action)`` of the versioned (actionable now) buttons of a hand message."""
    out = []
    for row in message.keyboard_rows():
        for label, target in row:
            m = ACTION.match(target or "")
            if m and m[2] != "0" and not m[3].startswith(("handover", "reclaim", "tip")):
                out.append((label, m[3]))
    return out


def hand_version(message: FakeMessage) -> int | None:
    """The game version the actionable buttons of a hand message were drawn at (None: it has
    none)."""
    for row in message.keyboard_rows():
        for _, target in row:
            m = ACTION.match(target or "")
            if m and m[2] != "0":
                return int(m[2])
    return None


def pick(buttons: Sequence[tuple[str, str]], rng: random.Random) -> tuple[str, str]:
    """A sensible button: a legal card (not dimmed), a trump choice or accept, else pass."""
    bids = [b for b in buttons if b[1].startswith(("choose:", "accept", "kleintje", "roem"))]
    passes = [b for b in buttons if b[1] == "pass"]
    if bids and (not passes or rng.random() < 0.7):
        return rng.choice(bids)
    if passes:
        return passes[0]
    cards = [b for b in buttons if b[1].startswith("play:") and not b[0].startswith("·")]
    return rng.choice(cards or list(buttons))


def by_action(action: str) -> Callable[[Button], bool]:
    """A button predicate: the callback data ends with ``.<action>``."""
    return lambda b: bool(b.callback_data) and str(b.callback_data).endswith("." + action)


async def play_turn(
    users: Sequence[SimUser], rng: random.Random, chat: FakeChat | None = None
) -> bool:
    """Let the human whose turn it is tap a button (a hand left asking "let the computer play
    for you?" answers "no"). Returns False when nobody can act."""
    for user in users:
        message = hand_message(user, chat)
        if message is None:
            continue
        buttons = active_buttons(message)
        if not buttons:
            if any(
                t and t.endswith(".handover:no") for row in message.keyboard_rows() for _, t in row
            ):
                # An open "let the computer play for you?" (a fuzzer's tap): play on.
                tap = await user.tap(message, by_action("handover:no"))
                await tap.wait_answered()
                return True
            continue
        _, action = pick(buttons, rng)
        tap = await user.tap(message, by_action(action))
        await tap.wait_answered()
        return True
    return False


async def open_and_fill(
    api: FakeBotApi,
    bot: Any,
    group: FakeChat,
    humans: Sequence[SimUser],
    computers: int = 0,
    *,
    tips: bool = False,
) -> FakeMessage:
    """``/klaverjas`` by the first human, everybody sits (in order), computers fill the rest,
    the first human turns the 💡 setting on (``tips``), start. Returns the group's table
    message."""
    await humans[0].send(group, "/klaverjas")
    await bot.settle()
    lobby = api.last_message(group)
    for seat, user in enumerate(humans):
        tap = await user.tap(lobby, by_action(f"sit:{seat}"))
        await tap.wait_answered()
        await bot.settle()
    for _ in range(computers):
        await (await humans[0].tap(lobby, by_action("bot:add"))).wait_answered()
        await bot.settle()
    if tips:
        await (await humans[0].tap(lobby, by_action("tips:toggle"))).wait_answered()
        await bot.settle()
    await (await humans[0].tap(lobby, by_action("start"))).wait_answered()
    await bot.settle()
    return lobby


async def play_to_end(
    bot: Any,
    humans: Sequence[SimUser],
    rng: random.Random,
    *,
    limit: int = 5000,
    chat: FakeChat | None = None,
) -> int:
    """Let the humans act until nobody can; returns the number of taps."""
    taps = 0
    while taps < limit and await play_turn(humans, rng, chat):
        taps += 1
        await bot.settle(quiet=0.01)
    return taps


class FastTime:
    """A clock that runs ``factor`` times faster than real time, with the matching sleep: the
    bot's message budget and the fake's rate model share it, so a 60 s window takes
    ``60 / factor`` real seconds."""

    def __init__(self, factor: float = 20.0) -> None:
        self.factor = factor
        self._start = time.monotonic()

    def now(self) -> float:
        """Scaled monotonic seconds."""
        return 1000.0 + (time.monotonic() - self._start) * self.factor

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` of scaled time."""
        await asyncio.sleep(max(seconds, 0.0) / self.factor)

    def budget(self, *, private: bool = True) -> ChatBudget:
        """Telegram's limits (``bot.budget``) on this clock."""
        return ChatBudget(GROUP, PRIVATE if private else None, clock=self.now, sleep=self.sleep)
