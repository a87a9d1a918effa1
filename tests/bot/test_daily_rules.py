"""The daily's pure rules (``bot.daily``): days in the daily's time zone, seeds from
the secret, the board's order and shared places, names on the global board, streaks; and the
statistics of an ended game (``bot.standings``)."""

from __future__ import annotations

from bot.daily import (
    DailyConfig,
    board_name,
    daily_seed,
    day_bounds,
    day_of,
    month_start,
    ranked_board,
    streaks,
)
from bot.standings import COMPUTER, NEW, rate_game, replay_ratings
from storage import GameStatus
from storage.stats_rows import DailyResult, PlayerResult, ResultKind


def test_the_day_turns_at_midnight_in_amsterdam() -> None:
    start, end = day_bounds("2025-03-14", "Europe/Amsterdam")
    assert end - start == 86_400
    assert day_of(start, "Europe/Amsterdam") == "2025-03-14"
    assert day_of(start - 1, "Europe/Amsterdam") == "2025-03-13"
    assert day_of(end, "Europe/Amsterdam") == "2025-03-15"
    assert day_of(start, "UTC") == "2025-03-13"  # 23:00 UTC
    spring = day_bounds("2025-03-30", "Europe/Amsterdam")  # clocks go forward
    assert spring[1] - spring[0] == 23 * 3600
    assert (
        month_start(end - 1, "Europe/Amsterdam") == day_bounds("2025-03-01", "Europe/Amsterdam")[0]
    )


def test_seeds_depend_on_the_day_and_the_secret() -> None:
    assert daily_seed("s", "2025-03-14") == daily_seed("s", "2025-03-14")
    assert daily_seed("s", "2025-03-14") != daily_seed("s", "2025-03-15")
    assert daily_seed("s", "2025-03-14") != daily_seed("t", "2025-03-14")
    assert 0 <= daily_seed("s", "2025-03-14") < 2**62
    settings = DailyConfig(rounds=16, preset="rotterdam").settings("2025-03-14")
    assert (settings.daily, settings.rules.rounds, settings.rules.preset) == (
        "2025-03-14",
        16,
        "rotterdam",
    )
    assert settings.turn_timeout == 0


def test_the_board_orders_by_points_then_fewer_against_and_shares_places() -> None:
    results = [
        DailyResult(1, 10, 900, 500, 5.0),
        DailyResult(2, 20, 1200, 300, 9.0),
        DailyResult(3, 30, 900, 500, 1.0),
        DailyResult(4, 40, 900, 400, 7.0),
    ]
    board = ranked_board(results)
    assert [(x.place, x.user_id) for x in board] == [(1, 20), (2, 40), (3, 30), (3, 10)]


def test_names_on_the_global_board_are_a_first_name_and_an_initial() -> None:
    assert board_name("Anna de Vries") == "Anna V."
    assert board_name("Anna") == "Anna"
    assert board_name("   ") == "" and board_name(None) == ""
    assert board_name("\u3164") == "" and board_name("\u200b\u2800") == ""  # blank letters
    assert board_name("Zoë \u3164") == "Zoë"


def test_streaks_run_over_consecutive_days_and_stay_alive_until_tonight() -> None:
    days = ["2025-03-01", "2025-03-02", "2025-03-03", "2025-03-10", "2025-03-11"]
    assert streaks(days, "2025-03-11") == (2, 3)
    assert streaks(days, "2025-03-12") == (2, 3)  # not played yet today
    assert streaks(days, "2025-03-13") == (0, 3)
    assert streaks([], "2025-03-13") == (0, 0)


def _result(game: int, user: int, seat: int, kind: ResultKind) -> PlayerResult:
    return PlayerResult(game, -5, GameStatus.FINISHED, float(game), user, seat, kind)


def test_ratings_rate_two_against_two_with_fixed_computers() -> None:
    won = rate_game([_result(1, 7, 0, ResultKind.WIN), _result(1, 8, 1, ResultKind.LOSS)], {})
    assert won[7].mu > NEW.mu > won[8].mu and won[7].games == won[8].games == 1
    alone = rate_game([_result(2, 7, 0, ResultKind.LOSS)], {})
    assert alone[7].mu < NEW.mu  # lost with a computer partner to two computers
    draw = rate_game([_result(3, 7, 0, ResultKind.DRAW), _result(3, 8, 2, ResultKind.DRAW)], {})
    assert draw[7].sigma < NEW.sigma
    private = [PlayerResult(4, 7, GameStatus.FINISHED, 4.0, 7, 2, ResultKind.WIN)]
    assert rate_game(private, {}) == {}  # private games (and the daily) are not rated
    stopped = [PlayerResult(5, -5, GameStatus.ABANDONED, 5.0, 7, 0, ResultKind.NONE)]
    assert rate_game(stopped, {}) == {}
    games = [_result(1, 7, 0, ResultKind.WIN), _result(1, 8, 1, ResultKind.LOSS)]
    assert replay_ratings(games) == won
    assert COMPUTER.sigma < NEW.sigma
