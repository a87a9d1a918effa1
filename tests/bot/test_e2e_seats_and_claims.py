"""End to end: a lobby seat change is said, and after a roem claim on
the last trick (``rules.md`` §5.5, preset ``klassiek``) the claimer's hand moves on to the
next round at once, and a re-tap is refused with the right reason (the next player is bidding
for trump, not playing)."""

from __future__ import annotations

import random
from pathlib import Path

from engine.actions import Action, ClaimRoem
from engine.game import GameState
from engine.round import Phase
from tests.bot.helpers import FastTime, active_buttons, by_action, hand_message, make_app
from tests.fakebot import FakeBotApi, SimUser, run_polling


async def test_moving_to_another_free_seat_is_said(fake_api: FakeBotApi, tmp_path: Path) -> None:
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, tmp_path / "db.sqlite3"), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        first = await (await anna.tap(lobby, by_action("sit:0"))).wait_answered()
        await bot.settle()
        moved = await (await anna.tap(lobby, by_action("sit:3"))).wait_answered()
        await bot.settle()
    assert first.text == "Je zit op Noord."
    assert moved.text == "Je zat op Noord, nu zit je op West."
    assert not moved.show_alert


def _plan_to_a_last_trick_roem(state: GameState, rng: random.Random) -> list[Action]:
    """Moves from ``state`` (a round's start) that end the round with roem on its last trick
    (so the claim window of ``rules.md`` §5.5 opens): random playouts until one does."""
    for _ in range(2000):
        moves: list[Action] = []
        now = state
        while now.current is not None and now.current.phase is not Phase.CLAIM:
            legal = [a for a in now.legal_actions() if not isinstance(a, ClaimRoem)]
            if not legal or now.round_number != state.round_number:
                break
            move = rng.choice(legal)
            moves.append(move)
            now, _ = now.apply(move)
        if now.current is not None and now.current.phase is Phase.CLAIM:
            return moves
    raise AssertionError("no playout ends with roem on the last trick")


async def test_after_a_roem_claim_on_the_last_trick_the_hand_moves_on_and_a_retap_says_why(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    players = [fake_api.add_user(n, language_code="en", started=True) for n in "ABCD"]
    group = fake_api.add_group("Club", members=players, admins=players[:1])
    app = make_app(fake_api, tmp_path / "db.sqlite3")
    async with run_polling(app, fake_api) as bot:
        await players[0].send(group, "/klaverjas klassiek")  # roem must be claimed
        await bot.settle()
        lobby = fake_api.last_message(group)
        for seat, user in enumerate(players):
            await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
            await bot.settle()
        await (await players[0].tap(lobby, by_action("start"))).wait_answered()
        await bot.settle()
        table = await app.bot_data["app"].service.tables.load(1)
        assert table is not None and table.state is not None
        for move in _plan_to_a_last_trick_roem(table.state, random.Random(3)):
            user, hand = players[move.seat], hand_message(players[move.seat])
            assert hand is not None
            token = move.notation(with_seat=False)
            tap = await user.tap(hand, by_action(token))
            assert not (await tap.wait_answered()).show_alert
            await bot.settle()
        table = await app.bot_data["app"].service.tables.load(1)
        assert table is not None and table.state is not None and table.state.to_act is not None
        claimer = players[table.state.to_act]
        hand = hand_message(claimer)
        assert hand is not None and any(a == "roem" for _, a in active_buttons(hand))
        data = next(t for row in hand.keyboard_rows() for _, t in row if t and t.endswith("roem"))
        claim = await (await claimer.tap(hand, by_action("roem"))).wait_answered()
        await bot.settle()
        now = hand_message(claimer)
        assert now is not None and now.body != hand.body  # the next round's hand, at once
        retap = await (await claimer.tap_data(now, data)).wait_answered()
        await bot.settle()
        table = await app.bot_data["app"].service.tables.load(1)
        assert table is not None and table.state is not None
    assert not claim.show_alert
    assert table.state.round_number == 2
    assert retap.show_alert and retap.text is not None
    assert table.state.to_act != claimer_seat(players, claimer)  # somebody else bids first
    assert "bidding for trump" in retap.text and "to play" not in retap.text
    fake_api.assert_callbacks_answered_once()


def claimer_seat(players: list[SimUser], user: SimUser) -> int:
    """The seat of ``user`` (players sit in order)."""
    return players.index(user)


async def test_a_roem_claim_on_the_last_trick_leaves_no_stale_hand_within_the_budget(
    tmp_path: Path,
) -> None:
    """The same claim with Telegram's limits on (time 20 times faster): once the claim is
    played, every player's hand shows the next round and no older hand message of the game
    keeps a button to tap."""
    fast = FastTime()
    async with FakeBotApi(clock=fast.now) as api:
        players = [api.add_user(n, language_code="en", started=True) for n in "ABCD"]
        group = api.add_group("Club", members=players, admins=players[:1])
        app = make_app(api, tmp_path / "db.sqlite3", budget=fast.budget(), default_language="en")
        async with run_polling(app, api) as bot:
            await players[0].send(group, "/klaverjas klassiek")
            await bot.settle()
            lobby = api.last_message(group)
            for seat, user in enumerate(players):
                await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
                await bot.settle()
            await (await players[0].tap(lobby, by_action("start"))).wait_answered()
            await bot.settle()
            table = await app.bot_data["app"].service.tables.load(1)
            assert table is not None and table.state is not None
            for move in _plan_to_a_last_trick_roem(table.state, random.Random(3)):
                user, hand = players[move.seat], hand_message(players[move.seat])
                assert hand is not None
                tap = await user.tap(hand, by_action(move.notation(with_seat=False)))
                assert not (await tap.wait_answered()).show_alert
                await bot.settle(timeout=20)
            table = await app.bot_data["app"].service.tables.load(1)
            assert table is not None and table.state is not None
            assert table.state.to_act is not None
            claimer = players[table.state.to_act]
            hand = hand_message(claimer)
            assert hand is not None
            await (await claimer.tap(hand, by_action("roem"))).wait_answered()
            await bot.settle(timeout=20)
        for user in players:
            shown = [m for m in user.private_chat.bot_messages if not m.deleted]
            live = [m for m in shown if active_buttons(m)]
            assert all("round 2/16" in m.body for m in live), [m.body[:50] for m in live]
            newest = hand_message(user)
            assert newest is not None and "round 2/16" in newest.body
