"""How much card play can still gain: a player that sees every hand (a ceiling).

``python bench/bench_oracle.py --b ismcts --deals 300 --seed 2026 --preset amsterdam``

The *oracle* is the strong player with one world per card decision, the true deal: it plays
the double-dummy best card of the position as it is (both seats of its team see all four
hands; its bidding is strong's own, which does not look). Against ``--b`` in duplicate, as
:mod:`engine.ai.tournament` plays it (same deals, seats swapped; ``ismcts`` bids as strong, so
the contracts are the same on both tables and the difference is card play). No player that
sees only its own hand can lead ``--b`` by more than the oracle does, up to the oracle's own
weakness (it assumes that the others play double-dummy too). Bench only: nothing in the bot
or the engine can give a player the hidden cards.

``--reveal partner`` / ``--reveal left``: instead of the oracle, strong as it is (its
defaults and its 200 ms budget) shown only the partner's hand, or only the hand of the
opponent on its left, as sure cards of its knowledge: what one seat's cards are worth to it.

Prints one JSON object: ``deals``, ``mean_diff`` (oracle − b per round), ``ci95_low`` /
``ci95_high``, ``seconds``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # lab/ beside engine/

import engine.ai.strong as strong_mod
from engine.actions import Action
from engine.ai import make_player
from engine.ai.knowledge import Knowledge, knowledge
from engine.ai.sampler import WorldSampler, enumerate_worlds
from engine.ai.strong import StrongPlayer
from engine.ai.tournament import ci95, duplicate_rows
from engine.cards import Seat
from engine.observe import Observation
from engine.players import Player
from engine.round import RoundState
from engine.settings import Settings
from lab.reveal import reveal

_TRUTH: list[tuple[int, int, int, int] | None] = [None]


def _true_world(sampler: WorldSampler, limit: int) -> list[tuple[int, int, int, int]] | None:
    """``enumerate_worlds`` for the oracle: the true deal while the oracle decides."""
    truth = _TRUTH[0]
    if truth is None:
        return enumerate_worlds(sampler, limit)
    return [truth]


setattr(strong_mod, "enumerate_worlds", _true_world)  # noqa: B010 (the oracle's worlds)

_REVEAL: list[tuple[tuple[int, int, int, int], tuple[int, ...]] | None] = [None]
"""While a :class:`Revealed` player decides: the true hands and the seats it is shown."""


def _revealed_knowledge(obs: Observation) -> Knowledge:
    """``knowledge`` for a :class:`Revealed` player: the shown seats' hands as sure cards
    (:func:`lab.reveal.reveal`)."""
    k = knowledge(obs)
    shown = _REVEAL[0]
    if shown is None:
        return k
    hands, seats = shown
    return reveal(k, hands, seats)


setattr(strong_mod, "knowledge", _revealed_knowledge)  # noqa: B010 (the shown hands)


class Oracle(StrongPlayer):
    """Strong with the true deal as its only world (module docstring)."""

    def __init__(self) -> None:
        super().__init__(max_worlds=1, time_budget_ms=None, node_budget=None, tie_margin=0.0)

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """Strong's choice with the true deal as its only world."""
        _TRUTH[0] = _true_hands()
        try:
            return super().choose(obs, rng)
        finally:
            _TRUTH[0] = None


class Revealed(StrongPlayer):
    """Strong as it is (its budget too), shown the partner's hand (``partner``) or that of
    the opponent on its left (``left``): what one other seat's cards are worth. (Both
    opponents' hands would give the partner's too, by elimination: the oracle.)"""

    def __init__(self, reveal: str) -> None:
        super().__init__()
        self.reveal = reveal

    def seats(self, seat: int) -> tuple[int, ...]:
        """The seats whose hands ``seat`` is shown."""
        if self.reveal == "partner":
            return ((seat + 2) % 4,)
        return ((seat + 1) % 4,)

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """Strong's choice, shown :meth:`seats`' hands."""
        assert obs.seat is not None
        _REVEAL[0] = (_true_hands(), self.seats(int(obs.seat)))
        try:
            return super().choose(obs, rng)
        finally:
            _REVEAL[0] = None


_STATE: list[RoundState | None] = [None]
"""The table's true state at the decision being made (set by :func:`_before`)."""


def _before(state: RoundState, seat: Seat) -> None:
    """Before each decision (:func:`engine.ai.tournament.play_table`): keep the true state
    for an oracle or a revealed player to look at while it decides."""
    _STATE[0] = state


def _true_hands() -> tuple[int, int, int, int]:
    state = _STATE[0]
    assert state is not None
    h = state.hands
    return (h[0], h[1], h[2], h[3])


def _rows(args: tuple[str, str, int, int, int, str]) -> list[dict[str, object]]:
    b_level, preset, seed, lo, hi, reveal = args
    settings = Settings.from_preset(preset)
    a: Player = Oracle() if reveal == "all" else Revealed(reveal)
    return duplicate_rows(settings, a, make_player(b_level), seed, lo, hi, _before)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--b", default="ismcts")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--preset", default="amsterdam")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--reveal", choices=("all", "partner", "left"), default="all")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    w = max(1, args.workers)
    cuts = [args.deals * k // w for k in range(w + 1)]
    jobs = [(args.b, args.preset, args.seed, cuts[k], cuts[k + 1], args.reveal) for k in range(w)]
    if w == 1:
        parts = [_rows(jobs[0])]
    else:
        with multiprocessing.get_context("fork").Pool(w) as pool:
            parts = pool.map(_rows, jobs)
    diffs = [float(r["diff"]) for p in parts for r in p]  # type: ignore[arg-type]
    mean, lo, hi = ci95(diffs)
    print(
        json.dumps(
            {
                "a": "oracle" if args.reveal == "all" else f"strong+{args.reveal}",
                "b": args.b,
                "preset": args.preset,
                "deals": len(diffs),
                "mean_diff": round(mean, 2),
                "ci95_low": round(lo, 2),
                "ci95_high": round(hi, 2),
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
