"""What a service call did, for the handler (callback answer) and the presenter (Telegram
calls). Pure data; no text: refusals, toasts and notices are closed enums owned here, and the
renderers give each member its text in every language (a test checks none is missing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from engine.errors import Reason
from engine.events import Event
from storage import MessageRef

if TYPE_CHECKING:
    from bot.service.view import TableView


class Refusal(StrEnum):
    """The bot's own refusals (not rules of the game: those are :class:`engine.errors.Reason`),
    each with a translated alert (:func:`bot.render.reasons.refusal_text`)."""

    STALE_BUTTON = "stale_button"
    MALFORMED = "malformed"
    NOT_YOUR_HAND = "not_your_hand"
    NOT_IN_GAME = "not_in_game"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    NOT_SEATED = "not_seated"
    TABLE_FULL = "table_full"
    TABLE_EXISTS = "table_exists"
    NO_COMPUTER_TO_REMOVE = "no_computer_to_remove"
    NEED_FOUR_PLAYERS = "need_four_players"
    NEED_A_PERSON = "need_a_person"
    """A group table with four computers (they play alone only at a private table)."""
    TOO_MANY_TABLES = "too_many_tables"
    """The user opened as many group tables as one person may have open."""
    BOT_FULL = "bot_full"
    """The bot has as many open tables as it runs at once."""
    CREATOR_OR_ADMIN_ONLY = "creator_or_admin_only"
    ADMIN_ONLY = "admin_only"
    GAME_NOT_FOUND = "game_not_found"
    GAME_FINISHED = "game_finished"
    GAME_ALREADY_STARTED = "game_already_started"
    NO_TABLE_HERE = "no_table_here"
    UNKNOWN_LANGUAGE = "unknown_language"
    NOT_YOUR_SEAT = "not_your_seat"
    ANONYMOUS_CANNOT_SIT = "anonymous_cannot_sit"
    NOT_THIS_MESSAGE = "not_this_message"
    TIPS_OFF = "tips_off"
    """No tip button at this table (a ranked daily, a group table without the setting)."""
    NO_TIP_NOW = "no_tip_now"
    """A tip only while it is the tapper's turn to play a card."""
    TIP_BUSY = "tip_busy"
    """The computers are too busy to work out the tip in time."""
    WRONG_CHAT = "wrong_chat"
    """A game button tapped outside its place: the game's chat (and topic) for the table,
    lobby, ``/stop`` and sheet buttons, the seated player's private chat for a hand."""
    NOT_A_MEMBER = "not_a_member"
    """Only members of the group may take a seat at its table."""
    OLD_LINK = "old_link"
    """A deep link of the old form (the game's number): it is never followed."""
    CHANNEL_CANNOT_PLAY = "channel_cannot_play"
    """A message sent on behalf of a channel: all channels share one user id, so they
    cannot open, sit at or stop a table."""
    RECLAIM_NEXT_ROUND = "reclaim_next_round"
    """A group table without tips: a seat given to the computer comes back at the next
    round (else handing over for one card would be a tip by another name)."""
    CHAT_MOVED = "chat_moved"
    """The group became a supergroup: this came from its old id."""
    REVIEW_NOT_YET = "review_not_yet"
    """A review is only of a game played to the end (not of one running or stopped)."""
    REMATCH_PLAYERS_ONLY = "rematch_players_only"
    """Only a player of the finished game or a group admin may start its rematch."""
    REMATCH_TOO_LATE = "rematch_too_late"
    """The chat had a newer table since the finished game: no rematch of it any more."""
    REMATCH_SAME_RULES = "rematch_same_rules"
    """A rematch lobby keeps the finished game's rules (its settings do not change)."""
    REMATCH_WAITING = "rematch_waiting"
    """A rematch starts by itself once its players confirmed (or their time ran out)."""


class Toast(StrEnum):
    """A short confirmation in the callback answer of a tap that worked."""

    SEATED = "seated"
    MOVED = "moved"
    LEFT = "left"
    ALREADY_SEATED = "already_seated"
    RECLAIMED = "reclaimed"
    REMATCH_OPENED = "rematch_opened"
    """A rematch's lobby was opened (bot.service.rematch)."""
    REMATCH_EXISTS = "rematch_exists"
    """The rematch of this game was opened already (a second tap)."""
    REMATCH_READY = "rematch_ready"
    """A player confirmed their seat in a rematch."""
    REMATCH_ALREADY_READY = "rematch_already_ready"
    """A player confirmed their seat a second time."""


class NoticeKind(StrEnum):
    """What a :class:`Notice` tells."""

    TIMEOUT = "timeout"
    HANDOVER = "handover"
    ABSENT = "absent"
    SEATED = "seated"
    REMINDER = "reminder"
    BACK = "back"
    LEFT_GROUP = "left_group"


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell beyond the table: ``kind`` is ``TIMEOUT`` (the computer played for
    ``seat``), ``HANDOVER`` (``seat`` went to a computer), ``ABSENT`` (``seat`` went to a
    computer after three timeouts), ``SEATED`` (a player took ``seat`` through the private
    chat), ``REMINDER`` (``seat`` is running out of time), ``BACK`` (``user_id`` took their
    ``seat`` back from the computer).

    For a seat that went to a computer: ``user_id`` is who sat there and ``hand`` their hand
    message, which the presenter turns into the offer to take the seat back. For ``back``:
    ``hand`` is that offer message, which the presenter closes."""

    kind: NoticeKind
    seat: int | None = None
    user_id: int | None = None
    hand: MessageRef | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one service call, immutable (:meth:`merge` makes a new value of two;
    a field changes through :func:`dataclasses.replace`).

    Attributes:
        game_id: the game concerned (None when there is none).
        refusal: why the call was refused (a rule of the game, :class:`engine.errors.Reason`,
            or the bot's own :class:`Refusal`); None when the call succeeded.
        details: data for the refusal's or the toast's text.
        toast: a short confirmation for the callback answer.
        url: a deep link the callback answer opens (a user who never started the bot).
        lobby: the lobby message must be redrawn.
        started: the game left the lobby.
        changed: the game state changed (the table and hands must be synced).
        events: the engine events, in order.
        acted: seats whose human player acted (their hand changed).
        before: seats that had legal actions before the change.
        notices: extra things to tell the group.
        ended: the game is over (finished or stopped).
        stopped: the game was stopped (abandoned).
        actor: the user who stopped it (None: the bot itself).
        resync: redraw the table and the hands in place (after a restart or a language
            change).
        remind: the players who are to act get their hand as a new message (after a
            restart: a tap that was in flight when the bot stopped was neither applied nor
            answered).
        view: the game as the presenter shows it, built by the service at the end of the
            call (:meth:`bot.service.core.Tables.with_view`; ``docs/design.md`` §3), so
            the presenter never asks for it; None until then, and for a refusal.

    Sequences and sets given as lists or sets are kept as tuples and frozensets.
    """

    game_id: int | None = None
    refusal: Refusal | Reason | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    toast: Toast | None = None
    url: str | None = None
    lobby: bool = False
    started: bool = False
    changed: bool = False
    events: Sequence[Event] = ()
    acted: Set[int] = frozenset()
    before: Set[int] = frozenset()
    notices: Sequence[Notice] = ()
    ended: bool = False
    stopped: bool = False
    actor: int | None = None
    resync: bool = False
    remind: bool = False
    view: TableView | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "events", tuple(self.events))
        object.__setattr__(self, "acted", frozenset(self.acted))
        object.__setattr__(self, "before", frozenset(self.before))
        object.__setattr__(self, "notices", tuple(self.notices))

    @property
    def ok(self) -> bool:
        """No refusal."""
        return self.refusal is None

    def merge(self, other: Outcome) -> Outcome:
        """This outcome followed by ``other`` (computer moves): a new value; the newer view
        wins."""
        return replace(
            self,
            changed=self.changed or other.changed,
            lobby=self.lobby or other.lobby,
            started=self.started or other.started,
            events=(*self.events, *other.events),
            acted=self.acted | other.acted,
            notices=(*self.notices, *other.notices),
            ended=self.ended or other.ended,
            stopped=self.stopped or other.stopped,
            actor=self.actor if self.actor is not None else other.actor,
            resync=self.resync or other.resync,
            remind=self.remind or other.remind,
            view=other.view if other.view is not None else self.view,
        )


def refused(why: Refusal | Reason, game_id: int | None = None, **details: Any) -> Outcome:
    """An outcome that refuses with ``why``."""
    return Outcome(game_id=game_id, refusal=why, details=details)
