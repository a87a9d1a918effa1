"""``/score`` pictures are drawn once per game version, viewer's side and language (a bounded
cache); ``/top``'s arithmetic runs off the event loop."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any, cast

import pytest

import bot.presenter as presenter_module
import bot.service.stats as stats_module
import bot.standings
from bot.i18n import get_translator
from bot.outbox import Outbox
from bot.presenter import Presenter, StoredMessageIds
from bot.service import GameService
from bot.taps import Period
from engine.cards import Seat
from tests.bot.test_memory import _play_game

GROUP = -100


@pytest.fixture
def service(random_service: GameService) -> GameService:
    return random_service


async def test_score_pictures_are_drawn_once_per_version_viewer_and_language(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid = await _play_game(service, GROUP, 1, random.Random(3))
    table = await service.tables.load(gid)
    assert table is not None
    drawn: list[str] = []

    def draw(sheet: Any, tr: Any) -> bytes:
        drawn.append(tr.language)
        return b"\x89PNG fake"

    monkeypatch.setattr(presenter_module, "render_sheet_png", draw)
    presenter = Presenter(service.tables, StoredMessageIds(service.repo), cast(Outbox, None), "bot")
    nl, de = get_translator("nl"), get_translator("de")
    answers = await asyncio.gather(
        *(presenter.score_message(table, nl, None, picture=True) for _ in range(20))
    )
    assert all(a.photo == b"\x89PNG fake" for a in answers)
    await presenter.score_message(table, nl, None, picture=True)
    assert drawn == ["nl"]
    await presenter.score_message(table, nl, Seat(0), picture=True)  # a player's side
    await presenter.score_message(table, de, None, picture=True)
    assert drawn == ["nl", "nl", "de"]
    for i in range(40):  # the cache stays bounded
        await presenter.score_message(table, nl, Seat(i % 4), picture=True)
    assert len(presenter._score_pictures) <= 32


async def test_month_standings_are_worked_out_off_the_event_loop(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(2):
        await _play_game(service, GROUP, 1 + i, random.Random(i))
    threads: list[threading.Thread] = []
    replay = bot.standings.replay_ratings

    def watched(results: Any) -> Any:
        threads.append(threading.current_thread())
        return replay(results)

    monkeypatch.setattr(stats_module, "replay_ratings", watched)
    lines = await service.stats.group_standings(GROUP, Period.MONTH)
    assert lines  # the two games count
    assert threads and threading.main_thread() not in threads
