"""The storage contract: one async interface, implemented by
:class:`storage.sqlite.SqliteRepository` (the default, one embedded file) and
:class:`storage.postgres.PostgresRepository`, both tested by the same contract suite
(``tests/storage/``). Both are :class:`storage.sql_repository.SqlRepository` over the
backend's dialect (:mod:`storage.sql`): each statement is written once for both.

Rules every implementation follows:

* **Times** are UTC epoch seconds passed in by the caller (``now=``); storage has no clock.
* **Versions.** A game's ``version`` starts at 1. *State writes* (:meth:`append_actions`,
  :meth:`set_seats`, :meth:`set_settings`, :meth:`set_game_language`) take ``expected_version``,
  run ``UPDATE ... WHERE id = ? AND version = ?`` in one transaction, bump the version by one and
  return the new one. *Bookkeeping writes* (:meth:`set_table_message`, :meth:`set_hand_message`,
  :meth:`mark_reminded`) record Telegram facts that do not change what a player may do: they may
  check ``expected_version`` but never bump it, so buttons already sent with the current version
  stay valid. Message ids only move forward: recording a message older than the one stored
  (a smaller id in the same chat) keeps the stored one, so a slower worker cannot bring back
  a message another worker already replaced.
* **Failures.** A write that raises has changed nothing. Errors: :class:`~storage.errors.NotFound`
  (the game / user / chat does not exist), :class:`~storage.errors.StaleVersion` (compare-and-set
  lost), :class:`~storage.errors.WrongStatus` (finished/abandoned game, or a transition not in
  :data:`~storage.rows.ALLOWED_TRANSITIONS`), :class:`~storage.errors.OpenGameExists`,
  :class:`~storage.errors.SeatConflict`; bad arguments raise :class:`ValueError`.
* **Rows** are frozen dataclasses from :mod:`storage.rows`; lists are ordered by ``game_id``.
* Users and chats are last-writer-wins (they mirror Telegram); only games are compare-and-set.
* Safe to call from many coroutines at once: each call is its own transaction.
* Both backends report the same :attr:`schema_version` for the same code; each counts the
  transactions it began in ``transactions`` (an ``int`` attribute, for benchmarks; not part of
  the protocol).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Protocol, Self

from storage.rows import (
    Chat,
    ChatMigration,
    Game,
    GameHistory,
    GameReaders,
    GameStatus,
    MessageRef,
    Occupant,
    RowCounts,
    SurfaceShown,
    SurfaceState,
    TurnTimer,
    User,
)
from storage.stats_rows import (
    DailyEntry,
    DailyPar,
    DailyResult,
    GameRecord,
    PlayerResult,
    Rating,
    TableRows,
)


class Repository(Protocol):
    """Async persistence of users, chats and games. See the module docstring for the rules."""

    shared: bool
    """True when several bot processes may use the database at once (PostgreSQL): then
    the turn timers are armed in it (:meth:`arm_timer`) and every worker sweeps them."""

    # -- life cycle ---------------------------------------------------------------------------

    async def close(self) -> None:
        """Close the connection(s). Idempotent. The repository is unusable afterwards."""

    @property
    def schema_version(self) -> int:
        """The schema version the database was migrated to when it was opened (the same
        numbers on every backend)."""

    async def __aenter__(self) -> Self:
        """Return ``self``; :meth:`close` runs on exit."""

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close the repository."""

    # -- users --------------------------------------------------------------------------------

    async def upsert_user(
        self, user_id: int, display_name: str, telegram_language: str | None, *, now: float
    ) -> User:
        """Insert or refresh a user's Telegram facts (name, ``language_code``); keeps the chosen
        language and ``can_message``. A new user starts with ``can_message=False``."""

    async def get_user(self, user_id: int) -> User | None:
        """The user, or ``None``."""

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, User]:
        """The known users among ``user_ids``, keyed by id (unknown ids are left out)."""

    async def set_user_language(self, user_id: int, language: str | None, *, now: float) -> User:
        """Set (or clear, with ``None``) the user's chosen language. Raises ``NotFound``."""

    async def set_can_message(self, user_id: int, can_message: bool, *, now: float) -> User:
        """Record whether the bot may write to the user in private (``/start`` → ``True``,
        403 Forbidden → ``False``). Raises ``NotFound``."""

    # -- chats --------------------------------------------------------------------------------

    async def upsert_chat(
        self, chat_id: int, chat_type: str, title: str | None, *, now: float
    ) -> Chat:
        """Insert or refresh a chat's Telegram facts (type, title); keeps language and
        defaults. Raises ``ChatMoved`` (nothing written) for a chat that became another
        (:meth:`migrate_chat`): an old group id gets no row again."""

    async def get_chat(self, chat_id: int) -> Chat | None:
        """The chat, or ``None``."""

    async def set_chat_language(self, chat_id: int, language: str | None, *, now: float) -> Chat:
        """Set (or clear) the chat's language. Raises ``NotFound``."""

    async def set_chat_defaults(
        self, chat_id: int, table_defaults: str | None, *, now: float
    ) -> Chat:
        """Set (or clear) the chat's table defaults (JSON text). Raises ``NotFound``,
        ``ValueError`` for text that is not JSON."""

    async def migrate_chat(
        self, old_chat_id: int, new_chat_id: int, *, now: float
    ) -> ChatMigration:
        """Group became supergroup: move the chat row and all its games to ``new_chat_id`` in
        one transaction; the open game's table message id is cleared (that message stays
        in the old chat). If a row for the new id exists already, the games move to it, it keeps
        its own values and takes the old row's language/defaults where its own are ``None``, and
        the old row is deleted. Idempotent: an unknown ``old_chat_id`` moves nothing. The
        migration itself is remembered for good (also for an unknown ``old_chat_id``; the
        first record of an old id wins): :meth:`chat_successor`, and :meth:`create_game` and
        :meth:`upsert_chat` refuse the old id from then on. Raises ``OpenGameExists`` if both
        chats have an open game (nothing moves, nothing is remembered)."""

    async def chat_successor(self, chat_id: int) -> int | None:
        """The chat ``chat_id`` became (following a later migration of that one too), or
        ``None`` when it never migrated. Every worker sharing the database sees it."""

    async def chat_migrations_after(self, seq: int) -> list[tuple[int, int, int]]:
        """The migrations recorded after the ``seq``-th, as ``(seq, old_chat_id,
        new_chat_id)`` in ``seq`` order (at most 1,000): how a worker that shares the database
        learns of migrations another worker saw (pass the last ``seq`` seen; 0 for all)."""

    # -- games: creation and state writes (compare-and-set, bump the version) ----------------

    async def create_game(
        self,
        chat_id: int,
        creator_id: int,
        settings: str,
        seed: int,
        *,
        now: float,
        seats: Sequence[Occupant] = (),
        language: str | None = None,
        thread_id: int | None = None,
    ) -> Game:
        """Open a table in ``lobby`` status at version 1 with no actions and no snapshot, in
        the forum topic ``thread_id`` if given.
        ``seats`` fills seats ``0..len-1`` (at most 4; the rest are empty). The chat and every
        human's user row must exist. Raises ``NotFound`` (``ChatMoved`` for a chat that became
        another, :meth:`migrate_chat`), ``OpenGameExists`` (the chat already
        has a lobby or active game), ``ValueError`` (seed beyond 64 bits, settings not JSON,
        more than 4 seats, one user in two seats)."""

    async def set_seats(
        self,
        game_id: int,
        expected_version: int,
        seats: Mapping[int, Occupant],
        *,
        now: float,
    ) -> int:
        """Replace the occupants of the given seats (``{seat: occupant}``, others untouched) and
        clear their hand messages; returns the new version (an empty mapping only bumps it).
        Works in ``lobby`` and ``active`` (e.g. a computer takes over). A user may move seats in
        one call (``{0: Occupant.empty(), 2: Occupant.human(...)}``). The occupant's
        ``former_user_id`` is stored as given: a computer that takes over a human's seat during
        play names that human (``Occupant.computer(name, former_user_id=...)``); any other
        occupant clears it. Raises ``NotFound`` (game, user or former user), ``StaleVersion``,
        ``WrongStatus``, ``SeatConflict`` (a user in two seats), ``ValueError`` (seat not
        ``0..3``)."""

    async def set_settings(
        self, game_id: int, expected_version: int, settings: str, *, now: float
    ) -> int:
        """Replace the settings JSON; only in ``lobby``. Returns the new version. Raises
        ``NotFound``, ``StaleVersion``, ``WrongStatus``, ``ValueError``."""

    async def set_game_language(
        self, game_id: int, expected_version: int, language: str | None, *, now: float
    ) -> int:
        """Set (or clear) the table's language; ``lobby`` or ``active``. Returns the new version.
        Raises ``NotFound``, ``StaleVersion``, ``WrongStatus``."""

    async def append_actions(
        self,
        game_id: int,
        expected_version: int,
        actions: Sequence[str],
        *,
        snapshot: str,
        status: GameStatus,
        timer: TurnTimer | None,
        now: float,
        timeouts: Mapping[int, int] | None = None,
    ) -> int:
        """The one write of play: in ONE transaction append ``actions`` (may be empty) to the
        log with contiguous ``seq`` continuing from ``action_count``, store ``snapshot`` (the
        state after them), ``status``, ``timer`` (``None`` = no timer running) and the seats'
        new turn-timeout counts (``{seat: count}``, other seats untouched), bump and return
        the version. ``status`` must be allowed from the current one (lobby → active
        starts the game; → finished / abandoned ends it, and then ``timer`` must be ``None``).
        Raises ``NotFound``, ``StaleVersion``, ``WrongStatus``, ``ValueError``."""

    # -- games: bookkeeping (may check the version, never bump it) ----------------------------

    async def set_table_message(
        self, game_id: int, message_id: int | None, *, expected_version: int | None
    ) -> None:
        """Record (or clear) the group's table message id. With ``expected_version=None`` the
        write is unconditional (the newest message is the right one whatever the version).
        Raises ``NotFound``, ``StaleVersion``."""

    async def set_hand_message(
        self,
        game_id: int,
        seat: int,
        message: MessageRef | None,
        *,
        expected_version: int | None,
    ) -> None:
        """Record (or clear) the private message that shows ``seat``'s hand. Same version rule
        as :meth:`set_table_message`. Raises ``NotFound``, ``StaleVersion``, ``ValueError``
        (seat not ``0..3``)."""

    async def mark_reminded(self, game_id: int, expected_version: int) -> None:
        """Set ``timer.reminded`` for the timer running at ``expected_version`` (no-op if no
        timer runs). Raises ``NotFound``, ``StaleVersion``."""

    # -- several workers on one database -------------------------------------------

    def game_lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Hold the game for the block across processes: PostgreSQL takes a session advisory
        lock (``pg_advisory_lock(game_id)``) on a connection of its own, released at the
        block's end or when the process dies; SQLite (one bot process per file) holds
        nothing. Not re-entrant. Use it around a load, a decision and its write, so two
        workers never decide on the same version of a game."""

    async def arm_timer(self, game_id: int, expected_version: int, wake_at: float) -> bool:
        """Store when the running turn timer should next run (the reminder first, then the
        deadline; epoch seconds), so that any worker's :meth:`claim_due_timers` finds it;
        drops a claim. False (nothing changed) when the game is not at ``expected_version``
        or runs no timer. Bookkeeping: no version bump. A state write
        (:meth:`append_actions`) and :meth:`mark_reminded` forget the wake time (the timer
        is then due at its deadline until armed again)."""

    async def claim_due_timers(
        self, now: float, *, lease: float, limit: int = 50
    ) -> list[tuple[int, int]]:
        """Claim up to ``limit`` active games whose timer is due (its wake time, or its
        deadline when none is stored, ``<= now``) and not held by a claim that lasts beyond
        ``now``; each claim lasts ``lease`` seconds. Returns ``(game_id, version)``, the
        earliest due first. Two callers never get the same timer while a claim lasts; a
        worker that dies holding one loses it when the lease ends. Raises ``ValueError``
        (``lease <= 0`` or ``limit < 1``)."""

    async def release_timer(self, game_id: int, version: int) -> None:
        """Drop the claim on the timer of ``game_id`` at ``version`` (after it ran; no-op at
        another version or without a claim)."""

    async def claim_surface(
        self, game_id: int, seat: int | None, *, token: str, now: float, lease: float
    ) -> SurfaceState | None:
        """Take the surface (the game's table message when ``seat`` is None, else the seat's
        hand message) for ``lease`` seconds under ``token`` (a worker's name for its claim):
        what storage knows of it, or None when another token holds it beyond ``now``. The
        holder alone decides whether the message is edited, sent anew or left as it is, and
        says what it showed with :meth:`release_surface`; a worker that dies holding it loses
        it when the lease ends. Bookkeeping: no version bump. Raises ``NotFound`` (no such
        game or seat), ``ValueError`` (``lease <= 0``, seat not ``0..3``)."""

    async def release_surface(
        self, game_id: int, seat: int | None, *, token: str, shown: SurfaceShown | None
    ) -> bool:
        """Drop ``token``'s claim on the surface, recording what it now shows (``shown``;
        None: unchanged): its message (the table's ``table_message_id``, the seat's
        ``hand_message``; set as given, as the claim holder knows best), the content's digest
        and version (versions only move forward). False (nothing changed) when ``token`` no
        longer holds the claim."""

    # -- queries ------------------------------------------------------------------------------

    async def get_game(self, game_id: int, *, with_actions: bool = False) -> Game | None:
        """The game with its seats (and its whole action log if asked), or ``None``."""

    async def game_readers(self, game_id: int, also: Iterable[int] = ()) -> GameReaders | None:
        """The game (without its log) with its chat's row and the rows of the users who read
        it: its creator, every player and former player of its seats, and ``also`` (unknown
        users left out); ``None`` for an unknown game. One consistent read (one round trip
        where the rows are not kept in memory, PostgreSQL shared by several processes)."""

    async def get_actions(self, game_id: int, *, start: int = 0) -> tuple[str, ...]:
        """The action log from ``seq >= start`` in order (empty for an unknown game)."""

    async def open_game_of_chat(self, chat_id: int, *, with_actions: bool = False) -> Game | None:
        """The chat's ``lobby`` or ``active`` game (there is at most one), or ``None``."""

    async def latest_game_of_chat(self, chat_id: int) -> Game | None:
        """The chat's most recent game whatever its status (for ``/score`` after the end),
        or ``None``."""

    async def games_by_status(self, statuses: Collection[GameStatus]) -> list[Game]:
        """All games in one of ``statuses`` (e.g. ``{ACTIVE}`` at start-up to re-arm timers and
        resume computer turns)."""

    async def games_of_user(
        self, user_id: int, statuses: Collection[GameStatus] = (GameStatus.ACTIVE,)
    ) -> list[Game]:
        """The games in ``statuses`` where ``user_id`` holds a seat (one per group they play
        in)."""

    async def games_left_by(self, user_id: int) -> list[Game]:
        """The ``active`` games where a computer plays a seat ``user_id`` left (the seat's
        ``former_user_id``), so the user may take it back."""

    async def games_due(self, at: float) -> list[Game]:
        """Open games whose timer deadline is ``<= at``, earliest deadline first."""

    async def export_games(self, *, chat_id: int | None = None) -> list[Game]:
        """Every game (or every game of ``chat_id``) with seats and whole action logs, for an
        admin export. Loads everything into memory."""

    # -- whole database: reads and verbatim imports (a copy between databases) ---------------

    async def row_counts(self) -> RowCounts:
        """How many rows each table holds."""

    async def all_users(self) -> list[User]:
        """Every user, ordered by ``user_id``."""

    async def all_chats(self) -> list[Chat]:
        """Every chat, ordered by ``chat_id``."""

    async def game_histories(self, *, after: int = 0, limit: int = 100) -> list[GameHistory]:
        """Up to ``limit`` games with ``game_id > after`` in id order, each with its seats,
        its whole action log and the time of every action: page through a database by
        passing the last id seen as ``after``. Raises ``ValueError`` for ``limit < 1``."""

    async def import_users(self, users: Sequence[User]) -> None:
        """Write ``users`` as they are (every field, ``updated_at`` included) in one
        transaction; a user that exists is overwritten (users mirror Telegram: last writer
        wins)."""

    async def import_chats(self, chats: Sequence[Chat]) -> None:
        """Write ``chats`` as they are, like :meth:`import_users`."""

    async def import_games(self, histories: Sequence[GameHistory]) -> None:
        """Insert games as they are, in one transaction: ids, status, version, settings, seed,
        snapshot, timer, table and hand message ids, seats (former players included) and the
        action log with its times. A later :meth:`create_game` gets an id above every imported
        one. Raises (nothing written) ``ValueError`` (a history inconsistent on its own, see
        :func:`storage.rows.check_history`, or one id twice), ``AlreadyExists`` (the id is
        taken), ``NotFound`` (its chat, creator, a seated or former user has no row: import
        users and chats first), ``OpenGameExists`` (a second open game for a chat)."""

    # -- standings, statistics and the daily deal (migration 4) --------------------

    async def bot_value(self, key: str, default: str, *, now: float) -> str:
        """The bot's stored value of ``key``; when there is none, ``default`` is stored and
        returned (the first writer wins, so every process gets the same value)."""

    # -- deep-link tokens and /stop prompts (migration 6) -------------------------------------

    async def link_token(self, game_id: int, candidate: str) -> str | None:
        """The random token of the game's deep links: the stored one, else ``candidate`` is
        stored and returned (the first writer wins, so every worker draws the same links);
        None when there is no such game. Tokens are unique (``candidate`` must be random)."""

    async def game_of_link(self, token: str) -> int | None:
        """The game whose deep-link token is ``token``, if any."""

    async def set_stop_prompt(self, game_id: int, message_id: int | None) -> None:
        """Record the message that asks ``/stop``'s question for the game (None: none), so
        that any worker may take its answer; a newer question replaces the older."""

    async def stop_prompt(self, game_id: int) -> int | None:
        """The message id of the game's ``/stop`` question, if one is recorded."""

    async def set_handed_round(self, game_id: int, seat: int, round_number: int) -> None:
        """Record the round (``rules.md`` round number, from 1) in which ``seat`` went to a
        computer player; kept until the next hand-over of that seat."""

    async def handed_round(self, game_id: int, seat: int) -> int | None:
        """The round in which ``seat`` last went to a computer, if recorded."""

    # -- where hands are shown (migration 10) -----------------------------------------------

    async def set_hand_place(self, user_id: int, place: str | None, *, now: float) -> None:
        """Where ``user_id`` wants their hand at group tables: ``"group"`` (an ephemeral
        message in the group), ``"private"`` (their private chat), or None (as the table
        says). Goes with a forgotten person (their ``player_prefs`` row).

        Raises:
            ValueError: another ``place``.
        """

    async def hand_places(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The stored :meth:`set_hand_place` choices of those users (users without one are
        left out)."""

    # -- a fourth wanted (migration 9) ------------------------------------------------------

    async def set_table_alert(self, chat_id: int, user_id: int, on: bool, *, now: float) -> bool:
        """``user_id`` wants (``on``) or no longer wants a private message when a table in the
        group ``chat_id`` needs a player; True when that changed something. The rows follow a
        group that became a supergroup and go with a forgotten person."""

    async def table_alert_users(self, chat_id: int) -> list[int]:
        """The users who want to hear of a table in ``chat_id`` that needs a player, by id."""

    async def claim_alert_send(self, user_id: int, *, now: float, every: float) -> bool:
        """Claim the right to send ``user_id`` one such message now: True (and ``now`` is
        stored) when none was claimed in the last ``every`` seconds, else False. Atomic: of
        several workers claiming at once, one wins."""

    async def create_daily_game(
        self,
        user_id: int,
        settings: str,
        seed: int,
        *,
        day: str,
        day_ends_at: float,
        now: float,
        seats: Sequence[Occupant],
    ) -> tuple[Game, DailyEntry]:
        """In one transaction: :meth:`create_game` in the user's private chat (``chat_id`` =
        ``user_id``, which must have a chat row; ``user_id`` is the creator) and its
        :class:`~storage.stats_rows.DailyEntry` for ``day``, ranked when the user has no
        ranked attempt of ``day`` yet. Raises as :meth:`create_game` (``OpenGameExists``:
        the private chat has a game open)."""

    async def daily_entry(self, game_id: int) -> DailyEntry | None:
        """The daily attempt played in ``game_id``, or ``None`` (not a daily)."""

    async def daily_entries(
        self, *, user_id: int | None = None, day: str | None = None
    ) -> list[DailyEntry]:
        """Daily attempts of ``user_id`` and/or of ``day`` (both ``None``: all), in
        ``game_id`` order."""

    async def daily_results(self, day: str) -> list[DailyResult]:
        """The lines of ``day``'s board: every ranked attempt of ``day`` whose game finished
        (not abandoned) before the day ended and was recorded (:meth:`record_game`), in
        ``game_id`` order."""

    async def get_daily_par(self, day: str) -> DailyPar | None:
        """The stored par of ``day``, or ``None``."""

    async def save_daily_par(self, par: DailyPar) -> DailyPar:
        """Store ``par`` unless ``par.day`` has one already; return the stored one. Raises
        ``ValueError`` for settings that are not JSON."""

    async def set_board_hidden(self, user_id: int, hidden: bool, *, now: float) -> None:
        """Hide the user from the daily's boards (or show them again)."""

    async def hidden_users(self, user_ids: Iterable[int]) -> set[int]:
        """The users among ``user_ids`` who hid themselves from the boards."""

    async def forget_user(self, user_id: int, anonymous_id: int, *, now: float) -> bool:
        """Unlink the person ``user_id`` from everything, in one transaction (the right to be
        forgotten): their user row, board choice, daily attempts, recorded results and
        ratings go; each game seat they held (and each game they created, and their private
        chat with its games) passes to the placeholder ``anonymous_id`` (at or below
        :data:`storage.rows.ANONYMOUS_MAX`; a user row named
        :data:`storage.rows.ANONYMOUS_NAME` is made for it), so every game still replays;
        seats they left to a computer forget them. ``False``: nothing was stored of them.
        Raises ``UserSeated`` (seated at an open game: nothing changes) and ``ValueError``
        (``anonymous_id`` outside the anonymous range, or ``user_id`` inside it)."""

    async def record_game(
        self, record: GameRecord, ratings: Mapping[int, Rating], *, now: float
    ) -> bool:
        """Add an ended game to the statistics, once: in one transaction, unless the game is
        recorded already (then nothing is written and the answer is ``False``), store the
        record (stamped ``now``), its results and ``ratings`` (the new rating of each user in
        the record's chat); anonymous seats (:data:`storage.rows.ANONYMOUS_MAX`) get
        neither results nor ratings. Raises ``NotFound`` (no such game, or a rating for a
        chat without a row)."""

    async def unrecorded_games(self) -> list[int]:
        """Finished and abandoned games not recorded yet (:meth:`record_game`), in the order
        they ended (the game's last state write, then ``game_id``)."""

    async def player_results(
        self,
        *,
        user_id: int | None = None,
        chat_id: int | None = None,
        since: float | None = None,
    ) -> list[PlayerResult]:
        """Recorded results, of ``user_id``, in games of ``chat_id`` (as the games now say:
        a migrated group's results follow it), ended at or after ``since``; in the order the
        games ended (then ``game_id``, then seat)."""

    async def ratings(self, chat_id: int) -> dict[int, Rating]:
        """The ratings of the group ``chat_id``, by user id."""

    async def clear_stats(self) -> None:
        """Delete every derived row (records, results, ratings): the start of a rebuild.
        Primary data (daily attempts and pars, board choices, the bot's values) stays."""

    async def standings_rows(self) -> TableRows:
        """Every row of the tables of migration 4 (:data:`storage.stats_rows.EXTRA_TABLES`),
        each table in primary-key order, values typed (a copy between databases)."""

    async def import_standings(self, rows: TableRows) -> None:
        """Write ``rows`` (as :meth:`standings_rows` gives them) as they are, in one
        transaction, overwriting rows with the same key. Import users, chats and games
        first. Raises ``ValueError`` for an unknown table or a row of the wrong length."""
