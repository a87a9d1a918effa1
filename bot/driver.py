"""The table driver: the one way a game moves on after something happened.

Button taps, commands, turn timers and the resume after a restart all hand their
:class:`~bot.outcome.Outcome` to :meth:`TableDriver.submit`: it shows what happened, then
lets the computer players move in the background, one move at a time at a readable pace
(``computer_delay`` seconds apart; 0 plays them at once), showing each. So the answer to a
human's own tap is never delayed by the computers, and a player can follow the trick. When
the bot is at Telegram's limit for all chats together, the pace stretches (the next move
waits for its chat's turn at that budget, :data:`MAX_STRETCH` at most), fairly across tables.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import BrokenExecutor
from typing import TYPE_CHECKING, Any, Protocol

from bot.outbox import SurfaceKey
from bot.outcome import Outcome
from bot.presenter.base import table_key
from bot.service.play import computers_due

if TYPE_CHECKING:
    from bot.presenter import Presenter
    from bot.service.play import PlayService

log = logging.getLogger(__name__)

MAX_STRETCH = 2.5
"""Seconds a paced computer move waits at most, beyond the pace, for its chat's turn at the
bot's overall Telegram budget (:meth:`TableDriver._caught_up`): with the default pace of 1 s
and the decision (up to about a second at 100 busy tables), no computer move comes later than
5 s after the previous action (``bench/bench_load.py``)."""

Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]


class OverallLine(Protocol):
    """The outbox's line at the bot's overall Telegram budget, as the driver sees it
    (:class:`bot.outbox.Outbox` is one): whether a surface's chat waits there, and its turn."""

    def in_line(self, key: SurfaceKey) -> bool:
        """Whether the chat of ``key`` waits for the bot's overall budget."""

    async def turn(self, key: SurfaceKey) -> None:
        """Return once the chat of ``key`` got its place at the overall budget."""


class Views(Protocol):
    """Where an outcome gets the view of its game when the call that made it did not attach
    one (:class:`bot.service.core.Tables` is one)."""

    async def with_view(self, out: Outcome) -> Outcome:
        """See :meth:`bot.service.core.Tables.with_view`."""


GameEnded = Callable[[int], Awaitable[None]]
"""Called with a game's id once its end was shown (the daily's result, ``bot.daily_result``);
never raises."""


class TableDriver:
    """Presents outcomes and runs the computer players of each game, one task per game.

    Args:
        play: the play service (``run_computers``).
        presenter: shows outcomes in Telegram.
        spawn: starts a background task (the application's ``create_task``, so shutdown and
            the tests' ``settle`` wait for it).
        computer_delay: seconds between two computer moves (0: all at once, in tests).
        running: whether the bot still runs; the computers stop between two moves once it
            is False (shutdown), and ``resume`` continues after the restart.
        sleep: waits the given seconds.
        views: attaches the view to an outcome that comes without one (None: outcomes are
            shown as they come).
        line: the outbox's line at the bot's overall budget (paced computer moves wait for
            their chat's turn there, :meth:`_caught_up`); None: they never wait.
        after_end: called with the game id once a game's end was presented (the daily's
            result); never raises.
    """

    def __init__(
        self,
        play: PlayService,
        presenter: Presenter,
        spawn: Spawn,
        *,
        computer_delay: float = 1.0,
        running: Callable[[], bool] = lambda: True,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        views: Views | None = None,
        line: OverallLine | None = None,
        after_end: GameEnded | None = None,
    ) -> None:
        self._views = views
        self.play = play
        self.presenter = presenter
        self.computer_delay = computer_delay
        self._line = line
        self._spawn = spawn
        self._running = running
        self._sleep = sleep
        self._after_end = after_end
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()

    async def submit(self, out: Outcome) -> None:
        """Show ``out`` now; when it moved a game on, let the computers of that game move
        next (in the background). Never raises for Telegram failures."""
        out = await self.show(out)
        await self._ended(out)
        moved = out.changed or out.started or out.resync
        # the outcome's view shows whether a computer is to act (without a view: look)
        due = out.view is None or computers_due(out.view.table)
        if out.game_id is not None and out.ok and moved and not out.ended and due:
            self.wake(out.game_id)

    async def show(self, out: Outcome) -> Outcome:
        """Present ``out`` with its view (``views`` attaches it when the call that made
        ``out`` did not, :meth:`~bot.service.core.Tables.with_view`), without moving the
        computers (the restart shows every game after they moved); returns ``out`` with its
        view."""
        if self._views is not None:
            out = await self._views.with_view(out)
        await self.presenter.present(out)
        return out

    async def _ended(self, out: Outcome) -> None:
        """After a game's end was shown: the presenter forgets the game, then the
        ``after_end`` hook."""
        if not (out.ended and out.ok and out.game_id is not None):
            return
        self.presenter.forget(out.game_id)
        if self._after_end is not None:
            await self._after_end(out.game_id)

    def wake(self, game_id: int) -> None:
        """Let the computers of ``game_id`` move if it is their turn (no-op while they
        already do; they look again once done)."""
        if game_id in self._tasks:
            self._again.add(game_id)
            return
        if not self._running():
            return  # shutting down: resume() lets them move after the restart
        self._tasks[game_id] = self._spawn(self._computers(game_id))

    async def _caught_up(self, game_id: int) -> None:
        """Before a paced computer move: while the game's chat waits for the bot's overall
        Telegram budget (the bot is at Telegram's limit for all chats together), wait for its
        turn there, at most :data:`MAX_STRETCH` seconds more. So at that limit the computers'
        pace stretches, the same for every table (the chats are served in the order they
        came), instead of the moves running ahead of what the chats can show."""
        line = self._line
        key = table_key(game_id)
        if line is None or not line.in_line(key):
            return
        turn = asyncio.ensure_future(line.turn(key))
        cap = asyncio.ensure_future(self._sleep(MAX_STRETCH))
        try:
            await asyncio.wait({turn, cap}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            turn.cancel()
            cap.cancel()

    def busy(self, game_id: int) -> bool:
        """Whether the computers of ``game_id`` are moving."""
        return game_id in self._tasks

    async def _computers(self, game_id: int) -> None:
        """Computer moves of one game until a human is to act (or the bot stops)."""
        try:
            while self._running():
                self._again.discard(game_id)
                paced = self.computer_delay > 0
                if paced:
                    await self._sleep(self.computer_delay)
                    await self._caught_up(game_id)
                    if not self._running():
                        return
                more = await self.play.run_computers(game_id, limit=1 if paced else None)
                if more.changed:
                    await self._ended(await self.show(more))
                if (not more.changed or more.ended) and game_id not in self._again:
                    return
        except BrokenExecutor:
            if self._running():
                log.exception("the computer players of game %s failed", game_id)
            else:  # the bot is stopping: the move is made again after the restart
                log.info("computer move of game %s interrupted by shutdown", game_id)
        except Exception:  # a computer bug must never lose the game: it stays as saved
            log.exception("the computer players of game %s failed", game_id)
        finally:
            self._tasks.pop(game_id, None)
