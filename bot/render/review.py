"""The review of a player's game (:mod:`engine.ai.review`) as a Telegram HTML message in the
reader's language, and its "🔍 review" button.

Layout: a title, one line on what was judged and the estimated total; the costliest decisions,
each with where it was (round, trick or bidding), the trick as it stood, the player's choice and
the computer's with the expected round scores after each, the short reason, and the hindsight
number (double-dummy with all hands shown) named as such; then the cost per round.
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.i18n import Translator
from bot.outbox import Content
from bot.render.bids import bid_text
from bot.render.cards import card_label, suit_symbol
from bot.render.common import Button, Player, bold, esc, labelled, player_html
from bot.taps import ReviewPlay, Tap, encode
from engine.actions import Action, ClaimRoem, PlayCard
from engine.ai.review import Judgement, Kind, Review, Why
from engine.cards import Seat
from engine.settings import Variant

MESSAGE_LIMIT = 4096
"""Telegram's limit for a message's text."""


def review_button(tr: Translator) -> Button:
    """The "🔍 review" button (on a game's final sheet and a daily's result)."""
    return Button("🔍 " + tr.gettext("Review of my play"), ReviewPlay())


def with_review_button(shown: Content, tr: Translator, game_id: int) -> Content:
    """``shown`` with the review button of game ``game_id`` in a row of its own below its
    other buttons (the button carries no state version: a finished game does not change)."""
    rows = list(shown.markup.inline_keyboard) if shown.markup is not None else []
    button = review_button(tr)
    data = encode(Tap(game_id, 0, button.action))  # type: ignore[arg-type]
    rows.append((InlineKeyboardButton(button.label, callback_data=data),))
    return Content(shown.text, InlineKeyboardMarkup(rows), shown.photo, shown.alt, shown.mark)


def _why(tr: Translator, why: Why) -> str:
    texts = {
        Why.TRUMP_NOT_PULLED: tr.gettext("trump not pulled"),
        Why.PARTNER_ACE_OVERTAKEN: tr.gettext("partner's ace overtaken"),
        Why.PARTNER_OVERTAKEN: tr.gettext("partner's trick overtaken"),
        Why.ROEM_GIVEN: tr.gettext("roem given away"),
        Why.POINTS_GIVEN: tr.gettext("points given away"),
        Why.TRICK_LEFT: tr.gettext("the trick left to the other team"),
        Why.TOO_WEAK: tr.gettext("the hand was too weak to play"),
        Why.STRONG_ENOUGH: tr.gettext("the hand was strong enough to play"),
        Why.OTHER_SUIT: tr.gettext("another trump suit was better"),
        Why.ROEM_NOT_CLAIMED: tr.gettext("roem not claimed"),
        Why.ROEM_CLAIMED_NAT: tr.gettext("roem claimed while nat: it went to the other team"),
    }
    return texts[why]


def _choice(tr: Translator, action: Action, klammern: bool) -> str:
    """A decision as a short plain label: a card, a bid, a claim."""
    if isinstance(action, PlayCard):
        return card_label(tr, action.card)
    if isinstance(action, ClaimRoem):
        return tr.gettext("claim the roem")
    if isinstance(action, Action) and action.kind == "pass" and not klammern:
        return bid_text(tr, action)
    return bid_text(tr, action, klammern=klammern)


def _where(tr: Translator, j: Judgement) -> str:
    if j.kind in (Kind.BID, Kind.TRUMP):
        return tr.gettext("Round {round}, bidding").format(round=j.round)
    if j.trump is None:
        return tr.gettext("Round {round}, trick {trick}").format(round=j.round, trick=j.trick)
    return tr.gettext("Round {round}, trick {trick}, trump {suit}").format(
        round=j.round, trick=j.trick, suit=suit_symbol(j.trump)
    )


def _points(value: float) -> str:
    return str(round(value))


def _signed(tr: Translator, cost: float) -> str:
    """A hindsight cost: "−12 points" (the computer's card was better), "+8 points" (the
    player's), "no difference"."""
    n = round(cost)
    if n > 0:
        return tr.gettext("−{points} points").format(points=n)
    if n < 0:
        return tr.gettext("+{points} points").format(points=-n)
    return tr.gettext("no difference")


def decision_html(
    tr: Translator, j: Judgement, n: int, players: Sequence[Player] | None, klammern: bool
) -> str:
    """One costly decision (module docstring), HTML."""
    head = f"{n}. {bold(esc(_where(tr, j)))} — " + bold(
        tr.gettext("−{points} points").format(points=_points(j.cost))
    )
    lines = [head]
    if j.kind is Kind.CARD:
        if j.table:
            played = ", ".join(
                (player_html(tr, players, seat) + " " if players else "") + card_label(tr, card)
                for seat, card in zip(_seats(j), j.table, strict=True)
            )
            lines.append(labelled(tr, tr.gettext("On the table"), played))
        else:
            lines.append(tr.gettext("You were to lead."))
    yours = esc(_choice(tr, j.yours, klammern))
    its = esc(_choice(tr, j.its, klammern))
    lines.append(
        tr.gettext("You: {yours} ({your_score}) · computer: {its} ({its_score})").format(
            yours=bold(yours),
            your_score=_points(j.your_value),
            its=bold(its),
            its_score=_points(j.its_value),
        )
    )
    if j.why is not None:
        lines.append(labelled(tr, tr.gettext("Why"), esc(_why(tr, j.why))))
    if j.hindsight is not None:
        lines.append(
            "<i>"
            + labelled(
                tr,
                tr.gettext("Hindsight, all hands shown"),
                _signed(tr, j.hindsight),
            )
            + "</i>"
        )
    return "\n".join(lines)


def _seats(j: Judgement) -> list[Seat]:
    return [Seat((int(j.leader) + i) % 4) for i in range(len(j.table))]


def review_text(
    tr: Translator,
    review: Review,
    *,
    title: str = "",
    players: Sequence[Player] | None = None,
) -> str:
    """The whole review as Telegram HTML (module docstring), at most
    :data:`MESSAGE_LIMIT` characters. ``title``: the game's name (plain); ``players``: the
    seats' players, to name who played the cards on the table."""
    klammern = review.variant is Variant.KLAMMERN
    head = "🔍 " + bold(esc(tr.gettext("Review of your play")))
    if title:
        head += " — " + esc(title)
    parts = [head]
    parts.append(
        tr.ngettext(
            "The computer judged your {n} decision from what you could see (your hand, "
            "the bidding, the cards played): about {points} points lost against its choice.",
            "The computer judged your {n} decisions from what you could see (your hand, "
            "the bidding, the cards played): about {points} points lost against its choices.",
            review.decisions,
        ).format(n=review.decisions, points=_points(review.total))
    )
    if review.worst:
        parts.append(
            bold(esc(tr.gettext("Costliest decisions")))
            + "\n"
            + esc(tr.gettext("(in brackets: the expected round score after the choice)"))
        )
        parts.extend(
            decision_html(tr, j, i, players, klammern) for i, j in enumerate(review.worst, 1)
        )
    else:
        parts.append(esc(tr.gettext("No decision cost you points. Well played!")))
    rows = [
        f"{r.number:>2}  {'−' + _points(r.cost) if round(r.cost) else '0':>4}  "
        f"{r.differed}/{r.decisions}"
        for r in review.rounds
    ]
    parts.append(
        bold(esc(tr.gettext("Per round")))
        + "\n"
        + esc(tr.gettext("round, points lost, decisions where the computer chose otherwise"))
        + "\n<pre>"
        + esc("\n".join(rows))
        + "</pre>"
    )
    if klammern:
        parts.append(
            "<i>"
            + esc(tr.gettext("Klammern: a won round counts as 60 points in these estimates."))
            + "</i>"
        )
    text = "\n\n".join(parts)
    while len(text) > MESSAGE_LIMIT and len(parts) > 3:
        parts.pop(-2 if not klammern else -3)
        text = "\n\n".join(parts)
    return text


def review_wait_text(tr: Translator) -> str:
    """The answer while the review is worked out (plain)."""
    return tr.gettext("🔍 The computer is going through your game; the review follows here.")


def review_none_text(tr: Translator) -> str:
    """``/review`` without a finished game (plain)."""
    return tr.gettext("You have no finished game to review yet.")


def review_private_first_text(tr: Translator) -> str:
    """The review button tapped by a player who never started the bot in private (plain)."""
    return tr.gettext("Start a private chat with me first: the review comes there.")


def review_in_group_text(tr: Translator) -> str:
    """``/review`` in a group (plain)."""
    return tr.gettext("Ask me /review in our private chat.")


def review_busy_text(tr: Translator) -> str:
    """The review could not be worked out now (plain)."""
    return tr.gettext("The computers are busy; ask for the review again in a moment.")


__all__ = [
    "review_busy_text",
    "review_button",
    "review_in_group_text",
    "review_none_text",
    "review_private_first_text",
    "review_text",
    "review_wait_text",
    "with_review_button",
]
