"""The ``strong`` player with the experiment options that measured no gain
(``docs/ai-history.md`` §6, §7): the others' played cards and the
partner's signals as likelihoods of the worlds, and the signals given.

``LabStrongPlayer()`` with no options plays exactly as :class:`engine.ai.strong.StrongPlayer`.
Play it against the product's levels with :func:`engine.ai.tournament.duplicate_rows` (it
takes player objects), e.g.::

    from engine.ai import make_player
    from engine.ai.tournament import duplicate_rows
    from engine.settings import Settings
    rows = duplicate_rows(Settings.from_preset("amsterdam"), LabStrongPlayer(signals=True),
                          make_player("strong"), 2026, 0, 300)
"""

from __future__ import annotations

from typing import Any

from engine.ai.knowledge import Knowledge
from engine.ai.strong import Evaluation, StrongPlayer, WorldLikelihood
from engine.ai.view import trick_view
from engine.observe import Observation
from lab.likelihoods import PlayLikelihood, SignalLikelihood, signal_meaning


class LabStrongPlayer(StrongPlayer):
    """:class:`~engine.ai.strong.StrongPlayer` plus three experiment options.

    Args:
        play_beta: weight worlds also by how likely they make the others' played cards
            (:class:`lab.likelihoods.PlayLikelihood`, its inverse temperature); 0: not.
        play_leads: the play likelihood models the leads too.
        signals: give the partnership's signals when discarding on the partner's trick and
            read the partner's (``rules.md`` §8; :class:`lab.likelihoods.SignalLikelihood`).
        **options: :class:`~engine.ai.strong.StrongPlayer`'s.
    """

    def __init__(
        self,
        play_beta: float = 0.0,
        play_leads: bool = False,
        signals: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.play_beta = play_beta
        self.play_leads = play_leads
        self.signals = signals

    def _likelihoods(self, obs: Observation) -> list[WorldLikelihood]:
        """The product's likelihoods, then the play's and the signals' (in that order)."""
        liks = super()._likelihoods(obs)
        if self.play_beta:
            liks.append(PlayLikelihood(obs, self.play_beta, self.play_leads))
        if self.signals:
            liks.append(SignalLikelihood(obs))
        return liks

    def _pick(self, obs: Observation, k: Knowledge, ev: Evaluation) -> int:
        """The product's card; with ``signals`` the signalling discard among the cards as good
        (:meth:`_signal`)."""
        pick = super()._pick(obs, k, ev)
        if not self.signals or not ev.values:
            return pick
        return self._signal(obs, ev, pick, max(ev.values.values()) - self.tie_margin)

    def _signal(self, obs: Observation, ev: Evaluation, pick: int, floor: float) -> int:
        """On the partner's winning trick, when the seat cannot follow suit, the discard among
        the cards valued at least ``floor`` that tells the partner the truth (``rules.md`` §8):
        a low card under an ace held (opseinen) or the ace from A-10 first, then a 10
        (spekken) or a picture card where no ace is held (afseinen); never a card that would
        say the opposite. ``pick`` when it is as good as any."""
        assert obs.trump is not None
        tv = trick_view(obs)
        if not tv.partner_winning:
            return pick  # also an empty trick
        trump = obs.trump.ordinal
        led = tv.cards[0] >> 3
        if any(c >> 3 == led for c in ev.values):
            return pick  # the seat follows suit: no discard
        hand = sum(x.bit for x in obs.hand)

        def rank(c: int) -> int:
            if c >> 3 == trump:
                return 1  # a ruff: not a signal
            meaning = signal_meaning(c, trump)
            if meaning is None:
                return 1
            meant, held = meaning
            if (hand >> meant & 1) != held:
                return 0  # would mislead the partner
            return 2 if held else 1

        near = [c for c, v in ev.values.items() if v >= floor]
        top = max(rank(c) for c in near)
        if rank(pick) == top:
            return pick
        return max((c for c in near if rank(c) == top), key=lambda c: (ev.values[c], -c))


__all__ = ["LabStrongPlayer"]
