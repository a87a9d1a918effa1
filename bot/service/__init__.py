"""The game service (``docs/design.md`` §3): every state change of a table goes through here, under
that game's lock, as load → engine → one compare-and-set write. No Telegram calls and no text:
callers get an :class:`~bot.outcome.Outcome` and hand it to the table driver.

One module per concern, each building on the previous:

* :mod:`~bot.service.core`: loading, the per-game lock, the write of play and its turn timer,
  the presenter's :class:`~bot.service.view.TableView` and message ids;
* :mod:`~bot.service.people`: users, chats, languages, supergroup migration;
* :mod:`~bot.service.play`: a human's move, the computers' moves;
* :mod:`~bot.service.seats`: hand-over, take-back, stopping a table;
* :mod:`~bot.service.lobby`: opening a table, the lobby, the start;
* :mod:`~bot.service.timers`: turn timers, the restart;
* :mod:`~bot.service.stats`: recording ended games, statistics and standings;
* :mod:`~bot.service.daily`: the daily deal, its par and its boards;
* :mod:`~bot.service.tips`: the tip button;
* :mod:`~bot.service.review`: the review of a player's finished game;
* :mod:`~bot.service.rematch`: a finished group game's "again", the session's totals;
* :mod:`~bot.service.alerts`: a fourth wanted (who hears of a table that needs a player).
"""

from __future__ import annotations

from bot.service.alerts import AlertOps
from bot.service.core import REMINDER_LEAD, ServiceCore, active_seats, awaited_seats, snapshot
from bot.service.daily import Board, DailyOps, DailyStart, DailyStartKind, DailySummary, NamedLine
from bot.service.lobby import IsAdmin, LobbyOps, TableLimits, next_setting
from bot.service.people import PeopleOps
from bot.service.rematch import RematchOps
from bot.service.review import ReviewAsk, ReviewOps
from bot.service.stats import PersonStats
from bot.service.timers import MAX_TIMEOUTS, TimerOps
from bot.service.tips import TipAnswer, TipOps
from bot.service.view import TableView


class GameService(RematchOps, AlertOps, DailyOps, PeopleOps, TimerOps, TipOps, ReviewOps):
    """All table and game operations; see the modules of :mod:`bot.service` and
    :class:`~bot.service.core.ServiceCore` for the constructor's arguments."""


__all__ = [
    "MAX_TIMEOUTS",
    "REMINDER_LEAD",
    "Board",
    "DailyStart",
    "DailyStartKind",
    "DailySummary",
    "GameService",
    "IsAdmin",
    "LobbyOps",
    "NamedLine",
    "PersonStats",
    "ReviewAsk",
    "ServiceCore",
    "TableLimits",
    "TableView",
    "TipAnswer",
    "active_seats",
    "awaited_seats",
    "next_setting",
    "snapshot",
]
