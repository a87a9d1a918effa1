"""Button taps and deep links, parsed once into a closed set of typed values.

Callback data is a claim, never an authority (``docs/design.md`` §3): the service checks every tap
against storage and the tapping user. The renderers put a typed *payload* on each button
(:class:`Sit`, :class:`Move`, ...); :func:`encode` turns it, with the game id and the state
version the button was drawn at, into Telegram's callback data, and :func:`decode` is the only
way back. The wire format (ASCII, at most 64 bytes) is ``<scope><game>.<version>.<token>``:

* scope ``l``: the lobby message (:data:`LobbyPayload`), ``a``: a player's private hand
  (:data:`HandPayload`), ``s``: the ``/stop`` confirmation (:class:`ConfirmStop`), ``v``:
  a ``/score`` answer (:class:`ShowSheet`), ``r``: a finished game's final sheet or daily
  result (:class:`ReviewPlay`), ``m``: a rematch (:data:`RematchPayload`: the final sheet's
  "again" and the rematch lobby's "I'm in"), ``n``: the lobby's 🔔 (:class:`WantAlerts`),
  ``c``: the table message's "my cards" (:class:`MyCards`);
* version ``0``: a display-only button (a dimmed card) that never changes the state;
* token: ``sit:2``, ``leave``, ``bot:add``, ``preset:next``, ``start``, ``play:JH``,
  ``choose:H``, ``declare:all``, ``handover:yes``, ``reclaim:3``, ``tip``, ``stop:yes``...

Language buttons carry no game: ``g.<target>.<code>`` (``g.c.nl``: the chat, ``g.u.de``: the
user); nor do the daily's and the standings' buttons: ``d.<action>``
(:class:`DailyTap`: ``d.again``, ``d.hide``, ``d.show``) and ``t.<period>``
(:class:`TopPeriod`: ``t.month``, ``t.all``); nor do ``/forgetme``'s (:class:`ForgetMe`:
``f.yes``, ``f.no``); nor does the 🔕 under a "a fourth wanted" message
(:class:`AlertsOff`: ``o.<group id>``). Deep links (``t.me/<bot>?start=<payload>``) are
:class:`DeepLink`.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from engine.actions import parse_action
from engine.cards import Seat
from engine.errors import NotationError

MAX_BYTES: Final = 64
"""Telegram's limit for callback data."""

DECLARE_ALL: Final = "declare:all"
"""The Klammern "declare everything" button (``rules.md`` §9.5): every sequence at once."""


class MalformedCallback(ValueError):
    """Callback data that is not in our format (forged, truncated or from an old bot)."""


# --- payloads ------------------------------------------------------------------------------


class Setting(StrEnum):
    """A lobby setting that its button moves to the next value (``rules.md`` §7, §9.9)."""

    PRESET = "preset:next"
    ROUNDS = "rounds:toggle"
    TIMEOUT = "timeout:next"
    AUTO_DECLARE = "auto_declare:toggle"
    TIPS = "tips:toggle"
    """The tip button (💡) in a group game with several humans."""
    HANDS = "hands:toggle"
    """Where the players' hands are shown by default: in the group (to each player alone)
    or in the private chat."""


@dataclass(frozen=True, slots=True)
class Sit:
    """Take ``seat`` (0–3: N, E, S, W) in the lobby."""

    seat: int


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave one's lobby seat."""


@dataclass(frozen=True, slots=True)
class ComputerSeat:
    """Add a computer player to the first empty seat (``add``) or remove the last one."""

    add: bool


@dataclass(frozen=True, slots=True)
class NextSetting:
    """Move a lobby setting to its next value."""

    setting: Setting


@dataclass(frozen=True, slots=True)
class Start:
    """Deal the first round (all four seats taken)."""


@dataclass(frozen=True, slots=True)
class Cancel:
    """Close the lobby without playing."""


@dataclass(frozen=True, slots=True)
class Move:
    """An action in the player's hand: an engine action in notation without its seat
    (``play:JH``, ``choose:H``, ``pass``, ``accept``, ``roem``, ``declare:10D-JD-QD``,
    ``bella:KH``, ``contra``, ``re``...) or :data:`DECLARE_ALL`. Always canonical: the token
    parses as an engine action and prints back the same."""

    token: str


class HandoverStep(StrEnum):
    """The two-step "let the computer play for me": ask, then yes or no."""

    ASK = "handover"
    YES = "handover:yes"
    NO = "handover:no"


@dataclass(frozen=True, slots=True)
class Handover:
    """A step of handing one's seat to a computer player."""

    step: HandoverStep


@dataclass(frozen=True, slots=True)
class Reclaim:
    """Take back ``seat`` from the computer that plays it for the tapping user."""

    seat: int


@dataclass(frozen=True, slots=True)
class Tip:
    """The 💡 button in a player's hand: ask what the strong computer would play
    now, with the expected round scores of the best cards (:mod:`engine.ai.tip`). Changes
    nothing; refused where tips are off (a ranked daily, a group table without the setting)."""


@dataclass(frozen=True, slots=True)
class MyCards:
    """The table message's "🂠 my cards" button: show the tapping player their hand in the
    group, as a message they alone see (:mod:`bot.presenter.ephemeral`)."""


@dataclass(frozen=True, slots=True)
class ConfirmStop:
    """The answer to ``/stop``'s question: end the table (``yes``) or play on."""

    yes: bool


@dataclass(frozen=True, slots=True)
class ShowSheet:
    """Switch a ``/score`` answer between the sheet as a picture and as text."""

    picture: bool


@dataclass(frozen=True, slots=True)
class ReviewPlay:
    """Send the tapper the review of their play in this finished game
    (:mod:`engine.ai.review`), in their private chat."""


@dataclass(frozen=True, slots=True)
class Again:
    """The "again" button of a finished group game's final message: open a rematch, the same
    players in the same seats with the same rules (:mod:`bot.service.rematch`)."""


@dataclass(frozen=True, slots=True)
class Ready:
    """A player's "I'm in" on a rematch lobby: confirms the seat kept for them."""


@dataclass(frozen=True, slots=True)
class WantAlerts:
    """The lobby's 🔔: the tapper wants (or no longer wants) a private message when a table in
    this group needs a player (``/notify``; :mod:`bot.service.alerts`)."""


LobbyPayload = Sit | Leave | ComputerSeat | NextSetting | Start | Cancel
HandPayload = Move | Handover | Reclaim | Tip
RematchPayload = Again | Ready
Payload = (
    LobbyPayload
    | HandPayload
    | ConfirmStop
    | ShowSheet
    | ReviewPlay
    | RematchPayload
    | WantAlerts
    | MyCards
)


class Target(StrEnum):
    """Whose language a language button sets."""

    CHAT = "c"
    USER = "u"


@dataclass(frozen=True, slots=True)
class PickLanguage:
    """A language button: ``language`` for the chat or for the user."""

    target: Target
    language: str


class DailyAction(StrEnum):
    """A button of the daily's board."""

    AGAIN = "again"
    """Play today's deals again (unranked)."""
    HIDE = "hide"
    """Hide me on the boards."""
    SHOW = "show"
    """Show me on the boards again."""


@dataclass(frozen=True, slots=True)
class DailyTap:
    """A tap on a daily board's button."""

    action: DailyAction


class Period(StrEnum):
    """The period of a group's standings (``/top``)."""

    MONTH = "month"
    ALL = "all"


@dataclass(frozen=True, slots=True)
class TopPeriod:
    """Show the group's standings (``/top``) over ``period``."""

    period: Period


class ForgetAnswer(StrEnum):
    """The answer to ``/forgetme``'s question."""

    YES = "yes"
    """Forget me now."""
    NO = "no"
    """Keep everything."""


@dataclass(frozen=True, slots=True)
class ForgetMe:
    """A tap on ``/forgetme``'s question (in the tapper's private chat): forget the tapper."""

    answer: ForgetAnswer


@dataclass(frozen=True, slots=True)
class AlertsOff:
    """The 🔕 under a "a fourth wanted" private message: no more of these from the group
    ``chat_id`` (valid only in the tapper's own private chat)."""

    chat_id: int


GlobalTap = PickLanguage | DailyTap | TopPeriod | ForgetMe | AlertsOff
"""The taps that carry no game."""


@dataclass(frozen=True, slots=True)
class Tap:
    """A decoded tap on a game button.

    Attributes:
        game_id: the game the button belongs to.
        version: the game's state version when the button was drawn (0: display only).
        payload: what the button does.
    """

    game_id: int
    version: int
    payload: Payload


# --- tokens --------------------------------------------------------------------------------

_FIXED: dict[str, Payload] = {
    "leave": Leave(),
    "bot:add": ComputerSeat(True),
    "bot:remove": ComputerSeat(False),
    "start": Start(),
    "cancel": Cancel(),
    "stop:yes": ConfirmStop(True),
    "stop:no": ConfirmStop(False),
    "sheet:picture": ShowSheet(True),
    "sheet:text": ShowSheet(False),
    "tip": Tip(),
    "review": ReviewPlay(),
    "again": Again(),
    "ready": Ready(),
    "alerts": WantAlerts(),
    "cards": MyCards(),
    **{s.value: NextSetting(s) for s in Setting},
    **{s.value: Handover(s) for s in HandoverStep},
}
_FIXED_TOKENS: dict[Payload, str] = {payload: token for token, payload in _FIXED.items()}
_SEATED = re.compile(r"^(sit|reclaim):([0-3])$")


def token(payload: Payload) -> str:
    """The wire token of ``payload`` (``sit:2``, ``play:JH``...)."""
    match payload:
        case Sit(seat):
            return f"sit:{seat}"
        case Reclaim(seat):
            return f"reclaim:{seat}"
        case Move(text):
            return text
    return _FIXED_TOKENS[payload]


def scope(payload: Payload) -> str:
    """The scope letter of ``payload``'s message: ``l`` lobby, ``a`` hand, ``s`` stop, ``v``
    a ``/score`` answer, ``r`` a finished game's review button, ``m`` a rematch, ``n`` the
    lobby's 🔔, ``c`` the table's "my cards"."""
    if isinstance(payload, Again | Ready):
        return "m"
    if isinstance(payload, WantAlerts):
        return "n"
    if isinstance(payload, MyCards):
        return "c"
    if isinstance(payload, Move | Handover | Reclaim | Tip):
        return "a"
    if isinstance(payload, ConfirmStop):
        return "s"
    if isinstance(payload, ShowSheet):
        return "v"
    if isinstance(payload, ReviewPlay):
        return "r"
    return "l"


def move(text: str) -> Move:
    """The :class:`Move` of a hand button's action text.

    Raises:
        MalformedCallback: ``text`` is not an engine action (without seat) in canonical form,
            nor :data:`DECLARE_ALL`.
    """
    if text == DECLARE_ALL:
        return Move(text)
    try:
        canonical = parse_action(text, seat=Seat.NORTH).notation(with_seat=False)
    except (NotationError, ValueError) as exc:
        raise MalformedCallback(text) from exc
    if canonical != text:
        raise MalformedCallback(text)
    return Move(text)


def _payload(scope_letter: str, text: str) -> Payload:
    fixed = _FIXED.get(text)
    seated = _SEATED.match(text)
    payload: Payload
    if fixed is not None:
        payload = fixed
    elif seated is not None:
        seat = int(seated[2])
        payload = Sit(seat) if seated[1] == "sit" else Reclaim(seat)
    elif scope_letter == "a":
        payload = move(text)
    else:
        raise MalformedCallback(text)
    if scope(payload) != scope_letter:
        raise MalformedCallback(text)
    return payload


# --- callback data -------------------------------------------------------------------------

_GAME = re.compile(r"^([lasvrmnc])([1-9]\d{0,17})\.(0|[1-9]\d{0,8})\.([A-Za-z0-9:_,\-]{1,40})$")
_LANG = re.compile(r"^g\.([cu])\.([a-z]{2})$")
_GLOBAL = re.compile(r"^([dtf])\.([a-z]{1,10})$")
_ALERTS_OFF = re.compile(r"^o\.(-[1-9]\d{0,17})$")


def encode(tap: Tap | GlobalTap) -> str:
    """The callback data of a tap.

    Raises:
        ValueError: the game id or version is out of range, or the data would not fit
            Telegram's 64 bytes.
    """
    if isinstance(tap, PickLanguage):
        data = f"g.{tap.target.value}.{tap.language}"
        if not _LANG.match(data):
            raise ValueError(f"cannot encode callback {data!r}")
        return data
    if isinstance(tap, DailyTap):
        return f"d.{tap.action.value}"
    if isinstance(tap, TopPeriod):
        return f"t.{tap.period.value}"
    if isinstance(tap, ForgetMe):
        return f"f.{tap.answer.value}"
    if isinstance(tap, AlertsOff):
        data = f"o.{tap.chat_id}"
        if not _ALERTS_OFF.match(data):
            raise ValueError(f"cannot encode callback {data!r}")
        return data
    data = f"{scope(tap.payload)}{tap.game_id}.{tap.version}.{token(tap.payload)}"
    if not _GAME.match(data) or len(data) > MAX_BYTES:
        raise ValueError(f"cannot encode callback {data!r}")
    return data


def decode(data: str | None) -> Tap | GlobalTap:
    """Parse callback data; the inverse of :func:`encode`.

    Raises:
        MalformedCallback: for anything :func:`encode` does not produce.
    """
    if not data or len(data.encode("utf-8", "replace")) > MAX_BYTES:
        raise MalformedCallback(data)
    m = _GAME.match(data)
    if m:
        return Tap(int(m[2]), int(m[3]), _payload(m[1], m[4]))
    m = _LANG.match(data)
    if m:
        return PickLanguage(Target(m[1]), m[2])
    m = _ALERTS_OFF.match(data)
    if m:
        return AlertsOff(int(m[1]))
    m = _GLOBAL.match(data)
    if m:
        try:
            if m[1] == "d":
                return DailyTap(DailyAction(m[2]))
            if m[1] == "f":
                return ForgetMe(ForgetAnswer(m[2]))
            return TopPeriod(Period(m[2]))
        except ValueError:
            raise MalformedCallback(data) from None
    raise MalformedCallback(data)


# --- deep links ----------------------------------------------------------------------------

_DEEP = re.compile(r"^(j|h)([0-9a-f]{20})(?:_([0-3]))?$")
_OLD_DEEP = re.compile(r"^(j|h)([1-9]\d{0,17})(?:_([0-3]))?$")

LINK_TOKEN_BYTES: Final = 10
"""Random bytes of a game's deep-link token (:func:`new_link_token`: 20 hex digits)."""


def new_link_token() -> str:
    """A fresh random deep-link token for a game (20 lowercase hex digits, 80 random bits):
    links name this, never the game's number, so nobody guesses another game's link."""
    return secrets.token_hex(LINK_TOKEN_BYTES)


@dataclass(frozen=True, slots=True)
class DeepLink:
    """The payload of ``t.me/<bot>?start=<payload>``: ``j<token>_<seat>`` takes a lobby seat
    (the seat buttons of a user who never started the bot), ``h<token>`` opens the private
    chat from the lobby's or the table's link (the player's hand). ``token`` is the game's
    random link token (:func:`new_link_token`), never its number."""

    kind: str
    token: str
    seat: int | None = None

    def encode(self) -> str:
        """The payload (``[A-Za-z0-9_]``, at most 64 characters)."""
        return f"{self.kind}{self.token}" + (f"_{self.seat}" if self.seat is not None else "")


def decode_deep_link(payload: str | None) -> DeepLink | None:
    """Parse a ``/start`` payload; None when absent or not ours (an old number-based link
    too: :func:`is_old_deep_link`)."""
    if not payload:
        return None
    m = _DEEP.match(payload.strip())
    if not m:
        return None
    seat = int(m[3]) if m[3] is not None else None
    if (m[1] == "j") != (seat is not None):
        return None
    return DeepLink(m[1], m[2], seat)


def is_old_deep_link(payload: str | None) -> bool:
    """Whether ``payload`` is a deep link of the old form, which named the game by its number
    (``j12_3``, ``h7``): refused politely, never followed."""
    return bool(payload) and _OLD_DEEP.match((payload or "").strip()) is not None
