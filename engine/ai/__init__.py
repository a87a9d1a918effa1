"""Computer players (issue 5): ``make_player("strong" | "basic" | "random")``.

All levels see only :func:`engine.observe.observe` and play every preset (``rules.md`` §7),
Klammern included (§9). They are plain picklable objects with a ``choose(obs, rng)`` method
(:class:`engine.players.Player`); the same ``(obs, rng seed)`` gives the same action (the
``strong`` player: with its default deterministic budget, see :mod:`engine.ai.strong`).

Modules: :mod:`engine.ai.dd` (double-dummy solver), :mod:`engine.ai.knowledge` (what a seat
knows about hidden cards), :mod:`engine.ai.sampler` (worlds consistent with it),
:mod:`engine.ai.basic` (rules of thumb), :mod:`engine.ai.strong` (PIMC with the solver),
:mod:`engine.ai.bidding` (trump choice from a fitted hand model),
:mod:`engine.ai.tournament` (duplicate matches).
"""

from __future__ import annotations

from engine.players import Player, RandomPlayer

LEVELS = ("strong", "basic", "random")
"""The levels :func:`make_player` knows; ``strong`` is the default for computer seats."""


def make_player(level: str = "strong") -> Player:
    """A computer player of ``level``: ``"strong"`` (PIMC search with the double-dummy solver,
    the default), ``"basic"`` (rules of thumb) or ``"random"`` (a random legal action).

    Raises:
        ValueError: for an unknown level.
    """
    if level == "strong":
        from engine.ai.strong import StrongPlayer

        return StrongPlayer()
    if level == "basic":
        from engine.ai.basic import BasicPlayer

        return BasicPlayer()
    if level == "random":
        return RandomPlayer()
    raise ValueError(f"unknown computer level {level!r}; use one of {', '.join(LEVELS)}")


__all__ = ["LEVELS", "make_player"]
