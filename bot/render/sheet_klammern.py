"""The Klammern score sheet and round summary (``rules.md`` §9.8–9.9).

The sheet is a monospace ``<pre>`` table at most :data:`bot.render.sheet.SHEET_WIDTH`
characters wide: per round and team the small points won ("+2" after contra, "+4" after re)
and the small points standing after it, a ● for each big point won (then both teams start again
at 0); below it the big and small points and, at the end, the winner by big points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.i18n import Translator
from bot.render.bids import declaration_label
from bot.render.cards import suit_label
from bot.render.common import Player, bold, esc, labelled, player_html, team_html
from bot.render.klammern import standing_html
from bot.render.sheet_view import SheetView, Status
from engine.cards import TEAMS, Suit, Team
from engine.game import SheetRow
from engine.klammern import KlammernScore, Tally

BIG_MARK = "●"


def _column(won: int, reached: int, big_won: int) -> str:
    won_text = f"+{won}" if won else ""
    return f"{won_text:>3} {reached:>3} {BIG_MARK * big_won:<5}"


def _result(row: SheetRow) -> KlammernScore:
    assert isinstance(row.result, KlammernScore)
    return row.result


def _tally(row: SheetRow) -> Tally:
    assert row.tally is not None
    return row.tally


def klammern_table(view: SheetView, labels: Sequence[str]) -> str:
    """The ``<pre>`` table (escaped inside): the header with ``labels`` (one per team of
    ``view.order``), one line per round, and the big points."""
    order = view.order
    lines = [f"{'#':>2} {labels[0]:<13} {labels[1]}".rstrip()]
    for line in view.lines:
        cols = [
            _column(line.cells[t].points, line.cells[t].reached, line.cells[t].big_won)
            for t in order
        ]
        lines.append(f"{line.number:>2} {cols[0]} {cols[1]}".rstrip())
    lines.append("-" * 30)
    big = view.big
    lines.append(f"{BIG_MARK:>2} " + " ".join(f"{big[t]:>7}{'':<6}" for t in order).rstrip())
    return "<pre>" + esc("\n".join(lines)) + "</pre>"


def legend(tr: Translator) -> str:
    """What the columns of the Klammern sheet mean (plain)."""
    return tr.gettext(
        "Per round: small points won and the standing; {mark} = a big point, then both start "
        "again at 0."
    ).format(mark=BIG_MARK)


def klammern_winner_html(tr: Translator, big: Mapping[Team, int], players: Sequence[Player]) -> str:
    """ "🏆 Anna & Cas winnen met 3 grote punten tegen 1!" (§9.9; no draws in Klammern)."""
    if big[Team.NS] == big[Team.EW]:
        return "🤝 " + tr.gettext("A draw: {score} – {score}.").format(score=big[Team.NS])
    win = Team.NS if big[Team.NS] > big[Team.EW] else Team.EW
    return "🏆 " + tr.ngettext(
        "{team} win with {n} big point against {other}!",
        "{team} win with {n} big points against {other}!",
        big[win],
    ).format(team=bold(team_html(tr, players, win)), n=big[win], other=big[win.other])


def _team_points(tr: Translator, res: KlammernScore, team: Team) -> str:
    cards = res.card_points[team]
    text = tr.ngettext("{n} point", "{n} points", cards).format(n=cards)
    declared = res.declarations[team]
    if declared:
        labels = ", ".join(declaration_label(tr, seq) for seq in declared)
        if res.declaration_points[team]:
            text += " + " + tr.gettext("{n} declared").format(n=res.declaration_points[team])
            text += f" ({esc(labels)})"
        else:
            text += f" (<s>{esc(labels)}</s>)"
    if res.bella[team]:
        text += " + " + tr.gettext("{n} bella").format(n=res.bella[team])
    if res.points[team] != cards:
        text += f" = {bold(str(res.points[team]))}"
    return text


def klammern_round_summary(row: SheetRow, players: Sequence[Player], tr: Translator) -> str:
    """The message posted when a Klammern round ends (§9.8–9.9): trump and who played, the
    points per team (cards, declarations that count, bella), contra / re, the round's winner
    and its small points, a big point if one was won, and the standing."""
    res, tally = _result(row), _tally(row)
    playing = res.playing_team
    lines = [
        "🏁 "
        + bold(tr.gettext("Round {number}").format(number=row.number))
        + " · "
        + tr.gettext("trump {suit}, played by {name}").format(
            suit=suit_label(tr, Suit(row.trump)), name=player_html(tr, players, row.maker)
        )
    ]
    lines += [labelled(tr, team_html(tr, players, t), _team_points(tr, res, t)) for t in TEAMS]
    if res.re:
        lines.append("⚔️ " + tr.gettext("Contra and re: the round counts four times."))
    elif res.contra:
        lines.append("⚔️ " + tr.gettext("Contra: the round counts double."))
    won = res.small_points[res.winner]
    small = tr.ngettext("{n} small point", "{n} small points", won).format(n=won)
    winner = team_html(tr, players, res.winner)
    if res.points[Team.NS] == res.points[Team.EW]:
        tie = tr.gettext("Equal points: the defenders {team} win the round and get {small}.")
        lines.append("⚖️ " + tie.format(team=winner, small=small))
    elif res.winner is playing:
        lines.append(
            "✅ " + tr.gettext("{team} win the round: {small}.").format(team=winner, small=small)
        )
    else:
        lines.append(
            "💦 "
            + tr.gettext("{team} lose the round; {other} get {small}.").format(
                team=team_html(tr, players, playing), other=winner, small=small
            )
        )
    for t in TEAMS:
        if tally.big_won[t]:
            lines.append(
                "🎉 "
                + tr.ngettext(
                    "{team} reach {small} small points: {n} big point!",
                    "{team} reach {small} small points: {n} big points!",
                    tally.big_won[t],
                ).format(
                    team=bold(team_html(tr, players, t)),
                    small=tally.reached[t],
                    n=tally.big_won[t],
                )
            )
    lines.append(standing_html(tr, tally.big, tally.small, players))
    return "\n".join(lines)


def render_klammern_sheet(
    view: SheetView,
    tr: Translator,
    *,
    title: str,
    who: str,
    labels: Sequence[str],
) -> str:
    """The Klammern sheet of ``view``; ``title``, ``who`` and ``labels`` come from
    :func:`bot.render.sheet.render_sheet_view`."""
    assert view.klammern_target is not None, "a Klammern view"
    target = view.klammern_target
    head = (
        title
        + " · "
        + tr.ngettext("up to {n} big point", "up to {n} big points", target).format(n=target)
    )
    parts = [head, who, klammern_table(view, labels), legend(tr)]
    parts.append(standing_html(tr, view.big, view.small, view.players))
    if view.status is Status.FINAL:
        parts.append(klammern_winner_html(tr, view.big, view.players))
    return "\n".join(parts)
