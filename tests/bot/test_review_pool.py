"""A review's work in the computer pool (:mod:`bot.service.review`): at the lowest priority,
after every waiting move and tip, one piece at a time."""

from __future__ import annotations

import asyncio
import threading

from bot.computer import MOVE, REVIEW, TIP, ComputerPlayers
from bot.outcome import Refusal
from bot.service import GameService
from engine.actions import PlayCard
from engine.ai.review import hindsight_of, judge, point_at, summarize
from engine.cards import Seat
from tests.ai.test_review import quick
from tests.ai.test_tip import card_position
from tests.bot.test_computer import _note, _ran, _turns


async def test_review_work_waits_for_moves_and_tips() -> None:
    players = ComputerPlayers("random", 0)
    _ran.clear()
    busy = threading.Event()
    try:
        first = asyncio.ensure_future(players._run(MOVE, "x", _note, "busy", busy))
        await _turns()
        work = [players.review_work(_note, f"review{i}", table="r") for i in range(2)]
        work += [players._run(TIP, "c", _note, "tip-c")]
        work += [players._run(MOVE, "a", _note, "a0")]
        queued = [asyncio.ensure_future(w) for w in work]
        await _turns()
        busy.set()
        await asyncio.gather(first, *queued)
    finally:
        players.shutdown()
    assert REVIEW > TIP > MOVE
    assert _ran == ["busy", "a0", "tip-c", "review0", "review1"]


async def test_a_decision_is_judged_in_a_worker_process_as_at_home() -> None:
    """The pieces travel to a worker process (picklable) and come back the same."""
    game, obs = card_position("amsterdam", 1, 9)
    action = next(a for a in obs.legal if isinstance(a, PlayCard))
    point = point_at(game, action)
    assert point is not None
    players = ComputerPlayers("random", 1)
    try:
        got = await players.review_work(judge, point, 7, quick(), table="r")
        review = summarize(Seat.SOUTH, game.settings.variant, [got], 1)
        actions = tuple(a.notation() for a in game.log)
        hind = await players.review_work(
            hindsight_of, game.settings, game.seed, actions, review, table="r"
        )
    finally:
        players.shutdown()
    assert got == judge(point, 7, quick())
    assert hind == hindsight_of(game.settings, game.seed, actions, review)


async def test_no_review_of_a_running_game_nor_of_somebody_elses(
    random_service: GameService,
) -> None:
    """Refusals change nothing and ask the pool for nothing: a running game, a game that does
    not exist; the user's last finished game is None before any game ends."""
    svc = random_service
    await svc.people.touch_user(5, "user5", "nl")
    await svc.people.user_started(5)
    out = await svc.lobby.open_table(5, "private", None, 5, "user5")
    assert out.game_id is not None
    asked = await svc.review.ask_review(out.game_id, 5)
    assert asked.review is None and asked.outcome.refusal is Refusal.REVIEW_NOT_YET
    asked = await svc.review.ask_review(out.game_id + 1, 5)
    assert asked.review is None and asked.outcome.refusal is Refusal.GAME_NOT_FOUND
    assert await svc.review.last_finished_game(5) is None
