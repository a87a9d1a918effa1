"""The tip button's advice: what the ``strong`` computer player would do in a seat, and the
expected round score of the best few legal cards, from the seat's own view.

:func:`tip` is pure and deterministic: it sees only the seat's
:class:`~engine.observe.Observation` (never a hidden card, ``docs/design.md`` §2) and decides with
:class:`~engine.ai.strong.StrongPlayer` under its node budget without a wall clock
(``time_budget_ms=None``), so the same ``(obs, seed)`` gives the same tip on any machine under
any load, and the suggested action is exactly what that player chooses for ``(obs, seed)``.
No rules of its own: the worlds, the double-dummy values and the choice are strong's
(:meth:`~engine.ai.strong.StrongPlayer.decide`, :meth:`~engine.ai.strong.StrongPlayer.evaluate`).

Scores (Klaverjassen only): strong's utility of a card is the viewer's team's expected round
score minus the other team's (``rules.md`` §6.1–6.4: nat counts as 0 against everything; early
in the round the point difference with the nat cliff, see :mod:`engine.ai.strong`). As a round
score of the viewer's team that is ``(T + margin) / 2`` with ``T`` = 162 + the roem both teams
have so far (§1.4, §5): exact when no more roem or pit follows (the margin counts them; the
total does not), at least 0. Klammern (§9.8) decides by small points, not by a round score:
its tip names the card without scores.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.actions import Action, PlayCard
from engine.ai.knowledge import knowledge
from engine.ai.strong import Evaluation, StrongPlayer
from engine.cards import CARDS, Card, Team
from engine.observe import Observation
from engine.settings import Variant

TOP = 3
"""Cards with a score in a tip by default."""


@dataclass(frozen=True, slots=True)
class CardScore:
    """One legal card's expected outcome for the viewer's team.

    Attributes:
        card: the card.
        score: expected round score of the viewer's team, points (module docstring; ≥ 0).
        margin: strong's utility: expected round score of the viewer's team minus the other
            team's, points.
    """

    card: Card
    score: float
    margin: float


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A tip.

    Attributes:
        action: what the strong player would do now (one of ``obs.legal``).
        scores: the best legal cards, best first (highest score, then card order), at most
            ``top`` of them; empty outside card play, for Klammern, and when not even one
            world fitted in the search budget.
        worlds: worlds the scores are averaged over (0 without scores).
    """

    action: Action
    scores: tuple[CardScore, ...]
    worlds: int

    @property
    def card(self) -> Card | None:
        """The suggested card (None when the action is not a card play: a bid, a claim...)."""
        return self.action.card if isinstance(self.action, PlayCard) else None


def tip_player() -> StrongPlayer:
    """The strong player a tip decides with: the bot's defaults, without the wall clock."""
    return StrongPlayer(time_budget_ms=None)


def tip(
    obs: Observation, seed: int, top: int = TOP, *, player: StrongPlayer | None = None
) -> Suggestion:
    """The tip for ``obs.seat`` (module docstring).

    Args:
        obs: the seat's observation (:func:`engine.observe.observe`), with legal actions.
        seed: the decision's seed (the bot uses the seed a computer would get there).
        top: at most this many cards get a score (≥ 1).
        player: the strong player to ask (default :func:`tip_player`; give one without a
            wall-clock budget to stay deterministic).

    Returns:
        The suggestion: strong's action for ``(obs, seed)`` and, in Klaverjassen card play,
        the expected round scores (points) of the ``top`` best legal cards.

    Raises:
        ValueError: no legal action (not the seat's turn), a public observation, or
            ``top`` < 1.
    """
    if top < 1:
        raise ValueError("top must be at least 1")
    if obs.seat is None or not obs.legal:
        raise ValueError("a tip needs the observation of a seat that is to act")
    strong = player if player is not None else tip_player()
    action, ev = strong.decide(obs, random.Random(seed))
    plays = any(isinstance(a, PlayCard) for a in obs.legal)
    if not plays or obs.settings.variant is not Variant.KLAVERJASSEN or obs.trump is None:
        return Suggestion(action, (), 0)
    if ev is None:  # no search was needed for the choice; the scores still need one
        ev = strong.evaluate(obs, knowledge(obs), random.Random(seed))
    return Suggestion(action, _best(obs, ev, top), ev.worlds)


def _best(obs: Observation, ev: Evaluation, top: int) -> tuple[CardScore, ...]:
    """The ``top`` best cards of ``ev`` as round scores (module docstring)."""
    total = 162 + obs.roem[Team.NS] + obs.roem[Team.EW]
    ranked = sorted(ev.values.items(), key=lambda cv: (-cv[1], cv[0]))[:top]
    return tuple(CardScore(CARDS[c], max(0.0, (total + v) / 2), v) for c, v in ranked)


__all__ = ["TOP", "CardScore", "Suggestion", "tip", "tip_player"]
