"""What every backend does alike when it imports rows verbatim (a copy between databases):
the column lists, the rows to insert, and the checks, so both backends refuse the same
imports with the same errors in the same order.

Order of the checks in :meth:`ImportPlan.check`: a game id the target has already
(:class:`~storage.errors.AlreadyExists`), a chat or user that does not exist
(:class:`~storage.errors.NotFound`), a second open game for a chat
(:class:`~storage.errors.OpenGameExists`). :func:`plan_import` raises :class:`ValueError` for
histories that are inconsistent on their own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from storage.errors import AlreadyExists, NotFound, OpenGameExists
from storage.rows import Chat, GameHistory, User, check_history, check_int64

USER_COLUMNS = (
    "user_id",
    "display_name",
    "telegram_language",
    "language",
    "can_message",
    "updated_at",
)
CHAT_COLUMNS = ("chat_id", "chat_type", "title", "language", "table_defaults", "updated_at")
GAME_COLUMNS = (
    "game_id",
    "chat_id",
    "status",
    "settings",
    "seed",
    "creator_id",
    "language",
    "version",
    "snapshot",
    "action_count",
    "table_message_id",
    "deadline_at",
    "deadline_seat",
    "reminded",
    "created_at",
    "updated_at",
    "thread_id",
)
SEAT_COLUMNS = (
    "game_id",
    "seat",
    "kind",
    "user_id",
    "display_name",
    "former_user_id",
    "hand_chat_id",
    "hand_message_id",
    "timeouts",
)
ACTION_COLUMNS = ("game_id", "seq", "action", "created_at")

Row = tuple[object, ...]


def user_row(user: User) -> Row:
    """``user`` in the order of :data:`USER_COLUMNS`."""
    check_int64(user.user_id, "user_id")
    return (
        user.user_id,
        user.display_name,
        user.telegram_language,
        user.language,
        user.can_message,
        user.updated_at,
    )


def chat_row(chat: Chat) -> Row:
    """``chat`` in the order of :data:`CHAT_COLUMNS`."""
    check_int64(chat.chat_id, "chat_id")
    return (
        chat.chat_id,
        chat.chat_type,
        chat.title,
        chat.language,
        chat.table_defaults,
        chat.updated_at,
    )


@dataclass
class ImportPlan:
    """The rows an import of game histories writes, and what must hold before it may.

    Attributes:
        game_ids: the ids of the imported games.
        chat_ids: the chats they live in (must exist).
        user_ids: creators, seated humans and former players (must exist).
        open_games: ``{chat_id: game_id}`` of the imported open games (the target may have
            no other open game in those chats).
        games, seats, actions: rows in the order of the ``*_COLUMNS`` lists.
    """

    game_ids: list[int] = field(default_factory=list)
    chat_ids: set[int] = field(default_factory=set)
    user_ids: set[int] = field(default_factory=set)
    open_games: dict[int, int] = field(default_factory=dict)
    games: list[Row] = field(default_factory=list)
    seats: list[Row] = field(default_factory=list)
    actions: list[Row] = field(default_factory=list)

    def check(
        self,
        *,
        existing: Collection[int],
        chats: Collection[int],
        users: Collection[int],
        open_in_target: Mapping[int, int],
    ) -> None:
        """Raise unless the import may go ahead, given what the target holds: ``existing``
        (which of :attr:`game_ids` it has), ``chats`` and ``users`` (which of
        :attr:`chat_ids` / :attr:`user_ids` it has) and ``open_in_target`` (``{chat_id:
        game_id}`` of its open games in the chats of :attr:`open_games`)."""
        if existing:
            raise AlreadyExists("game", min(existing))
        if missing := self.chat_ids - set(chats):
            raise NotFound("chat", min(missing))
        if missing := self.user_ids - set(users):
            raise NotFound("user", min(missing))
        if open_in_target:
            chat_id = min(open_in_target)
            raise OpenGameExists(chat_id, open_in_target[chat_id])


def plan_import(histories: Sequence[GameHistory]) -> ImportPlan:
    """The rows of ``histories``, checked one by one (:func:`storage.rows.check_history`).

    Raises:
        ValueError: an inconsistent history, or one game id twice.
        OpenGameExists: two open games of one chat among ``histories``.
    """
    plan = ImportPlan()
    for history in histories:
        game = check_history(history).game
        assert game.actions is not None  # checked
        if game.game_id in plan.game_ids:
            raise ValueError(f"game {game.game_id} is given twice")
        plan.game_ids.append(game.game_id)
        plan.chat_ids.add(game.chat_id)
        plan.user_ids.add(game.creator_id)
        if game.status.is_open:
            if game.chat_id in plan.open_games:
                raise OpenGameExists(game.chat_id, plan.open_games[game.chat_id])
            plan.open_games[game.chat_id] = game.game_id
        timer = game.timer
        plan.games.append(
            (
                game.game_id,
                game.chat_id,
                game.status.value,
                game.settings,
                game.seed,
                game.creator_id,
                game.language,
                game.version,
                game.snapshot,
                game.action_count,
                game.table_message_id,
                timer.deadline_at if timer else None,
                timer.seat if timer else None,
                timer.reminded if timer else False,
                game.created_at,
                game.updated_at,
                game.thread_id,
            )
        )
        for seat in game.seats:
            occupant, hand = seat.occupant, seat.hand_message
            plan.user_ids.update(
                u for u in (occupant.user_id, occupant.former_user_id) if u is not None
            )
            plan.seats.append(
                (
                    game.game_id,
                    seat.index,
                    occupant.kind.value,
                    occupant.user_id,
                    occupant.display_name,
                    occupant.former_user_id,
                    hand.chat_id if hand else None,
                    hand.message_id if hand else None,
                    seat.timeouts,
                )
            )
        plan.actions.extend(
            (game.game_id, seq, action, at)
            for seq, (action, at) in enumerate(zip(game.actions, history.action_times, strict=True))
        )
    return plan
