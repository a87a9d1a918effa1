"""Computer players (issue 5): ``make_player("strong" | "basic" | "random")``.

All levels see only :func:`engine.observe.observe` and play every preset (``rules.md`` §7),
Klammern included (§9). They are plain picklable objects with a ``choose(obs, rng)`` method
(:class:`engine.players.Player`); the same ``(obs, rng seed)`` gives the same action (the
``strong`` player: with its default deterministic budget, see :mod:`engine.ai.strong`).

Modules: :mod:`engine.ai.dd` (double-dummy solver), :mod:`engine.ai.knowledge` (what a seat
knows about hidden cards), :mod:`engine.ai.sampler` (worlds consistent with it),
:mod:`engine.ai.inference` (how likely a world makes the public bids),
:mod:`engine.ai.basic` (rules of thumb), :mod:`engine.ai.strong` (PIMC with the solver),
:mod:`engine.ai.bidding` (trump choice from a fitted hand model, coefficients in
:mod:`engine.ai.bidcoef`), :mod:`engine.ai.tournament` (duplicate matches),
:mod:`engine.ai.tip` (the tip button's advice: strong's card and the expected round scores of
the best cards, issue 14).

Notes for the bot (``bot/computer.py``):

* Players hold only numbers (their budget settings) and pickle; an ``Observation`` pickles too.
  Create one player per worker process (``make_player`` is cheap; the first ``strong`` call
  imports the solver's C core and the model constants, well under a second).
* Budget: ``StrongPlayer(time_budget_ms=200.0, node_budget=3_500_000, max_worlds=48)`` are the
  defaults. The node budget (deterministic) binds first on a core like the reference machine
  (~25 M solver nodes/s), so decisions there depend only on ``(obs, seed)``; the wall-clock
  budget is a safety net that makes a slower machine return earlier with fewer worlds.
  ``time_budget_ms=None`` makes every decision reproducible anywhere (the tests use it).
* Memory: the solver's transposition table is 2^19 entries (about 15 MB) per process, plus
  the interpreter: about 50 MB per worker.
"""

from __future__ import annotations

from engine.players import Player, RandomPlayer

LEVELS = ("strong", "basic", "random", "ismcts")
"""The levels :func:`make_player` knows; ``strong`` is the default for computer seats."""


def make_player(level: str = "strong", *, deterministic: bool = False) -> Player:
    """A computer player of ``level``: ``"strong"`` (PIMC search with the double-dummy solver,
    the default), ``"basic"`` (rules of thumb), ``"random"`` (a random legal action) or
    ``"ismcts"`` (information-set MCTS with random rollouts in card play, ``strong``'s other
    decisions: the sparring partner of issue 14, :mod:`engine.ai.ismcts`).

    ``deterministic``: the strong player searches by its node budget only, without the
    wall-clock budget (``time_budget_ms=None``), so a decision depends on ``(obs, seed)``
    alone, on any machine under any load (the bot's daily deal). The other levels are so
    already.

    Raises:
        ValueError: for an unknown level.
    """
    if level == "strong":
        from engine.ai.strong import StrongPlayer

        return StrongPlayer(time_budget_ms=None) if deterministic else StrongPlayer()
    if level == "basic":
        from engine.ai.basic import BasicPlayer

        return BasicPlayer()
    if level == "random":
        return RandomPlayer()
    if level == "ismcts":
        from engine.ai.ismcts import IsmctsPlayer

        return IsmctsPlayer()
    raise ValueError(f"unknown computer level {level!r}; use one of {', '.join(LEVELS)}")


__all__ = ["LEVELS", "make_player"]
