"""Klammern on the table and in the hand (``rules.md`` §9): the declarations made, bella, contra
and re, the points so far and the small / big points, and the waiting for a human's contra or
re. Pure functions of an :class:`~engine.observe.Observation`; HTML unless a docstring says
plain. The sheet and the round summary are in :mod:`bot.render.sheet_klammern`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.i18n import Translator
from bot.render.bids import declaration_label
from bot.render.common import Player, bold, labelled, player_html, team_html
from engine.actions import Bella, Contra, Declare, Re
from engine.cards import TEAMS, Seat, Team
from engine.klammern.scoring import BELLA_POINTS
from engine.observe import Observation
from engine.round import Phase


def scoring_team(obs: Observation) -> Team | None:
    """The team whose declarations count, once the first trick is complete (§9.5); None
    before that or when nobody declared."""
    points = obs.declaration_points or {}
    return next((t for t in TEAMS if points.get(t)), None)


def declarations_html(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    """ "📣 Gemeld: Anna: Terz ♥8–10 · Bert: Fuffzig ♠10–A" (§9.5); after the first trick the
    declarations of the team that does not score are struck through. Empty when none."""
    km = obs.klammern
    if km is None or not km.declarations:
        return ""
    compared = bool(obs.tricks)
    best = scoring_team(obs)
    parts = []
    for d in km.declarations:
        text = labelled(tr, player_html(tr, players, d.seat), declaration_label(tr, d.cards))
        parts.append(f"<s>{text}</s>" if compared and d.team is not best else text)
    return "📣 " + tr.gettext("Declared: {declarations}").format(declarations=" · ".join(parts))


def bella_html(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    """ "👑 Bella van Bert: 20 punten" once announced (§9.6), else empty."""
    km = obs.klammern
    if km is None or km.bella is None:
        return ""
    return "👑 " + tr.gettext("Bella by {name}: {n} points").format(
        name=player_html(tr, players, km.bella), n=BELLA_POINTS
    )


def calls_html(tr: Translator, obs: Observation, players: Sequence[Player]) -> str:
    """ "⚔️ Kontra von Dirk: die Runde zählt doppelt." or with re "… vierfach" (§9.7), else
    empty."""
    km = obs.klammern
    if km is None or km.contra is None:
        return ""
    contra = player_html(tr, players, km.contra)
    if km.re is None:
        return "⚔️ " + tr.gettext("Contra by {name}: the round counts double.").format(name=contra)
    return "⚔️ " + tr.gettext(
        "Contra by {name} and re by {other}: the round counts four times."
    ).format(name=contra, other=player_html(tr, players, km.re))


def klammern_lines(tr: Translator, obs: Observation, players: Sequence[Player]) -> list[str]:
    """The non-empty lines of :func:`declarations_html`, :func:`bella_html` and
    :func:`calls_html`, in that order."""
    lines = [
        declarations_html(tr, obs, players),
        bella_html(tr, obs, players),
        calls_html(tr, obs, players),
    ]
    return [line for line in lines if line]


def team_extras(tr: Translator, obs: Observation, team: Team) -> list[str]:
    """Plain parts for a team's line: "20 gemeld" (declarations that count, §9.5) and
    "20 bella" (§9.6); empty for Klaverjassen or when the team has neither."""
    km = obs.klammern
    if km is None:
        return []
    out = []
    declared = (obs.declaration_points or {}).get(team, 0)
    if declared:
        out.append(tr.gettext("{n} declared").format(n=declared))
    if km.bella is not None and km.bella.team is team:
        out.append(tr.gettext("{n} bella").format(n=BELLA_POINTS))
    return out


def _score_line(tr: Translator, values: Mapping[Team, int], players: Sequence[Player]) -> str:
    return " · ".join(f"{team_html(tr, players, t)} {bold(str(values[t]))}" for t in TEAMS)


def standing_html(
    tr: Translator,
    big: Mapping[Team, int],
    small: Mapping[Team, int],
    players: Sequence[Player],
) -> str:
    """Two lines (§9.9): "📋 Grote punten: Anna & Cas 1 · Bert & Dirk 0" and "Kleine punten:
    Anna & Cas 2 · Bert & Dirk 3"."""
    return "\n".join(
        [
            "📋 " + tr.gettext("Big points: {score}").format(score=_score_line(tr, big, players)),
            tr.gettext("Small points: {score}").format(score=_score_line(tr, small, players)),
        ]
    )


def open_call(obs: Observation) -> str | None:
    """``"contra"`` or ``"re"`` when the viewer may call it now, else None."""
    for a in obs.legal:
        if isinstance(a, Contra):
            return "contra"
        if isinstance(a, Re):
            return "re"
    return None


def waiting_html(
    tr: Translator, obs: Observation, players: Sequence[Player], seats: Sequence[Seat]
) -> str:
    """For the group: "⏳ Wachten op Anna: kontra of niet?" while the computers wait for a
    human's contra or re (``seats``: :func:`bot.service.awaited_seats`). Empty without."""
    if not seats or obs.klammern is None or obs.maker is None:
        return ""
    names = tr.gettext("{first} & {second}") if len(seats) > 1 else "{first}"
    who = names.format(
        first=player_html(tr, players, seats[0]), second=player_html(tr, players, seats[-1])
    )
    if seats[0].team is obs.maker.team:
        return "⏳ " + tr.gettext("Waiting for {name}: re or not?").format(name=who)
    return "⏳ " + tr.gettext("Waiting for {name}: contra or not?").format(name=who)


def hand_prompts(tr: Translator, obs: Observation, *, awaited: bool = False) -> list[str]:
    """What the viewer may do besides playing a card (§9.5–9.7), one line each: declare before
    the first card, bella with K or Q of trump, contra or re and until when. ``awaited``: the
    computers wait for the viewer's contra / re (then the line asks for an answer)."""
    if obs.klammern is None or obs.phase is not Phase.PLAY:
        return []
    lines = []
    if any(isinstance(a, Declare) for a in obs.legal):
        lines.append(
            "📣 " + tr.gettext("Declare your sequences now: after your first card it is too late.")
        )
    if any(isinstance(a, Bella) for a in obs.legal):
        lines.append(
            "👑 " + tr.gettext("Play king or queen of trump with the Bella button to score bella.")
        )
    call = open_call(obs)
    if call is not None and awaited:
        ask = (
            tr.gettext("The next card waits for you: contra or no contra?")
            if call == "contra"
            else tr.gettext("The next card waits for you: re or no re?")
        )
        lines.append("👉 " + bold(ask))
    elif call == "contra":
        lines.append(
            "⚔️ " + tr.gettext("You may call contra until the second trick begins (double).")
        )
    elif call == "re":
        lines.append(
            "⚔️ " + tr.gettext("You may answer re until the third trick begins (four times).")
        )
    return lines
