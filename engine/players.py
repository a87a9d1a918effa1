"""The simplest computer player: a uniformly random legal action. Stronger players live in
:mod:`engine.ai`; all of them see only :func:`engine.observe.observe`."""

from __future__ import annotations

import random
from typing import Protocol

from engine.actions import Action
from engine.observe import Observation


class Player(Protocol):
    """A computer player: picks one of ``obs.legal`` for the seat it observes."""

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """Return one of ``obs.legal``; ``rng`` is the only source of randomness.

        Raises:
            ValueError: when ``obs.legal`` is empty (nothing to do).
        """
        ...


class RandomPlayer:
    """Plays a uniformly random legal action of its turn. Klammern (``rules.md`` §9): the legal
    actions include declarations, bella plays and contra/re, so it declares only real sequences
    and may skip declaring, bella, contra or re by playing a card instead."""

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """See :meth:`Player.choose`."""
        if not obs.legal:
            raise ValueError("no legal action")
        # ``rng.choice`` draws exactly as ``rng.randrange(len(legal))`` did (the same games),
        # with less Python around it.
        return rng.choice(obs.legal)
