"""The standings, statistics and daily-deal half of the repository (migration 4),
written once for both backends: the SQL here is portable (``?`` placeholders, which the
PostgreSQL adapter numbers ``$1, $2...``; flags compared as ``WHERE ranked``; ``ON CONFLICT``
upserts), and each backend hands in a :class:`StatsDb` inside its own transaction.

:class:`StatsStore` is the mixin both repositories inherit; see
:class:`storage.repository.Repository` for what each method promises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from storage.errors import NotFound, UserSeated
from storage.rows import (
    ANONYMOUS_NAME,
    GameStatus,
    check_int64,
    check_json,
    is_anonymous,
)
from storage.stats_rows import (
    EXTRA_KEYS,
    EXTRA_TABLES,
    DailyEntry,
    DailyPar,
    DailyResult,
    GameRecord,
    PlayerResult,
    Rating,
    ResultKind,
    TableRows,
    typed_row,
)

CHUNK = 500
"""Ids per ``IN (...)`` list (below SQLite's parameter limit)."""


class StatsDb(Protocol):
    """One open transaction of a backend, as this module uses it."""

    async def rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Run a query; every row as a tuple."""

    async def run(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; the number of rows it changed."""


_PLACEHOLDER = re.compile(r"\?")


def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered for PostgreSQL (``$1, $2...``)."""
    counter = iter(range(1, 10_000))
    return _PLACEHOLDER.sub(lambda _: f"${next(counter)}", sql)


def marks(count: int) -> str:
    """``"?, ?, ?"`` for ``count`` values."""
    return ", ".join("?" * count)


_DAILY = (
    "SELECT d.game_id, d.day, d.user_id, d.ranked, d.day_ends_at, d.created_at, g.status "
    "FROM daily_games d JOIN games g ON g.game_id = d.game_id"
)

_RESULTS = (
    "SELECT r.game_id, g.chat_id, s.status, s.ended_at, r.user_id, r.seat, r.result, r.rounds, "
    "r.rounds_playing, r.made, r.nat, r.pits, r.roem, r.points, r.against "
    "FROM player_results r JOIN stats_games s ON s.game_id = r.game_id "
    "JOIN games g ON g.game_id = r.game_id"
)


def _entry(row: Sequence[Any]) -> DailyEntry:
    return DailyEntry(
        int(row[0]),
        str(row[1]),
        int(row[2]),
        bool(row[3]),
        float(row[4]),
        float(row[5]),
        GameStatus(row[6]),
    )


def _result(row: Sequence[Any]) -> PlayerResult:
    return PlayerResult(
        int(row[0]),
        int(row[1]),
        GameStatus(row[2]),
        float(row[3]),
        int(row[4]),
        int(row[5]),
        ResultKind(row[6]),
        *(int(v) for v in row[7:15]),
    )


async def add_daily(
    db: StatsDb, game_id: int, day: str, user_id: int, day_ends_at: float, now: float
) -> DailyEntry:
    """Inside the transaction that created ``game_id``: its daily entry (ranked when the
    user has no ranked attempt of ``day``)."""
    taken = await db.rows(
        "SELECT 1 FROM daily_games WHERE day = ? AND user_id = ? AND ranked", (day, user_id)
    )
    ranked = not taken
    await db.run(
        "INSERT INTO daily_games (game_id, day, user_id, ranked, day_ends_at, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, day, user_id, ranked, day_ends_at, now),
    )
    return DailyEntry(game_id, day, user_id, ranked, day_ends_at, now, GameStatus.LOBBY)


class StatsStore:
    """The repository methods of migration 4 (see :class:`storage.repository.Repository`),
    over the backend's :meth:`_stats` transactions."""

    def _stats(self, *, write: bool) -> AbstractAsyncContextManager[StatsDb]:
        """A transaction of the backend (``write``: one that may write)."""
        raise NotImplementedError

    async def bot_value(self, key: str, default: str, *, now: float) -> str:
        """See :meth:`Repository.bot_value`."""
        async with self._stats(write=True) as db:
            await db.run(
                "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO NOTHING",
                (key, default, now),
            )
            rows = await db.rows("SELECT value FROM bot_state WHERE key = ?", (key,))
        return str(rows[0][0])

    async def link_token(self, game_id: int, candidate: str) -> str | None:
        """See :meth:`Repository.link_token`."""
        sql = "SELECT link_token FROM games WHERE game_id = ?"
        async with self._stats(write=False) as db:
            rows = await db.rows(sql, (game_id,))
        if rows and rows[0][0] is not None:
            return str(rows[0][0])
        async with self._stats(write=True) as db:
            await db.run(
                "UPDATE games SET link_token = ? WHERE game_id = ? AND link_token IS NULL",
                (candidate, game_id),
            )
            rows = await db.rows(sql, (game_id,))
        return str(rows[0][0]) if rows else None

    async def game_of_link(self, token: str) -> int | None:
        """See :meth:`Repository.game_of_link`."""
        async with self._stats(write=False) as db:
            rows = await db.rows("SELECT game_id FROM games WHERE link_token = ?", (token,))
        return int(rows[0][0]) if rows else None

    async def set_stop_prompt(self, game_id: int, message_id: int | None) -> None:
        """See :meth:`Repository.set_stop_prompt`."""
        async with self._stats(write=True) as db:
            await db.run(
                "UPDATE games SET stop_message_id = ? WHERE game_id = ?", (message_id, game_id)
            )

    async def stop_prompt(self, game_id: int) -> int | None:
        """See :meth:`Repository.stop_prompt`."""
        async with self._stats(write=False) as db:
            rows = await db.rows("SELECT stop_message_id FROM games WHERE game_id = ?", (game_id,))
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    async def set_handed_round(self, game_id: int, seat: int, round_number: int) -> None:
        """See :meth:`Repository.set_handed_round`."""
        async with self._stats(write=True) as db:
            await db.run(
                "UPDATE game_seats SET handed_round = ? WHERE game_id = ? AND seat = ?",
                (round_number, game_id, seat),
            )

    async def handed_round(self, game_id: int, seat: int) -> int | None:
        """See :meth:`Repository.handed_round`."""
        async with self._stats(write=False) as db:
            rows = await db.rows(
                "SELECT handed_round FROM game_seats WHERE game_id = ? AND seat = ?",
                (game_id, seat),
            )
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    async def daily_entry(self, game_id: int) -> DailyEntry | None:
        """See :meth:`Repository.daily_entry`."""
        async with self._stats(write=False) as db:
            rows = await db.rows(f"{_DAILY} WHERE d.game_id = ?", (game_id,))
        return _entry(rows[0]) if rows else None

    async def daily_entries(
        self, *, user_id: int | None = None, day: str | None = None
    ) -> list[DailyEntry]:
        """See :meth:`Repository.daily_entries`."""
        where: list[str] = ["1 = 1"]
        params: list[object] = []
        if user_id is not None:
            where.append("d.user_id = ?")
            params.append(user_id)
        if day is not None:
            where.append("d.day = ?")
            params.append(day)
        async with self._stats(write=False) as db:
            rows = await db.rows(f"{_DAILY} WHERE {' AND '.join(where)} ORDER BY d.game_id", params)
        return [_entry(r) for r in rows]

    async def daily_results(self, day: str) -> list[DailyResult]:
        """See :meth:`Repository.daily_results`."""
        async with self._stats(write=False) as db:
            rows = await db.rows(
                "SELECT d.game_id, d.user_id, r.points, r.against, s.ended_at "
                "FROM daily_games d JOIN stats_games s ON s.game_id = d.game_id "
                "JOIN player_results r ON r.game_id = d.game_id AND r.user_id = d.user_id "
                "WHERE d.day = ? AND d.ranked AND s.status = 'finished' "
                "AND s.ended_at < d.day_ends_at ORDER BY d.game_id",
                (day,),
            )
        return [DailyResult(int(r[0]), int(r[1]), int(r[2]), int(r[3]), float(r[4])) for r in rows]

    async def get_daily_par(self, day: str) -> DailyPar | None:
        """See :meth:`Repository.get_daily_par`."""
        async with self._stats(write=False) as db:
            rows = await db.rows(
                "SELECT day, seed, settings, pars, computed_at FROM daily_pars WHERE day = ?",
                (day,),
            )
        if not rows:
            return None
        r = rows[0]
        pars = tuple(int(v) for v in json.loads(r[3]))
        return DailyPar(str(r[0]), int(r[1]), str(r[2]), pars, float(r[4]))

    async def save_daily_par(self, par: DailyPar) -> DailyPar:
        """See :meth:`Repository.save_daily_par`."""
        check_json(par.settings, "settings")
        check_int64(par.seed, "seed")
        async with self._stats(write=True) as db:
            await db.run(
                "INSERT INTO daily_pars (day, seed, settings, pars, computed_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (day) DO NOTHING",
                (par.day, par.seed, par.settings, json.dumps(list(par.pars)), par.computed_at),
            )
        stored = await self.get_daily_par(par.day)
        assert stored is not None
        return stored

    async def set_board_hidden(self, user_id: int, hidden: bool, *, now: float) -> None:
        """See :meth:`Repository.set_board_hidden`."""
        check_int64(user_id, "user_id")
        async with self._stats(write=True) as db:
            await db.run(
                "INSERT INTO player_prefs (user_id, board_hidden, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET board_hidden = excluded.board_hidden, "
                "updated_at = excluded.updated_at",
                (user_id, bool(hidden), now),
            )

    async def set_hand_place(self, user_id: int, place: str | None, *, now: float) -> None:
        """See :meth:`Repository.set_hand_place`."""
        check_int64(user_id, "user_id")
        if place not in (None, "group", "private"):
            raise ValueError(f"bad hand place {place!r}")
        async with self._stats(write=True) as db:
            await db.run(
                "INSERT INTO player_prefs (user_id, board_hidden, updated_at, hand_place) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "hand_place = excluded.hand_place, updated_at = excluded.updated_at",
                (user_id, False, now, place),
            )

    async def hand_places(self, user_ids: Iterable[int]) -> dict[int, str]:
        """See :meth:`Repository.hand_places`."""
        ids = sorted(set(user_ids))
        found: dict[int, str] = {}
        if not ids:
            return found
        async with self._stats(write=False) as db:
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start : start + CHUNK]
                rows = await db.rows(
                    "SELECT user_id, hand_place FROM player_prefs "
                    f"WHERE hand_place IS NOT NULL AND user_id IN ({marks(len(chunk))})",
                    chunk,
                )
                found.update((int(r[0]), str(r[1])) for r in rows)
        return found

    async def hidden_users(self, user_ids: Iterable[int]) -> set[int]:
        """See :meth:`Repository.hidden_users`."""
        ids = sorted(set(user_ids))
        found: set[int] = set()
        if not ids:
            return found
        async with self._stats(write=False) as db:
            for start in range(0, len(ids), CHUNK):
                chunk = ids[start : start + CHUNK]
                rows = await db.rows(
                    "SELECT user_id FROM player_prefs "
                    f"WHERE board_hidden AND user_id IN ({marks(len(chunk))})",
                    chunk,
                )
                found.update(int(r[0]) for r in rows)
        return found

    async def record_game(
        self, record: GameRecord, ratings: Mapping[int, Rating], *, now: float
    ) -> bool:
        """See :meth:`Repository.record_game`."""
        async with self._stats(write=True) as db:
            if not await db.rows("SELECT 1 FROM games WHERE game_id = ?", (record.game_id,)):
                raise NotFound("game", record.game_id)
            if ratings and not await db.rows(
                "SELECT 1 FROM chats WHERE chat_id = ?", (record.chat_id,)
            ):
                raise NotFound("chat", record.chat_id)
            added = await db.run(
                "INSERT INTO stats_games (game_id, status, ended_at, recorded_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING",
                (record.game_id, record.status.value, record.ended_at, now),
            )
            if not added:
                return False
            for r in record.results:
                if is_anonymous(r.user_id):
                    continue
                await db.run(
                    "INSERT INTO player_results (game_id, user_id, seat, result, rounds, "
                    "rounds_playing, made, nat, pits, roem, points, against) "
                    f"VALUES ({marks(12)})",
                    (
                        r.game_id,
                        r.user_id,
                        r.seat,
                        r.result.value,
                        r.rounds,
                        r.rounds_playing,
                        r.made,
                        r.nat,
                        r.pits,
                        r.roem,
                        r.points,
                        r.against,
                    ),
                )
            for user_id, rating in sorted(ratings.items()):
                if is_anonymous(user_id):
                    continue
                await db.run(
                    "INSERT INTO ratings (chat_id, user_id, mu, sigma, games, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (chat_id, user_id) DO UPDATE SET "
                    "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
                    "updated_at = excluded.updated_at",
                    (record.chat_id, user_id, rating.mu, rating.sigma, rating.games, now),
                )
        return True

    def _forgotten(self, user_id: int) -> None:
        """Drop what this process keeps in memory of ``user_id`` (after :meth:`forget_user`)."""

    async def forget_user(self, user_id: int, anonymous_id: int, *, now: float) -> bool:
        """See :meth:`Repository.forget_user`."""
        check_int64(user_id, "user_id")
        check_int64(anonymous_id, "anonymous_id")
        if not is_anonymous(anonymous_id) or is_anonymous(user_id):
            raise ValueError(f"cannot forget {user_id} as {anonymous_id}")
        try:
            async with self._stats(write=True) as db:
                seated = await db.rows(
                    "SELECT s.game_id FROM game_seats s JOIN games g ON g.game_id = s.game_id "
                    "WHERE s.user_id = ? AND g.status IN ('lobby', 'active') "
                    "ORDER BY s.game_id LIMIT 1",
                    (user_id,),
                )
                if seated:
                    raise UserSeated(user_id, int(seated[0][0]))
                linked = await db.rows(
                    "SELECT 1 FROM game_seats WHERE user_id = ? "
                    "UNION ALL SELECT 1 FROM games WHERE creator_id = ? "
                    "UNION ALL SELECT 1 FROM chats WHERE chat_id = ?",
                    (user_id, user_id, user_id),
                )
                changed = 0
                if linked:
                    await db.run(
                        "INSERT INTO users (user_id, display_name, telegram_language, language, "
                        "can_message, updated_at) VALUES (?, ?, NULL, NULL, ?, ?) "
                        "ON CONFLICT (user_id) DO NOTHING",
                        (anonymous_id, ANONYMOUS_NAME, False, now),
                    )
                    # The private chat (its id is the person's) and its games move with it
                    # (games.chat_id follows: ON UPDATE CASCADE).
                    changed += await db.run(
                        "UPDATE chats SET chat_id = ?, title = NULL, updated_at = ? "
                        "WHERE chat_id = ?",
                        (anonymous_id, now, user_id),
                    )
                    changed += await db.run(
                        "UPDATE game_seats SET user_id = ?, display_name = ?, "
                        "hand_chat_id = NULL, hand_message_id = NULL WHERE user_id = ?",
                        (anonymous_id, ANONYMOUS_NAME, user_id),
                    )
                    changed += await db.run(
                        "UPDATE games SET creator_id = ? WHERE creator_id = ?",
                        (anonymous_id, user_id),
                    )
                # A seat they left to a computer forgets them, and no seat keeps a message in
                # their private chat (its id is theirs).
                changed += await db.run(
                    "UPDATE game_seats SET former_user_id = NULL WHERE former_user_id = ?",
                    (user_id,),
                )
                changed += await db.run(
                    "UPDATE game_seats SET hand_chat_id = NULL, hand_message_id = NULL "
                    "WHERE hand_chat_id = ?",
                    (user_id,),
                )
                for table in (
                    "player_results",
                    "ratings",
                    "player_prefs",
                    "daily_games",
                    "table_alerts",
                    "alert_sends",
                ):
                    changed += await db.run(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
                changed += await db.run("DELETE FROM users WHERE user_id = ?", (user_id,))
        finally:
            self._forgotten(user_id)
        return bool(changed)

    async def unrecorded_games(self) -> list[int]:
        """See :meth:`Repository.unrecorded_games`."""
        async with self._stats(write=False) as db:
            rows = await db.rows(
                "SELECT game_id FROM games WHERE status IN ('finished', 'abandoned') "
                "AND game_id NOT IN (SELECT game_id FROM stats_games) "
                "ORDER BY updated_at, game_id"
            )
        return [int(r[0]) for r in rows]

    async def player_results(
        self,
        *,
        user_id: int | None = None,
        chat_id: int | None = None,
        since: float | None = None,
    ) -> list[PlayerResult]:
        """See :meth:`Repository.player_results`."""
        where: list[str] = ["1 = 1"]
        params: list[object] = []
        for clause, value in (
            ("r.user_id = ?", user_id),
            ("g.chat_id = ?", chat_id),
            ("s.ended_at >= ?", since),
        ):
            if value is not None:
                where.append(clause)
                params.append(value)
        async with self._stats(write=False) as db:
            rows = await db.rows(
                f"{_RESULTS} WHERE {' AND '.join(where)} ORDER BY s.ended_at, r.game_id, r.seat",
                params,
            )
        return [_result(r) for r in rows]

    async def ratings(self, chat_id: int) -> dict[int, Rating]:
        """See :meth:`Repository.ratings`."""
        async with self._stats(write=False) as db:
            rows = await db.rows(
                "SELECT user_id, mu, sigma, games FROM ratings WHERE chat_id = ? ORDER BY user_id",
                (chat_id,),
            )
        return {int(r[0]): Rating(float(r[1]), float(r[2]), int(r[3])) for r in rows}

    async def clear_stats(self) -> None:
        """See :meth:`Repository.clear_stats`."""
        async with self._stats(write=True) as db:
            for table in ("player_results", "stats_games", "ratings"):
                await db.run(f"DELETE FROM {table}")

    async def standings_rows(self) -> TableRows:
        """See :meth:`Repository.standings_rows`."""
        out: TableRows = {}
        async with self._stats(write=False) as db:
            for table, columns in EXTRA_TABLES.items():
                names = ", ".join(c for c, _ in columns)
                order = ", ".join(EXTRA_KEYS[table])
                rows = await db.rows(f"SELECT {names} FROM {table} ORDER BY {order}")
                out[table] = [typed_row(table, r) for r in rows]
        return out

    async def import_standings(self, rows: TableRows) -> None:
        """See :meth:`Repository.import_standings`."""
        unknown = set(rows) - set(EXTRA_TABLES)
        if unknown:
            raise ValueError(f"no table {sorted(unknown)[0]!r} among the standings")
        checked = {t: [typed_row(t, r) for r in rows.get(t, ())] for t in EXTRA_TABLES}
        async with self._stats(write=True) as db:
            for table, columns in EXTRA_TABLES.items():
                names = [c for c, _ in columns]
                keys = EXTRA_KEYS[table]
                updates = ", ".join(f"{c} = excluded.{c}" for c in names if c not in keys)
                sql = (
                    f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks(len(names))}) "
                    f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
                )
                for row in checked[table]:
                    await db.run(sql, row)
