"""Computer players (``docs/design.md`` §7):
``make_player("strong" | "basic" | "random" | "ismcts")``, optionally with constructor options
(``"strong:tie_margin=3"``, :func:`parse_level`).

All levels see only :func:`engine.observe.observe` and play every preset (``rules.md`` §7),
Klammern included (§9). They are plain picklable objects with a ``choose(obs, rng)`` method
(:class:`engine.players.Player`); the same ``(obs, rng seed)`` gives the same action (the
``strong`` player: with its default deterministic budget, see :mod:`engine.ai.strong`).

Modules: :mod:`engine.ai.dd` (double-dummy solver), :mod:`engine.ai.knowledge` (what a seat
knows about hidden cards), :mod:`engine.ai.sampler` (worlds consistent with it),
:mod:`engine.ai.locations` (a card-location model fitted on games: the strong player's
worlds are drawn from it), :mod:`engine.ai.inference` (how likely a world makes the public
bids),
:mod:`engine.ai.basic` (rules of thumb), :mod:`engine.ai.strong` (PIMC with the solver),
:mod:`engine.ai.bidding` (trump choice from a fitted hand model, coefficients in
:mod:`engine.ai.bidcoef`), :mod:`engine.ai.tournament` (duplicate matches),
:mod:`engine.ai.tip` (the tip button's advice: strong's card and the expected round scores of
the best cards).

Notes for the bot (``bot/computer.py``):

* Players hold only numbers (their budget settings) and pickle; an ``Observation`` pickles too.
  Create one player per worker process (``make_player`` is cheap; the first ``strong`` call
  imports the solver's C core and the model constants, well under a second).
* Budget: ``StrongPlayer(time_budget_ms=200.0, node_budget=3_500_000, max_worlds=48)`` are the
  defaults. The node budget (deterministic) binds first on a core like the reference machine
  (~25 M solver nodes/s), so decisions there depend only on ``(obs, seed)``; the wall-clock
  budget is a safety net that makes a slower machine return earlier with fewer worlds.
  ``time_budget_ms=None`` makes every decision reproducible anywhere (the tests use it).
* Memory: the solver's transposition table is 2^19 entries (about 15 MB) per process, the
  card-location model about 13 MB once loaded (``locations.bin``, 1 MB on disk), plus the
  interpreter: about 60 MB per worker.
"""

from __future__ import annotations

import argparse
import ast

from engine.players import Player, RandomPlayer

LEVELS = ("strong", "basic", "random", "ismcts")
"""The levels :func:`make_player` knows; ``strong`` is the default for computer seats."""


def parse_level(spec: str) -> tuple[str, dict[str, object]]:
    """Split a level spec ``"level"`` or ``"level:key=value,key=value"`` into the level and
    its constructor options (values are Python literals: ``strong:tie_margin=3,max_worlds=32``).
    The tournament tool takes such specs for duplicate A/B tests of one setting.

    Raises:
        ValueError: unknown level, options on a level without any, or a value that is not a
            literal.
    """
    level, _, rest = spec.partition(":")
    if level not in LEVELS:
        raise ValueError(f"unknown computer level {level!r}; use one of {', '.join(LEVELS)}")
    options: dict[str, object] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise ValueError(f"option {item!r} is not key=value")
        try:
            options[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError) as e:
            raise ValueError(f"option {item!r}: value is not a literal") from e
    if options and level in ("basic", "random"):
        raise ValueError(f"level {level!r} takes no options")
    return level, options


def level_arg(spec: str) -> str:
    """``spec`` unchanged when :func:`parse_level` accepts it: an argparse ``type`` for the
    command-line tools' level options (tournament, benches), so a bad level is a usage error.

    Raises:
        argparse.ArgumentTypeError: with :func:`parse_level`'s message.
    """
    try:
        parse_level(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from e
    return spec


def make_player(level: str = "strong", *, deterministic: bool = False) -> Player:
    """A computer player of ``level``: ``"strong"`` (PIMC search with the double-dummy solver,
    the default), ``"basic"`` (rules of thumb), ``"random"`` (a random legal action) or
    ``"ismcts"`` (information-set MCTS with random rollouts in card play, ``strong``'s other
    decisions: the sparring partner ``strong`` is measured against, :mod:`engine.ai.ismcts`).

    ``level`` may carry constructor options (:func:`parse_level`), e.g.
    ``"strong:tie_margin=3"`` or ``"ismcts:iterations=400"``.

    ``deterministic``: the strong player searches by its node budget only, without the
    wall-clock budget (``time_budget_ms=None``), so a decision depends on ``(obs, seed)``
    alone, on any machine under any load (the bot's daily deal). The other levels are so
    already.

    Raises:
        ValueError: for an unknown level or bad options (:func:`parse_level`); TypeError for
            an option the player does not have.
    """
    level, options = parse_level(level)
    if level == "strong":
        from engine.ai.strong import StrongPlayer

        if deterministic:
            options["time_budget_ms"] = None
        return StrongPlayer(**options)  # type: ignore[arg-type]
    if level == "basic":
        from engine.ai.basic import BasicPlayer

        return BasicPlayer()
    if level == "random":
        return RandomPlayer()
    from engine.ai.ismcts import IsmctsPlayer

    return IsmctsPlayer(**options)  # type: ignore[arg-type]


__all__ = ["LEVELS", "level_arg", "make_player", "parse_level"]
