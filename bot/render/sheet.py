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


def _score(row: SheetRow) -> RoundScore:
    assert isinstance(row.result, RoundScore), "a Klaverjassen row"
    return row.result


def _row(tr: Translator, row: SheetRow, order: Sequence[Team]) -> str:
    res = _score(row)
    cols = []
    for team in order:
        mark = ""
        if res.nat and team is res.playing_team:
            mark = tr.pgettext("sheet mark", "nat")
        elif res.pit is team:
            mark = tr.pgettext("sheet mark", "pit")
        cols.append(_column(str(res.points[team]), res.roem_scored[team], f" {mark[:3]}"))
    return f"{row.number:>2} {cols[0]} {cols[1]}".rstrip()


def sheet_table(
    tr: Translator,
    rows: Sequence[SheetRow],
    players: Sequence[Player],
    viewer: Seat | None = None,
) -> str:
    """The ``<pre>`` table alone (escaped inside): header, one line per round, sums, totals.

    In a private view (``viewer`` given) the viewer's team is the left column.
    """
    order = (viewer.team, viewer.team.other) if viewer is not None else TEAMS
    labels = [f"{team_label(tr, t, viewer):>4}" for t in order]
    lines = [f"{'#':>2} {labels[0]:<{_LABEL_WIDTH}} {labels[1]}".rstrip()]
    lines += [_row(tr, r, order) for r in rows]
    lines.append("-" * SHEET_WIDTH)
    sums = []
    totals = []
    for team in order:
        points = sum(_score(r).points[team] for r in rows)
        roem = sum(_score(r).roem_scored[team] for r in rows)
        sums.append(_column(str(points), roem, ""))
        totals.append(_column(str(points + roem), 0, ""))
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
        ``stopped``, the result.
    """
    title = "📋 " + bold(tr.gettext("Score sheet"))
    played = len(rows)
    if stopped and not rows:
        pass  # stopped before the first round ended: no round to name
    elif stopped and klammern_target is not None:
        title += " · " + tr.gettext("stopped after round {played}").format(played=played)
    elif stopped:
        title += " · " + tr.gettext("stopped after round {played} of {total}").format(
            played=played, total=rounds_total or played
        )
    elif klammern_target is not None and rows:
        title += " · " + tr.gettext("after round {played}").format(played=played)
    elif rounds_total and rows:
        title += " · " + tr.gettext("after round {played} of {total}").format(
            played=played, total=rounds_total
        )
    who = teams_html(tr, players, viewer)
    if klammern_target is not None:
        order = (viewer.team, viewer.team.other) if viewer is not None else TEAMS
        return render_klammern_sheet(
            rows,
            players,
            tr,
            title=title,
            who=who,
            labels=[team_label(tr, t, viewer) for t in order],
            viewer=viewer,
            target=klammern_target,
            final=final and not stopped,
        ) + ("\n" + stopped_html(tr, None, players) if stopped else "")
    parts = [title, who, sheet_table(tr, rows, players, viewer), sheet_legend(tr)]
    if stopped:
        parts.append(stopped_html(tr, totals, players))
    elif final:
        parts.append(winner_html(tr, totals, players))
    return "\n".join(parts)


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
