"""End to end: the review of a player's play. A group game played to the end has a "🔍 review"
button on its final sheet: a player's tap sends the review of their own seat to their private
chat in their language (the numbers the engine's review gives for that seat), a second tap
asks the computers nothing new; ``/review`` in private reviews the sender's last finished
game; an outsider's tap, a forged tap in a private chat and ``/review`` without a game are
refused; a daily's result carries the button too."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import get_translator
from bot.render.common import Player
from bot.render.picture import render_review_png
from bot.render.review import review_text
from bot.service.play import computer_seed
from bot.tables import TableSettings
from engine.ai.review import Review, points, review_game
from engine.ai.strong import StrongPlayer
from engine.cards import Seat, Team
from engine.record import replay_actions
from engine.settings import Settings
from storage import open_repository
from tests.fakebot import FakeBotApi, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import make_app
from .test_e2e_daily import Clock, daily_app, play_daily
from .test_e2e_standings import group_game

REVIEW_WAIT = 240.0
"""Seconds the bot may take to work a review out (a small strong budget, one thread)."""


def quick() -> StrongPlayer:
    """The review's strong player in these tests: a small deterministic budget."""
    return StrongPlayer(max_worlds=4, node_budget=60_000, time_budget_ms=None, exact_limit=4)


def review_data(message: FakeMessage) -> str | None:
    """The callback data of the message's 🔍 button, if it has one."""
    for row in message.keyboard_rows():
        for label, target in row:
            if target and target.endswith(".review"):
                assert label.startswith("🔍 ")
                return target
    return None


def final_sheet(chat: FakeChat) -> FakeMessage:
    """The chat's message with the review button (there is exactly one)."""
    found = [m for m in chat.bot_messages if not m.deleted and review_data(m)]
    assert len(found) == 1, [m.body[:40] for m in chat.bot_messages[-4:]]
    return found[0]


def count_pool_work(app: Any) -> list[str]:
    """Record the name of every piece of review work the service gives the pool."""
    computers = app.bot_data["app"].service.computers
    run = computers.review_work
    asked: list[str] = []

    async def watched(fn: Any, *args: Any, **kw: Any) -> Any:
        asked.append(fn.__name__)
        return await run(fn, *args, **kw)

    computers.review_work = watched
    return asked


async def expected(db: Path, game_id: int, seat: Seat) -> tuple[Review, int]:
    """The engine's review of ``seat`` in the stored game, as the bot works it out, and the
    number of the seat's decisions."""
    repo = await open_repository(db)
    try:
        row = await repo.get_game(game_id)
        assert row is not None
        actions = await repo.get_actions(game_id)
    finally:
        await repo.close()
    rules: Settings = TableSettings.from_json(row.settings).rules
    state = replay_actions(rules, row.seed, actions)
    review = review_game(state, seat, lambda i: computer_seed(row.seed, i), quick())
    return review, len(points(state, seat))


def plain(html_text: str) -> str:
    """Telegram HTML as the reader sees it (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


async def test_a_player_gets_the_review_by_the_button_and_by_review_outsiders_do_not(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="de", started=True)
    bob = fake_api.add_user("Bob", started=True)
    carl = fake_api.add_user("Carl", started=True)
    group = fake_api.add_group("Club", [anna, bob, carl])
    app = make_app(fake_api, db, default_language="en", config={"daily_level": "random"})
    async with run_polling(app, fake_api) as bot:
        app.bot_data["app"].service.review.player = quick()
        asked = count_pool_work(app)
        await group_game(fake_api, bot, group, [anna, bob], seed=3)
        sheet = final_sheet(group)
        data = review_data(sheet)
        assert data is not None
        game_id = int(re.match(r"^r(\d+)\.", data)[1])  # type: ignore[index]
        # Somebody of the group who did not play: refused, nothing worked out.
        record = await (await carl.tap_data(sheet, data)).wait_answered()
        assert record.show_alert and record.text == "You are not playing at this table."
        assert asked == []
        # Anna (North): a toast, then the review of her seat in German in private.
        before = len(anna.private_chat.bot_messages)
        record = await (await anna.tap_data(sheet, data)).wait_answered()
        assert not record.show_alert
        assert record.text == "🔍 Der Computer geht deine Partie durch; die Analyse folgt hier."
        await bot.settle(timeout=REVIEW_WAIT)
        got = anna.private_chat.bot_messages[before:]
        # A picture, with the title and the estimated total in the caption.
        assert len(got) == 1 and got[0].body.startswith("🔍 Analyse deines Spiels — ")
        assert got[0].photo_bytes
        want, decisions = await expected(db, game_id, Seat.NORTH)
        seated = (Player("Anna"), Player("Bob"), Player("", True), Player("", True))
        assert f"etwa {round(want.total)} Punkte verloren" in got[0].body
        title = got[0].body.split(" — ", 1)[1].split("\n", 1)[0]
        assert got[0].photo_bytes == render_review_png(
            get_translator("de"), want, title=title, players=seated
        )
        work = len(asked)
        assert work == decisions + 1  # one piece a decision, one for the hindsight
        # Tapped again: the same review, asked of nobody.
        await (await anna.tap_data(sheet, data)).wait_answered()
        await bot.settle(timeout=REVIEW_WAIT)
        assert len(asked) == work
        assert anna.private_chat.bot_messages[-1].body == got[0].body
        # Bob (East) with /review in private: his own seat, in English.
        await bob.send(None, "/review")
        await bot.settle(timeout=REVIEW_WAIT)
        bobs = bob.private_chat.bot_messages[-1].body
        assert bobs.startswith("🔍 Review of your play — ")
        assert bob.private_chat.bot_messages[-1].photo_bytes
        mine, _ = await expected(db, game_id, Seat.EAST)
        assert f"about {round(mine.total)} points lost" in bobs
        # A forged tap in an outsider's private chat, /review without a game, /review in
        # the group: refused, nothing more worked out.
        work = len(asked)
        await carl.send(None, "/help")
        await bot.settle()
        help_message = carl.private_chat.bot_messages[-1]
        record = await (await carl.tap_data(help_message, data)).wait_answered()
        assert record.show_alert and record.text == "This button does not belong here."
        record = await (
            await carl.tap_data(help_message, f"r{game_id + 99}.0.review")
        ).wait_answered()
        assert record.show_alert
        await carl.send(None, "/review")
        await bot.settle()
        assert carl.private_chat.bot_messages[-1].body == (
            "You have no finished game to review yet."
        )
        await anna.send(group, "/review")
        await bot.settle()
        assert fake_api.last_message(group).body == "Frag mich /review in unserem privaten Chat."
        assert len(asked) == work
    fake_api.assert_callbacks_answered_once()


async def test_the_dailys_review_shows_where_the_game_and_the_par_parted(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """The daily's result has the review button; the review (picture and text) puts the game
    next to the day's par: both totals, the first decision where the par's computer chose
    otherwise, with the round scores of both lines."""
    anna = fake_api.add_user("Anna", started=True)
    db = tmp_path / "db.sqlite3"
    app = daily_app(fake_api, db, Clock())
    async with run_polling(app, fake_api) as bot:
        app.bot_data["app"].service.review.player = quick()
        await play_daily(bot, anna)
        result = next(m for m in reversed(anna.private_chat.bot_messages) if "Daily of" in m.body)
        data = review_data(result)
        assert data is not None
        assert [b.callback_data for b in result.buttons][:2] == ["d.again", "d.hide"]
        repo = await open_repository(db)
        try:
            par = await repo.get_daily_par("2025-03-14")
            game_id = int(re.match(r"^r(\d+)\.", data)[1])  # type: ignore[index]
            row = await repo.get_game(game_id)
            actions = await repo.get_actions(game_id)
        finally:
            await repo.close()
        assert par is not None and row is not None
        state = replay_actions(TableSettings.from_json(row.settings).rules, row.seed, actions)
        yours = sum(int(r.result.score[Team.NS]) for r in state.rounds if r.result is not None)
        # Asked before the day's par is stored: the review without it.
        service = app.bot_data["app"].service
        stored = service.repo.get_daily_par

        async def not_yet(day: str) -> None:
            return None

        service.repo.get_daily_par = not_yet
        try:
            await anna.send(None, "/review")
            await bot.settle(timeout=REVIEW_WAIT)
        finally:
            service.repo.get_daily_par = stored
        early = anna.private_chat.bot_messages[-1]
        assert early.photo_bytes and "the par's" not in early.body
        # Once the par is stored, the review has it.
        record = await (await anna.tap_data(result, data)).wait_answered()
        assert not record.show_alert
        await bot.settle(timeout=REVIEW_WAIT)
        picture = anna.private_chat.bot_messages[-1]
        assert picture.photo_bytes and picture.body.startswith("🔍 Review of your play\n")
        totals = f"Your points {yours} · the par's {par.total} "
        assert totals in picture.body
        # The same review as text (the picture refused): where the two games parted.
        fake_api.inject_fault(kind="photo_refused", method="sendPhoto", chat_id=anna.id)
        await anna.send(None, "/review")
        await bot.settle(timeout=REVIEW_WAIT)
        text = plain(anna.private_chat.bot_messages[-1].body)
        assert "Next to the day's par" in text and totals in text
        first = re.search(r"First parted: Round (\d+), (?:bidding|trick \d+)", text)
        assert first is not None
        number = int(first[1])
        played = int(state.rounds[number - 1].result.score[Team.NS])  # type: ignore[union-attr]
        assert f"The round: you {played}, the par {par.pars[number - 1]}" in text
        # Every round before the first parting was played as the par played it.
        assert all(
            int(r.result.score[Team.NS]) == p  # type: ignore[union-attr]
            for r, p in zip(state.rounds[: number - 1], par.pars, strict=False)
        )
    fake_api.assert_callbacks_answered_once()


async def test_the_review_picture_in_every_language_and_the_text_when_it_is_refused(
    fake_api: FakeBotApi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four players of four languages: each gets the review as a picture (sendPhoto) with
    its caption in their language; when Telegram refuses the picture the text review comes
    instead, word for word."""
    db = tmp_path / "db.sqlite3"
    langs = ["nl", "de", "fr", "en"]
    users = [fake_api.add_user(f"P{lang}", language_code=lang, started=True) for lang in langs]
    group = fake_api.add_group("Club", users)
    app = make_app(fake_api, db, default_language="en")
    async with run_polling(app, fake_api) as bot:
        app.bot_data["app"].service.review.player = quick()
        await group_game(fake_api, bot, group, users, seed=5)
        sheet = final_sheet(group)
        data = review_data(sheet)
        assert data is not None
        game_id = int(re.match(r"^r(\d+)\.", data)[1])  # type: ignore[index]
        for user in users:
            await (await user.tap_data(sheet, data)).wait_answered()
        await bot.settle(timeout=REVIEW_WAIT)
        for user, lang in zip(users, langs, strict=True):
            (photo,) = fake_api.calls.filter("sendPhoto", chat_id=user.private_chat.id)
            assert photo.status == 200
            message = user.private_chat.bot_messages[-1]
            assert message.photo_bytes
            tr = get_translator(lang)
            assert message.body.startswith("🔍 " + tr.gettext("Review of your play") + " — ")
        # The picture refused: the text review instead (Dutch, North's seat).
        nl = users[0]
        rule = fake_api.inject_fault(
            kind="photo_refused", method="sendPhoto", chat_id=nl.private_chat.id
        )
        await nl.send(None, "/review")
        await bot.settle(timeout=REVIEW_WAIT)
        assert len(rule.calls) == 1
        got = nl.private_chat.bot_messages[-1]
        assert not got.photo_bytes and got.body.startswith("🔍 Terugblik op je spel — ")
        want, _ = await expected(db, game_id, Seat.NORTH)
        seated = tuple(Player(f"P{lang}") for lang in langs)
        text = plain(review_text(get_translator("nl"), want, players=seated))
        mark = "Duurste keuzes" if want.worst else "Per ronde"
        assert got.body.split(mark)[1] == text.split(mark)[1]
        # The picture cannot be drawn: the text review, no sendPhoto.
        de = users[1]

        def broken(*args: Any, **kwargs: Any) -> bytes:
            raise OSError("no fonts")

        monkeypatch.setattr("bot.handlers.review.render_review_png", broken)
        before = len(fake_api.calls.filter("sendPhoto", chat_id=de.private_chat.id))
        await de.send(None, "/review")
        await bot.settle(timeout=REVIEW_WAIT)
        got = de.private_chat.bot_messages[-1]
        assert not got.photo_bytes and got.body.startswith("🔍 Analyse deines Spiels — ")
        assert "Pro Runde" in got.body
        assert len(fake_api.calls.filter("sendPhoto", chat_id=de.private_chat.id)) == before
        logged = [r.getMessage() for r in bot.log_errors]
        assert logged == [f"drawing the review of game {game_id} failed"]
        bot.log_errors.clear()  # expected: the bot logs what it could not draw
    fake_api.assert_callbacks_answered_once()
