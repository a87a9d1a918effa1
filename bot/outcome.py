"""What a service call did, for the handler (callback answer) and the presenter (Telegram
calls). Pure data; no text (the presenter translates keys)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.events import Event
from storage import MessageRef


@dataclass(frozen=True, slots=True)
class Notice:
    """Something to tell the group beyond the table: ``kind`` is ``timeout`` (the computer
    played for ``seat``), ``handover`` (``seat`` went to a computer), ``absent`` (``seat`` went
    to a computer after three timeouts), ``seated`` (a player took ``seat`` through the private
    chat), ``reminder`` (``seat`` is running out of time), ``back`` (``user_id`` took their
    ``seat`` back from the computer).

    For a seat that went to a computer: ``user_id`` is who sat there and ``hand`` their hand
    message, which the presenter turns into the offer to take the seat back. For ``back``:
    ``hand`` is that offer message, which the presenter closes."""

    kind: str
    seat: int | None = None
    user_id: int | None = None
    hand: MessageRef | None = None


@dataclass(slots=True)
class Outcome:
    """The result of one service call.

    Attributes:
        game_id: the game concerned (None when there is none).
        refusal: key of the refusal explained to the user (an engine ``Reason`` value or a bot
            key such as ``stale``, ``not_your_seat``); None when the call succeeded.
        details: data for the refusal's text.
        toast: key of a short confirmation for the callback answer (``seated``, ``left``,
            ``already_seated``, ``reclaimed``).
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
            change), without sending fresh hand messages.
    """

    game_id: int | None = None
    refusal: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    toast: str | None = None
    url: str | None = None
    lobby: bool = False
    started: bool = False
    changed: bool = False
    events: list[Event] = field(default_factory=list)
    acted: set[int] = field(default_factory=set)
    before: set[int] = field(default_factory=set)
    notices: list[Notice] = field(default_factory=list)
    ended: bool = False
    stopped: bool = False
    actor: int | None = None
    resync: bool = False

    @property
    def ok(self) -> bool:
        """No refusal."""
        return self.refusal is None

    def merge(self, other: Outcome) -> Outcome:
        """Add what a follow-up call (computer moves) did to this outcome."""
        self.changed = self.changed or other.changed
        self.lobby = self.lobby or other.lobby
        self.started = self.started or other.started
        self.events.extend(other.events)
        self.acted |= other.acted
        self.notices.extend(other.notices)
        self.ended = self.ended or other.ended
        self.stopped = self.stopped or other.stopped
        self.actor = self.actor if self.actor is not None else other.actor
        self.resync = self.resync or other.resync
        return self


def refused(key: str, game_id: int | None = None, **details: Any) -> Outcome:
    """An outcome that refuses with ``key``."""
    return Outcome(game_id=game_id, refusal=key, details=details)
