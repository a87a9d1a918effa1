"""A player's private hand message: text plus keyboard (``rules.md`` §3–§5, §9.3–9.7).

The keyboard is abstract: rows of :class:`~bot.render.common.Button` with action tokens in the
engine's notation without the seat (``"play:JH"``, ``"choose:H"``, ``"pass"``, ``"accept"``,
``"roem"``, ``"kleintje:D"``, ``"beter"``, ``"contra"``, ``"re"``, ``"declare:..."``,
``"bella:KH"``, and ``"declare:all"``, which the service expands); the bot turns them into
callback data. Cards of the red suits are red buttons, trump cards are marked ``★B♥``
(:func:`bot.render.cards.card_button_label`). Illegal cards are marked ``·7♠·`` and disabled:
greyed where Telegram supports disabled buttons, else still tappable (the bot explains the rule
in an alert).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Translator
from bot.render.bids import (
    action_button,
    bid_history_html,
    bidding_prompt_html,
    declare_all_button,
    shown_html,
)
from bot.render.cards import card_button_label, card_label, sort_hand, suit_colour
from bot.render.common import (
    Button,
    Keyboard,
    Player,
    Rendered,
    bold,
    chunk,
    esc,
    player_html,
    seat_letter,
    seat_name,
    shorten,
)
from bot.render.klammern import hand_prompts, klammern_lines
from bot.render.presets import game_name
from bot.render.table import last_trick_html, round_text, trump_html
from bot.taps import Move
from engine.actions import Accept, Bella, Beter, ClaimRoem, Contra, Declare, Pass, PlayCard, Re
from engine.cards import Card
from engine.observe import Observation
from engine.round import Phase
from engine.settings import RoemMode

ROW_WIDTH = 4
"""At most this many cards per keyboard row."""

TITLE_LIMIT = 40


def illegal_label(label: str) -> str:
    """The dimmed label of a card that may not be played now: ``·7♠·``."""
    return f"·{label}·"


def playable_cards(obs: Observation) -> frozenset[Card] | None:
    """The cards the viewer may play now, or None when it is not their turn to play (then no
    card is marked: every tap is answered with the reason)."""
    if obs.phase is not Phase.PLAY or obs.to_act != obs.seat:
        return None
    return frozenset(a.card for a in obs.legal if isinstance(a, PlayCard))


def card_rows(tr: Translator, obs: Observation) -> Keyboard:
    """The hand as rows of at most four card buttons, sorted by suit (trump first once known,
    colours alternating) and by strength; red suits red, trump cards marked, illegal cards
    marked and disabled (``rules.md`` §4.7)."""
    legal = playable_cards(obs)
    buttons = []
    for c in sort_hand(obs.hand, obs.trump):
        label = card_button_label(tr, c, obs.trump)
        illegal = legal is not None and c not in legal
        if illegal:
            label = illegal_label(label)
        colour = suit_colour(c.suit)
        buttons.append(Button(label, Move(f"play:{c}"), colour=colour, disabled=illegal))
    return chunk(buttons, ROW_WIDTH)


def action_rows(tr: Translator, obs: Observation) -> Keyboard:
    """The viewer's legal non-card actions as button rows: Klammern bella plays (a second
    button for K / Q of trump, §9.6), trump suits two per row, then accept / kleintje / beter /
    pass, roem claim, contra / re / no contra, declarations one per row and "declare all" when
    there are two or more (§9.5)."""
    bellas = [action_button(tr, a, obs) for a in obs.legal if isinstance(a, Bella)]
    rows: list[tuple[Button, ...]] = list(chunk(bellas, 2))
    actions = [a for a in obs.legal if not isinstance(a, PlayCard)]
    suits = [action_button(tr, a, obs) for a in actions if a.kind in ("choose", "kleintje")]
    rows += chunk(suits, 2)
    simple = (Accept, Beter, ClaimRoem, Contra, Re, Pass)
    line = [action_button(tr, a, obs) for a in actions if isinstance(a, simple)]
    if line:
        rows.append(tuple(line))
    declares = [a for a in actions if isinstance(a, Declare)]
    rows += [(action_button(tr, a, obs),) for a in declares]
    if len(declares) > 1:
        rows.append((declare_all_button(tr),))
    return tuple(rows)


def current_trick_html(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    """The trick so far in play order: "Slag 4: N Anna B♥ · O Bert 10♥" (empty if none)."""
    if not obs.trick:
        return ""
    laid = " · ".join(
        f"{seat_letter(tr, s)} {player_html(tr, players, s)} {bold(card_label(tr, c))}"
        for s, c in zip(obs.trick_seats, obs.trick, strict=True)
    )
    return tr.gettext("Trick {number}: {cards}").format(number=len(obs.tricks) + 1, cards=laid)


def turn_html(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    """ "👉 Jij bent aan de beurt." or "⏳ Wachten op Dirk." for the viewer."""
    if obs.to_act is None:
        return ""
    if obs.to_act == obs.seat:
        if obs.phase is Phase.CLAIM:
            return "👉 " + bold(tr.gettext("Claim the roem of the last trick, or let it go."))
        if obs.phase is Phase.PLAY:
            return "👉 " + bold(tr.gettext("Your turn: play a card."))
        return ""
    return "⏳ " + tr.gettext("Waiting for {name}.").format(
        name=player_html(tr, players, obs.to_act)
    )


def _seat_line(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    assert obs.seat is not None
    return tr.gettext("You sit {seat}; your partner is {partner}.").format(
        seat=seat_name(tr, obs.seat), partner=player_html(tr, players, obs.seat.partner)
    )


def hand_title_html(tr: Translator, table_title: str, obs: Observation) -> str:
    """ "🃏 <b>Klaverjasclub</b> · Klaverjassen · ronde 3/16": which table this hand belongs
    to (``table_title`` is user-supplied and escaped here)."""
    parts = [game_name(tr, obs.settings), round_text(tr, obs)]
    if table_title:
        parts.insert(0, bold(esc(shorten(table_title, TITLE_LIMIT))))
    return "🃏 " + " · ".join(parts)


def render_hand(
    obs: Observation,
    players: Sequence[Player],
    tr: Translator,
    *,
    table_title: str,
    awaited: bool = False,
) -> Rendered:
    """The private hand message of ``obs.seat`` ("a player in two groups gets two
    clearly labelled hands").

    Args:
        obs: ``observe(game, seat)`` for the viewer (must have a seat).
        players: the four seats, index = seat.
        tr: the player's translator.
        table_title: the group's title (user-supplied; escaped here), labels the hand.
        awaited: Klammern: the computers wait for the viewer's contra or re (§9.7); the hand
            asks for an answer.

    Returns:
        HTML text (round, trump, trick so far, whose turn) and the keyboard: the viewer's
        cards (all of them, illegal ones marked when it is their turn to play), then the
        legal bidding / roem / Klammern actions.

    Raises:
        ValueError: for a public observation (no seat).
    """
    if obs.seat is None:
        raise ValueError("render_hand needs a seat's observation")
    lines = [hand_title_html(tr, table_title, obs), _seat_line(tr, obs, players)]
    if obs.phase is Phase.BIDDING:
        shown = shown_html(tr, obs)
        if shown:
            lines.append(shown)
        history = bid_history_html(tr, obs, players)
        if history:
            lines.append(history)
        prompt = bidding_prompt_html(tr, obs, players, obs.seat)
        if obs.to_act == obs.seat:
            lines.append("👉 " + bold(prompt))
        elif prompt:
            lines.append("⏳ " + prompt)
    else:
        if obs.trump is not None:
            lines.append(trump_html(tr, obs, players))
        if obs.proposed_card is not None:
            lines.append(shown_html(tr, obs))
        lines += klammern_lines(tr, obs, players)
        trick = current_trick_html(tr, obs, players)
        if trick:
            lines.append(trick)
        if obs.last_trick is not None:
            auto = obs.settings.roem is RoemMode.AUTO
            lines.append(last_trick_html(tr, obs.last_trick, players, roem=auto))
        turn = "" if awaited else turn_html(tr, obs, players)
        if turn:
            lines.append(turn)
        lines += hand_prompts(tr, obs, awaited=awaited)
    if any(isinstance(a, ClaimRoem) for a in obs.legal) and obs.phase is Phase.PLAY:
        lines.append("💬 " + tr.gettext("Roem can be claimed until the next card is played."))
    keyboard = card_rows(tr, obs) + action_rows(tr, obs)
    return Rendered("\n".join(lines), keyboard)
