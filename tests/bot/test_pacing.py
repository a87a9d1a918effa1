"""The pace of the bot's messages on a manual clock (``tests/fakebot/clock.py``): the message
budget (``bot.budget``), the outbox's chats waiting for it (``bot.outbox``) and the computers'
pace (``bot.driver``). Time moves only when a test advances it, so what these tests check is
the pacing logic itself, never how fast the machine is; the end-to-end tests
(``test_e2e_budget.py``, ``test_e2e_faults.py``) show the same behaviour as players see it.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import TYPE_CHECKING, Any, cast

import pytest
from telegram import Bot

from bot.budget import GROUP, OVERALL, PRIVATE, ChatBudget
from bot.driver import MAX_STRETCH, TableDriver
from bot.outbox import MAX_REPLIES, Content, Outbox
from bot.outcome import Outcome
from tests.fakebot import FakeBotApi, ManualClock
from tests.fakebot.flood import RateLimits

if TYPE_CHECKING:
    from bot.presenter import Presenter
    from bot.service.play import PlayService

SENDS_AND_EDITS = ("sendMessage", "editMessageText")


class Tasks:
    """The background tasks a component starts (its ``spawn``), to wait for."""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[None]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(coroutine)
        self.running.add(task)
        task.add_done_callback(self.running.discard)
        return task


async def _turns(n: int = 50) -> None:
    """Let the event loop run ``n`` times (code that waits for nothing but the clock has
    done what it can by then)."""
    for _ in range(n):
        await asyncio.sleep(0)


# --- the budget ------------------------------------------------------------------------------


def test_a_private_chat_gets_one_message_a_second() -> None:
    clock = ManualClock()
    budget = ChatBudget(GROUP, PRIVATE, overall=None, clock=clock)
    assert budget.wait(7) == 0.0
    budget.record(7)
    assert budget.wait(7) == 1.0 and budget.wait(8) == 0.0  # another chat is not held up
    clock.advance(0.5)
    assert budget.wait(7) == 0.5
    clock.advance(0.5)
    assert budget.wait(7) == 0.0


def test_a_group_gets_20_in_any_minute_and_its_table_15_at_least_4_s_apart() -> None:
    clock = ManualClock()
    budget = ChatBudget(GROUP, PRIVATE, overall=None, clock=clock)
    group = -100
    budget.record(group, table=True)
    assert budget.chat_wait(group, table=True) == GROUP.table_gap  # 4 s between table edits
    assert budget.chat_wait(group, table=True, lobby=True) == GROUP.lobby_gap
    assert budget.chat_wait(group) == 0.0  # a reply need not wait for the table's pace
    for _ in range(GROUP.table_limit - 1):
        clock.advance(GROUP.table_gap)
        assert budget.chat_wait(group, table=True) == 0.0
        budget.record(group, table=True)
    clock.advance(GROUP.table_gap)  # the table's share of the minute is used up ...
    first_table_edit = clock.now - GROUP.table_limit * GROUP.table_gap
    assert budget.chat_wait(group, table=True) == first_table_edit + GROUP.window - clock.now
    for _ in range(GROUP.limit - GROUP.table_limit):  # ... the replies' is not
        assert budget.chat_wait(group) == 0.0
        budget.record(group)
    assert budget.chat_wait(group) == first_table_edit + GROUP.window - clock.now
    clock.advance(budget.chat_wait(group))
    assert budget.chat_wait(group) == 0.0  # the oldest left the window


# --- the outbox: a flooded chat waits alone --------------------------------------------------


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def fake_api(clock: ManualClock) -> AsyncIterator[FakeBotApi]:
    """The fake Bot API with Telegram's limits on, on the test's manual clock (the shared
    ``bot`` fixture talks to it)."""
    async with FakeBotApi(clock=clock) as api:
        api.enable_rate_limits(RateLimits(group_per_minute=20, private_per_second=1))
        yield api
    assert not api.internal_errors, f"fake Bot API internal errors: {api.internal_errors}"


async def _nothing(*_: int) -> None:
    return None


def _outbox(bot: Bot, clock: ManualClock, tasks: Tasks) -> Outbox:
    """An outbox with Telegram's limits (``bot.budget``) on the manual clock."""
    budget = ChatBudget(GROUP, PRIVATE, overall=OVERALL, clock=clock, sleep=clock.sleep)
    return Outbox(bot, budget, _nothing, _nothing, tasks.spawn)


async def _waiting_for_the_clock(outbox: Outbox, timeout: float = 10.0) -> None:  # noqa: ASYNC109
    """Wait until every chat's worker is done or waits for the clock (nothing more can go out
    before the test advances it). ``timeout``: real seconds, a guard against a hang only."""
    deadline = time.monotonic() + timeout
    while True:
        await asyncio.sleep(0)  # a sleep the clock just ended finishes now
        if all(c.sleeper is not None and not c.sleeper.done() for c in outbox._chats.values()):
            return
        assert time.monotonic() < deadline, "the outbox never came to wait for the clock"
        await asyncio.sleep(0.001)


async def test_a_flooded_group_waits_for_its_budget_while_other_chats_go_on(
    fake_api: FakeBotApi, bot: Bot, clock: ManualClock
) -> None:
    """300 replies in a group at once: one answer to the 150 identical ones, at most
    :data:`MAX_REPLIES` waiting, 20 sent at once and the rest a minute later; meanwhile a
    private chat's messages go out one a second as its own budget allows, the clock never
    waiting for the group's backlog. No 429 anywhere."""
    members = [fake_api.add_user(f"M{i}", started=True) for i in range(30)]
    group = fake_api.add_group("Busy", members=members)
    carla = fake_api.add_user("Carla", started=True)
    tasks = Tasks()
    outbox = _outbox(bot, clock, tasks)
    start = clock.now
    for i in range(300):  # /help is everybody's answer, /score each member's own
        key = ("help",) if i % 2 else ("score", members[i // 2 % 30].id)
        outbox.post(group.id, Content(f"answer {key}"), dedupe=key)
    assert outbox.waiting(group.id) == MAX_REPLIES

    def sent(chat_id: int) -> int:
        return len(fake_api.calls.filter("sendMessage", chat_id=chat_id, ok=True))

    async def has_sent(chat_id: int, n: int) -> None:
        await fake_api.wait_for(lambda: sent(chat_id) == n, what=f"{n} messages in {chat_id}")

    await has_sent(group.id, GROUP.limit)  # the group's first 20 at once
    for second in range(30):  # Carla's chat: one message a second, the group still waits
        outbox.post(carla.id, Content(f"Carla {second}"))
        await has_sent(carla.id, second + 1)
        await _waiting_for_the_clock(outbox)
        assert sent(group.id) == GROUP.limit
        assert outbox.waiting(group.id) == MAX_REPLIES - GROUP.limit
        clock.advance(1.0)
    carla_times = [c.started for c in fake_api.calls.filter("sendMessage", chat_id=carla.id)]
    assert carla_times == [start + s for s in range(30)]  # each the moment it could
    clock.advance(start + GROUP.window - clock.now)  # the group's window has passed
    await has_sent(group.id, MAX_REPLIES)  # the rest once the minute is over
    await _waiting_for_the_clock(outbox)
    assert outbox.waiting() == 0
    group_times = [c.started for c in fake_api.calls.filter("sendMessage", chat_id=group.id)]
    assert group_times == [start] * GROUP.limit + [start + GROUP.window] * 10
    helps = [m for m in fake_api.chat(group).bot_messages if "help" in m.body]
    assert len(helps) == 1
    assert not fake_api.calls.errors()


async def test_a_busy_table_leaves_room_for_every_reply(
    fake_api: FakeBotApi, bot: Bot, clock: ManualClock
) -> None:
    """A table redrawn every second beside a reply every 4 s, for three minutes: the table
    is edited at most 15 times in any minute and at least 4 s apart (its newest content
    each time, the last one at the end), the group gets at most 20 messages in any minute,
    every reply is sent, in order, within the minute, and Telegram answers no 429."""
    anna = fake_api.add_user("Anna", started=True)
    group = fake_api.add_group("Club", members=[anna])
    tasks = Tasks()
    outbox = _outbox(bot, clock, tasks)
    key = ("table", 1)
    replies, start = 0, clock.now
    for second in range(180):
        outbox.show(key, group.id, Content(f"table {second}"), message_id=None, table=True)
        if second % 4 == 0:
            outbox.post(group.id, Content(f"reply {replies}"), dedupe=("reply", replies))
            replies += 1
        await _waiting_for_the_clock(outbox)
        clock.advance(1.0)
    while outbox.waiting(group.id):
        await _waiting_for_the_clock(outbox)
        clock.advance(1.0)
    await _waiting_for_the_clock(outbox)
    assert not fake_api.calls.errors()
    calls = fake_api.calls.filter(*SENDS_AND_EDITS, chat_id=group.id)
    sent = [(c.started, str(c.params["text"])) for c in calls if c.method == "sendMessage"]
    answers = [(at, text) for at, text in sent if text.startswith("reply")]
    assert [text for _, text in answers] == [f"reply {n}" for n in range(replies)]
    assert all(at - (start + 4 * n) < GROUP.window for n, (at, _) in enumerate(answers))
    table = [c.started for c in calls if c.method == "editMessageText"]
    assert len(table) >= 5  # the table gives way, yet goes on being redrawn
    assert all(b - a >= GROUP.table_gap for a, b in itertools.pairwise(table))
    assert all(sum(t <= u < t + GROUP.window for u in table) <= GROUP.table_limit for t in table)
    assert fake_api.calls.max_in_window(group.id, GROUP.window, SENDS_AND_EDITS) <= GROUP.limit
    last = fake_api.calls.filter("editMessageText", chat_id=group.id)[-1]
    assert last.params["text"] == "table 179"  # the newest content, never an older one


# --- the computers' pace ---------------------------------------------------------------------


class _Computers:
    """The service side of the driver: ``moves`` computer moves, one per call."""

    def __init__(self, moves: int) -> None:
        self.left = moves
        self.limits: list[int | None] = []

    async def run_computers(self, game_id: int, limit: int | None = None) -> Outcome:
        self.limits.append(limit)
        if self.left == 0:
            return Outcome(game_id=game_id)
        self.left -= 1
        return Outcome(game_id=game_id, changed=True)

    async def with_view(self, out: Outcome) -> Outcome:
        return out  # the screen shows outcomes as they come


class _Line:
    """The outbox's overall line as the driver sees it: whether the table's chat waits for the
    bot's overall Telegram budget (``waiting``), and :meth:`turn` returning once ``served``."""

    def __init__(self) -> None:
        self.waiting = False
        self.served = asyncio.Event()

    def in_line(self, key: object) -> bool:
        return self.waiting

    async def turn(self, key: object) -> None:
        if self.waiting:
            await self.served.wait()


class _Screen:
    """The presenter side of the driver: what was shown when (manual clock), and the
    outbox's overall line (given to the driver as its ``line``)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.shown: list[tuple[float, Outcome]] = []
        self.outbox = _Line()

    async def present(self, out: Outcome) -> None:
        self.shown.append((self.clock(), out))

    def forget(self, game_id: int) -> None:
        return None


async def test_the_move_is_shown_at_once_and_the_computers_follow_one_a_second() -> None:
    """A human's move is shown when it is submitted, before any computer moves (the answer
    to the tap is never held up by them); the computers then move one at a time, each
    ``computer_delay`` after the one before, each shown; another table's move meanwhile is
    shown at once too."""
    clock = ManualClock()
    computers, screen, tasks = _Computers(3), _Screen(clock), Tasks()
    driver = TableDriver(
        cast("PlayService", computers),
        cast("Presenter", screen),
        tasks.spawn,
        computer_delay=1.0,
        sleep=clock.sleep,
        line=screen.outbox,
    )
    start = clock.now
    human = Outcome(game_id=1, changed=True)
    async with asyncio.timeout(10):  # real seconds: a guard against a hang, no measure
        await driver.submit(human)  # the clock stands still: nothing waits for it
    assert screen.shown == [(start, human)]
    await _turns()
    assert len(screen.shown) == 1 and driver.busy(1)  # the computers wait for their pace
    clock.advance(0.5)
    other = Outcome(game_id=2, lobby=True)  # a lobby elsewhere: no computers there
    async with asyncio.timeout(10):
        await driver.submit(other)
    assert screen.shown[-1] == (start + 0.5, other)
    for _ in range(4):
        clock.advance(0.5)
        await _turns()
    assert [t for t, out in screen.shown if out.game_id == 1] == [start, start + 1, start + 2]
    for _ in range(4):
        clock.advance(0.5)
        await _turns()
    assert [t for t, out in screen.shown if out.game_id == 1] == [start + k for k in range(4)]
    assert not driver.busy(1) and not tasks.running  # a human's turn: the computers stopped
    assert computers.limits == [1, 1, 1, 1]  # one move at a time


async def test_at_the_bots_overall_limit_the_computers_pace_stretches_up_to_its_cap() -> None:
    """While the table's chat waits for the bot's overall Telegram budget, a computer move
    waits for the chat's turn there, at most ``MAX_STRETCH`` seconds beyond its pace; once
    the chat is served, the pace is one a second again."""
    clock = ManualClock()
    computers, screen, tasks = _Computers(3), _Screen(clock), Tasks()
    driver = TableDriver(
        cast("PlayService", computers),
        cast("Presenter", screen),
        tasks.spawn,
        computer_delay=1.0,
        sleep=clock.sleep,
        line=screen.outbox,
    )
    screen.outbox.waiting = True
    start = clock.now
    async with asyncio.timeout(10):  # real seconds: a guard against a hang, no measure
        await driver.submit(Outcome(game_id=1, changed=True))
    await _turns()
    first = start + 1 + MAX_STRETCH  # its pace, then the whole cap: never served
    while clock.now < first:
        clock.advance(0.5)
        await _turns()
    assert [t for t, out in screen.shown if out.game_id == 1] == [start, first]
    screen.outbox.served.set()  # the chat got its place: no more waiting
    screen.outbox.waiting = False
    for _ in range(4):
        clock.advance(0.5)
        await _turns()
    shown = [t for t, out in screen.shown if out.game_id == 1]
    assert shown == [start, first, first + 1, first + 2]
