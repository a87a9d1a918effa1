"""The review of a player's game (:mod:`engine.ai.review`) as a Telegram HTML message in the
reader's language, and its "🔍 review" button.

Layout: a title, one line on what was judged and the estimated total; the costliest decisions,
each with where it was (round, trick or bidding), the trick as it stood, the player's choice and
the computer's with the expected round scores after each, the short reason, and the hindsight
number (double-dummy with all hands shown) named as such; then the cost per round; for a
daily, where the game and the day's par parted (the first decision the par's computer would
have made otherwise, and the partings whose rounds cost the most, with both round scores).
The picture (:mod:`bot.render.picture.review_layout`) uses the labels of this module.
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.i18n import Translator
from bot.outbox import Content
from bot.render.bids import bid_text, declaration_label
from bot.render.cards import card_label, suit_symbol
from bot.render.common import Button, Player, bold, esc, labelled, player_html, shorten
from bot.taps import ReviewPlay, Tap, encode
from engine.actions import Action, Bella, ClaimRoem, Contra, Declare, Pass, PlayCard, Re
from engine.ai.review import Judgement, Kind, ParComparison, Parting, Review, Why
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
        Why.CALL_MISSED: tr.gettext("not called on a round your team was likely to win"),
        Why.CALL_RISKY: tr.gettext("called on a round your team was likely to lose"),
        Why.NOT_DECLARED: tr.gettext("sequence not declared"),
        Why.BELLA_LOST: tr.gettext("bella not announced"),
    }
    return texts[why]


def why_text(tr: Translator, why: Why) -> str:
    """The short reason of a judged decision, plain."""
    return _why(tr, why)


def choice_label(
    tr: Translator, action: Action, klammern: bool, other: Action | None = None
) -> str:
    """A decision as a short plain label: a card, a bid, a claim, contra or re, a
    declaration; a pass where ``other`` is a call or a declaration says which was not made
    ("no contra")."""
    return _choice(tr, action, klammern, other)


def _choice(tr: Translator, action: Action, klammern: bool, other: Action | None = None) -> str:
    """A decision as a short plain label: a card, a bid, a claim."""
    if isinstance(action, Bella):
        return "👑 " + tr.gettext("Bella with {card}").format(card=card_label(tr, action.card))
    if isinstance(action, PlayCard):
        return card_label(tr, action.card)
    if isinstance(action, ClaimRoem):
        return tr.gettext("claim the roem")
    if isinstance(action, Contra):
        return tr.pgettext("button", "Contra")
    if isinstance(action, Re):
        return tr.pgettext("button", "Re")
    if isinstance(action, Declare):
        return declaration_label(tr, action.cards)
    if isinstance(action, Pass) and isinstance(other, Contra):
        return tr.gettext("no contra")
    if isinstance(action, Pass) and isinstance(other, Re):
        return tr.gettext("no re")
    if isinstance(action, Pass) and isinstance(other, Declare):
        return tr.gettext("no declaration")
    if isinstance(action, Action) and action.kind == "pass" and not klammern:
        return bid_text(tr, action)
    return bid_text(tr, action, klammern=klammern)


def _where(tr: Translator, j: Judgement | Parting) -> str:
    if j.kind in (Kind.BID, Kind.TRUMP) or j.trick == 0:
        return tr.gettext("Round {round}, bidding").format(round=j.round)
    if j.trump is None:
        return tr.gettext("Round {round}, trick {trick}").format(round=j.round, trick=j.trick)
    return tr.gettext("Round {round}, trick {trick}, trump {suit}").format(
        round=j.round, trick=j.trick, suit=suit_symbol(j.trump)
    )


def where_label(tr: Translator, j: Judgement | Parting) -> str:
    """Where a decision was: "Round 2, trick 3, trump ♥", "Round 1, bidding". Plain."""
    return _where(tr, j)


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
    yours = esc(_choice(tr, j.yours, klammern, j.its))
    its = esc(_choice(tr, j.its, klammern, j.yours))
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


def review_caption(tr: Translator, review: Review, *, title: str = "") -> str:
    """The caption of the review's picture (HTML, well within Telegram's 1024 characters):
    the title, what was judged with the estimated total, and for a daily both totals next
    to the par."""
    head = "🔍 " + bold(esc(tr.gettext("Review of your play")))
    if title:
        head += " — " + esc(shorten(title))
    lines = [head, esc(_summary(tr, review))]
    if review.par is not None:
        lines.append(esc(par_summary(tr, review.par)))
    return "\n".join(lines)


def _summary(tr: Translator, review: Review) -> str:
    return tr.ngettext(
        "The computer judged your {n} decision from what you could see (your hand, "
        "the bidding, the cards played): about {points} points lost against its choice.",
        "The computer judged your {n} decisions from what you could see (your hand, "
        "the bidding, the cards played): about {points} points lost against its choices.",
        review.decisions,
    ).format(n=review.decisions, points=_points(review.total))


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
    parts.append(_summary(tr, review))
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
    if review.par is not None:
        parts.append(par_html(tr, review.par, klammern))
    if klammern:
        parts.append(
            "<i>"
            + esc(tr.gettext("Klammern: a won round counts as 60 points in these estimates."))
            + "</i>"
        )
    text = "\n\n".join(parts)
    kept = 1 + (review.par is not None) + klammern  # the round table and what follows it
    while len(text) > MESSAGE_LIMIT and len(parts) > 2 + kept:
        parts.pop(-1 - kept)
        text = "\n\n".join(parts)
    return text


def par_title(tr: Translator) -> str:
    """The heading of the comparison with the day's par (plain)."""
    return tr.gettext("Next to the day's par")


def par_summary(tr: Translator, par: ParComparison) -> str:
    """ "Your points 812 · the par's 905 (the strong computer in your seat on these
    deals)." Plain."""
    return tr.gettext(
        "Your points {yours} · the par's {par} (the strong computer in your seat on the "
        "same deals)."
    ).format(yours=par.yours, par=par.par)


def parting_line(tr: Translator, p: Parting, klammern: bool) -> str:
    """ "You: K♥ · par: 9♥" (plain)."""
    return tr.gettext("You: {yours} · par: {par}").format(
        yours=_choice(tr, p.yours, klammern, p.par), par=_choice(tr, p.par, klammern, p.yours)
    )


def parting_scores(tr: Translator, p: Parting) -> str:
    """ "The round: you 62, the par 98" (plain)."""
    return tr.gettext("The round: you {yours}, the par {par}").format(
        yours=p.your_score, par=p.par_score
    )


def par_html(tr: Translator, par: ParComparison, klammern: bool = False) -> str:
    """The comparison with the day's par (HTML): the totals, the first decision where the
    game left the par's line, and the partings whose rounds cost the most."""
    lines = [bold(esc(par_title(tr))), esc(par_summary(tr, par))]
    if par.first is None:
        lines.append(esc(tr.gettext("You played every decision as the par did.")))
        return "\n".join(lines)
    first = par.first
    lines.append(
        labelled(tr, tr.gettext("First parted"), bold(esc(_where(tr, first))))
        + "\n"
        + esc(parting_line(tr, first, klammern))
        + " — "
        + esc(parting_scores(tr, first))
    )
    shown = [p for p in par.worst if p != first]
    if shown:
        lines.append(bold(esc(tr.gettext("Costliest partings"))))
        for i, p in enumerate(shown, 1):
            lines.append(
                f"{i}. {bold(esc(_where(tr, p)))} — "
                + bold(tr.gettext("−{points} points").format(points=p.cost))
                + "\n"
                + esc(parting_line(tr, p, klammern))
                + " — "
                + esc(parting_scores(tr, p))
            )
    return "\n".join(lines)


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
    "choice_label",
    "par_html",
    "par_summary",
    "par_title",
    "parting_line",
    "parting_scores",
    "review_busy_text",
    "review_button",
    "review_caption",
    "review_in_group_text",
    "review_none_text",
    "review_private_first_text",
    "review_text",
    "review_wait_text",
    "where_label",
    "why_text",
    "with_review_button",
]
