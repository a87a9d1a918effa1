"""The values storage hands out and takes in: frozen rows, enums and small value objects.

Conventions shared by every row:

* Telegram ids (users, chats, messages) are ``int`` and may need 64 bits.
* Times are UTC epoch seconds as ``float``, always passed in by the caller (storage has no clock).
* ``settings``, ``snapshot`` and ``table_defaults`` are JSON text; storage checks that they parse
  but never interprets them (the engine and the bot own their shape).
* Actions are opaque strings in the engine's notation (``"0:choose:H"``, ``"2:play:JS"``).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum

SEAT_COUNT = 4
"""Every table has seats ``0..3``."""

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


ANONYMOUS_MAX = -(2**62)
"""The highest anonymous user id: a forgotten person's seats hold an id at or below this
(never a Telegram user id, which is positive, nor a group id, which is above -2^53)."""

ANONYMOUS_NAME = "—"
"""The name a forgotten person's seats show."""


def is_anonymous(user_id: int) -> bool:
    """Whether ``user_id`` is an anonymous placeholder (:data:`ANONYMOUS_MAX`)."""
    return user_id <= ANONYMOUS_MAX


def new_anonymous_id() -> int:
    """A fresh random anonymous placeholder id, between ``-2**63 + 1`` and
    :data:`ANONYMOUS_MAX` (62 random bits: two forgotten people never share one)."""
    return ANONYMOUS_MAX - secrets.randbelow(2**62)


def check_int64(value: int, what: str) -> int:
    """Return ``value`` if it fits a signed 64-bit column, else raise :class:`ValueError`."""
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{what} {value} does not fit in a signed 64-bit integer")
    return value


def check_json(text: str | None, what: str) -> str | None:
    """Return ``text`` if it is ``None`` or valid JSON, else raise :class:`ValueError`."""
    if text is None:
        return None
    try:
        json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} is not JSON text: {exc}") from exc
    return text


def check_seat(seat: int) -> int:
    """Return ``seat`` if it is ``0..3``, else raise :class:`ValueError`."""
    if not 0 <= seat < SEAT_COUNT:
        raise ValueError(f"seat must be 0..{SEAT_COUNT - 1}, got {seat}")
    return seat


class GameStatus(StrEnum):
    """Life cycle of a game: ``lobby`` → ``active`` → ``finished``; ``lobby``/``active`` →
    ``abandoned``. ``finished`` and ``abandoned`` are final: storage refuses further state writes.
    """

    LOBBY = "lobby"
    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"

    @property
    def is_open(self) -> bool:
        """True for ``lobby`` and ``active``: a chat has at most one open game."""
        return self in OPEN_STATUSES


OPEN_STATUSES: frozenset[GameStatus] = frozenset({GameStatus.LOBBY, GameStatus.ACTIVE})
"""The statuses that count as "the chat's open game"."""

ALLOWED_TRANSITIONS: dict[GameStatus, frozenset[GameStatus]] = {
    GameStatus.LOBBY: frozenset({GameStatus.LOBBY, GameStatus.ACTIVE, GameStatus.ABANDONED}),
    GameStatus.ACTIVE: frozenset({GameStatus.ACTIVE, GameStatus.FINISHED, GameStatus.ABANDONED}),
    GameStatus.FINISHED: frozenset(),
    GameStatus.ABANDONED: frozenset(),
}
"""``ALLOWED_TRANSITIONS[current]`` = the statuses a state write may leave the game in."""


class SeatKind(StrEnum):
    """Who sits in a seat."""

    EMPTY = "empty"
    HUMAN = "human"
    COMPUTER = "computer"


@dataclass(frozen=True, slots=True)
class Occupant:
    """Who takes a seat, as written by :meth:`Repository.set_seats` / ``create_game``.

    ``human`` needs ``user_id`` (a user row must exist); ``computer`` has none; ``empty`` has
    neither id nor name. Build with :meth:`human`, :meth:`computer` or :meth:`empty`.

    ``former_user_id``: only for a computer that took the seat over from a human during play
    (a hand-over or three timeouts in a row): the user who sat there and may take the seat back
    (a user row must exist). ``None`` otherwise.

    Raises:
        ValueError: for an inconsistent combination.
    """

    kind: SeatKind
    user_id: int | None = None
    display_name: str | None = None
    former_user_id: int | None = None

    def __post_init__(self) -> None:
        if (self.kind is SeatKind.HUMAN) != (self.user_id is not None):
            raise ValueError("a human seat needs a user_id and only a human seat has one")
        if self.kind is SeatKind.EMPTY and self.display_name is not None:
            raise ValueError("an empty seat has no display name")
        if self.former_user_id is not None and self.kind is not SeatKind.COMPUTER:
            raise ValueError("only a computer seat has a former_user_id")
        if self.user_id is not None:
            check_int64(self.user_id, "user_id")
        if self.former_user_id is not None:
            check_int64(self.former_user_id, "former_user_id")

    @classmethod
    def human(cls, user_id: int, display_name: str) -> Occupant:
        """A Telegram user in the seat."""
        return cls(SeatKind.HUMAN, user_id, display_name)

    @classmethod
    def computer(cls, display_name: str, former_user_id: int | None = None) -> Occupant:
        """A computer player in the seat; ``former_user_id``: the human it took over from
        (who may take the seat back), if any."""
        return cls(SeatKind.COMPUTER, None, display_name, former_user_id)

    @classmethod
    def empty(cls) -> Occupant:
        """Nobody in the seat."""
        return cls(SeatKind.EMPTY)


EMPTY_SEAT = Occupant(SeatKind.EMPTY)


@dataclass(frozen=True, slots=True)
class MessageRef:
    """A Telegram message: ``chat_id`` (64-bit) and ``message_id``."""

    chat_id: int
    message_id: int


@dataclass(frozen=True, slots=True)
class SurfaceState:
    """What storage knows of a surface: a game's table message (``seat`` None) or a seat's
    hand message, as the last worker that held it left it (:meth:`Repository.claim_surface`).

    Attributes:
        message: the message that shows it now (the table's: in the game's chat; None: none).
        shown_version: the newest game version a drawing shown there was made at (0: none).
        shown: a digest of the content it shows (None: unknown).
        sent_version: the game version at which its message was sent (0: unknown).
        game_version: the game's version when the claim was taken (None: not known), so
            that the claimant knows without another read whether its drawing is of the
            newest state (a read alongside the surface's own record: not compared).
    """

    message: MessageRef | None
    shown_version: int
    shown: str | None
    sent_version: int
    game_version: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class SurfaceShown:
    """What a worker holding a surface's claim showed (:meth:`Repository.release_surface`).

    Attributes:
        message: the message that shows the surface now (None: it has none any more).
        digest: a digest of the content shown there.
        version: the game version the content was drawn at (None: not a drawing of the game;
            the stored version stays).
        sent: the message was sent now (not edited): its sent version becomes ``version``.
    """

    message: MessageRef | None
    digest: str | None
    version: int | None
    sent: bool


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a game as stored.

    Attributes:
        index: seat number ``0..3``.
        occupant: who sits there.
        hand_message: the player's private-chat message showing their hand, if the bot recorded
            one (cleared whenever the seat's occupant is rewritten). For a computer seat with a
            former player: the private message that offers them the seat back.
        timeouts: the seat's turn timeouts in a row (the computer played for the player); 0
            whenever the occupant is rewritten.
    """

    index: int
    occupant: Occupant
    hand_message: MessageRef | None = None
    timeouts: int = 0

    @property
    def kind(self) -> SeatKind:
        """Shortcut for ``occupant.kind``."""
        return self.occupant.kind

    @property
    def user_id(self) -> int | None:
        """Shortcut for ``occupant.user_id`` (``None`` unless human)."""
        return self.occupant.user_id

    @property
    def former_user_id(self) -> int | None:
        """Shortcut for ``occupant.former_user_id``: who left this computer seat during play
        and may take it back (``None`` unless a computer took the seat over)."""
        return self.occupant.former_user_id


@dataclass(frozen=True, slots=True)
class TurnTimer:
    """The running turn timer of a game.

    Attributes:
        deadline_at: UTC epoch seconds when the seat's time runs out.
        seat: the seat ``0..3`` the timer is waiting for.
        reminded: whether the bot already sent the "your turn" reminder for this deadline.
    """

    deadline_at: float
    seat: int
    reminded: bool = False

    def __post_init__(self) -> None:
        check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class User:
    """A Telegram user the bot has seen.

    Attributes:
        user_id: Telegram user id (64-bit).
        display_name: the name to show (first name, or first + last).
        telegram_language: Telegram's ``language_code`` (e.g. ``"nl"``), if sent.
        language: the language the user chose in the bot, if any (overrides Telegram's).
        can_message: the user started the bot and has not blocked it, so the bot may write to
            them in private.
        updated_at: UTC epoch seconds of the last write.
    """

    user_id: int
    display_name: str
    telegram_language: str | None
    language: str | None
    can_message: bool
    updated_at: float


@dataclass(frozen=True, slots=True)
class Chat:
    """A Telegram chat (usually a group) the bot has seen.

    Attributes:
        chat_id: Telegram chat id (64-bit, negative for groups).
        chat_type: Telegram's chat type text (``"group"``, ``"supergroup"``, ``"private"``...).
        title: the chat title, if any.
        language: the chat's chosen language, if any.
        table_defaults: JSON text of per-chat table defaults (preset, rounds, turn timeout...),
            or ``None`` if never set.
        updated_at: UTC epoch seconds of the last write.
    """

    chat_id: int
    chat_type: str
    title: str | None
    language: str | None
    table_defaults: str | None
    updated_at: float


@dataclass(frozen=True, slots=True)
class Game:
    """One game (table) with its seats, as loaded.

    Attributes:
        game_id: storage-assigned id, increasing, never reused.
        chat_id: the group the table lives in.
        status: see :class:`GameStatus`.
        settings: JSON text of the engine settings (fixed once the game leaves the lobby).
        seed: dealing seed, a signed 64-bit int.
        creator_id: the user who opened the table.
        language: the table's language, if set (else the chat's).
        version: state version, starts at 1; every state write bumps it by one (compare-and-set).
        snapshot: JSON text of the engine state after the last action, ``None`` until the first
            :meth:`Repository.append_actions`.
        action_count: how many actions the log holds (the next action gets ``seq`` = this).
        table_message_id: the group's table message, if the bot recorded it.
        thread_id: the forum topic the table lives in (``message_thread_id``), if any.
        timer: the running turn timer, if any.
        created_at: UTC epoch seconds of creation.
        updated_at: UTC epoch seconds of the last state write.
        seats: exactly four seats, ordered by index.
        actions: the whole action log in order if it was requested, else ``None``.
    """

    game_id: int
    chat_id: int
    status: GameStatus
    settings: str
    seed: int
    creator_id: int
    language: str | None
    version: int
    snapshot: str | None
    action_count: int
    table_message_id: int | None
    timer: TurnTimer | None
    created_at: float
    updated_at: float
    seats: tuple[Seat, ...]
    actions: tuple[str, ...] | None = None
    thread_id: int | None = None

    def seat_of(self, user_id: int) -> Seat | None:
        """The seat ``user_id`` holds in this game, or ``None``."""
        return next((s for s in self.seats if s.user_id == user_id), None)


@dataclass(frozen=True, slots=True)
class ChatMigration:
    """What :meth:`Repository.migrate_chat` moved.

    Attributes:
        chat_moved: the old chat row existed and now lives under the new id (merged into an
            existing row for the new id if there was one).
        games_moved: how many game rows now point at the new chat id.
    """

    chat_moved: bool
    games_moved: int


@dataclass(frozen=True, slots=True)
class RowCounts:
    """How many rows each table of a database holds (:meth:`Repository.row_counts`).

    Attributes:
        users, chats, games: rows of those tables.
        seats: seat rows (four per game).
        actions: action-log entries of all games together.
        bot_state, player_prefs, daily_games, daily_pars, stats_games, player_results,
            ratings, chat_migrations, table_alerts, alert_sends: rows of the tables beside
            the games (in the order of
            :data:`storage.stats_rows.EXTRA_TABLES`).
    """

    users: int
    chats: int
    games: int
    seats: int
    actions: int
    bot_state: int = 0
    player_prefs: int = 0
    daily_games: int = 0
    daily_pars: int = 0
    stats_games: int = 0
    player_results: int = 0
    ratings: int = 0
    chat_migrations: int = 0
    table_alerts: int = 0
    alert_sends: int = 0

    @property
    def is_empty(self) -> bool:
        """No row in any table."""
        return not any(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True, slots=True)
class GameReaders:
    """A game with the rows of those who read it, as :meth:`Repository.game_readers` reads
    them at once.

    Attributes:
        game: the game with its seats (no action log).
        chat: the game's chat (None: no row).
        users: user id → row, for the game's creator, every player and former player of
            its seats, and the users asked for besides (unknown ids left out).
    """

    game: Game
    chat: Chat | None
    users: Mapping[int, User]


def reader_ids(game: Game, also: Iterable[int] = ()) -> set[int]:
    """The users who read ``game`` (see :class:`GameReaders`) and ``also``."""
    ids = {game.creator_id, *also}
    for s in game.seats:
        ids.update(uid for uid in (s.user_id, s.former_user_id) if uid is not None)
    return ids


@dataclass(frozen=True, slots=True)
class GameHistory:
    """A game with everything storage knows of it, as :meth:`Repository.game_histories`
    reads it and :meth:`Repository.import_games` writes it back verbatim (a copy between
    databases).

    Attributes:
        game: the game with its seats (hand messages and former players included) and its
            whole action log (``game.actions`` is not ``None``).
        action_times: UTC epoch seconds at which each action was stored, one per action.
    """

    game: Game
    action_times: tuple[float, ...]


def check_history(history: GameHistory) -> GameHistory:
    """Return ``history`` if it can be imported as it is, else raise :class:`ValueError`:
    actions missing or not one time per action, ``action_count`` not their number, seats not
    ``0..3`` in order, a user in two seats, a timer on a closed game, ids beyond 64 bits."""
    game = history.game
    if game.actions is None:
        raise ValueError(f"game {game.game_id}: a history needs the whole action log")
    if not len(game.actions) == len(history.action_times) == game.action_count:
        raise ValueError(
            f"game {game.game_id}: {game.action_count} actions counted, {len(game.actions)} "
            f"in the log, {len(history.action_times)} times"
        )
    if [s.index for s in game.seats] != list(range(SEAT_COUNT)):
        raise ValueError(f"game {game.game_id}: seats must be 0..{SEAT_COUNT - 1} in order")
    humans = [s.user_id for s in game.seats if s.user_id is not None]
    if len(set(humans)) != len(humans):
        raise ValueError(f"game {game.game_id}: a user holds two seats")
    if game.timer is not None and not game.status.is_open:
        raise ValueError(f"game {game.game_id}: a {game.status.value} game has no turn timer")
    if game.game_id < 1 or game.version < 1:
        raise ValueError(f"game {game.game_id}: ids and versions start at 1")
    for value, what in (
        (game.game_id, "game_id"),
        (game.chat_id, "chat_id"),
        (game.seed, "seed"),
        (game.creator_id, "creator_id"),
    ):
        check_int64(value, what)
    check_json(game.settings, "settings")
    check_json(game.snapshot, "snapshot")
    return history
