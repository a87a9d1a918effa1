"""Trump choice for the ``strong`` player (``rules.md`` §3, §9.3; ``docs/design.md`` §7).

A linear model over hand features (:func:`engine.ai.handeval.features`) predicts, for a hand
and a candidate trump suit, the expected open-hand outcome for the chooser's team when it plays
that suit:

* Klaverjassen: the round score difference (own − other, after nat and pit, §6), per play rule
  (``amsterdam``; ``rotterdam``);
* Klammern: won (+1) or lost (−1) (§9.8), so the prediction is ``2·P(win) − 1``.

The coefficients are fitted offline on a fixed corpus of deals solved double-dummy
(``scripts/fit_bidding.py``, data from ``scripts/gen_bidding_data.py``) and stored in
:mod:`engine.ai.bidcoef`; nothing is fitted at import. The thresholds for naming a suit or
passing (per auction position) were tuned by replaying the auction of every corpus deal with
the solved outcomes, then shifted after duplicate A/B matches in real play (same script,
where the measurements are noted).

Decisions: name/accept the best suit when its prediction reaches the threshold of the seat's
position, else pass; a forced choice takes the best suit.
"""

from __future__ import annotations

from engine.actions import Accept, Action, Beter, Choose, Kleintje, Pass
from engine.ai import bidcoef
from engine.ai.handeval import features
from engine.cards import Suit
from engine.observe import Observation
from engine.settings import FirstLead, PlayRule, TrumpSelection


def _coefs(rule: PlayRule) -> tuple[float, ...]:
    if rule is PlayRule.KLAMMERN:
        return bidcoef.KLAMMERN
    if rule is PlayRule.ROTTERDAM:
        return bidcoef.ROTTERDAM
    return bidcoef.AMSTERDAM


def predict(hand: int, trump: int, rel: int, rule: PlayRule) -> float:
    """Predicted outcome for the chooser's team if it plays ``trump`` (module docstring).

    Args:
        hand: the chooser's 8 cards (mask).
        trump: candidate suit 0..3.
        rel: the chooser's seat relative to the first trick's leader (0 = leads, 2 = the
            partner leads, 1 and 3 = an opponent leads).
        rule: the table's play rule (selects the model).
    """
    w = _coefs(rule)
    x = features(hand, trump, rel, rule is PlayRule.KLAMMERN)
    return sum(a * b for a, b in zip(w, x, strict=True))


def _hand(obs: Observation) -> int:
    m = 0
    for c in obs.hand:
        m |= c.bit
    return m


def _rel(obs: Observation) -> int:
    assert obs.seat is not None
    if obs.settings.first_lead is FirstLead.MAKER:
        return 0
    return (int(obs.seat) - int(obs.forehand)) % 4


def _position(obs: Observation) -> int:
    """The seat's place in the auction: 0 = forehand ... 3 = dealer."""
    assert obs.seat is not None
    return (int(obs.seat) - int(obs.forehand)) % 4


def bid(obs: Observation, shift: float = 0.0) -> Action:
    """The strong player's bidding action (one of ``obs.legal``).

    Args:
        obs: the bidder's observation (bidding phase).
        shift: added to every threshold (Klaverjassen points; Klammern a hundredth of it):
            positive bids less, negative more.
    """
    kshift = shift / 100
    hand = _hand(obs)
    rule = obs.settings.play_rule
    rel = _rel(obs)
    pos = _position(obs)
    legal = obs.legal
    passing = next((a for a in legal if isinstance(a, Pass)), None)
    chooses = [a for a in legal if isinstance(a, Choose)]
    if chooses:
        scored = [(predict(hand, a.suit.ordinal, rel, rule), -a.suit.ordinal, a) for a in chooses]
        value, _, best = max(scored)
        if passing is not None and value < bidcoef.FREE_THRESHOLDS[pos] + shift:
            return passing
        return best
    accept = next((a for a in legal if isinstance(a, Accept)), None)
    if accept is not None:
        suit = obs.shown[-1]
        value = predict(hand, suit.ordinal, rel, rule)
        if obs.settings.trump_selection is TrumpSelection.KLAMMERN:
            limit = bidcoef.KLAMMERN_ACCEPT[pos] + kshift
        else:
            limit = bidcoef.TURNED_THRESHOLDS[pos + (4 if len(obs.shown) > 1 else 0)] + shift
        return accept if value >= limit or passing is None else passing
    kleintjes = [a for a in legal if isinstance(a, Kleintje)]
    if kleintjes:
        scored2 = [
            (predict(hand, a.suit.ordinal, rel, rule), -a.suit.ordinal, a) for a in kleintjes
        ]
        value, _, best_k = max(scored2)
        if value >= bidcoef.KLAMMERN_KLEINTJE[pos] + kshift or passing is None:
            return best_k
        return passing
    beter = next((a for a in legal if isinstance(a, Beter)), None)
    if beter is not None:
        value = predict(hand, Suit.CLUBS.ordinal, rel, rule)
        if value >= bidcoef.KLAMMERN_BETER + kshift or passing is None:
            return beter
        return passing
    return legal[0]
