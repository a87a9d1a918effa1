"""Klammern scoring: the round (``rules.md`` §9.8) and the small/big point tally (§9.9).

Only one team scores small points in a round (the round's winner), so at most one team can reach
5 small points in a round; the function :func:`big_points` still answers for any pair.
Small points beyond 5 are not carried over: after a big point both teams start again at 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.cards import Card, Suit, Team
from engine.fastinit import fast_init
from engine.klammern.sequences import declaration_points

SMALL_POINTS_PER_BIG = 5
BELLA_POINTS = 20
MULTIPLIERS = {(False, False): 1, (True, False): 2, (True, True): 4}
"""Small points for the round's winner by ``(contra, re)`` (§9.8)."""


def _teams(m: Mapping[Team, int]) -> dict[str, int]:
    return {t.value: int(m[t]) for t in (Team.NS, Team.EW)}


@fast_init
@dataclass(frozen=True, slots=True)
class KlammernScore:
    """The outcome of a Klammern round (``rules.md`` §9.8); the Klammern counterpart of
    :class:`engine.rules.RoundScore`.

    Attributes:
        playing_team: the maker's team (accepted, kleintje or beter, §9.3).
        card_points: card points won in tricks per team (last-trick 10 included), sum 162.
        tricks: tricks won per team.
        declarations: per team, the sequences its players declared (all of them, §9.5).
        declaration_points: per team, the declaration points scored: only the best team's.
        bella: per team, 20 for the team that announced bella, else 0 (§9.6).
        points: ``card_points + declaration_points + bella`` per team.
        winner: the team with more points; equal points: the defenders (§9.8).
        contra: contra was called (§9.7); ``re``: re was called.
        multiplier: 1, 2 after contra, 4 after re.
        small_points: small points won this round: ``multiplier`` for the winner, 0 for the
            other team.
    """

    playing_team: Team
    card_points: Mapping[Team, int]
    tricks: Mapping[Team, int]
    declarations: Mapping[Team, tuple[tuple[Card, ...], ...]]
    declaration_points: Mapping[Team, int]
    bella: Mapping[Team, int]
    points: Mapping[Team, int]
    winner: Team
    contra: bool
    re: bool
    multiplier: int
    small_points: Mapping[Team, int]

    @property
    def score(self) -> Mapping[Team, int]:
        """What the sheet writes for the round: the small points won (alias)."""
        return self.small_points

    @property
    def nat(self) -> bool:
        """True when the playing team lost the round (ties included, §9.8)."""
        return self.winner is not self.playing_team

    def to_dict(self) -> dict[str, object]:
        """JSON-able form with team keys ``"NS"``/``"EW"`` and cards in notation."""
        return {
            "playing_team": self.playing_team.value,
            "card_points": _teams(self.card_points),
            "tricks": _teams(self.tricks),
            "declarations": {
                t.value: [[str(c) for c in seq] for seq in self.declarations[t]]
                for t in (Team.NS, Team.EW)
            },
            "declaration_points": _teams(self.declaration_points),
            "bella": _teams(self.bella),
            "points": _teams(self.points),
            "winner": self.winner.value,
            "contra": self.contra,
            "re": self.re,
            "multiplier": self.multiplier,
            "small_points": _teams(self.small_points),
        }


def score_klammern_round(
    playing_team: Team,
    card_points: Mapping[Team, int],
    declarations: Mapping[Team, Sequence[Sequence[Card]]],
    trump: Suit,
    bella: Team | None = None,
    contra: bool = False,
    re: bool = False,
    tricks: Mapping[Team, int] | None = None,
) -> KlammernScore:
    """Score a Klammern round (``rules.md`` §9.5, §9.6, §9.8).

    Args:
        playing_team: the maker's team.
        card_points: card points per team, last-trick 10 included.
        declarations: per team, the declared sequences (compared by §9.5).
        trump: the trump suit (for the comparison of declarations).
        bella: the team that announced bella, if any (never compared, §9.6).
        contra, re: whether they were called (§9.7); re implies contra.
        tricks: tricks won per team (informational).

    Raises:
        ValueError: re without contra.
        NotationError: a declaration that is not a sequence.
    """
    if re and not contra:
        raise ValueError("re without contra")
    decl = {t: tuple(tuple(seq) for seq in declarations.get(t, ())) for t in (Team.NS, Team.EW)}
    decl_points = declaration_points(decl, trump)
    bella_points = {t: BELLA_POINTS if bella is t else 0 for t in (Team.NS, Team.EW)}
    points = {t: card_points[t] + decl_points[t] + bella_points[t] for t in (Team.NS, Team.EW)}
    defenders = playing_team.other
    winner = playing_team if points[playing_team] > points[defenders] else defenders
    multiplier = MULTIPLIERS[(contra, re)]
    return KlammernScore(
        playing_team=playing_team,
        card_points=dict(card_points),
        tricks=dict(tricks) if tricks is not None else {Team.NS: 0, Team.EW: 0},
        declarations=decl,
        declaration_points=decl_points,
        bella=bella_points,
        points=points,
        winner=winner,
        contra=contra,
        re=re,
        multiplier=multiplier,
        small_points={winner: multiplier, winner.other: 0},
    )


def big_points(small: Mapping[Team, int]) -> dict[Team, int]:
    """Big points earned at these small points (§9.9): a team with 5 or more gets 1, or 2
    when the other team has 0 small points ("5:0")."""
    out = {Team.NS: 0, Team.EW: 0}
    for team in (Team.NS, Team.EW):
        if small[team] >= SMALL_POINTS_PER_BIG:
            out[team] = 2 if small[team.other] == 0 else 1
    return out


@fast_init
@dataclass(frozen=True, slots=True)
class Tally:
    """The running Klammern score after a round (``rules.md`` §9.9): a line of the sheet.

    Attributes:
        reached: small points per team after this round's were added, before any reset
            (what the sheet writes, e.g. NS 6, EW 3).
        big_won: big points won this round per team (0, 1 or 2).
        big: big points per team so far, this round's included.
        small: small points per team the next round starts from: 0 and 0 after a big point,
            else ``reached``.
    """

    reached: Mapping[Team, int]
    big_won: Mapping[Team, int]
    big: Mapping[Team, int]
    small: Mapping[Team, int]

    @property
    def reset(self) -> bool:
        """True when a big point was won this round and the small points start again at 0."""
        return any(self.big_won.values())

    def to_dict(self) -> dict[str, object]:
        """JSON-able form with team keys."""
        return {
            "reached": _teams(self.reached),
            "big_won": _teams(self.big_won),
            "big": _teams(self.big),
            "small": _teams(self.small),
        }


ZERO_TALLY = Tally(
    reached={Team.NS: 0, Team.EW: 0},
    big_won={Team.NS: 0, Team.EW: 0},
    big={Team.NS: 0, Team.EW: 0},
    small={Team.NS: 0, Team.EW: 0},
)
"""The tally before the first round of a game."""


def next_tally(previous: Tally, won: Mapping[Team, int]) -> Tally:
    """The tally after a round in which the teams won ``won`` small points (§9.9)."""
    reached = {t: previous.small[t] + won[t] for t in (Team.NS, Team.EW)}
    big_won = big_points(reached)
    big = {t: previous.big[t] + big_won[t] for t in (Team.NS, Team.EW)}
    reset = any(big_won.values())
    small = {Team.NS: 0, Team.EW: 0} if reset else dict(reached)
    return Tally(reached=reached, big_won=big_won, big=big, small=small)


def tallies(won: Iterable[Mapping[Team, int]]) -> tuple[Tally, ...]:
    """The running tally after each round, given the small points won per round."""
    out: list[Tally] = []
    tally = ZERO_TALLY
    for w in won:
        tally = next_tally(tally, w)
        out.append(tally)
    return tuple(out)
