"""The boompje (score sheet) and the summary of a finished round (``rules.md`` §2.3–2.4, §6).

The sheet is a monospace ``<pre>`` table at most :data:`SHEET_WIDTH` characters wide, so 16
rounds fit a phone: per round the card points and the roem of each team kept apart, ``nat`` and
``pit`` marked (§6.6), then the sums and the totals, and below it a one-line legend. The group's
columns are headed by the seat pairs ("N–Z" / "O–W"), named by their players above the table;
a private view says "Wij" / "Zij" relative to the viewer's team (§2.1). A stopped game shows
the score at that moment and no winner. Klammern (§9.8–9.9) has its own sheet and summary in
:mod:`bot.render.sheet_klammern`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.i18n import Translator
from bot.render.cards import suit_label
from bot.render.common import (
    Player,
    bold,
    esc,
    labelled,
    player_html,
    seat_letter,
    team_html,
    us_them,
)
from bot.render.sheet_klammern import klammern_round_summary, render_klammern_sheet
from bot.render.sheet_view import Mark, SheetLine, SheetView, Status, build_sheet_view
from engine.cards import TEAMS, Seat, Suit, Team
from engine.game import SheetRow
from engine.rules import RoundScore

SHEET_WIDTH = 30
"""Width of the ``<pre>`` table in characters."""

_LABEL_WIDTH = 13


def _column(points: str, roem: int, mark: str) -> str:
    roem_text = f"+{roem}" if roem else ""
    return f"{points:>4}{roem_text:<5}{mark:<4}"


def team_label(tr: Translator, team: Team, viewer: Seat | None = None) -> str:
    """A sheet column's head: the seat pair, "N–Z" / "O–W" in Dutch, "N–S" / "E–O" in French
    (``rules.md`` §2.1); in a private view (``viewer`` given) "Wij" / "Zij". Plain."""
    if viewer is not None:
        return us_them(tr, team, viewer)[:_LABEL_WIDTH]
    a, b = team.seats
    return f"{seat_letter(tr, a)}–{seat_letter(tr, b)}"


def teams_html(tr: Translator, players: Sequence[Player], viewer: Seat | None = None) -> str:
    """Who is who above the sheet: "N–Z: Anna & Cas · O–W: Bert & Dirk" for the group, or
    "Wij = jij en Cas; Zij = Bert & Dirk" for a private view."""
    if viewer is not None:
        return tr.gettext("{us} = you and {partner}; {them} = {opponents}").format(
            us=esc(us_them(tr, viewer.team, viewer)),
            partner=player_html(tr, players, viewer.partner),
            them=esc(us_them(tr, viewer.team.other, viewer)),
            opponents=team_html(tr, players, viewer.team.other),
        )
    return " · ".join(
        labelled(tr, bold(esc(team_label(tr, t))), team_html(tr, players, t)) for t in TEAMS
    )


def sheet_legend(tr: Translator) -> str:
    """What the symbols of the Klaverjassen sheet mean (plain)."""
    return tr.gettext(
        "Per round: points +roem; {nat} = the playing team went down, {pit} = all eight "
        "tricks. Σ: points and roem added up; last line: the total."
    ).format(nat=tr.pgettext("sheet mark", "nat"), pit=tr.pgettext("sheet mark", "pit"))


def mark_label(tr: Translator, mark: Mark | None) -> str:
    """The sheet's word for a mark: "nat" / "pit" in the reader's language (at most three
    letters, ``rules.md`` §6.6); "" for None. Plain."""
    if mark is Mark.NAT:
        return tr.pgettext("sheet mark", "nat")
    if mark is Mark.PIT:
        return tr.pgettext("sheet mark", "pit")
    return ""


def _row(tr: Translator, line: SheetLine, order: Sequence[Team]) -> str:
    cols = []
    for team in order:
        cell = line.cells[team]
        cols.append(_column(str(cell.points), cell.roem, f" {mark_label(tr, cell.mark)[:3]}"))
    return f"{line.number:>2} {cols[0]} {cols[1]}".rstrip()


def sheet_table(tr: Translator, view: SheetView) -> str:
    """The ``<pre>`` table alone (escaped inside): header, one line per round, sums, totals.

    In a private view (``view.viewer`` given) the viewer's team is the left column.
    """
    order = view.order
    labels = [f"{team_label(tr, t, view.viewer):>4}" for t in order]
    lines = [f"{'#':>2} {labels[0]:<{_LABEL_WIDTH}} {labels[1]}".rstrip()]
    lines += [_row(tr, line, order) for line in view.lines]
    lines.append("-" * SHEET_WIDTH)
    sums = [_column(str(view.points_sum(t)), view.roem_sum(t), "") for t in order]
    totals = [_column(str(view.sum_total(t)), 0, "") for t in order]
    lines.append(f"{'Σ':>2} {sums[0]} {sums[1]}".rstrip())
    lines.append(f"{'=':>2} {totals[0]} {totals[1]}".rstrip())
    return "<pre>" + esc("\n".join(lines)) + "</pre>"


def winner_html(tr: Translator, totals: Mapping[Team, int], players: Sequence[Player]) -> str:
    """ "🏆 Anna & Cas winnen met 1454 tegen 1120!" or "🤝 Gelijkspel: 1234 – 1234" (§2.4)."""
    ns, ew = totals[Team.NS], totals[Team.EW]
    if ns == ew:
        return "🤝 " + tr.gettext("A draw: {score} – {score}.").format(score=ns)
    win = Team.NS if ns > ew else Team.EW
    return "🏆 " + tr.gettext("{team} win with {points} against {other}!").format(
        team=bold(team_html(tr, players, win)), points=totals[win], other=totals[win.other]
    )


def stopped_html(
    tr: Translator, totals: Mapping[Team, int] | None, players: Sequence[Player]
) -> str:
    """A stopped game: the score at that moment (``totals``; None for Klammern, whose standing
    is shown above) and no winner."""
    if totals is None:
        return "⏹ " + tr.gettext("The game was stopped early: no winner.")
    score = " · ".join(f"{team_html(tr, players, t)} {bold(str(totals[t]))}" for t in TEAMS)
    return "⏹ " + tr.gettext("Score when the game was stopped: {score}. No winner.").format(
        score=score
    )


def sheet_title(view: SheetView, tr: Translator) -> str:
    """ "📋 <b>Boompje</b> · na ronde 5 van 16" (HTML): the sheet's title with how far the game
    is, or where it was stopped (``rules.md`` §2.3)."""
    title = "📋 " + bold(tr.gettext("Score sheet"))
    return title + (" · " + progress if (progress := sheet_progress(view, tr)) else "")


def sheet_progress(view: SheetView, tr: Translator) -> str:
    """How far the game is: "after round 5 of 16", "stopped after round 3 of 16" (Klammern
    without "of N"); "" before the first round (plain)."""
    played = view.played
    stopped = view.status is Status.STOPPED
    if stopped and not view.lines:
        return ""  # stopped before the first round ended: no round to name
    if stopped and view.klammern:
        return tr.gettext("stopped after round {played}").format(played=played)
    if stopped:
        return tr.gettext("stopped after round {played} of {total}").format(
            played=played, total=view.rounds_total or played
        )
    if view.klammern and view.lines:
        return tr.gettext("after round {played}").format(played=played)
    if view.rounds_total and view.lines:
        return tr.gettext("after round {played} of {total}").format(
            played=played, total=view.rounds_total
        )
    return ""


def render_sheet_view(view: SheetView, tr: Translator) -> str:
    """The text boompje of a :class:`~bot.render.sheet_view.SheetView`: what
    :func:`render_sheet` returns for the same arguments (HTML)."""
    title = sheet_title(view, tr)
    who = teams_html(tr, view.players, view.viewer)
    if view.klammern:
        return render_klammern_sheet(
            view,
            tr,
            title=title,
            who=who,
            labels=[team_label(tr, t, view.viewer) for t in view.order],
        ) + ("\n" + stopped_html(tr, None, view.players) if view.status is Status.STOPPED else "")
    parts = [title, who, sheet_table(tr, view), sheet_legend(tr)]
    if view.status is Status.STOPPED:
        parts.append(stopped_html(tr, view.totals, view.players))
    elif view.status is Status.FINAL:
        parts.append(winner_html(tr, view.totals, view.players))
    return "\n".join(parts)


def render_sheet(
    rows: Sequence[SheetRow],
    totals: Mapping[Team, int],
    players: Sequence[Player],
    tr: Translator,
    *,
    viewer: Seat | None = None,
    rounds_total: int | None = None,
    final: bool = False,
    stopped: bool = False,
    klammern_target: int | None = None,
) -> str:
    """The boompje so far (``/score``, after each round, at the end of the game).

    Args:
        rows: ``game.sheet()``.
        totals: ``game.totals()``.
        players: the four seats, index = seat.
        tr: the reader's translator.
        viewer: the reader's seat for a private view ("Wij"/"Zij"); None for the group.
        rounds_total: the game's length, for "na 5 van 16 rondes".
        final: the game is over: add the winner or the draw (§2.4).
        stopped: the game was stopped before its end: "stopped after round 3 of 16", the
            score at that moment and no winner (``final`` is then ignored).
        klammern_target: a Klammern game to this many big points: the Klammern sheet with
            small and big points (§9.9; ``totals`` and ``rounds_total`` are not used).

    Returns:
        HTML: a title, who is who, the ``<pre>`` table, the legend and, if ``final`` or
        ``stopped``, the result. The same as :func:`render_sheet_view` of
        :func:`~bot.render.sheet_view.build_sheet_view` with these arguments (the picture
        reads that same view).
    """
    view = build_sheet_view(
        rows,
        totals,
        players,
        viewer=viewer,
        rounds_total=rounds_total,
        final=final,
        stopped=stopped,
        klammern_target=klammern_target,
    )
    return render_sheet_view(view, tr)


def _score(row: SheetRow) -> RoundScore:
    assert isinstance(row.result, RoundScore), "a Klaverjassen row"
    return row.result


def round_summary(
    row: SheetRow,
    players: Sequence[Player],
    tr: Translator,
    *,
    totals: Mapping[Team, int] | None = None,
) -> str:
    """The message posted when a round ends (``rules.md`` §6): trump and who played, card
    points and roem per team, "Nat!" / "Pit!" / made, the round's score and the totals.

    Args:
        row: the finished round, ``game.sheet()[-1]``.
        players: the four seats, index = seat.
        tr: the group's translator.
        totals: the game's totals after this round (``game.totals()``), or None.

    Returns:
        HTML text. A Klammern row (with a tally) gets
        :func:`bot.render.sheet_klammern.klammern_round_summary` (``totals`` not used).
    """
    if row.tally is not None:
        return klammern_round_summary(row, players, tr)
    res = _score(row)
    playing = res.playing_team
    lines = [
        "🏁 "
        + bold(tr.gettext("Round {number}").format(number=row.number))
        + " · "
        + tr.gettext("trump {suit}, played by {name}").format(
            suit=suit_label(tr, Suit(row.trump)), name=player_html(tr, players, row.maker)
        )
    ]
    for team in TEAMS:
        pts = tr.ngettext("{n} point", "{n} points", res.card_points[team]).format(
            n=res.card_points[team]
        )
        if res.roem[team]:
            pts += " + " + tr.gettext("{n} roem").format(n=res.roem[team])
        lines.append(labelled(tr, team_html(tr, players, team), pts))
    if res.nat:
        lines.append(
            "💦 "
            + bold(tr.gettext("Nat!"))
            + " "
            + tr.gettext("{team} did not make it; {other} get everything.").format(
                team=team_html(tr, players, playing), other=team_html(tr, players, playing.other)
            )
        )
    else:
        lines.append(
            "✅ " + tr.gettext("{team} made it.").format(team=team_html(tr, players, playing))
        )
    if res.pit is not None:
        lines.append(
            "🎉 "
            + bold(tr.gettext("Pit!"))
            + " "
            + tr.gettext("{team} took all eight tricks: 100 roem extra.").format(
                team=team_html(tr, players, res.pit)
            )
        )
    score = " · ".join(f"{team_html(tr, players, t)} {bold(str(res.score[t]))}" for t in TEAMS)
    lines.append(tr.gettext("This round: {score}").format(score=score))
    if totals is not None:
        total = " · ".join(f"{team_html(tr, players, t)} {bold(str(totals[t]))}" for t in TEAMS)
        lines.append("📋 " + tr.gettext("Score: {score}").format(score=total))
    return "\n".join(lines)
