"""A whole game (partij): dealer rotation and the score sheet. State = f(settings, seed, actions).

Klaverjassen: 16 or 8 rounds (``settings.rounds``), the boompje (``rules.md`` §2.3–2.4, §6.6).
Klammern: no rounds limit; rounds are played until a team reaches ``target_big_points`` big
points (§9.9); the sheet carries the small/big point tally (:class:`~engine.klammern.Tally`).
A Klammern deal that everybody passed is voided and the same dealer deals again (§9.3).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TypeGuard

from engine.actions import Action
from engine.cards import Seat, Team
from engine.deal import deal, round_rng
from engine.errors import IllegalAction, Reason
from engine.events import (
    BigPointsWon,
    Event,
    GameOver,
    KlammernRoundScored,
    RoundDealt,
    RoundScored,
)
from engine.fastinit import fast_init, fast_new
from engine.klammern.scoring import ZERO_TALLY, KlammernScore, Tally, next_tally, tallies
from engine.round import Phase, RoundResult, RoundState
from engine.rules import RoundScore
from engine.settings import Settings, TrumpSelection

# Enum members read on every card, as module constants: a global is far cheaper than
# ``Phase.PLAY`` (an enum class attribute, ~100 ns in CPython 3.11).
_EW, _NS, _REDEAL, _SCORED = Team.EW, Team.NS, Phase.REDEAL, Phase.SCORED
_TS_KLAMMERN = TrumpSelection.KLAMMERN


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One line of the score sheet: what each team wrote for a round.

    Attributes:
        number: round number, 1-based.
        dealer: the dealer.
        maker: who chose trump; ``playing_team`` is its team.
        trump: the trump suit (notation letter).
        result: the round's score. Klaverjassen: a :class:`~engine.rules.RoundScore`, card
            points and roem kept apart, nat and pit marked (§6.6). Klammern: a
            :class:`~engine.klammern.KlammernScore` (points, declarations, bella, contra/re,
            the small points won, §9.8).
        tally: Klammern: the small and big points after this round (§9.9); None otherwise.
    """

    number: int
    dealer: Seat
    maker: Seat
    trump: str
    result: RoundResult
    tally: Tally | None = None

    @property
    def playing_team(self) -> Team:
        """The maker's team."""
        return self.maker.team

    def total(self, team: Team) -> int:
        """Points plus roem written for ``team`` this round (Klammern: small points won)."""
        return self.result.score[team]


@fast_init
@dataclass(frozen=True, slots=True)
class GameState:
    """The full state of a game. Build with :meth:`new`; advance with :meth:`apply`.

    Attributes:
        settings: the table's rules.
        seed: the game's seed; every deal derives from it.
        first_dealer: dealer of round 1 (drawn from the seed).
        rounds: finished rounds, in order.
        current: the round in progress (None when the game is over).
        log_before: the actions applied before the current round was dealt.
        round_log: the actions applied since (the whole log is :attr:`log`; kept in two
            parts so that applying an action copies one round's actions, not the game's).
        redeals: Klammern: deals voided so far in the round in progress (§9.3).
        voided: Klammern: every voided deal of the game, in order (phase ``redeal``).
    """

    settings: Settings
    seed: int
    first_dealer: Seat
    rounds: tuple[RoundState, ...]
    current: RoundState | None
    log_before: tuple[Action, ...]
    round_log: tuple[Action, ...] = ()
    redeals: int = 0
    voided: tuple[RoundState, ...] = ()

    @property
    def log(self) -> tuple[Action, ...]:
        """Every action applied, in order (the game record)."""
        if not self.round_log:
            return self.log_before
        return self.log_before + self.round_log

    @classmethod
    def new(cls, settings: Settings, seed: int) -> GameState:
        """A fresh game, round 1 dealt."""
        state, _ = cls.new_with_events(settings, seed)
        return state

    @classmethod
    def new_with_events(cls, settings: Settings, seed: int) -> tuple[GameState, list[Event]]:
        """A fresh game and the events of its first deal."""
        first_dealer = Seat(random.Random(f"klaverjas:{seed}:dealer").randrange(4))
        game = cls(settings, seed, first_dealer, (), None, ())
        current, events = game._deal_round(1, first_dealer, 0)
        return replace(game, current=current), events

    def _deal_round(
        self, number: int, dealer: Seat, attempt: int
    ) -> tuple[RoundState, list[Event]]:
        turned = self.settings.trump_selection is TrumpSelection.TURNED
        d = deal(round_rng(self.seed, number, attempt), dealer, number == 1, with_turned=turned)
        state, events = RoundState.start(self.settings, number, d)
        return state, [RoundDealt(number, dealer), *events]

    # --- queries ---------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the last round is scored (Klammern: a team reached the target, §9.9)."""
        return self.current is None

    @property
    def is_klammern(self) -> bool:
        """True for a Klammern game (``rules.md`` §9)."""
        return self.settings.trump_selection is _TS_KLAMMERN

    @property
    def to_act(self) -> Seat | None:
        """Who must act now."""
        return self.current.to_act if self.current is not None else None

    @property
    def round_number(self) -> int:
        """The number of the round in progress (or of the last round when over)."""
        return self.current.number if self.current is not None else len(self.rounds)

    def legal_actions(self, seat: Seat | None = None) -> tuple[Action, ...]:
        """Legal actions of the player to act, or of ``seat`` (see
        :meth:`RoundState.legal_actions`)."""
        if self.current is None:
            return ()
        return self.current.legal_actions(seat)

    def sheet(self) -> tuple[SheetRow, ...]:
        """The sheet so far: one row per finished round (Klammern rows carry the tally)."""
        running: tuple[Tally | None, ...] = self.tallies() or (None,) * len(self.rounds)
        rows = []
        for r, tally in zip(self.rounds, running, strict=True):
            assert r.result is not None and r.maker is not None and r.trump is not None
            rows.append(SheetRow(r.number, r.dealer, r.maker, r.trump.value, r.result, tally))
        return tuple(rows)

    def tallies(self) -> tuple[Tally, ...]:
        """Klammern: the small/big point tally after each finished round (§9.9); empty for
        Klaverjassen."""
        if not self.is_klammern:
            return ()
        rounds = self.rounds
        memo = _TALLIES_MEMO[0]
        if memo[0] is rounds:
            return memo[1]
        done = tallies(r.result.small_points for r in rounds if _klammern(r.result))
        _TALLIES_MEMO[0] = (rounds, done)
        return done

    def tally(self) -> Tally:
        """Klammern: the tally after the last finished round (all zero before the first)."""
        memo = _TALLIES_MEMO[0]
        done = memo[1] if memo[0] is self.rounds else self.tallies()
        return done[-1] if done else ZERO_TALLY

    def small_points(self) -> dict[Team, int]:
        """Klammern: the small points each team stands at now (§9.9); 0 and 0 for
        Klaverjassen."""
        if not self.rounds or not self.is_klammern:
            return {_NS: 0, _EW: 0}
        return dict(self.tally().small)

    def totals(self) -> dict[Team, int]:
        """Total per team over the finished rounds: Klaverjassen points (§2.4); Klammern big
        points (§9.9)."""
        if self.is_klammern:
            return dict(self.tally().big)
        rounds = self.rounds
        memo = _TOTALS_MEMO[0]
        if memo[0] is rounds:
            ns, ew = memo[1]
        else:
            ns = ew = 0
            for r in rounds:
                assert r.result is not None
                score = r.result.score
                ns += score[_NS]
                ew += score[_EW]
            _TOTALS_MEMO[0] = (rounds, (ns, ew))
        return {_NS: ns, _EW: ew}

    def winner(self) -> Team | None:
        """The winning team once the game is over; None while playing or for a draw (a
        Klammern game has no draw)."""
        if not self.is_over:
            return None
        tot = self.totals()
        if tot[_NS] == tot[_EW]:
            return None
        return _NS if tot[_NS] > tot[_EW] else _EW

    # --- transitions -----------------------------------------------------------------------

    def apply(self, action: Action) -> tuple[GameState, list[Event]]:
        """Apply one action; when it ends a round the next is dealt, and after the last the
        game ends. Klammern: a voided deal is dealt again by the same dealer (§9.3), and the
        game ends when a team reaches ``target_big_points`` (§9.9).

        Events at the end of a round: Klaverjassen :class:`RoundScored`; Klammern
        :class:`KlammernRoundScored`, then :class:`BigPointsWon` when a team reached 5 small
        points; then :class:`GameOver` or the next :class:`RoundDealt`.

        Raises:
            IllegalAction: ``GAME_OVER`` after the end, else the round's refusal; the state is
                unchanged.
        """
        current = self.current
        if current is None:
            raise IllegalAction(Reason.GAME_OVER)
        new_round, events = current.apply(action)
        round_log = (*self.round_log, action)
        if new_round.phase is _REDEAL:
            redeals = self.redeals + 1
            nxt, more = self._deal_round(new_round.number, new_round.dealer, redeals)
            voided = (*self.voided, new_round)
            log = self.log_before + round_log
            state = replace(
                self, current=nxt, log_before=log, round_log=(), redeals=redeals, voided=voided
            )
            return state, events + more
        if new_round.phase is not _SCORED:
            state = _new_game(
                self.settings,
                self.seed,
                self.first_dealer,
                self.rounds,
                new_round,
                self.log_before,
                round_log,
                self.redeals,
                self.voided,
            )
            return state, events
        log = self.log_before + round_log
        result = new_round.result
        rounds = (*self.rounds, new_round)
        if _klammern(result):
            # The new tally from the last one (§9.9), remembered for the new rounds tuple:
            # the whole game's tallies are not added up again on every round.
            before = self.tallies()
            tally = next_tally(before[-1] if before else ZERO_TALLY, result.small_points)
            _TALLIES_MEMO[0] = (rounds, (*before, tally))
            events.append(
                KlammernRoundScored(
                    new_round.number,
                    result.winner,
                    _by_value(result.points),
                    _by_value(result.small_points),
                    result.multiplier,
                )
            )
            for t in (Team.NS, Team.EW):
                if tally.big_won[t]:
                    events.append(BigPointsWon(t, tally.big_won[t], _by_value(tally.reached)))
            game_over = max(tally.big.values()) >= self.settings.target_big_points
        else:
            assert isinstance(result, RoundScore)
            events.append(
                RoundScored(new_round.number, result.nat, result.pit, _by_value(result.score))
            )
            game_over = len(rounds) >= self.settings.rounds
            # The new totals from the last ones, remembered for the new rounds tuple (§2.4).
            so_far = self.totals()
            _TOTALS_MEMO[0] = (
                rounds,
                (so_far[_NS] + result.score[_NS], so_far[_EW] + result.score[_EW]),
            )
        if game_over:
            over = replace(self, rounds=rounds, current=None, log_before=log, round_log=())
            totals = over.totals()
            events.append(GameOver({t.value: v for t, v in totals.items()}, over.winner()))
            return over, events
        nxt, more = self._deal_round(new_round.number + 1, new_round.dealer.left, 0)
        state = _new_game(
            self.settings, self.seed, self.first_dealer, rounds, nxt, log, (), 0, self.voided
        )
        return state, events + more


_new_game = fast_new(GameState)  # the state after every action (engine.fastinit.fast_new)


def _klammern(result: RoundResult | None) -> TypeGuard[KlammernScore]:
    return isinstance(result, KlammernScore)


def _by_value(m: Mapping[Team, int]) -> dict[str, int]:
    return {t.value: int(m[t]) for t in (_NS, _EW)}


_TOTALS_MEMO: list[tuple[object, tuple[int, int]]] = [((), (0, 0))]
"""Klaverjassen totals of the last ``rounds`` tuple asked about (one entry, keyed by identity;
it holds its key alive)."""
_TALLIES_MEMO: list[tuple[object, tuple[Tally, ...]]] = [((), ())]
"""Klammern tallies of the last ``rounds`` tuple asked about (as :data:`_TOTALS_MEMO`)."""
