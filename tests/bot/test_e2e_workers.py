"""Two bot workers on one PostgreSQL: the fake Bot API (enforcing Telegram's
message limits) delivers the webhook's updates alternately to two ``python -m bot`` processes
(a load balancer, round-robin), and four people play a game of eight rounds to its end.
Every tap the bot accepted is in the game's log once, in order, and nothing else is. The same
with one of the two workers killed (``kill -9``) in the middle of a round: the other carries
on, its turn timers included (a player who lets the time run out after the kill is reminded
and played for by the survivor), and the killed worker is started again and serves its share
up to the game's end.

However the two draw the players' hands, each player's private chat ends as with one
process: one hand message (the game's last word on it) and no older one whose buttons still
look live, and no call answered "message is not modified" or "message to edit/delete not
found" (two workers redrawing the same message).

Real processes, a real PostgreSQL (``tests/pg.py``), the real webhook server of
python-telegram-bot, Telegram's real message limits (``BOT_WORKERS=2``: each worker keeps to
half of them). The two games run at once, each with its own fake Bot API, database and pair
of workers, so the test takes the time of one game (a few minutes: the private chats' limit of
about one message a second paces a game of four people).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import get_translator
from bot.render import messages
from storage import GameStatus, PostgresRepository
from tests.bot.helpers import ACTION, active_buttons, hand_message, hand_version, pick
from tests.bot.workers import Workers, started_game_id, tap_answered
from tests.fakebot import CallbackQueryRecord, FakeBotApi, FakeChat, SimUser
from tests.pg import PostgresDatabases

TURN = 20
"""Seconds a player has to act (the reminder comes after 10)."""
KILL_AT = 90
"""The tap after which the first worker is killed (in the second round's first tricks)."""
SIT_OUT = 8
"""Taps after the kill, the player to act lets the time run out."""


async def _open_table(api: FakeBotApi, group: FakeChat, people: list[SimUser]) -> None:
    """``/klaverjas``, the four sit down in order, eight rounds, start."""
    await people[0].send(group, "/klaverjas")
    lobby = await api.wait_for(lambda: api.chat(group).last_message(from_bot=True), timeout=30)
    assert lobby is not None

    def body() -> str:
        shown = api.chat(group).message(lobby.message_id)
        return shown.body if shown is not None else ""

    for seat, person in enumerate(people):
        await tap_answered(api, person, lobby, f"sit:{seat}")
        await api.wait_for(_names(body, person.first_name), timeout=30, what="seated")
    await tap_answered(api, people[0], lobby, "rounds:toggle")
    await api.wait_for(lambda: "/8" in body() or " 8 " in body(), timeout=30, what="8 rounds")
    await tap_answered(api, people[0], lobby, "start")


def _names(body: Callable[[], str], name: str) -> Callable[[], bool]:
    return lambda: name in body()


def _last_is_sheet(api: FakeBotApi, group: FakeChat) -> bool:
    last = api.chat(group).last_message(from_bot=True)
    return last is not None and last.photo is not None


async def _play(
    api: FakeBotApi,
    repo: PostgresRepository,
    game_id: int,
    people: list[SimUser],
    workers: Workers | None,
) -> tuple[list[tuple[int, str]], list[int]]:
    """The four play until the game is over, each tapping what their newest hand message
    offers. With ``workers``: the first is killed after :data:`KILL_AT` taps and, later, one
    player lets the turn time run out, and then the first is started again. Returns the
    accepted taps ``(seat, action)`` in order and, for each turn let run out on purpose, how
    many taps had been accepted before it."""
    rng = random.Random(12)
    accepted: list[tuple[int, str]] = []
    timeouts: list[int] = []
    taps = 0
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        game = await repo.get_game(game_id)
        assert game is not None
        if game.status is not GameStatus.ACTIVE:
            return accepted, timeouts
        hands = [(seat, p, hand_message(p)) for seat, p in enumerate(people)]
        turn = [(s, p, m) for s, p, m in hands if m is not None and active_buttons(m)]
        if not turn:
            await asyncio.sleep(0.05)
            continue
        # the newest hand first: one whose edit is still on its way shows older buttons
        seat, person, message = max(turn, key=lambda t: hand_version(t[2]) or 0)
        if workers is not None and taps == KILL_AT + SIT_OUT and not timeouts:
            before = len(await repo.get_actions(game_id))  # the player sits out
            for _ in range(4 * (TURN + 20)):
                if len(await repo.get_actions(game_id)) > before:
                    break
                await asyncio.sleep(0.25)
            else:
                raise AssertionError("nobody ran the turn timer after the kill")
            timeouts.append(len(accepted))
            taps += 1
            await workers.restart(0)
            continue
        _, action = pick(active_buttons(message), rng)
        record: CallbackQueryRecord = await tap_answered(api, person, message, action)
        taps += 1
        if record.text is None:  # accepted (a refusal says why)
            accepted.append((seat, action))
        else:
            await asyncio.sleep(0.2)  # a stale hand: its newer version is on the way
        if workers is not None and taps == KILL_AT:
            workers.kill(0)
    raise AssertionError("the game did not end in time")


def _moves(log: tuple[str, ...]) -> list[tuple[int, str]]:
    """The log's actions as ``(seat, action without the seat)``, like the taps."""
    return [(int(seat), action) for seat, action in (a.split(":", 1) for a in log)]


def _expected_log(
    log: tuple[str, ...], accepted: list[tuple[int, str]], timeouts: list[int]
) -> list[tuple[int, str]]:
    """The log the taps say there must be: the accepted taps in order, and at each timed-out
    turn the move the computer made for the player (taken from the log at that place)."""
    moves = _moves(log)
    expected = list(accepted)
    for k, at in enumerate(timeouts):
        index = at + k
        assert index < len(moves), "the timed-out turn is not in the log"
        expected.insert(index, moves[index])
    return expected


def _timer_moves(
    moves: list[tuple[int, str]], accepted: list[tuple[int, str]]
) -> tuple[list[int], list[tuple[int, str]]]:
    """Where the log has a move nobody tapped: ``(places, moves)``. On a loaded machine a
    player of the test may be slower than the turn time (the hand's edit waits behind the
    private chat's limit of one message a second); the computer then plays for them, as it
    would for a person. Each such move comes between accepted taps, which stay in order."""
    places: list[int] = []
    extra: list[tuple[int, str]] = []
    j = 0
    for i, move in enumerate(moves):
        if j < len(accepted) and move == accepted[j]:
            j += 1
        else:
            places.append(i - len(places))
            extra.append(move)
    assert j == len(accepted), "an accepted tap is missing from the log"
    return places, extra


Counts = tuple[list[int], list[int], dict[str, int], list[list[tuple[int, bool, str, int]]]]
"""Live hands and hand messages per player, redrawing answers, the private chats."""


def _is_hand(markup: dict[str, Any] | None) -> bool:
    """Whether a message's keyboard is a hand's: game buttons (``a<game>.<version>.<what>``)."""
    rows = (markup or {}).get("inline_keyboard", [])
    return any(ACTION.match(str(b.get("callback_data") or "")) for row in rows for b in row)


def _hand_counts(api: FakeBotApi, people: list[SimUser]) -> Counts:
    """Per player: the messages in their private chat whose buttons still look live (a
    hand's), and the messages left there that are or were the hand (ever with a hand's
    buttons, or its last word "this game is over", edited in or sent anew); and the calls
    answered "not modified" or "... not found", by answer; and each private chat's bot
    messages ``(id, deleted, text, buttons)`` (for a failing assertion)."""
    over = messages.game_finished_notice(get_translator("nl"))
    live, hands = [], []
    for person in people:
        shown = [m for m in person.private_chat.all_messages if m.from_bot and not m.deleted]
        live.append(sum(_is_hand(m.reply_markup) for m in shown))
        hands.append(
            sum(
                m.body == over
                or any(_is_hand(markup) for _, markup in [*m.history, (m.body, m.reply_markup)])
                for m in shown
            )
        )
    redrawn: dict[str, int] = {}
    for call in api.calls:
        said = (call.description or "").lower()
        if "not modified" in said or "not found" in said:
            key = f"{call.method}: {call.description}"
            redrawn[key] = redrawn.get(key, 0) + 1
    chats = [
        [
            (m.message_id, m.deleted, m.body[:30], len(m.buttons))
            for m in p.private_chat.all_messages
            if m.from_bot
        ]
        for p in people
    ]
    return live, hands, redrawn, chats


async def _scenario(api: FakeBotApi, url: str, folder: Path, *, kill: bool) -> Counts:
    """One game with two workers (with ``kill``: one killed and started again); returns
    :func:`_hand_counts` at its end."""
    people = [
        api.add_user(name, language_code="nl", started=True)
        for name in ("Anna", "Bram", "Cor", "Dirk")
    ]
    group = api.add_group("Twee werkers", members=people)
    workers = Workers(api, url, folder, turn=TURN)
    repo = await PostgresRepository.open(url)
    errors: list[str] = []
    try:
        await workers.start()
        await _open_table(api, group, people)
        game_id = await started_game_id(repo, group.id)
        accepted, timeouts = await _play(api, repo, game_id, people, workers if kill else None)
        game = await repo.get_game(game_id, with_actions=True)
        assert game is not None and game.status is GameStatus.FINISHED
        assert game.actions is not None
        moves = _moves(game.actions)
        assert len(timeouts) == (1 if kill else 0)
        # nothing lost, nothing twice: exactly the accepted taps (and the timed-out turns)
        places, extra = _timer_moves(moves, accepted)
        assert set(timeouts) <= set(places), (timeouts, places)
        assert moves == _expected_log(game.actions, accepted, places)
        # a move nobody tapped is the computer's for a player whose time ran out (rare)
        assert len(extra) <= len(timeouts) + 3, extra
        print(f"\n{'killed' if kill else 'calm'}: {len(extra)} timed-out turns {extra}")
        served = {a.url for a in api.webhook.attempts_log[: workers.restarted_at or None] if a.ok}
        assert served == set(workers.first_urls)  # both took part (before the kill)
        if kill:  # the restarted worker served its share again
            after = [a for a in api.webhook.attempts_log[workers.restarted_at :] if a.ok]
            assert {a.url for a in after} == set(workers.urls)
        # the sheet comes last, as at any game end, and no older table is drawn over it
        await api.wait_for(lambda: _last_is_sheet(api, group), timeout=60, what="the sheet")
        await api.idle(quiet=3.0, timeout=60)
        assert _last_is_sheet(api, group)
        # each worker keeps to half the group's 20 a minute: together they never pass it
        # (a private chat's one a second is split too, but not coordinated: two workers may
        # each send there within one second, and the outbox retries that 429 in that chat)
        assert not [c for c in api.calls if c.status == 429 and c.chat_id == group.id]
        counts = _hand_counts(api, people)
    finally:
        errors = await workers.stop()
        await repo.close()
    for text in errors:
        assert "Traceback" not in text, text[-4000:]
    return counts


@pytest.mark.slow(280)
async def test_two_workers_play_a_game_to_the_end_and_one_survives_the_other(
    postgres_server: PostgresDatabases, tmp_path: Path
) -> None:
    urls = [await postgres_server.create(migrated=True) for _ in range(2)]
    try:
        async with FakeBotApi() as calm, FakeBotApi() as rough, asyncio.TaskGroup() as games:
            quiet = games.create_task(_scenario(calm, urls[0], tmp_path / "both", kill=False))
            killed = games.create_task(_scenario(rough, urls[1], tmp_path / "killed", kill=True))
        for api in (calm, rough):
            assert not api.internal_errors, api.internal_errors
        # one hand per player at the end, as with one process: the game's last word on it
        # (no buttons), no older one whose buttons still look live; and no worker redrew what
        # another had drawn already (answered "not modified", or "not found": deleted by it)
        for name, task in (("calm", quiet), ("killed and restarted", killed)):
            live, hands, redrawn, _ = task.result()
            print(f"\n{name}: live buttons {live}, hand messages {hands}, {redrawn}")
        for task in (quiet, killed):
            live, hands, redrawn, chats = task.result()
            assert live == [0, 0, 0, 0], chats
            assert hands == [1, 1, 1, 1], chats
            assert not redrawn
    finally:
        for url in urls:
            await postgres_server.drop(url)
