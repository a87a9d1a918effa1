"""Statistics and ratings, pure: what an ended game adds for each person who sat in
it, a person's totals, and the group's ratings (OpenSkill, Plackett-Luce, two against two).

Rules (README "Standings and statistics"):

* Every game that left the lobby and ended counts for each person who sat in it: the human
  of each seat, or the person a computer took that seat over from (a hand-over or three
  timeouts: the seat stays theirs). A lobby that never started counts for nobody.
* A finished game is won, drawn or lost by the person's team (``rules.md`` §2.4; Klammern by
  big points, §9.9). A stopped or abandoned game counts as played, neither won, drawn nor
  lost, and changes no rating; the rounds scored before it stopped count in the round
  statistics.
* Per round (each scored round of the game): the team's points written on the sheet (§6;
  Klammern: the round's points, cards + declarations + bella, §9.8), its roem (§5, as counted
  in its tricks; Klammern: declarations and bella), whether it was the playing team and then
  whether it made it or went nat (§6.2–6.3; Klammern: won or lost the round), and a pit (§6.4).
* Ratings: only finished group games (not private ones, not the daily). Each team is its
  seats; a computer seat is a player of fixed rating (:data:`COMPUTER`), never updated.
  Everybody starts at OpenSkill's default (μ 25, σ 25/3); the shown rating is the
  conservative ordinal μ − 3σ. "All time" is the stored rating, updated game by game in the
  order games end; "this month" is computed the same way from the month's games only, from
  the default (a fresh monthly table).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

from openskill.models import PlackettLuce

from engine.cards import Team
from engine.game import GameState
from engine.rules import RoundScore
from storage import Game, GameStatus, SeatKind
from storage.stats_rows import GameRecord, PlayerResult, Rating, ResultKind

MODEL = PlackettLuce()
"""The rating model (OpenSkill's defaults: μ 25, σ 25/3, β 25/6)."""

NEW = Rating(MODEL.mu, MODEL.sigma, 0)
"""A person's rating before their first rated game."""

COMPUTER = Rating(MODEL.mu, MODEL.sigma / 2)
"""A computer seat's fixed rating: a default player's μ, known better (half the σ)."""


def ordinal(rating: Rating) -> float:
    """The shown rating: μ − 3σ (OpenSkill's conservative ordinal)."""
    return rating.mu - 3 * rating.sigma


def seat_people(game: Game) -> dict[int, int]:
    """Seat → the person of the seat: its human, or the former player a computer took it
    over from."""
    people: dict[int, int] = {}
    for s in game.seats:
        person = s.user_id if s.kind is SeatKind.HUMAN else s.former_user_id
        if person is not None:
            people[s.index] = person
    return people


def _team(seat: int) -> Team:
    return Team.NS if seat % 2 == 0 else Team.EW


def _other(team: Team) -> Team:
    return Team.EW if team is Team.NS else Team.NS


def game_record(game: Game, state: GameState | None) -> GameRecord:
    """What the ended ``game`` (its engine state ``state``; None: it never left the lobby)
    adds to the statistics (module docstring).

    Raises:
        ValueError: the game has not ended.
    """
    status, ended = game.status, game.updated_at
    if state is None or game.snapshot in (None, "{}"):
        return GameRecord(game.game_id, game.chat_id, status, ended)
    winner = state.winner() if status is GameStatus.FINISHED and state.is_over else None
    results = []
    for seat, person in sorted(seat_people(game).items()):
        team = _team(seat)
        result = ResultKind.NONE
        if status is GameStatus.FINISHED:
            result = (
                ResultKind.DRAW
                if winner is None
                else ResultKind.WIN
                if winner is team
                else ResultKind.LOSS
            )
        tally = _rounds(state, team)
        results.append(
            PlayerResult(game.game_id, game.chat_id, status, ended, person, seat, result, *tally)
        )
    return GameRecord(game.game_id, game.chat_id, status, ended, tuple(results))


def _rounds(state: GameState, team: Team) -> tuple[int, ...]:
    """``rounds, rounds_playing, made, nat, pits, roem, points, against`` of ``team``."""
    other = _other(team)
    rounds = playing = made = nat = pits = roem = points = against = 0
    for r in state.rounds:
        result = r.result
        if result is None:
            continue
        rounds += 1
        if result.playing_team is team:
            playing += 1
            made += not result.nat
            nat += result.nat
        if isinstance(result, RoundScore):
            points += int(result.score[team])
            against += int(result.score[other])
            roem += int(result.roem[team])
            pits += result.pit is team
        else:  # Klammern: the round's points, not its small points (§9.5-9.8)
            points += int(result.points[team])
            against += int(result.points[other])
            roem += int(result.declaration_points[team]) + int(result.bella[team])
    return rounds, playing, made, nat, pits, roem, points, against


def is_rated(results: Sequence[PlayerResult]) -> bool:
    """Whether a game's results change ratings: a finished group game (module docstring)."""
    return bool(results) and results[0].chat_id < 0 and results[0].status is GameStatus.FINISHED


def rate_game(results: Sequence[PlayerResult], current: Mapping[int, Rating]) -> dict[int, Rating]:
    """The new ratings of the people of one game (``results``: its results, all of one game)
    from their ``current`` ones (missing: :data:`NEW`); empty for a game that is not rated."""
    if not is_rated(results):
        return {}
    seats = {r.seat: r for r in results}
    teams: list[list[Rating]] = [[], []]
    for seat in range(4):
        person = seats.get(seat)
        rating = COMPUTER if person is None else current.get(person.user_id, NEW)
        teams[seat % 2].append(rating)
    first = results[0]
    ns = first.result if first.seat % 2 == 0 else _flip(first.result)
    ranks = {ResultKind.WIN: [0.0, 1.0], ResultKind.LOSS: [1.0, 0.0]}.get(ns, [0.0, 0.0])
    rated = MODEL.rate(
        [[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in teams], ranks=ranks
    )
    out: dict[int, Rating] = {}
    for seat, person in seats.items():
        new = rated[seat % 2][seat // 2]
        old = current.get(person.user_id, NEW)
        out[person.user_id] = Rating(float(new.mu), float(new.sigma), old.games + 1)
    return out


def _flip(kind: ResultKind) -> ResultKind:
    """The other team's result."""
    return {ResultKind.WIN: ResultKind.LOSS, ResultKind.LOSS: ResultKind.WIN}.get(kind, kind)


def replay_ratings(results: Iterable[PlayerResult]) -> dict[int, Rating]:
    """The ratings after rating every game of ``results`` in their order (results of one game
    next to each other, as :meth:`Repository.player_results` gives them), from :data:`NEW`."""
    ratings: dict[int, Rating] = {}
    for _, game in groupby(results, key=lambda r: r.game_id):
        ratings.update(rate_game(list(game), ratings))
    return ratings


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A person's totals over their results (:func:`player_stats`).

    Attributes:
        games, wins, draws, losses, unfinished: games played and how they ended (unfinished:
            stopped or abandoned, neither won nor lost).
        rounds, rounds_playing, made, nat, pits, roem, points: sums over the games.
    """

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    unfinished: int = 0
    rounds: int = 0
    rounds_playing: int = 0
    made: int = 0
    nat: int = 0
    pits: int = 0
    roem: int = 0
    points: int = 0

    @property
    def made_share(self) -> float | None:
        """Share of the rounds as playing team that were made (None: never played one)."""
        return self.made / self.rounds_playing if self.rounds_playing else None

    @property
    def nat_share(self) -> float | None:
        """Share of the rounds as playing team that went nat."""
        return self.nat / self.rounds_playing if self.rounds_playing else None

    @property
    def roem_per_round(self) -> float | None:
        """Roem per round played."""
        return self.roem / self.rounds if self.rounds else None

    @property
    def points_per_round(self) -> float | None:
        """Points per round played."""
        return self.points / self.rounds if self.rounds else None

    @property
    def win_share(self) -> float | None:
        """Games won of games played (None: none played)."""
        return self.wins / self.games if self.games else None


def player_stats(results: Iterable[PlayerResult]) -> PlayerStats:
    """The totals of ``results`` (one person's, or any selection)."""
    n = [0] * 12
    for r in results:
        n[0] += 1
        n[1] += r.result is ResultKind.WIN
        n[2] += r.result is ResultKind.DRAW
        n[3] += r.result is ResultKind.LOSS
        n[4] += r.result is ResultKind.NONE
        for i, v in enumerate(
            (r.rounds, r.rounds_playing, r.made, r.nat, r.pits, r.roem, r.points), start=5
        ):
            n[i] += v
    return PlayerStats(*n)


@dataclass(frozen=True, slots=True)
class Standing:
    """A person's line in a group's standings.

    Attributes:
        user_id: the person.
        rating: their rating (the shown value: :func:`ordinal`).
        stats: their totals in the group over the period.
    """

    user_id: int
    rating: Rating
    stats: PlayerStats


def standings(results: Sequence[PlayerResult], ratings: Mapping[int, Rating]) -> list[Standing]:
    """A group's standings over ``results`` (the group's, of one period) with ``ratings``:
    everybody with a result, best rating first (then more games, then user id)."""
    people = sorted({r.user_id for r in results})
    lines = [
        Standing(u, ratings.get(u, NEW), player_stats(r for r in results if r.user_id == u))
        for u in people
    ]
    lines.sort(key=lambda s: (-ordinal(s.rating), -s.stats.games, s.user_id))
    return lines
