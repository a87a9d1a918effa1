"""``lab.reveal.reveal``: knowledge with hidden hands shown, for the benches' ceilings and
regret (``tests/ai/test_knowledge.py``'s positions)."""

from __future__ import annotations

from engine.ai.knowledge import knowledge
from engine.ai.sampler import WorldSampler, enumerate_worlds
from engine.cards import Seat, mask_of
from engine.observe import observe_round
from lab.reveal import reveal
from tests.ai.test_knowledge import HANDS, E, N, S, W, _play


def test_revealed_seats_hold_their_true_hands_and_all_three_leave_one_deal() -> None:
    # For the benches only (ceilings, regret): the true hands shown as sure cards.
    state = _play("amsterdam", HANDS, ["AS", "7H"])
    k = knowledge(observe_round(state, S))
    true = tuple(mask_of(state.hand(Seat(s))) for s in range(4))
    partner = reveal(k, true, [int(N)])
    assert partner.must[N] == true[N] and partner.cannot[N] == ~true[N] & ((1 << 32) - 1)
    assert partner.cannot[E] & true[N] == true[N] and partner.cannot[W] & true[N] == true[N]
    assert partner.unknown == k.unknown & ~true[N]
    assert partner.must[S] == k.hand and partner.cannot[S] == 0
    everyone = reveal(k, true, [int(N), int(E), int(W), int(S)])  # the viewer's own seat is ignored
    assert everyone.unknown == 0
    assert enumerate_worlds(WorldSampler(everyone), 10) == [true]
    assert WorldSampler(k).total > 1
