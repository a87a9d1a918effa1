"""Texts of the daily deal, the boards, ``/top`` and ``/stats``. Pure; HTML.

The buttons carry :class:`~bot.taps.DailyTap` (play again unranked, hide or show me on the
boards) and :class:`~bot.taps.TopPeriod` (the standings' period).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.i18n import Translator
from bot.render.common import Button, Rendered, bold, esc, labelled, shorten
from bot.service import Board, DailySummary, NamedLine, PersonStats
from bot.standings import Standing, ordinal
from bot.taps import DailyAction, DailyTap, Period, TopPeriod
from storage import GameStatus

DAILY_LINK = "daily"
"""The ``/start`` payload of the link that starts the daily in the private chat."""


def number(tr: Translator, value: float, decimals: int = 1) -> str:
    """``value`` with ``decimals`` decimals and the language's decimal mark (plain)."""
    text = f"{value:.{decimals}f}"
    return text if tr.language == "en" else text.replace(".", ",")


def percent(tr: Translator, share: float | None) -> str:
    """A share as a whole percentage ("—" when there is none)."""
    if share is None:
        return "—"
    return tr.gettext("{n}%").format(n=round(share * 100))


# --- the daily deal ---------------------------------------------------------------------------


def daily_in_group(tr: Translator, url: str) -> Rendered:
    """``/daily`` in a group: the daily is played in the private chat (a button opens it)."""
    text = "🗓 " + tr.gettext(
        "The daily deal is played alone in our private chat: today everybody gets the same "
        "deals, with a computer partner against two computers."
    )
    return Rendered(text, ((Button(tr.gettext("Play today's daily"), url=url),),))


def daily_started(tr: Translator, day: str, rounds: int, *, ranked: bool) -> str:
    """The start of an attempt: what the daily is, and whether it counts for the board."""
    lines = [
        "🗓 "
        + bold(tr.gettext("The daily deal of {day}").format(day=day_text(day)))
        + "\n"
        + tr.ngettext(
            "{n} round: you sit South with the computer North as partner, against two "
            "computers. Everybody plays these same deals today.",
            "{n} rounds: you sit South with the computer North as partner, against two "
            "computers. Everybody plays these same deals today.",
            rounds,
        ).format(n=rounds)
    ]
    if ranked:
        lines.append(tr.gettext("This is your ranked attempt: it counts for today's board."))
    else:
        lines.append(
            "ℹ️ "
            + tr.gettext(
                "You have played today's daily already: this attempt is unranked and does "
                "not count for the board."
            )
        )
    return "\n\n".join(lines)


def daily_stopped(tr: Translator, day: str) -> str:
    """A daily attempt was stopped (by the player, or by ``/daily`` on a later day)."""
    return "⏹ " + tr.gettext(
        "Your daily of {day} was stopped: it counts as played, not on a board. /daily starts "
        "today's."
    ).format(day=day_text(day))


def daily_stopped_again(tr: Translator, day: str) -> str:
    """The head of a stopped attempt's result under the day's board, whose button plays the
    deals again, unranked."""
    return "⏹ " + tr.gettext(
        "Your daily of {day} was stopped: it counts as played, not on the board. You can play "
        "it again below, unranked."
    ).format(day=day_text(day))


def daily_running(tr: Translator) -> str:
    """``/daily`` while today's attempt is being played."""
    return "🗓 " + tr.gettext("Your daily is being played: your cards follow.")


def daily_other_game(tr: Translator) -> str:
    """``/daily`` while another game is open in the private chat."""
    return tr.gettext("Another game is open here. Finish it or /stop it, then send /daily.")


def day_text(day: str) -> str:
    """A day as ``DD-MM-YYYY`` (plain)."""
    year, month, dom = day.split("-")
    return f"{dom}-{month}-{year}"


def daily_result_lines(tr: Translator, summary: DailySummary) -> list[str]:
    """The result of an attempt as HTML lines, without the board: the score (or that it was
    stopped), the par beside it and per deal, and the place (or why it is not on the board).
    At most a few hundred characters (no names)."""
    entry, result = summary.entry, summary.result
    lines = []
    day = day_text(entry.day)
    if result is None or result.status is GameStatus.ABANDONED:
        lines.append(daily_stopped_again(tr, entry.day))
    else:
        lines.append(
            "🏁 "
            + bold(
                tr.gettext("Daily of {day}: you scored {points}, the computers {against}.").format(
                    day=day, points=result.points, against=result.against
                )
            )
        )
    par = summary.par
    if par is None:
        lines.append(tr.gettext("Par follows: the strong computer is still playing your seat."))
    elif summary.rounds:
        played = par.pars[: len(summary.rounds)]
        diff = sum(summary.rounds) - sum(played)
        lines.append(
            tr.gettext("Par (the strong computer in your seat): {par}, you {diff}.").format(
                par=sum(played), diff=f"{diff:+d}"
            )
        )
        deals = " · ".join(
            f"{i}. {mine} ({p})"
            for i, (mine, p) in enumerate(zip(summary.rounds, played, strict=False), start=1)
        )
        lines.append(labelled(tr, tr.gettext("Deals (par)"), deals))
    if summary.on_board:
        own = summary.board.own
        if own is not None:
            lines.append(
                tr.gettext("Place {place} of {n}.").format(
                    place=own.line.place, n=summary.board.entries
                )
            )
    elif summary.late:
        lines.append(
            tr.gettext("Finished after midnight: not on the board of {day}.").format(day=day)
        )
    elif not entry.ranked:
        lines.append(tr.gettext("Unranked attempt: not on the board."))
    return lines


def daily_result(tr: Translator, summary: DailySummary) -> Rendered:
    """The result of an attempt: the score beside the par of every deal, the place, the
    board, and the buttons (play again, unranked; hide or show me)."""
    text = "\n".join(daily_result_lines(tr, summary)) + "\n\n" + board_text(tr, summary.board)
    return Rendered(text, daily_buttons(tr, hidden=summary.hidden))


def daily_caption(tr: Translator, summary: DailySummary) -> str:
    """The caption of the daily result picture (HTML): :func:`daily_result_lines` (your total,
    the par, your place), then the board's head and its first lines
    (:func:`board_summary`). Within Telegram's 1024-character caption limit: the names are
    cut to :data:`~bot.render.common.NAME_LIMIT`, 16 deals take some 250 characters."""
    return "\n".join(daily_result_lines(tr, summary)) + "\n\n" + board_summary(tr, summary.board)


def daily_buttons(tr: Translator, *, hidden: bool) -> tuple[tuple[Button, ...], ...]:
    """Play again (unranked); hide or show me on the boards."""
    again = Button("▶️ " + tr.gettext("Play again (unranked)"), DailyTap(DailyAction.AGAIN))
    if hidden:
        toggle = Button("👁 " + tr.gettext("Show me on the boards"), DailyTap(DailyAction.SHOW))
    else:
        toggle = Button("🙈 " + tr.gettext("Hide me on the boards"), DailyTap(DailyAction.HIDE))
    return ((again,), (toggle,))


def board_who(tr: Translator, named: NamedLine) -> str:
    """Who a board line is, as the text board names them (HTML): "you" (bold) on the reader's
    own line, "hidden" or "a player" (italic), else the name cut to
    :data:`~bot.render.common.NAME_LIMIT`."""
    if named.me:
        return bold(tr.gettext("you"))
    if named.hidden:
        return "<i>" + esc(tr.gettext("hidden")) + "</i>"
    if named.name:
        return esc(shorten(named.name))
    return "<i>" + esc(tr.gettext("a player")) + "</i>"


def _line(tr: Translator, named: NamedLine) -> str:
    line = named.line
    return f"{line.place}. {board_who(tr, named)} — {line.points} : {line.against}"


def board_title(tr: Translator, board: Board, group: str | None = None) -> str:
    """The board's title, plain: "Board of DD-MM-YYYY", or "{group}: board of ..." for a
    group's board (``group``: the group's name as it should appear, default the board's
    raw title)."""
    day = day_text(board.day)
    if board.group is not None:
        name = board.group if group is None else group
        return tr.gettext("{group}: board of {day}").format(group=name, day=day)
    return tr.gettext("Board of {day}").format(day=day)


def player_count(tr: Translator, n: int) -> str:
    """ "12 players" (plain)."""
    return tr.ngettext("{n} player", "{n} players", n).format(n=n)


def board_head(tr: Translator, board: Board) -> str:
    """ "📋 <b>Board of DD-MM-YYYY</b> (n players)": the board's first line (HTML)."""
    group = esc(shorten(board.group)) if board.group is not None else None
    head = board_title(tr, board, group)
    return "📋 " + bold(head) + f" ({player_count(tr, board.entries)})"


def board_text(tr: Translator, board: Board) -> str:
    """A day's board: the top lines and the reader's own line below when it is not among
    them."""
    lines = [board_head(tr, board)]
    if not board.top:
        lines.append(tr.gettext("Nobody is on the board yet."))
    lines += [_line(tr, x) for x in board.top]
    if board.own is not None and own_below(board):
        lines += ["…", _line(tr, board.own)]
    return "\n".join(lines)


def own_below(board: Board) -> bool:
    """Whether the reader's own line is shown apart, below the top lines (it is not among
    them)."""
    return board.own is not None and all(not x.me for x in board.top)


CAPTION_LINES = 3
"""Lines of a board or of the standings that a picture's caption names."""


def board_summary(tr: Translator, board: Board) -> str:
    """The board in short, for a picture's caption (HTML): its head and its first
    :data:`CAPTION_LINES` lines on one line ("1. Anna 1234 · 2. you 1180 · …"), or that
    nobody is on it yet."""
    if not board.top:
        return board_head(tr, board) + "\n" + tr.gettext("Nobody is on the board yet.")
    first = [
        f"{x.line.place}. {board_who(tr, x)} {x.line.points}" for x in board.top[:CAPTION_LINES]
    ]
    more = " · …" if board.entries > CAPTION_LINES else ""
    return board_head(tr, board) + "\n" + " · ".join(first) + more


def board_visibility(tr: Translator, *, hidden: bool) -> str:
    """The answer to the hide / show button (plain, a toast)."""
    if hidden:
        return tr.gettext("You are hidden on the boards now.")
    return tr.gettext("You are on the boards again.")


# --- /top ------------------------------------------------------------------------------------


TOP_LINES = 20
"""Lines of the standings that ``/top`` shows (text and picture)."""


def period_text(tr: Translator, period: Period) -> str:
    """ "this month" or "all time" (plain)."""
    return tr.gettext("this month") if period is Period.MONTH else tr.gettext("all time")


def top_title(tr: Translator, title: str, period: Period, group: str | None = None) -> str:
    """ "Standings of {group}, {period}" (plain; ``group``: the group's name as it should
    appear, default ``title``, "this group" when the group has no title)."""
    name = (title if group is None else group) if title else tr.gettext("this group")
    return tr.gettext("Standings of {group}, {period}").format(
        group=name, period=period_text(tr, period)
    )


def top_name(tr: Translator, s: Standing, names: Mapping[int, str]) -> str:
    """A standings line's name (HTML), cut to :data:`~bot.render.common.NAME_LIMIT`; "a
    player" (italic) without one."""
    return esc(shorten(names.get(s.user_id, ""))) or "<i>" + esc(tr.gettext("a player")) + "</i>"


def top_head(tr: Translator, title: str, period: Period) -> str:
    """ "🏆 <b>Standings of Club, this month</b>" (HTML)."""
    return "🏆 " + bold(top_title(tr, title, period, esc(shorten(title)) if title else None))


def top_text(
    tr: Translator,
    title: str,
    period: Period,
    lines: Sequence[Standing],
    names: Mapping[int, str],
) -> Rendered:
    """``/top``: the group's standings (rating, games, win %) over ``period``, with the
    period buttons (the current one marked)."""
    out = [top_head(tr, title, period)]
    if not lines:
        out.append(tr.gettext("No games recorded in this period yet."))
    for i, s in enumerate(lines[:TOP_LINES], start=1):
        games = tr.ngettext("{n} game", "{n} games", s.stats.games).format(n=s.stats.games)
        won = tr.gettext("{share} won").format(share=percent(tr, s.stats.win_share))
        rating = number(tr, ordinal(s.rating))
        out.append(f"{i}. {top_name(tr, s, names)} — {bold(rating)} · {games} · {won}")
    out.append("")
    out.append(rating_legend(tr))
    return Rendered("\n".join(out), top_buttons(tr, period))


def rating_legend(tr: Translator) -> str:
    """What the rating is (plain)."""
    return tr.gettext("Rating: OpenSkill (μ − 3σ) of finished games here, two against two.")


CURRENT_MARK = "• "
"""Marks the period button of the period a ``/top`` answer shows."""


def period_label(tr: Translator, period: Period) -> str:
    """A period's button label, plain: "This month", "All time"."""
    return tr.gettext("This month") if period is Period.MONTH else tr.gettext("All time")


def top_shown_already(tr: Translator, period: Period) -> str:
    """The toast of a tap on the period a ``/top`` answer shows already (plain)."""
    return tr.gettext("Shown already: {period}.").format(period=period_label(tr, period))


def top_buttons(tr: Translator, period: Period) -> tuple[tuple[Button, ...], ...]:
    """The period buttons of ``/top``, the current one marked "• " (:data:`CURRENT_MARK`)."""
    buttons = []
    for p in (Period.MONTH, Period.ALL):
        label = period_label(tr, p)
        mark = CURRENT_MARK if p is period else ""
        buttons.append(Button(mark + label, TopPeriod(p)))
    return (tuple(buttons),)


def top_caption(
    tr: Translator,
    title: str,
    period: Period,
    lines: Sequence[Standing],
    names: Mapping[int, str],
) -> str:
    """The caption of the standings picture (HTML): the head and the first
    :data:`CAPTION_LINES` lines with their rating ("1. Anna <b>31.2</b> · 2. Bob ..."), or
    that there are no games yet. Some 200 characters at most: names are cut to
    :data:`~bot.render.common.NAME_LIMIT`."""
    head = top_head(tr, title, period)
    if not lines:
        return head + "\n" + tr.gettext("No games recorded in this period yet.")
    first = [
        f"{i}. {top_name(tr, s, names)} {bold(number(tr, ordinal(s.rating)))}"
        for i, s in enumerate(lines[:CAPTION_LINES], start=1)
    ]
    more = " · …" if len(lines) > CAPTION_LINES else ""
    return head + "\n" + " · ".join(first) + more


def top_in_private(tr: Translator) -> str:
    """``/top`` in a private chat: standings belong to a group."""
    return tr.gettext("/top shows a group's standings: send it in the group.")


# --- /stats ----------------------------------------------------------------------------------


def stats_text(tr: Translator, person: PersonStats, fallback_name: str = "") -> str:
    """``/stats``: a person's statistics over every recorded game, their rating in this
    group, and their daily."""
    s = person.games
    name = person.name or fallback_name
    head = (
        tr.gettext("Statistics of {name}").format(name=esc(shorten(name)))
        if name
        else tr.gettext("Statistics")
    )
    out = ["📊 " + bold(head)]
    if not s.games and not person.daily_attempts:
        out.append(tr.gettext("No games recorded yet."))
        return "\n".join(out)
    out.append(
        labelled(
            tr,
            tr.gettext("Games"),
            tr.gettext(
                "{games} (won {wins}, drawn {draws}, lost {losses}, unfinished {open})"
            ).format(games=s.games, wins=s.wins, draws=s.draws, losses=s.losses, open=s.unfinished),
        )
    )
    out.append(
        labelled(
            tr,
            tr.gettext("Rounds"),
            tr.gettext("{rounds}, as playing team {playing}: made {made}, nat {nat}").format(
                rounds=s.rounds,
                playing=s.rounds_playing,
                made=percent(tr, s.made_share),
                nat=percent(tr, s.nat_share),
            ),
        )
    )
    per_round = (
        (tr.gettext("Pits"), str(s.pits)),
        (tr.gettext("Roem per round"), _per(tr, s.roem_per_round)),
        (tr.gettext("Points per round"), _per(tr, s.points_per_round)),
    )
    out.append(" · ".join(labelled(tr, label, value) for label, value in per_round))
    if person.rating is not None:
        out.append(
            labelled(
                tr,
                tr.gettext("Rating in this group"),
                tr.ngettext(
                    "{rating} ({n} rated game)", "{rating} ({n} rated games)", person.rating.games
                ).format(rating=bold(number(tr, ordinal(person.rating))), n=person.rating.games),
            )
        )
    if person.daily_attempts:
        best = str(person.daily_best) if person.daily_best is not None else "—"
        out.append(
            labelled(
                tr,
                tr.gettext("Daily"),
                tr.gettext(
                    "{attempts} attempts, best {best}, streak {streak} days (longest {longest})"
                ).format(
                    attempts=person.daily_attempts,
                    best=best,
                    streak=person.streak,
                    longest=person.best_streak,
                ),
            )
        )
    return "\n".join(out)


def _per(tr: Translator, value: float | None) -> str:
    return "—" if value is None else number(tr, value)


def no_stats_for_bots(tr: Translator) -> str:
    """``/stats`` in reply to a bot (or a channel): it has none."""
    return tr.gettext("Bots have no statistics here.")
