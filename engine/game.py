"""A whole game (partij): 16 or 8 rounds, dealer rotation and the boompje score sheet
(``rules.md`` §2.3–2.4, §6.6). State = f(settings, seed, actions)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from engine.actions import Action
from engine.cards import Seat, Team
from engine.deal import deal, round_rng
from engine.errors import IllegalAction, Reason
from engine.events import Event, GameOver, RoundDealt, RoundScored
from engine.round import Phase, RoundState
from engine.rules import RoundScore
from engine.settings import Settings, TrumpSelection


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One line of the boompje (§6.6): what each team wrote for a round.

    Attributes:
        number: round number, 1-based.
        dealer: the dealer.
        maker: who chose trump; ``playing_team`` is its team.
        trump: the trump suit (notation letter).
        result: the round's score: card points and roem kept apart, nat and pit marked.
    """

    number: int
    dealer: Seat
    maker: Seat
    trump: str
    result: RoundScore

    @property
    def playing_team(self) -> Team:
        """The maker's team."""
        return self.maker.team

    def total(self, team: Team) -> int:
        """Points plus roem written for ``team`` this round."""
        return self.result.score[team]


@dataclass(frozen=True, slots=True)
class GameState:
    """The full state of a game. Build with :meth:`new`; advance with :meth:`apply`.

    Attributes:
        settings: the table's rules.
        seed: the game's seed; every deal derives from it.
        first_dealer: dealer of round 1 (drawn from the seed).
        rounds: finished rounds, in order.
        current: the round in progress (None when the game is over).
        log: every action applied, in order (the game record).
    """

    settings: Settings
    seed: int
    first_dealer: Seat
    rounds: tuple[RoundState, ...]
    current: RoundState | None
    log: tuple[Action, ...]
    redeals: int = 0

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
        """True once the last round is scored."""
        return self.current is None

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
        """The boompje so far: one row per finished round."""
        rows = []
        for r in self.rounds:
            assert r.result is not None and r.maker is not None and r.trump is not None
            rows.append(SheetRow(r.number, r.dealer, r.maker, r.trump.value, r.result))
        return tuple(rows)

    def totals(self) -> dict[Team, int]:
        """Total score per team over the finished rounds (§2.4)."""
        out = {Team.NS: 0, Team.EW: 0}
        for r in self.rounds:
            assert r.result is not None
            for t in (Team.NS, Team.EW):
                out[t] += r.result.score[t]
        return out

    def winner(self) -> Team | None:
        """The winning team once the game is over; None while playing or for a draw."""
        if not self.is_over:
            return None
        tot = self.totals()
        if tot[Team.NS] == tot[Team.EW]:
            return None
        return Team.NS if tot[Team.NS] > tot[Team.EW] else Team.EW

    # --- transitions -----------------------------------------------------------------------

    def apply(self, action: Action) -> tuple[GameState, list[Event]]:
        """Apply one action; when it ends a round the next is dealt, and after the last the
        game ends.

        Raises:
            IllegalAction: ``GAME_OVER`` after the end, else the round's refusal; the state is
                unchanged.
        """
        current = self.current
        if current is None:
            raise IllegalAction(Reason.GAME_OVER)
        new_round, events = current.apply(action)
        log = (*self.log, action)
        if new_round.phase is Phase.REDEAL:
            redeals = self.redeals + 1
            nxt, more = self._deal_round(new_round.number, new_round.dealer, redeals)
            return replace(self, current=nxt, log=log, redeals=redeals), events + more
        if new_round.phase is not Phase.SCORED:
            return replace(self, current=new_round, log=log), events
        assert new_round.result is not None
        events.append(
            RoundScored(
                new_round.number,
                new_round.result.nat,
                new_round.result.pit,
                {t.value: v for t, v in new_round.result.score.items()},
            )
        )
        rounds = (*self.rounds, new_round)
        if len(rounds) >= self.settings.rounds:
            over = replace(self, rounds=rounds, current=None, log=log)
            totals = over.totals()
            events.append(GameOver({t.value: v for t, v in totals.items()}, over.winner()))
            return over, events
        nxt, more = self._deal_round(new_round.number + 1, new_round.dealer.left, 0)
        return replace(self, rounds=rounds, current=nxt, log=log, redeals=0), events + more
