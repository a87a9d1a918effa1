"""The daily's result when an attempt ends: its result, place and the day's board posted in
the player's private chat (the table driver's game-end hook, ``docs/design.md`` §3, §6), and
the result message itself, which ``/daily`` shows again later that day
(:func:`daily_answer`). Below the handlers: the driver calls it, and the handlers use its
:func:`daily_answer`; it never calls up into them.

The board is a picture drawn in a worker thread, the essential result in its caption, the
text as the fallback should Telegram refuse it; with nobody on the board, or when drawing
fails, the text goes. A player who blocked the bot misses the result message (the outbox
drops it) and finds it with ``/daily``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from bot.i18n import Translator, get_translator
from bot.outbox import Content, Outbox
from bot.render import standings as texts
from bot.render.picture import render_board_png
from bot.render.review import with_review_button
from bot.service import DailySummary
from bot.telegram_io import content, markup
from storage import GameStatus

log = logging.getLogger(__name__)


async def drawn(pictures: bool, draw: Callable[[], bytes], what: str) -> bytes | None:
    """``draw()`` (a picture's PNG) in a worker thread, so the event loop goes on; None when
    ``pictures`` is off or drawing failed (``what`` names it in the log): the text goes
    instead."""
    if not pictures:
        return None
    try:
        return await asyncio.to_thread(draw)
    except Exception:  # a drawing bug must not cost the answer
        log.exception("drawing %s failed", what)
        return None


async def daily_answer(tr: Translator, summary: DailySummary, *, pictures: bool) -> Content:
    """The result of a daily attempt with its day's board (:func:`texts.daily_result`): the
    board as a picture (when ``pictures``), the result, par and place in its caption
    (:func:`texts.daily_caption`), the play-again and hide buttons, the text as the
    fallback; the text alone when nobody is on the board (or drawing failed)."""
    shown = texts.daily_result(tr, summary)
    if not summary.board.top:
        return content(shown)
    board, par = summary.board, summary.par
    png = await drawn(pictures, lambda: render_board_png(tr, board, par=par), "the daily board")
    if png is None:
        return content(shown)
    caption = texts.daily_caption(tr, summary)
    return Content(caption, markup(shown.keyboard), photo=png, alt=shown.text)


class DailySummaries(Protocol):
    """The daily's results (:class:`bot.service.daily.DailyService` is one)."""

    async def daily_summary_of_game(self, game_id: int) -> DailySummary | None:
        """The summary of the daily attempt played in ``game_id`` (None: not a daily)."""


class ReaderLanguages(Protocol):
    """The readers' languages (:class:`bot.service.people.PeopleService` is one)."""

    async def reader_language(
        self,
        chat_id: int | None,
        user_id: int | None,
        telegram_language: str | None,
        *,
        private: bool,
    ) -> str:
        """The reader's language (``bot.i18n``)."""


class DailyResult:
    """The driver's ``after_end`` hook: post a daily attempt's result when its game ended.

    Args:
        daily: the daily's summaries.
        people: the player's language.
        outbox: the result is a post in the player's private chat.
        pictures: the board as a picture.
    """

    def __init__(
        self,
        daily: DailySummaries,
        people: ReaderLanguages,
        outbox: Outbox,
        *,
        pictures: bool = True,
    ) -> None:
        self.daily = daily
        self.people = people
        self.outbox = outbox
        self.pictures = pictures

    async def __call__(self, game_id: int) -> None:
        """A game ended: when it was a daily attempt, post its result, place and the day's
        board (:func:`daily_answer`) in the player's private chat (the player's language);
        never raises."""
        try:
            summary = await self.daily.daily_summary_of_game(game_id)
            if summary is None:
                return
            user_id = summary.entry.user_id
            language = await self.people.reader_language(user_id, user_id, None, private=True)
            tr = get_translator(language)
            if summary.result is None or summary.result.status is GameStatus.ABANDONED:
                shown = Content(texts.daily_stopped(tr, summary.entry.day))
            else:
                answer = await daily_answer(tr, summary, pictures=self.pictures)
                shown = with_review_button(answer, tr, game_id)
            self.outbox.post(user_id, shown)
        except Exception:  # the result is on the board all the same (/daily shows it)
            log.exception("posting the daily result of game %s failed", game_id)
