"""Why an action was refused, in one short plain-text sentence for a callback alert.

:func:`explain` covers every :class:`engine.errors.Reason` (``rules.md`` §3, §4.5, §5.5, §9),
using the refusal's ``details``; :func:`refusal_text` covers the bot's own refusals
(:class:`Refusal`: stale buttons, seats, rights...). Alerts are plain text, not HTML, and at
most :data:`ALERT_LIMIT` characters (Telegram's limit for ``answerCallbackQuery``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.i18n import Translator
from bot.outcome import Refusal, Toast
from bot.render import messages, rematch
from bot.render.bids import declaration_label
from bot.render.cards import card_label, suit_label
from bot.render.common import Player, player_name, shorten
from engine.cards import Card, Seat, Suit
from engine.errors import EngineError, Reason

ALERT_LIMIT = 200


def _card(tr: Translator, details: Mapping[str, Any], key: str) -> str | None:
    try:
        return card_label(tr, Card.parse(str(details[key])))
    except (KeyError, EngineError):
        return None


def _suit(tr: Translator, details: Mapping[str, Any], key: str) -> str | None:
    try:
        return suit_label(tr, Suit.parse(str(details[key])))
    except (KeyError, EngineError):
        return None


def _seat(details: Mapping[str, Any], key: str) -> Seat | None:
    try:
        return Seat.parse(details[key])
    except (KeyError, EngineError):
        return None


Explainer = Callable[[Translator, Mapping[str, Any], Sequence[Player] | None], str]


def _game_over(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    return tr.gettext("This game is over.")


def _wrong_phase(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    phase = d.get("phase")
    if phase == "bidding":
        return tr.gettext("Not yet: trump has not been chosen.")
    if phase == "play":
        return tr.gettext("Not now: the cards are being played.")
    if phase == "claim":
        return tr.gettext("Not now: the roem of the last trick is being claimed.")
    if phase == "scored":
        return tr.gettext("This round is already over.")
    return tr.gettext("That is not possible at this moment.")


def _not_your_turn(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    """Names who is to act and what they do: bid (choose trump) or play."""
    seat = _seat(d, "to_act")
    if seat is None or p is None:
        return tr.gettext("It is not your turn.")
    name = player_name(tr, p, seat)
    if d.get("phase") == "bidding":
        return tr.gettext("It is not your turn: {name} is bidding for trump.").format(name=name)
    return tr.gettext("It is not your turn: {name} is to play.").format(name=name)


def _not_in_hand(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    card = _card(tr, d, "card")
    if card is None:
        return tr.gettext("You do not hold that card.")
    return tr.gettext("You do not hold {card}.").format(card=card)


def _must_follow(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    led = _suit(tr, d, "led")
    if led is None:
        return tr.gettext("You must follow suit.")
    if d.get("led") == d.get("trump"):
        return tr.gettext("Trump was led: you must play trump ({suit}).").format(suit=led)
    return tr.gettext("You must follow suit: play {suit}.").format(suit=led)


def _must_trump(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    trump = _suit(tr, d, "trump")
    if trump is None:
        return tr.gettext("You cannot follow suit, so you must trump.")
    return tr.gettext("You cannot follow suit, so you must trump: play {suit}.").format(suit=trump)


def _must_overtrump(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    winning = _card(tr, d, "winning")
    if winning is None:
        return tr.gettext("You must overtrump: play a higher trump.")
    if d.get("led") is not None and d.get("led") == d.get("trump"):
        return tr.gettext("Trump was led: you must play a trump higher than {card}.").format(
            card=winning
        )
    return tr.gettext("You must overtrump: play a trump higher than {card}.").format(card=winning)


def _no_undertrump(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    winning = _card(tr, d, "winning")
    if winning is None:
        return tr.gettext("You may not undertrump: play another suit.")
    trump = str(d.get("trump", ""))
    legal = d.get("legal")
    higher_trump_allowed = isinstance(legal, list | tuple) and any(
        str(c).endswith(trump) for c in legal if trump
    )
    if higher_trump_allowed:
        return tr.gettext(
            "You may not undertrump {card}: play another suit or a higher trump."
        ).format(card=winning)
    return tr.gettext("You may not undertrump {card}: play another suit.").format(card=winning)


def _may_not_trump(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    return tr.gettext("You may not trump here.")


def _must_choose(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    return tr.gettext("You may not pass: choose a trump suit.")


def _suit_not_allowed(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    suit = _suit(tr, d, "suit")
    allowed_raw = d.get("allowed")
    allowed: list[str] = []
    if isinstance(allowed_raw, list | tuple):
        for s in allowed_raw:
            label = _suit(tr, {"s": s}, "s")
            if label is not None:
                allowed.append(label)
    if suit is None or not allowed:
        return tr.gettext("You cannot choose that suit now.")
    return tr.gettext("You cannot choose {suit} now; choose {allowed}.").format(
        suit=suit, allowed=" / ".join(allowed)
    )


def _not_allowed(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    if d.get("auto_declare"):
        return tr.gettext("At this table declarations and bella are made automatically.")
    if d.get("action") == "declare":
        return tr.gettext("You have nothing to declare now.")
    return tr.gettext("That is not allowed now.")


def _no_roem(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    return tr.gettext("There is no roem to claim in the last trick.")


def _not_your_roem(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    return tr.gettext("That roem is not yours: the other team won the trick.")


def _declaration(tr: Translator, value: object) -> str | None:
    """A declaration from details (``"10D-JD-QD"`` or a list of cards) as "Terz ♦10–V"."""
    if isinstance(value, str):
        texts = value.split("-")
    elif isinstance(value, list | tuple):
        texts = [str(t) for t in value]
    else:
        return None
    try:
        cards = [Card.parse(t) for t in texts]
    except EngineError:
        return None
    return declaration_label(tr, cards) if len(cards) >= 3 else None


def _no_declaration(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    raw = d.get("declarable")
    labels = [x for x in (_declaration(tr, r) for r in raw) if x] if isinstance(raw, list) else []
    if isinstance(raw, list) and not raw:
        return tr.gettext("You hold no sequence to declare.")
    if not labels:
        return tr.gettext("You do not hold that sequence, so you cannot declare it.")
    return tr.gettext("You do not hold that sequence. You can declare: {declarations}.").format(
        declarations=", ".join(labels)
    )


def _already_declared(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    label = _declaration(tr, d.get("cards"))
    if label is None:
        return tr.gettext("You already declared that sequence.")
    return tr.gettext("You already declared {declaration}.").format(declaration=label)


def _too_late(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    action = d.get("action")
    if action == "declare":
        return tr.gettext("Too late: sequences are declared before your first card.")
    if action == "contra":
        return tr.gettext("Too late for contra: the second trick has begun.")
    if action == "re":
        return tr.gettext("Too late for re: the third trick has begun.")
    return tr.gettext("Too late: that was only possible earlier in the round.")


def _no_bella(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    card = _card(tr, d, "card")
    if card is None:
        return tr.gettext("Bella needs king and queen of trump in your hand.")
    return tr.gettext("No bella with {card}: bella needs king and queen of trump.").format(
        card=card
    )


def _wrong_team(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    if d.get("call") == "re":
        return tr.gettext("Only the playing team can answer re.")
    return tr.gettext("Only the defenders can call contra; your team plays.")


def _already_called(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    re = d.get("call") == "re"
    if d.get("declined"):
        if re:
            return tr.gettext("You already said no to re.")
        return tr.gettext("You already said no to contra.")
    seat = _seat(d, "by")
    if seat is None or p is None:
        if re:
            return tr.gettext("Re has already been called.")
        return tr.gettext("Contra has already been called.")
    name = player_name(tr, p, seat)
    if re:
        return tr.gettext("{name} already answered re.").format(name=name)
    return tr.gettext("{name} already called contra.").format(name=name)


def _no_contra(tr: Translator, d: Mapping[str, Any], p: Sequence[Player] | None) -> str:
    return tr.gettext("Re answers a contra, and nobody called contra.")


_EXPLAINERS: dict[Reason, Explainer] = {
    Reason.GAME_OVER: _game_over,
    Reason.WRONG_PHASE: _wrong_phase,
    Reason.NOT_YOUR_TURN: _not_your_turn,
    Reason.NOT_IN_HAND: _not_in_hand,
    Reason.MUST_FOLLOW_SUIT: _must_follow,
    Reason.MUST_TRUMP: _must_trump,
    Reason.MUST_OVERTRUMP: _must_overtrump,
    Reason.MAY_NOT_UNDERTRUMP: _no_undertrump,
    Reason.MAY_NOT_TRUMP: _may_not_trump,
    Reason.MUST_CHOOSE: _must_choose,
    Reason.SUIT_NOT_ALLOWED: _suit_not_allowed,
    Reason.NOT_ALLOWED: _not_allowed,
    Reason.NO_ROEM_TO_CLAIM: _no_roem,
    Reason.NOT_YOUR_ROEM: _not_your_roem,
    Reason.NO_SUCH_DECLARATION: _no_declaration,
    Reason.TOO_LATE: _too_late,
    Reason.ALREADY_DECLARED: _already_declared,
    Reason.NO_BELLA: _no_bella,
    Reason.WRONG_TEAM: _wrong_team,
    Reason.ALREADY_CALLED: _already_called,
    Reason.NO_CONTRA: _no_contra,
}
"""One explainer per :class:`~engine.errors.Reason` (a test checks none is missing)."""


def explain(
    tr: Translator,
    reason: Reason | str,
    details: Mapping[str, Any] | None = None,
    players: Sequence[Player] | None = None,
) -> str:
    """One short sentence saying which rule refused the action, e.g. "Je moet kleur
    bekennen: speel ♥ harten." (``rules.md`` §4.5 for the card duties).

    Args:
        tr: the tapping user's translator.
        reason: ``IllegalAction.reason`` (or its string value; unknown codes get a generic
            text, never an error).
        details: ``IllegalAction.details`` (``led``, ``trump``, ``winning``, ``card``,
            ``to_act``, ``suit``, ``allowed``, ``phase``; Klammern ``cards``,
            ``declarable``, ``action``, ``call``, ``by``, ``declined``, ``auto_declare``...);
            missing keys are tolerated.
        players: the four seats, to name the player to act in ``not_your_turn``.

    Returns:
        Plain text (not HTML) of at most :data:`ALERT_LIMIT` characters.
    """
    try:
        code = Reason(reason)
    except ValueError:
        return tr.gettext("That is not possible now.")
    text = _EXPLAINERS[code](tr, details or {}, players)
    return shorten(text, ALERT_LIMIT)


def tap_answer(
    tr: Translator,
    refusal: Refusal | Reason | None,
    toast: Toast | None,
    details: Mapping[str, Any],
    players: Sequence[Player] | None = None,
) -> str | None:
    """The callback answer of a tap (plain, ≤ :data:`ALERT_LIMIT`): why it was refused (shown
    as an alert), else its toast, else None (nothing to say)."""
    if isinstance(refusal, Refusal):
        return refusal_text(tr, refusal)
    if refusal is not None:
        return explain(tr, refusal, details, players)
    if toast is None:
        return None
    return shorten(_toast(tr, toast, details), ALERT_LIMIT)


def _toast(tr: Translator, toast: Toast, d: Mapping[str, Any]) -> str:
    seat = _seat(d, "seat") or Seat.NORTH
    if toast is Toast.SEATED:
        return messages.ack_seated(tr, seat)
    if toast is Toast.MOVED:
        return messages.ack_moved(tr, _seat(d, "old") or Seat.NORTH, seat)
    if toast is Toast.LEFT:
        return messages.ack_left(tr)
    if toast is Toast.ALREADY_SEATED:
        return refusal_text(tr, Refusal.ALREADY_SEATED)
    if toast in rematch.TOASTS:
        return rematch.toast_text(tr, toast)
    return messages.ack_reclaimed(tr)


def refusal_text(tr: Translator, refusal: Refusal) -> str:
    """The alert for one of the bot's own refusals (plain text, ≤ :data:`ALERT_LIMIT`); every
    member of :class:`~bot.outcome.Refusal` has one (a test checks it in every language)."""
    texts = {
        Refusal.STALE_BUTTON: tr.gettext("This button is out of date."),
        Refusal.MALFORMED: tr.gettext("I do not understand this button."),
        Refusal.NOT_YOUR_HAND: tr.gettext("These are not your cards."),
        Refusal.NOT_IN_GAME: tr.gettext("You are not playing at this table."),
        Refusal.SEAT_TAKEN: tr.gettext("That seat is taken."),
        Refusal.ALREADY_SEATED: tr.gettext("You already have a seat at this table."),
        Refusal.NOT_SEATED: tr.gettext("You do not have a seat at this table."),
        Refusal.TABLE_FULL: tr.gettext("The table is full."),
        Refusal.NO_COMPUTER_TO_REMOVE: tr.gettext("There is no computer player to remove."),
        Refusal.NEED_FOUR_PLAYERS: tr.gettext(
            "Four players are needed: fill the empty seats or add computer players."
        ),
        Refusal.NEED_A_PERSON: tr.gettext(
            "At least one person must sit at a group table. To practise against three "
            "computers, send me /klaverjas in a private chat."
        ),
        Refusal.TOO_MANY_TABLES: tr.gettext(
            "You already have the most open tables one person may have: finish or close one first."
        ),
        Refusal.BOT_FULL: tr.gettext(
            "All my tables are taken right now: try again when a game has finished."
        ),
        Refusal.CREATOR_OR_ADMIN_ONLY: tr.gettext(
            "Only the player who opened the table or a group admin may do that."
        ),
        Refusal.ADMIN_ONLY: tr.gettext("Only a group admin may do that."),
        Refusal.GAME_NOT_FOUND: tr.gettext("This game no longer exists."),
        Refusal.GAME_FINISHED: tr.gettext("This game is over."),
        Refusal.GAME_ALREADY_STARTED: tr.gettext("The game has already started."),
        Refusal.NO_TABLE_HERE: tr.gettext(
            "There is no table in this chat. Open one with /klaverjas."
        ),
        Refusal.UNKNOWN_LANGUAGE: tr.gettext("I do not know that language."),
        Refusal.NOT_YOUR_SEAT: tr.gettext("You cannot take this seat back."),
        Refusal.TABLE_EXISTS: tr.gettext("This chat already has a table."),
        Refusal.ANONYMOUS_CANNOT_SIT: tr.gettext(
            "Anonymous admins cannot take a seat: write as yourself to play."
        ),
        Refusal.NOT_THIS_MESSAGE: tr.gettext(
            "This confirmation is not valid here: send /stop again."
        ),
        Refusal.TIPS_OFF: tr.gettext("There are no tips at this table."),
        Refusal.NO_TIP_NOW: tr.gettext("A tip is given when it is your turn to play a card."),
        Refusal.TIP_BUSY: tr.gettext("The tip is taking too long: try again in a moment."),
        Refusal.WRONG_CHAT: tr.gettext("This button does not belong here."),
        Refusal.NOT_A_MEMBER: tr.gettext("Only members of the group can play at its table."),
        Refusal.OLD_LINK: tr.gettext(
            "This link is out of date: tap the button under the table in the group again."
        ),
        Refusal.CHANNEL_CANNOT_PLAY: tr.gettext("Channels cannot play: write as yourself to play."),
        Refusal.RECLAIM_NEXT_ROUND: tr.gettext(
            "You can take your seat back when the next round starts."
        ),
        Refusal.CHAT_MOVED: tr.gettext(
            "This group became a supergroup: please use the table and commands there."
        ),
        Refusal.REVIEW_NOT_YET: tr.gettext("A review is only of a game played to the end."),
        **rematch.refusal_texts(tr),
    }
    return shorten(texts[refusal], ALERT_LIMIT)
