"""Trust boundaries, end to end against the fake Bot API: a game button counts only where it
lives (callback data can be sent on any message), outsiders neither join nor read, channels
cannot play, a player who leaves the group loses the seat, a hand-over is no tip in a group
without tips, and ``/stop``'s confirmation is taken by any process on the database.

Every test plays an outsider's or a cheater's move with a real client's means: a forged
callback query (any data on any message of a chat they are in) or an ordinary deep link."""

from __future__ import annotations

import re
from pathlib import Path

from bot.i18n import get_translator
from bot.outcome import Refusal
from bot.render.reasons import refusal_text
from bot.tables import TableSettings
from storage import Game, GameStatus, SeatKind, open_repository
from tests.fakebot import BotRunner, FakeBotApi, SimUser, run_polling
from tests.fakebot.model import FakeChat, FakeMessage

from .helpers import by_action, hand_message, make_app, open_and_fill

EN = get_translator("en")
NL = get_translator("nl")
LINK = re.compile(r"\?start=([A-Za-z0-9_]+)")


async def _game(db: Path) -> Game:
    repo = await open_repository(db)
    try:
        games = await repo.export_games()
        return games[-1]
    finally:
        await repo.close()


def _data(message: FakeMessage, action: str) -> str:
    """The callback data of the message's button whose data ends with ``.<action>``."""
    for button in message.buttons:
        if button.callback_data and str(button.callback_data).endswith("." + action):
            return str(button.callback_data)
    raise AssertionError(f"no {action} button in {message.keyboard_rows()}")


def _texts(chat: FakeChat) -> list[str]:
    return [m.text or m.caption or "" for m in chat.bot_messages]


async def _outsider_message(bot: BotRunner, user: SimUser) -> FakeMessage:
    """A bot message in the user's own private chat to tap forged data on."""
    await user.start_bot()
    await bot.settle()
    message = user.private_chat.last_message()
    assert message is not None
    return message


def _no_errors(bot: BotRunner) -> None:
    assert not bot.log_errors, [r.getMessage() for r in bot.log_errors]


async def test_lobby_taps_forged_in_a_private_chat_change_nothing(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    eve = fake_api.add_user("Eve", language_code="en")
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        own = await _outsider_message(bot, eve)
        for action in ("tips:toggle", "bot:add", "start", "cancel"):
            tap = await eve.tap_data(own, _data(lobby, action))
            answer = await tap.wait_answered()
            await bot.settle()
            assert answer.show_alert and answer.text == refusal_text(EN, Refusal.WRONG_CHAT)
        game = await _game(db)
        _no_errors(bot)
    assert game.status is GameStatus.LOBBY
    assert not TableSettings.from_json(game.settings).tips
    assert all(s.kind is SeatKind.EMPTY for s in game.seats)
    assert not fake_api.find_messages(group, "Eve")  # "Eve closed the table" never said


async def test_a_hand_tap_forged_on_the_group_table_changes_nothing(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="en", started=True) for n in ("Anna", "B"))
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        table = await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        hand = hand_message(bert)
        assert hand is not None
        forged = _data(hand, "handover").replace("handover", "handover:yes")
        tap = await bert.tap_data(fake_api.last_message(group), forged)
        answer = await tap.wait_answered()
        await bot.settle()
        tap = await bert.tap_data(table, forged)
        again = await tap.wait_answered()
        await bot.settle()
        game = await _game(db)
        _no_errors(bot)
    for refused in (answer, again):
        assert refused.show_alert and refused.text == refusal_text(EN, Refusal.WRONG_CHAT)
    assert game.seats[1].kind is SeatKind.HUMAN and game.seats[1].user_id == bert.id


async def test_a_non_member_cannot_take_a_seat_by_the_deep_link(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    bob = fake_api.add_user("Bob", language_code="en")  # a member who never started the bot
    eve = fake_api.add_user("Eve", language_code="en")
    group = fake_api.add_group("Club", members=[anna, bob], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        answer = await (await bob.tap(lobby, by_action("sit:1"))).wait_answered()
        await bot.settle()
        assert answer.url is not None
        found = LINK.search(answer.url)
        assert found is not None
        payload = found[1]
        await eve.start_bot(payload)
        await bot.settle()
        refused = _texts(eve.private_chat)
        game = await _game(db)
        assert all(s.kind is SeatKind.EMPTY for s in game.seats)
        await bob.start_bot(payload)  # the member it was made for sits
        await bot.settle()
        game = await _game(db)
        _no_errors(bot)
    assert refused == [refusal_text(EN, Refusal.NOT_A_MEMBER)]
    assert game.seats[1].user_id == bob.id
    assert not re.fullmatch(r"j\d+_1", payload)  # a random token, not the game's number


async def test_hand_links_name_no_game_number_and_show_outsiders_nothing(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    carl = fake_api.add_user("Carl", language_code="en")
    eve = fake_api.add_user("Eve", language_code="en")
    group = fake_api.add_group("Geheim", members=[anna, carl], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        urls = [b.url for b in lobby.buttons if b.url]
        assert urls
        found = LINK.search(urls[0])
        assert found is not None
        token = found[1]
        await eve.start_bot("h1")  # guessed from the game's number
        await bot.settle()
        guessed = _texts(eve.private_chat)
        await eve.start_bot(token)  # the real link, passed on to an outsider
        await bot.settle()
        passed_on = _texts(eve.private_chat)[len(guessed) :]
        await carl.start_bot(token)  # a member
        await bot.settle()
        _no_errors(bot)
    assert guessed[0] == refusal_text(EN, Refusal.OLD_LINK)
    assert passed_on and not any("Geheim" in t for t in guessed + passed_on)
    assert any("Geheim" in t for t in _texts(carl.private_chat))
    assert not re.fullmatch(r"h\d+", token)


async def test_a_forged_sheet_switch_shows_an_outsider_nothing(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    eve = fake_api.add_user("Eve", language_code="en")
    group = fake_api.add_group("Geheim", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna], computers=3)
        own = await _outsider_message(bot, eve)
        before = len(eve.private_chat.bot_messages)
        tap = await eve.tap_data(own, "v1.1.sheet:text")
        answer = await tap.wait_answered()
        await bot.settle()
        _no_errors(bot)
    assert answer.show_alert and answer.text == refusal_text(EN, Refusal.WRONG_CHAT)
    assert len(eve.private_chat.bot_messages) == before
    assert not any("Geheim" in t for t in _texts(eve.private_chat))


async def test_a_channel_poster_cannot_open_a_table(fake_api: FakeBotApi, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(group, "/klaverjas", channel=(-1001234, "Annas Kanaal"))
        await bot.settle()
        repo = await open_repository(db)
        try:
            open_game = await repo.open_game_of_chat(group.id)
        finally:
            await repo.close()
        _no_errors(bot)
    assert open_game is None
    said = fake_api.last_message(group).text or ""
    assert refusal_text(NL, Refusal.CHANNEL_CANNOT_PLAY) in said


async def test_a_player_who_leaves_the_group_loses_the_seat_and_is_told(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="en", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        await bert.leave(group)
        await bot.settle()
        game = await _game(db)
        _no_errors(bot)
    assert game.status is GameStatus.ACTIVE
    assert game.seats[1].kind is SeatKind.COMPUTER and game.seats[1].former_user_id is None
    assert any("You left" in t and "Club" in t for t in _texts(bert.private_chat))
    assert fake_api.find_messages(group, "Bert left the group")


async def test_a_seat_handed_over_comes_back_only_at_the_next_round_without_tips(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="en", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await open_and_fill(fake_api, bot, group, [anna, bert], computers=2)
        hand = hand_message(bert)
        assert hand is not None
        await (await bert.tap(hand, by_action("handover"))).wait_answered()
        await bot.settle()
        confirm = hand_message(bert)
        assert confirm is not None
        await (await bert.tap(confirm, by_action("handover:yes"))).wait_answered()
        await bot.settle()
        tap = await bert.tap(confirm, by_action("reclaim:1"))
        answer = await tap.wait_answered()
        await bot.settle()
        game = await _game(db)
        _no_errors(bot)
    assert answer.show_alert and answer.text == refusal_text(EN, Refusal.RECLAIM_NEXT_ROUND)
    assert game.seats[1].kind is SeatKind.COMPUTER and game.seats[1].former_user_id == bert.id


async def test_a_stop_confirmation_is_taken_by_another_process(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    """Two bot applications over one database, one after the other (the first asks, the
    second, with nothing of the first in memory, takes the answer): what a second worker
    behind a load balancer sees."""
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    group = fake_api.add_group("Club", members=[anna], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        await anna.send(group, "/stop")
        await bot.settle()
        confirm = fake_api.last_message(group)
        _no_errors(bot)
    async with run_polling(make_app(fake_api, db), fake_api) as other:
        tap = await anna.tap(confirm, by_action("stop:yes"))
        answer = await tap.wait_answered()
        await other.settle()
        game = await _game(db)
        _no_errors(other)
    assert not answer.show_alert, answer.text
    assert game.status is GameStatus.ABANDONED


async def test_a_lobby_tap_forged_in_another_forum_topic_changes_nothing(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna = fake_api.add_user("Anna", language_code="en", started=True)
    forum = fake_api.add_forum("Club", members=[anna], admins=[anna])
    spades, hearts = fake_api.add_topic(forum, "Spades"), fake_api.add_topic(forum, "Hearts")
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(forum, "/klaverjas", thread_id=spades)
        await bot.settle()
        lobby = fake_api.last_message(forum)
        await anna.send(forum, "/help", thread_id=hearts)
        await bot.settle()
        elsewhere = fake_api.last_message(forum)
        assert fake_api.topic_of(elsewhere) == hearts
        tap = await anna.tap_data(elsewhere, _data(lobby, "cancel"))
        answer = await tap.wait_answered()
        await bot.settle()
        game = await _game(db)
        _no_errors(bot)
    assert answer.show_alert and answer.text == refusal_text(EN, Refusal.WRONG_CHAT)
    assert game.status is GameStatus.LOBBY


async def test_a_player_who_leaves_the_group_frees_the_lobby_seat(
    fake_api: FakeBotApi, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    anna, bert = (fake_api.add_user(n, language_code="en", started=True) for n in ("Anna", "Bert"))
    group = fake_api.add_group("Club", members=[anna, bert], admins=[anna])
    async with run_polling(make_app(fake_api, db), fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        lobby = fake_api.last_message(group)
        await (await bert.tap(lobby, by_action("sit:1"))).wait_answered()
        await bot.settle()
        assert (await _game(db)).seats[1].user_id == bert.id
        await bert.leave(group)
        await bot.settle()
        game = await _game(db)
        _no_errors(bot)
    assert game.status is GameStatus.LOBBY and game.seats[1].kind is SeatKind.EMPTY
    assert "Bert" not in (lobby.text or "")
