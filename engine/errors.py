"""Errors the engine raises. The engine never writes player-facing sentences: a refusal carries a
stable :class:`Reason` code and structured ``details`` that the bot turns into text in the
reader's language (``docs/design.md`` §2)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class EngineError(Exception):
    """Base class of every error raised by :mod:`engine`."""


class NotationError(EngineError, ValueError):
    """Text that is not a card, suit, seat, team or action in the project's notation."""


class SettingsError(EngineError, ValueError):
    """An unknown or invalid table setting.

    Attributes:
        setting: the name of the offending setting (or ``"preset"``).
        value: the offending value (``None`` for an unknown name).
    """

    def __init__(self, setting: str, value: object = None, message: str | None = None) -> None:
        self.setting = setting
        self.value = value
        super().__init__(message or f"invalid setting {setting!r}: {value!r}")


class Reason(StrEnum):
    """Stable codes for refused actions; the bot maps each to a translated explanation.

    Klammern (``rules.md`` §9.5–9.7): ``NO_SUCH_DECLARATION`` (not a whole sequence of the
    hand; details ``cards``, ``declarable``), ``ALREADY_DECLARED`` (that sequence was declared
    already), ``TOO_LATE`` (a declaration after the seat's first card; contra after the first
    trick, re after the second; details ``window``), ``NO_BELLA`` (the card is not K or Q of
    trump, or the other one is not in the hand), ``WRONG_TEAM`` (contra by the playing team, re
    by a defender; details ``team``, ``playing_team``), ``ALREADY_CALLED`` (contra or re a second
    time; details ``call``, ``by``; or by a seat that declined it: ``declined: true``),
    ``NO_CONTRA`` (re before contra). ``NOT_ALLOWED`` with ``auto_declare: true``: manual
    declarations and bella are not used at this table.
    """

    GAME_OVER = "game_over"
    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_TRUMP = "must_trump"
    MUST_OVERTRUMP = "must_overtrump"
    MAY_NOT_UNDERTRUMP = "may_not_undertrump"
    MAY_NOT_TRUMP = "may_not_trump"
    MUST_CHOOSE = "must_choose"
    SUIT_NOT_ALLOWED = "suit_not_allowed"
    NOT_ALLOWED = "not_allowed"
    NO_ROEM_TO_CLAIM = "no_roem_to_claim"
    NOT_YOUR_ROEM = "not_your_roem"
    NO_SUCH_DECLARATION = "no_such_declaration"
    TOO_LATE = "too_late"
    ALREADY_DECLARED = "already_declared"
    NO_BELLA = "no_bella"
    WRONG_TEAM = "wrong_team"
    ALREADY_CALLED = "already_called"
    NO_CONTRA = "no_contra"


class IllegalAction(EngineError):
    """An action refused by the rules. ``apply`` leaves the state unchanged when it raises this.

    Attributes:
        reason: the stable code of the broken rule.
        details: JSON-able facts for the explanation, e.g. ``{"suit": "H"}`` for
            ``MUST_FOLLOW_SUIT`` or ``{"to_act": 2}`` for ``NOT_YOUR_TURN``.
    """

    def __init__(self, reason: Reason, **details: Any) -> None:
        self.reason = reason
        self.details: dict[str, Any] = details
        extra = ", ".join(f"{k}={v}" for k, v in details.items())
        super().__init__(f"{reason.value}" + (f" ({extra})" if extra else ""))
