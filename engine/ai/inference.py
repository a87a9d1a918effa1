"""Soft card-location inference (``docs/design.md`` §7): how likely each sampled world makes
the public bids (:class:`BidLikelihood`, "trump maker's choice").

The model assumes the others bid like the ``strong`` player (:mod:`engine.ai.bidding`), with
noise: a seat names (or accepts) a suit with probability ``sigmoid((pred − threshold) / σ)``
and prefers among suits by ``softmax(pred / τ)``; a pass has the complementary probability of
its best option. ``pred`` is the fitted hand model's prediction for the seat's hand *as it was
at the bidding* (the world's hand plus the cards the seat has played since).

:meth:`BidLikelihood.log_weight` returns the log-likelihood of all bids of the other seats in
one world; the strong player resamples its worlds with these weights. (Likelihoods of the
others' played cards and of the partner's signals were measured too and gained nothing: they
live in the repository's ``lab/likelihoods.py``, ``docs/ai-history.md``.)
"""

from __future__ import annotations

import math

from engine.actions import Accept, Beter, Choose, Kleintje, Pass
from engine.ai import bidcoef
from engine.ai.bidding import predict
from engine.bidding import bid_status
from engine.cards import Suit
from engine.observe import Observation
from engine.settings import FirstLead, PlayRule, TrumpSelection

# One bid of another seat, reduced to what the likelihood needs:
# (seat, kind, suits that could be named, chosen suit or -1, threshold, pass allowed)
_Bid = tuple[int, str, tuple[int, ...], int, float, bool]


def _logsig(x: float) -> float:
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


class BidLikelihood:
    """Likelihood of the other seats' bids in a world (module docstring).

    Args:
        obs: the viewer's observation (after the bidding).
    """

    def __init__(self, obs: Observation) -> None:
        assert obs.seat is not None
        self.me = int(obs.seat)
        self.rule = obs.settings.play_rule
        klammern = self.rule is PlayRule.KLAMMERN
        self.sigma = 0.25 if klammern else 25.0
        self.tau = 0.15 if klammern else 15.0
        self.forehand = int(obs.forehand)
        self.maker_leads = obs.settings.first_lead is FirstLead.MAKER
        mode = obs.settings.trump_selection
        shown = tuple(obs.shown)
        turned = (*shown, *(s for s in Suit if s not in shown))[:2] if shown else ()
        self.bids: list[_Bid] = []
        played: dict[int, int] = {0: 0, 1: 0, 2: 0, 3: 0}
        for t in obs.tricks:
            for who, c in t.played():
                played[int(who)] |= c.bit
        for i, c in enumerate(obs.trick):
            played[(int(obs.leader) + i) % 4] |= c.bit
        self.played = played
        for k, b in enumerate(obs.bids):
            seat = int(b.seat)
            if seat == self.me:
                continue
            st = bid_status(mode, obs.forehand, obs.bids[:k], turned)
            pos = (seat - self.forehand) % 4
            can_pass = any(isinstance(a, Pass) for a in st.legal)
            names = tuple(a.suit.ordinal for a in st.legal if isinstance(a, Choose | Kleintje))
            if names:
                chosen = b.suit.ordinal if isinstance(b, Choose | Kleintje) else -1
                if mode is TrumpSelection.KLAMMERN:
                    th = bidcoef.KLAMMERN_KLEINTJE[pos]
                else:
                    th = bidcoef.FREE_THRESHOLDS[pos]
                self.bids.append((seat, "name", names, chosen, th, can_pass))
            elif any(isinstance(a, Accept) for a in st.legal):
                suit = st.shown[-1].ordinal
                if mode is TrumpSelection.KLAMMERN:
                    th = bidcoef.KLAMMERN_ACCEPT[pos]
                else:
                    th = bidcoef.TURNED_THRESHOLDS[pos + (4 if len(st.shown) > 1 else 0)]
                self.bids.append(
                    (seat, "accept", (suit,), suit if isinstance(b, Accept) else -1, th, True)
                )
            elif any(isinstance(a, Beter) for a in st.legal):
                clubs = Suit.CLUBS.ordinal
                chosen = clubs if isinstance(b, Beter) else -1
                self.bids.append((seat, "accept", (clubs,), chosen, bidcoef.KLAMMERN_BETER, True))

    @property
    def informative(self) -> bool:
        """True when another seat made a bid."""
        return bool(self.bids)

    def _rel(self, seat: int) -> int:
        return 0 if self.maker_leads else (seat - self.forehand) % 4

    def log_weight(self, hands: tuple[int, int, int, int]) -> float:
        """Log-likelihood of the other seats' bids with ``hands`` (now) dealt."""
        total = 0.0
        cache: dict[tuple[int, int], float] = {}
        for seat, kind, suits, chosen, th, can_pass in self.bids:
            hand = hands[seat] | self.played[seat]
            preds = []
            for s in suits:
                key = (seat, s)
                if key not in cache:
                    cache[key] = predict(hand, s, self._rel(seat), self.rule)
                preds.append(cache[key])
            best = max(preds)
            if chosen < 0:
                total += _logsig((th - best) / self.sigma)
                continue
            p = preds[suits.index(chosen)]
            if can_pass:
                total += _logsig((p - th) / self.sigma)
            if kind == "name" and len(suits) > 1:
                m = max(x / self.tau for x in preds)
                lse = m + math.log(sum(math.exp(x / self.tau - m) for x in preds))
                total += p / self.tau - lse
        return total
