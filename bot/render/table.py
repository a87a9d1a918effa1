"""The group's one table message, rendered from the public view ``observe(game, None)``.

Shows: game, preset and round; the dealer; during bidding the turned / proposed suit, the bids
and who is to decide (``rules.md`` §3, §9.3); during play trump and who chose it, the current
trick by seat with the card now winning in bold, the last completed trick and its winner
(§4.8), tricks / card points / roem per team, a roem-claim hint in claim mode (§5.5), the
game's running totals and whose turn it is (a mention when the user id is known). Klammern
(§9): the proposed card, kleintje / beter, the declarations made, bella, contra / re, the
declaration and bella points per team, big and small points, and whom the computers wait for.
A seat a computer plays for a player who left during the game says that they can take it back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.i18n import Translator
from bot.render.bids import bid_history_html, bidding_prompt_html, shown_html
from bot.render.cards import card_label, suit_label
from bot.render.common import (
    Button,
    Player,
    Rendered,
    bold,
    esc,
    labelled,
    mention_html,
    player_html,
    seat_letter,
    seat_name,
    shorten,
    team_html,
)
from bot.render.klammern import klammern_lines, standing_html, team_extras, waiting_html
from bot.render.presets import game_name, preset_name
from bot.taps import MyCards
from engine.actions import Beter, Kleintje
from engine.cards import SEATS, TEAMS, Card, Seat, Team
from engine.observe import Observation
from engine.round import Phase, Trick
from engine.rules import winning_position
from engine.settings import RoemMode, Variant


def round_text(tr: Translator, obs: Observation) -> str:
    """ "ronde 3/16" (Klaverjassen, ``rules.md`` §2.3) or "ronde 3" (Klammern). Plain."""
    if obs.settings.variant is Variant.KLAMMERN:
        return tr.gettext("round {number}").format(number=obs.number)
    return tr.gettext("round {number}/{total}").format(number=obs.number, total=obs.settings.rounds)


def header_html(tr: Translator, obs: Observation) -> str:
    """First line of the table: "🃏 Klaverjassen · Amsterdams · ronde 3/16" (the preset is
    left out when it is the game's own name, as for Klammern)."""
    game, preset = game_name(tr, obs.settings), preset_name(tr, obs.settings.preset)
    parts = [bold(game)] + ([preset] if preset != game else []) + [round_text(tr, obs)]
    return "🃏 " + " · ".join(parts)


def trump_html(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    """ "Troef: ♥ harten — gekozen door Bert" (empty before trump is known)."""
    if obs.trump is None or obs.maker is None:
        return ""
    suit, name = bold(suit_label(tr, obs.trump)), player_html(tr, players, obs.maker)
    last = obs.bids[-1] if obs.bids else None
    if isinstance(last, Beter):
        return tr.gettext("Trump: {suit} — beter by {name}").format(suit=suit, name=name)
    if any(isinstance(b, Kleintje) for b in obs.bids):
        return tr.gettext("Trump: {suit} — kleintje by {name}").format(suit=suit, name=name)
    return tr.gettext("Trump: {suit} — chosen by {name}").format(suit=suit, name=name)


def trick_lines(
    tr: Translator,
    players: Sequence[Player],
    leader: Seat,
    cards: Sequence[Card],
    *,
    winning: int | None,
    to_act: Seat | None,
) -> list[str]:
    """One line per seat in compass order N, E, S, W: "N · Anna: B♥"; the card at position
    ``winning`` (play order) in bold, 👉 for the player to act."""
    by_seat = {Seat((leader + i) % 4): (i, c) for i, c in enumerate(cards)}
    lines = []
    for seat in SEATS:
        head = f"{seat_letter(tr, seat)} · {player_html(tr, players, seat)}"
        if seat in by_seat:
            pos, c = by_seat[seat]
            label = card_label(tr, c)
            lines.append(labelled(tr, head, bold(label) if pos == winning else label))
        elif seat == to_act:
            lines.append(labelled(tr, head, "👉"))
        else:
            lines.append(head)
    return lines


def trick_points_html(tr: Translator, trick: Trick, *, roem: bool = True) -> str:
    """A completed trick's card points and (``roem``) its roem: "23 punten + 20 roem"."""
    points = tr.ngettext("{n} point", "{n} points", trick.points).format(n=trick.points)
    if roem and trick.roem:
        points += " + " + tr.gettext("{n} roem").format(n=trick.roem)
    return points


def last_trick_html(
    tr: Translator, trick: Trick, players: Sequence[Player], *, roem: bool = True
) -> str:
    """The last completed trick in one line (``rules.md`` §4.8) with who won it, its card
    points and (``roem``: where it counts by itself, ``RoemMode.AUTO``) its roem: "Vorige
    slag → Bert, 23 punten + 20 roem: N A♠ · O 7♠ · Z 10♠ · W K♠"."""
    cards = dict(trick.played())
    laid = " · ".join(f"{seat_letter(tr, s)} {card_label(tr, cards[s])}" for s in SEATS)
    points = trick_points_html(tr, trick, roem=roem)
    return tr.gettext("Last trick → {name}, {points}: {cards}").format(
        name=player_html(tr, players, trick.winner), points=points, cards=laid
    )


def passed_trick_html(
    tr: Translator, number: int, trick: Trick, players: Sequence[Player], *, roem: bool = True
) -> str:
    """A completed trick the group may not have seen yet (it passed between two edits of the
    table), in one line like :func:`last_trick_html`: "Slag 5 → Bert, 23 punten: N A♠ · …"."""
    cards = dict(trick.played())
    laid = " · ".join(f"{seat_letter(tr, s)} {card_label(tr, cards[s])}" for s in SEATS)
    return tr.gettext("Trick {number} → {name}, {points}: {cards}").format(
        number=number,
        name=player_html(tr, players, trick.winner),
        points=trick_points_html(tr, trick, roem=roem),
        cards=laid,
    )


def team_line(tr: Translator, obs: Observation, players: Sequence[Player], team: Team) -> str:
    """ "Anna & Cas: 2 slagen · 45 punten · 20 roem" for the round so far."""
    n_tricks = obs.tricks_won[team]
    parts = [
        tr.ngettext("{n} trick", "{n} tricks", n_tricks).format(n=n_tricks),
        tr.ngettext("{n} point", "{n} points", obs.card_points[team]).format(
            n=obs.card_points[team]
        ),
    ]
    if obs.roem[team]:
        parts.append(tr.gettext("{n} roem").format(n=obs.roem[team]))
    parts += team_extras(tr, obs, team)
    marker = "▸ " if obs.maker is not None and obs.maker.team is team else ""
    return marker + labelled(tr, bold(team_html(tr, players, team)), " · ".join(parts))


def totals_html(tr: Translator, totals: dict[Team, int], players: Sequence[Player]) -> str:
    """ "📋 Stand: Anna & Cas 512 · Bert & Dirk 488" (the game before this round)."""
    score = " · ".join(f"{team_html(tr, players, t)} {bold(str(totals[t]))}" for t in TEAMS)
    return "📋 " + tr.gettext("Score: {score}").format(score=score)


def left_by_html(tr: Translator, name: str, seat: Seat) -> str:
    """ "↩️ Anna can take the seat North back in the private chat.": the computer in ``seat``
    plays for ``name`` (raw), who left during the game and may come back."""
    return "↩️ " + tr.gettext("{name} can take the seat {seat} back in the private chat.").format(
        name=bold(esc(shorten(name))), seat=seat_name(tr, seat)
    )


def _play_block(
    tr: Translator, obs: Observation, players: Sequence[Player], unseen: int = 0
) -> list[str]:
    assert obs.trump is not None
    lines: list[str] = []
    last = obs.last_trick
    auto = obs.settings.roem is RoemMode.AUTO
    first = max(len(obs.tricks) - 1 - unseen, 0)
    passed = [
        passed_trick_html(tr, i + 1, obs.tricks[i], players, roem=auto)
        for i in range(first, len(obs.tricks) - 1)
    ]
    if obs.trick or last is None:
        n = len(obs.tricks) + 1
        win = winning_position(obs.trick, obs.trump) if obs.trick else None
        lines.append(bold(tr.gettext("Trick {number}").format(number=n)))
        lines += trick_lines(tr, players, obs.leader, obs.trick, winning=win, to_act=obs.to_act)
        lines += passed
        if last is not None:
            lines.append(last_trick_html(tr, last, players, roem=auto))
    else:
        win_pos = last.seats.index(last.winner)
        lines.append(
            bold(
                tr.gettext("Trick {number} → {name}").format(
                    number=len(obs.tricks), name=player_html(tr, players, last.winner)
                )
            )
        )
        lines += trick_lines(tr, players, last.leader, last.cards, winning=win_pos, to_act=None)
        lines.append(trick_points_html(tr, last, roem=auto))
        lines += passed
    return lines


def render_table(
    obs: Observation,
    players: Sequence[Player],
    tr: Translator,
    *,
    hand_url: str | None = None,
    waiting: Sequence[Seat] = (),
    left_by: Mapping[Seat, str] | None = None,
    note: str | None = None,
    unseen: int = 0,
    cards_button: bool = False,
) -> Rendered:
    """The group's table message (``rules.md`` §3–§6).

    Args:
        obs: the public view, ``observe(game, None)`` (it has no hand; none is shown).
        players: the four seats, index = seat.
        tr: the group's translator.
        hand_url: a deep link to the bot's private chat; adds a "my hand" link button.
        waiting: Klammern: the human seats the computers wait for (contra or re, §9.7).
        left_by: computer seats a player left during play and may take back from the private
            chat: seat → that player's raw name (one line each).
        note: the latest notice about a seat (HTML: a timeout, a hand-over, a take-back),
            shown as the last line until the next one replaces it (such
            notices are not separate group messages).
        unseen: how many completed tricks before the last one the group has not seen yet
            (they passed between two edits): each gets a line of its own.
        cards_button: adds "🂠 My cards" (:class:`bot.taps.MyCards`): a player's hand in the
            group, to them alone.

    Returns:
        HTML text (well under 4096 characters) and the keyboard (empty, or one row: "my cards"
        and the link button).
    """
    lines = [header_html(tr, obs)]
    lines.append(
        "🎴 " + tr.gettext("Dealer: {name}").format(name=player_html(tr, players, obs.dealer))
    )
    if obs.phase is Phase.BIDDING:
        shown = shown_html(tr, obs)
        if shown:
            lines.append(shown)
        history = bid_history_html(tr, obs, players)
        if history:
            lines.append(history)
        lines.append("👉 " + bidding_prompt_html(tr, obs, players, None))
    elif obs.trump is not None:
        lines.append(trump_html(tr, obs, players))
        if obs.proposed_card is not None:
            lines.append(shown_html(tr, obs))
        lines += klammern_lines(tr, obs, players)
        lines.append("")
        lines += _play_block(tr, obs, players, unseen)
        lines.append("")
        lines += [team_line(tr, obs, players, t) for t in TEAMS]
        if obs.claimable_roem and obs.last_trick is not None:
            lines.append(
                "💬 "
                + tr.gettext("Roem in the last trick: {team} can still claim it.").format(
                    team=team_html(tr, players, obs.last_trick.winner.team)
                )
            )
    small = obs.small_points
    if small is not None and (obs.number > 1 or any(obs.totals.values()) or any(small.values())):
        lines.append(standing_html(tr, obs.totals, small, players))
    elif small is None and (obs.number > 1 or any(obs.totals.values())):
        lines.append(totals_html(tr, obs.totals, players))
    wait = waiting_html(tr, obs, players, waiting)
    if wait:
        lines.append(wait)
    elif obs.to_act is not None and obs.phase is Phase.PLAY:
        lines.append(
            "👉 "
            + tr.gettext("{name}, your turn.").format(name=mention_html(tr, players, obs.to_act))
        )
    elif obs.to_act is not None and obs.phase is Phase.CLAIM:
        lines.append(
            "👉 "
            + tr.gettext("{name} may still claim the roem of the last trick.").format(
                name=mention_html(tr, players, obs.to_act)
            )
        )
    for seat, name in sorted((left_by or {}).items()):
        lines.append(left_by_html(tr, name, seat))
    if note:
        lines.append(note)
    row: list[Button] = []
    if cards_button:
        row.append(Button("🂠 " + tr.gettext("My cards"), MyCards()))
    if hand_url:
        row.append(Button("🃏 " + tr.gettext("My hand"), url=hand_url))
    keyboard: tuple[tuple[Button, ...], ...] = (tuple(row),) if row else ()
    return Rendered("\n".join(lines), keyboard)
