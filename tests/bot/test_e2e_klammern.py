"""End-to-end Klammern: one human and three computer players through the real PTB
application and the fake Bot API, from the lobby (preset ``klammern``) to the final sheet by big
points and the admin export; and a human's contra in the window the computers leave open."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.admin import export
from tests.fakebot import FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import active_buttons, by_action, hand_message, make_app

SEED = 20_264
"""The game seed: the human is offered declarations, bella, contra and re in this game."""


async def open_klammern(
    api: FakeBotApi, bot: Any, group: FakeChat, user: SimUser, seat: int
) -> FakeMessage:
    """``/klaverjas``, take ``seat``, three computers, preset button until Klammern, start."""
    await user.send(group, "/klaverjas")
    await bot.settle()
    lobby = api.last_message(group)
    taps = [f"sit:{seat}", "bot:add", "bot:add", "bot:add"]
    for action in taps:
        await (await user.tap(lobby, by_action(action))).wait_answered()
        await bot.settle()
    for _ in range(4):
        if "Klammern" in lobby.body:
            break
        await (await user.tap(lobby, by_action("preset:next"))).wait_answered()
        await bot.settle()
    assert "Klammern" in lobby.body and "tot 3 grote punten" in lobby.body
    await (await user.tap(lobby, by_action("start"))).wait_answered()
    await bot.settle()
    return lobby


class Human:
    """A Klammern player's policy: declares everything and bella when offered, calls contra
    or re the first time and then at random, bids at random, plays a random legal card."""

    def __init__(self, rng: random.Random, *, calls: bool = True) -> None:
        self.rng = rng
        self.calls = calls
        self.done: list[str] = []

    def choose(self, buttons: Sequence[tuple[str, str]]) -> str | None:
        """The action to tap, or None to wait for the others."""
        actions = [a for _, a in buttons]
        if "declare:all" in actions:
            return "declare:all"
        for prefix in ("declare:", "bella:"):
            found = [a for a in actions if a.startswith(prefix)]
            if found:
                return found[0]
        call = next((a for a in ("contra", "re") if a in actions), None)
        if call is not None and self.calls and (call not in self.done or self.rng.random() < 0.5):
            return call
        if call is not None and "pass" in actions:
            return "pass"  # "no contra" / "no re": the computers wait for it
        bids = [a for a in actions if a.startswith(("accept", "kleintje", "beter"))]
        if bids and self.rng.random() < 0.5:
            return self.rng.choice(bids)
        if "pass" in actions:
            return "pass"
        cards = [a for label, a in buttons if a.startswith("play:") and not label.startswith("·")]
        return self.rng.choice(cards) if cards else None


async def play(bot: Any, user: SimUser, human: Human, limit: int = 2000) -> int:
    """Let ``user`` act with ``human`` until the game leaves them nothing to do."""
    taps = 0
    while taps < limit:
        message = hand_message(user)
        if message is None:
            break
        action = human.choose(active_buttons(message))
        if action is None:
            break
        tap = await user.tap(message, by_action(action))
        await tap.wait_answered()
        assert not tap.show_alert, (action, tap.text)
        human.done.append(action.split(":")[0])
        taps += 1
        await bot.settle(quiet=0.01)
    return taps


async def test_one_human_and_three_computers_play_klammern_to_the_target(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "bot.sqlite3"
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Klammerclub", members=[anna], admins=[anna])
    human = Human(random.Random(4))
    async with run_polling(make_app(fake_api, db, seeds=lambda: SEED), fake_api) as bot:
        await open_klammern(fake_api, bot, group, anna, seat=0)
        taps = await play(bot, anna, human)
    fake_api.assert_callbacks_answered_once()
    (game,) = await export(str(db))
    json.dumps(game)
    assert game["status"] == "finished" and game["variant"] == "klammern"
    assert game["settings"]["preset"] == "klammern"
    assert max(game["totals"].values()) >= 3
    assert game["totals"] == game["rounds"][-1]["tally"]["big"]
    for r in game["rounds"]:
        assert r["variant"] == "klammern" and r["proposed"] and r["bids"]
        assert sum(r["small_points"].values()) == r["multiplier"] in (1, 2, 4)
        assert r["score"] == r["small_points"] and len(r["tricks"]) == 8
        assert {"declarations", "declaration_points", "bella", "contra", "re"} <= set(r)
    mine = [a for a in game["actions"] if a.startswith("0:")]
    kinds = {a.split(":")[1] for a in mine}
    assert {"declare", "bella", "contra", "re"} <= kinds, kinds
    assert any(r["contra"] == 0 or r["re"] == 0 for r in game["rounds"])
    assert any(d["seat"] == 0 for r in game["rounds"] for d in r["declarations"])
    assert any(r["bella"] == 0 for r in game["rounds"])
    assert taps > 8 * len(game["rounds"])
    final = fake_api.last_message(group)
    assert "Het spel is uit!" in final.body and final.photo_bytes  # the sheet as a picture
    redeals = [m for m in group.bot_messages if "deelt opnieuw" in m.body]
    assert len(redeals) == len(game["voided"])  # "the same dealer deals again" (§9.3)
    winner = "Anna" if game["winner"] == "NS" else "Computer"
    assert winner in final.body.split("🏆", 1)[1]


async def test_a_human_defender_calls_contra_while_the_computers_wait(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "bot.sqlite3"
    anna = fake_api.add_user("Anna", language_code="nl", started=True)
    group = fake_api.add_group("Klammerclub", members=[anna], admins=[anna])
    human = Human(random.Random(9), calls=False)
    async with run_polling(make_app(fake_api, db, seeds=lambda: SEED + 1), fake_api) as bot:
        table = await open_klammern(fake_api, bot, group, anna, seat=0)
        for _ in range(400):
            message = hand_message(anna)
            assert message is not None
            buttons = active_buttons(message)
            actions = {a for _, a in buttons}
            table = fake_api.last_message(group)
            if {"contra", "pass"} <= actions and "Wachten op Anna: contra of niet?" in table.body:
                break
            action = human.choose(buttons)
            assert action is not None
            await (await anna.tap(message, by_action(action))).wait_answered()
            await bot.settle(quiet=0.01)
        else:
            raise AssertionError("the computers never waited for Anna's contra")
        # The first trick is complete and the second has not begun.
        assert "Slag 1 →" in table.body and "Slag 2" not in table.body
        assert "De volgende kaart wacht op jou: contra of geen contra?" in message.body
        assert not [a for _, a in buttons if a.startswith("play:")] or "👉 Jij" not in message.body
        tap = await anna.tap(message, by_action("contra"))
        await tap.wait_answered()
        await bot.settle()
        assert not tap.show_alert
        after = fake_api.last_message(group)
        assert "⚔️ Contra van Anna" in after.body, after.body
        assert "Wachten op Anna" not in after.body
    fake_api.assert_callbacks_answered_once()
    (game,) = await export(str(db))
    assert "0:contra" in game["actions"]
    current = game["current_round"]
    assert current["contra"] == 0
    played = sum(len(t["cards"]) for t in current["tricks"])
    assert played >= 4


async def test_a_deal_everybody_passes_is_shown_and_dealt_again_by_the_same_dealer(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "bot.sqlite3"
    names = ["Anna", "Bert", "Cas", "Dirk"]
    users = [fake_api.add_user(n, language_code="nl", started=True) for n in names]
    group = fake_api.add_group("Klammerclub", members=users, admins=users[:1])
    async with run_polling(make_app(fake_api, db, seeds=lambda: SEED), fake_api) as bot:
        await users[0].send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        for seat, user in enumerate(users):
            await (await user.tap(lobby, by_action(f"sit:{seat}"))).wait_answered()
            await bot.settle()
        while "Klammern" not in lobby.body:
            await (await users[0].tap(lobby, by_action("preset:next"))).wait_answered()
            await bot.settle()
        await (await users[0].tap(lobby, by_action("start"))).wait_answered()
        await bot.settle()
        dealer = fake_api.last_message(group).body.split("Deler: ", 1)[1].split("\n", 1)[0]
        for _ in range(8):  # nobody accepts, nobody calls a kleintje
            user = next(u for u in users if ("pass" in {a for _, a in _buttons(u)}))
            message = hand_message(user)
            assert message is not None
            await (await user.tap(message, by_action("pass"))).wait_answered()
            await bot.settle()
        texts = [m.body for m in group.bot_messages if not m.deleted]
    fake_api.assert_callbacks_answered_once()
    assert f"🔁 Niemand wilde spelen: {dealer} deelt opnieuw." in texts
    table = texts[-1]
    assert texts.index(f"🔁 Niemand wilde spelen: {dealer} deelt opnieuw.") < len(texts) - 1
    assert f"Deler: {dealer}" in table and "ronde 1" in table
    (game,) = await export(str(db))
    assert len(game["voided"]) == 1 and game["voided"][0]["bids"][-1].endswith(":pass")
    assert len(game["voided"][0]["bids"]) == 8


def _buttons(user: SimUser) -> list[tuple[str, str]]:
    message = hand_message(user)
    return active_buttons(message) if message is not None else []
