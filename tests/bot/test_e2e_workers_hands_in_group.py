"""Hands shown in the group (ephemeral messages, :mod:`bot.presenter.ephemeral`) with two bot
workers on one PostgreSQL, one of them killed (``kill -9``) in the middle of a trick.

Four people sit at a table whose hands are in the group, and nobody opens a private chat
with the bot. Their taps go alternately to the two ``python -m bot`` workers (a load
balancer): each worker opens two of the hands ("🂠 my cards"), and a hand one worker opened
is edited by the other. After the trump choice, the first trick and two cards of the
second, the worker that took the last tap is killed (once what it drew is shown) and the
survivor serves the rest: it finishes the trick and shows its winner their turn. What the
players see: every card they tapped is accepted and in the game's log, in order; each hand
is still the one ephemeral message it was before the kill, edited (never sent again, never
as a private hand: nothing is sent to anybody's private chat); nobody else sees it; no hand
shows a card already played; the group never got a ``429``; no worker logged a traceback.
The database records each seat's hand as that message in the group, so any worker (or a
restart) carries on there (``docs/design.md`` §3, §4, §5).

A bounded part of a game, not a whole one: every edit of a hand in the group counts in the
group's 20 messages a minute, within the table's share (``docs/design.md`` §4; with
``BOT_WORKERS=2`` each worker keeps to half of it), so even these nine taps wait twice for the
budget's minute (about two minutes in all) and a whole game would take most of an hour. The
turn time is long, so no seat is played by the computer however slowly the machine runs.
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

import pytest

from storage import GameStatus, MessageRef, PostgresRepository
from tests.bot.helpers import (
    ACTION,
    CARDS,
    active_buttons,
    group_hand,
    hand_version,
    pick,
    shown_table,
)
from tests.bot.workers import Workers, started_game_id, tap_answered
from tests.fakebot import FakeBotApi, FakeChat, FakeMessage, SimUser
from tests.pg import PostgresDatabases

TURN = 900
"""Seconds a player has to act: more than the test takes, so nobody times out."""
KILLED, SURVIVOR = 0, 1
KILL_AFTER = 7
"""Taps before the kill: the trump choice, the first trick and two cards of the second (the
seventh tap went to :data:`KILLED`)."""
TAPS = 9
"""Taps in all: up to the second trick's last card."""
WAIT = 90
"""Seconds a player waits at most for their hand to show their turn (the group's budget may
hold an edit back for most of a minute)."""


def _cards(message: FakeMessage | None) -> set[str]:
    """The cards a hand still shows (live or not)."""
    if message is None:
        return set()
    return {
        m[3]
        for row in message.keyboard_rows()
        for _, target in row
        if (m := ACTION.match(target or "")) and m[3].startswith("play:")
    }


def _choice(hand: FakeMessage, rng: random.Random) -> str:
    """Trump when asked (the first to bid chooses it, so the round is played), else a legal
    card."""
    buttons = active_buttons(hand)
    trumps = [action for _, action in buttons if action.startswith("choose:")]
    return trumps[0] if trumps else pick(buttons, rng)[1]


async def _open_table(api: FakeBotApi, group: FakeChat, people: list[SimUser]) -> None:
    """``/klaverjas``, hands in the group, the four sit down, start."""
    await people[0].send(group, "/klaverjas")
    lobby = await api.wait_for(lambda: api.chat(group).last_message(from_bot=True), timeout=30)
    assert lobby is not None
    await tap_answered(api, people[0], lobby, "hands:toggle")
    for seat, person in enumerate(people):
        await tap_answered(api, person, lobby, f"sit:{seat}")

    def drawn() -> bool:  # the lobby as of every tap: its buttons are current
        labels = [label for row in lobby.keyboard_rows() for label, _ in row]
        return (
            all(p.first_name in lobby.body for p in people) and "🂠 Kaarten: in de groep" in labels
        )

    await api.wait_for(drawn, timeout=30, what="the full lobby")
    await tap_answered(api, people[0], lobby, "start")


@pytest.mark.slow(125)
async def test_hands_in_the_group_survive_a_killed_worker(
    postgres_server: PostgresDatabases, tmp_path: Path
) -> None:
    url = await postgres_server.create(migrated=True)
    try:
        async with FakeBotApi() as api:
            await _scenario(api, url, tmp_path)
            assert not api.internal_errors, api.internal_errors
    finally:
        await postgres_server.drop(url)


async def _scenario(api: FakeBotApi, url: str, folder: Path) -> None:
    people = [api.add_user(n, language_code="nl") for n in ("Anna", "Bram", "Cor", "Dirk")]
    group = api.add_group("Kaartclub", members=people, admins=[people[0]])
    workers = Workers(api, url, folder, turn=TURN)
    repo = await PostgresRepository.open(url)
    try:
        await workers.start()  # round-robin: the lobby's updates go to both
        await _open_table(api, group, people)
        game_id = await started_game_id(repo, group.id)
        # each opens their hand in the group, the taps alternately to the two workers
        for n, person in enumerate(people):
            workers.only(n % 2)
            table = await api.wait_for(partial(shown_table, api, group), timeout=WAIT)
            answer = await tap_answered(api, person, table, CARDS)
            assert not answer.show_alert
        hands = {
            p.id: await api.wait_for(partial(group_hand, api, group, p), timeout=WAIT)
            for p in people
        }
        opened = [
            c for c in api.calls.filter("sendMessage", chat_id=group.id)
            if "ephemeral_message_parameters" in c.params
        ]  # fmt: skip
        assert len(opened) == 4 and all(c.ok for c in opened)  # each the answer to a tap
        # the game: taps alternately to the two workers, then to the survivor alone
        rng = random.Random(4)
        accepted: list[str] = []
        served: list[str] = []
        version = 0
        killed_at = 0
        for k in range(TAPS):
            # the next turn; before the kill also every hand the killed worker drew
            drawn = accepted if k == KILL_AFTER else []
            seat, person, hand = await _turn(api, group, people, version, drawn)
            if k == KILL_AFTER:  # what the killed worker drew is shown: kill it, mid-trick
                workers.kill(KILLED)
                await workers.procs[KILLED].wait()
                killed_at = len(api.calls)
            version = hand_version(hand) or 0
            workers.only(k % 2 if k < KILL_AFTER else SURVIVOR)
            action = _choice(hand, rng)
            delivered = len(api.webhook.attempts_log)
            answer = await tap_answered(api, person, hand, action)
            assert answer.text is None, (person.first_name, action, answer.text)  # accepted
            accepted.append(f"{seat}:{action}")
            served += [a.url for a in api.webhook.attempts_log[delivered:] if a.ok]
        # the survivor shows the trick's winner their turn, and every hand without the cards
        # its player played
        await _turn(api, group, people, version, accepted)
        # every tap was accepted and is in the game, in order, and nothing else
        game = await repo.get_game(game_id, with_actions=True)
        assert game is not None and game.status is GameStatus.ACTIVE
        assert game.actions == tuple(accepted)
        assert len([a for a in accepted if ":play:" in a]) == TAPS - 1  # two tricks
        # alternately to both workers up to the kill, then to the survivor alone
        urls = workers.urls
        expected = [urls[k % 2] for k in range(KILL_AFTER)]
        assert served == expected + [urls[SURVIVOR]] * (TAPS - KILL_AFTER)
        # after the kill the survivor edited the hands in the messages opened before it
        edits = api.calls.filter("editEphemeralMessageText", chat_id=group.id, since=killed_at)
        assert edits and all(c.ok for c in edits), edits
        edited = {
            (int(c.param("receiver_user_id")), int(c.param("ephemeral_message_id"))) for c in edits
        }
        assert edited <= {(p.id, hands[p.id].message_id) for p in people}, edited
        for person in people:
            shown = api.ephemeral_messages(group, person)
            assert shown == [hands[person.id]], person.first_name  # one hand, the same
            assert shown[0].history  # edited as the game went on
            # only its player sees it
            others = [p for p in people if p is not person]
            assert all(shown[0] not in api.transcript(group, p) for p in others)
            assert shown[0] not in api.chat(group).messages
            # no hand in private: nothing sent there, not even tried
            assert api.calls.filter("sendMessage", chat_id=person.id) == []
            assert person.private_chat.bot_messages == []
        # the database: each seat's hand is its ephemeral message in the group, so any
        # worker (or a restart) carries on there
        game = await repo.get_game(game_id)
        assert game is not None
        for seat_row in game.seats:
            assert seat_row.user_id is not None
            ref = seat_row.hand_message
            assert ref == MessageRef(group.id, hands[seat_row.user_id].message_id), seat_row
        assert await repo.hand_places([p.id for p in people]) == {p.id: "group" for p in people}
        # the two workers kept to the group's limit together, and so did the survivor alone
        assert not [c for c in api.calls if c.status == 429 and c.chat_id == group.id]
        api.assert_callbacks_answered_once()
    finally:
        logs = await workers.stop()
        await repo.close()
    for text in logs:
        assert "Traceback" not in text, text[-4000:]


async def _turn(
    api: FakeBotApi, group: FakeChat, people: list[SimUser], after: int, accepted: list[str]
) -> tuple[int, SimUser, FakeMessage]:
    """Wait until a hand in the group shows its player's turn, drawn after version
    ``after``, and no hand shows a card its player played in ``accepted`` (taps,
    ``seat:action``). Returns that player."""

    def played(seat: int) -> set[str]:
        return {a.partition(":")[2] for a in accepted if a.startswith(f"{seat}:play:")}

    def current() -> tuple[int, SimUser, FakeMessage] | None:
        hands = [group_hand(api, group, p) for p in people]
        if any(played(seat) & _cards(hand) for seat, hand in enumerate(hands)):
            return None
        for seat, (person, hand) in enumerate(zip(people, hands, strict=True)):
            if hand is not None and active_buttons(hand) and (hand_version(hand) or 0) > after:
                return seat, person, hand
        return None

    return await api.wait_for(current, timeout=WAIT, what="a turn")
