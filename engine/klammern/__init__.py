"""Klammern (``rules.md`` §9), the German cousin of Klaverjassen, as settings and phases of the
same engine: the bidding lives in :mod:`engine.bidding`, the play rule in :mod:`engine.rules`
(``PlayRule.KLAMMERN``), and this package holds what only Klammern has:

- :mod:`engine.klammern.sequences`: declarations, their value and comparison (§9.5);
- :mod:`engine.klammern.scoring`: the round result and the small/big point tally (§9.8–9.9);
- :mod:`engine.klammern.play`: the round hooks for declare, bella, contra and re (§9.5–9.7),
  registered here as the round's variant for ``RoemMode.DECLARATIONS``
  (:func:`engine.round.register_variant`).
"""

from engine.klammern import play
from engine.klammern.play import KlammernState, klammern_state
from engine.klammern.scoring import (
    SMALL_POINTS_PER_BIG,
    KlammernScore,
    Tally,
    big_points,
    next_tally,
    score_klammern_round,
    tallies,
)
from engine.klammern.sequences import (
    Declaration,
    best_team,
    declaration_key,
    declaration_points,
    runs,
    sequence_value,
)
from engine.round import register_variant
from engine.settings import RoemMode

__all__ = [
    "SMALL_POINTS_PER_BIG",
    "Declaration",
    "KlammernScore",
    "KlammernState",
    "Tally",
    "best_team",
    "big_points",
    "declaration_key",
    "declaration_points",
    "klammern_state",
    "next_tally",
    "runs",
    "score_klammern_round",
    "sequence_value",
    "tallies",
]

register_variant(RoemMode.DECLARATIONS, play)  # the module implements RoundVariant
