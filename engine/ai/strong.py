"""The ``strong`` computer player: perfect-information Monte Carlo (PIMC) with the exact
double-dummy solver, a fitted trump-choice model and a rule layer (``docs/design.md`` §7).

Each card decision:

1. **Knowledge** (:mod:`engine.ai.knowledge`): own hand, cards played, voids and trump limits
   shown by the play under the table's play rule, Klammern declarations/bella/proposed card.
2. **Worlds**: deals of the unknown cards consistent with it, with a per-decision seeded RNG;
   when few deals are possible, all of them (exact, :mod:`engine.ai.sampler`). With
   ``locations`` (the presets ``amsterdam`` and ``rotterdam``) they are drawn from the learned
   card-location model (:mod:`engine.ai.locations`: what the bidding and every card played so
   far say about who holds the rest; enumerated worlds are weighted by it), elsewhere
   uniformly. Then they are weighted by how likely each makes the others' bids
   (:mod:`engine.ai.inference`; ``candidates`` drawn, ``max_worlds`` resampled by weight).
3. **Evaluation**: per world, :func:`engine.ai.dd.solve_moves` gives the exact value of every
   legal card. Values become the **round score** before averaging (``docs/design.md`` §7):
   Klaverjassen with the nat rule (§6.2–6.4; exact ``"score"`` objective at 20 cards or fewer,
   earlier the point difference with the nat cliff applied: a failed contract counts as −(all
   points)); Klammern as round won or lost (small points × the contra/re multiplier) plus the
   point margin as a tie-break (§9.8).
4. **Choice**: the best mean; the ``basic`` player's card when it is within
   :attr:`StrongPlayer.tie_margin` of it (PIMC cannot see signals and is indifferent between
   equal cards; the rules of thumb pick the natural one).

Budget: worlds are added until ``max_worlds``, the node budget (solver nodes, deterministic)
or the wall-clock budget (``time_budget_ms``, default 200 ms) is used up; a world is not
started when the average cost so far says it would overrun. Forced moves need no search.
With ``time_budget_ms=None`` a decision depends only on ``(obs, seed)``; with the default the
node budget is sized so that it binds first on a machine like the reference (one 2.6 GHz
core), so decisions are reproducible there too, and a slower machine returns earlier (fewer
worlds) instead of stalling.

Bidding: :mod:`engine.ai.bidding` (expected round score of each option from a hand model fitted
offline on solved deals). Klammern contra/re: the share of worlds the team wins (§9.7).
Roem claims and declarations: as ``basic`` (:func:`engine.ai.view.preliminary`).
"""

from __future__ import annotations

import logging
import math
import random
import time
from bisect import bisect
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

from engine.actions import Action, Contra, Pass, PlayCard, Re
from engine.ai import dd
from engine.ai.basic import card_action, legal_cards, play_card
from engine.ai.bidding import bid as model_bid
from engine.ai.inference import BidLikelihood
from engine.ai.klammern_eval import bella_points, declared_points
from engine.ai.knowledge import Knowledge, knowledge
from engine.ai.locations import LocationModel, ModelSampler, model, supported
from engine.ai.sampler import WorldSampler, enumerate_worlds
from engine.ai.view import preliminary, team_index
from engine.cards import Seat, Team
from engine.klammern.sequences import runs
from engine.observe import Observation
from engine.phase import Phase
from engine.settings import RoemMode

log = logging.getLogger(__name__)
_MODEL_FAILED = [False]
"""True once the packaged card-location weights failed to load in this process."""

HARD_FACTOR = 1.0
"""A world is abandoned part-way once the decision has used this multiple of its node or
time budget (the solver's cost per world is heavy-tailed; this bounds the worst case)."""
KLAMMERN_WIN = 60.0
"""Klammern: utility of winning a round per small point, in points (§9.8)."""

_QK = (1 << 5) | (1 << 6)


class WorldLikelihood(Protocol):
    """A weight of the worlds: how likely a world (four hands as card masks) makes what the
    viewer saw (:class:`engine.ai.inference.BidLikelihood`,
    :class:`engine.ai.locations.ModelSampler`)."""

    @property
    def informative(self) -> bool:
        """False when it weighs every world alike (then it is left out)."""
        ...

    def log_weight(self, hands: tuple[int, int, int, int]) -> float:
        """The world's log-weight (up to a constant)."""
        ...


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The outcome of a PIMC evaluation.

    Attributes:
        values: mean utility per legal card (points, the viewer's team's view).
        worlds: worlds evaluated.
        nodes: solver nodes used.
        win_share: share of worlds in which the viewer's team wins the round with its best
            card (made for the playing team, nat for the defenders; Klammern: §9.8).
        weights: each evaluated world's weight, in the order solved (how often resampling
            drew it, or its likelihood among enumerated worlds; 1 for a plain draw):
            ``values`` are the means under these weights.
    """

    values: dict[int, float]
    worlds: int
    nodes: int
    win_share: float
    weights: tuple[float, ...] = ()


class StrongPlayer:
    """PIMC with the double-dummy solver (module docstring).

    Args:
        max_worlds: most worlds per decision.
        node_budget: solver nodes per decision (deterministic budget); None: unlimited.
        time_budget_ms: wall-clock budget per decision; None: none (fully deterministic).
        exact_limit: enumerate all consistent deals when there are at most this many.
        tie_margin: take the basic player's card when its mean is this close to the best.
        score_cards: use the exact round-score objective from this many cards left on.
        search_cards: search only from this many cards left on (32 would include the opening
            lead, whose per-world solve is the slowest: 8 cards, each a full-deal solve);
            with more cards left the basic player's card is played.
        bid_inference: weight worlds by how likely they make the others' bids
            (:mod:`engine.ai.inference`).
        candidates: worlds sampled before resampling ``max_worlds`` of them by those weights.
        klammern_win: Klammern: utility of a won round per small point (points), added to the
            point margin (§9.8).
        call_share: Klammern: call contra (defenders) or re (playing team) when the team wins
            in at least this share of the worlds (§9.7); the double-dummy view is optimistic,
            hence the margin.
        bid_shift: added to the bidding thresholds (:func:`engine.ai.bidding.bid`).
        locations: draw the worlds from the card-location model where it applies
            (:func:`engine.ai.locations.supported`).

    Experiments subclass it (the ``lab/`` folder of the repository): :meth:`_likelihoods`
    and :meth:`_pick` are the places they extend.
    """

    def __init__(
        self,
        max_worlds: int = 48,
        node_budget: int | None = 3_500_000,
        time_budget_ms: float | None = 200.0,
        exact_limit: int = 48,
        tie_margin: float = 6.0,
        score_cards: int = 20,
        search_cards: int = 31,
        bid_inference: bool = True,
        candidates: int = 120,
        klammern_win: float = KLAMMERN_WIN,
        call_share: float = 0.85,
        bid_shift: float = 0.0,
        locations: bool = True,
    ) -> None:
        self.max_worlds = max_worlds
        self.node_budget = node_budget
        self.time_budget_ms = time_budget_ms
        self.exact_limit = exact_limit
        self.tie_margin = tie_margin
        self.score_cards = score_cards
        self.search_cards = search_cards
        self.bid_inference = bid_inference
        self.candidates = candidates
        self.klammern_win = klammern_win
        self.call_share = call_share
        self.bid_shift = bid_shift
        self.locations = locations

    # ------------------------------------------------------------------------------ choose

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """Pick one of ``obs.legal`` (see :class:`engine.players.Player`).

        Raises:
            ValueError: when ``obs.legal`` is empty.
        """
        return self.decide(obs, rng)[0]

    def decide(self, obs: Observation, rng: random.Random) -> tuple[Action, Evaluation | None]:
        """:meth:`choose`'s action with the evaluation it was chosen by: None when no search
        ran (bidding, roem and declarations, a forced card, the opening lead before
        :attr:`search_cards`). The tip (:mod:`engine.ai.tip`) shows the evaluation.

        Raises:
            ValueError: when ``obs.legal`` is empty.
        """
        if not obs.legal:
            raise ValueError("no legal action")
        first = preliminary(obs)
        if first is not None:
            return first, None
        if obs.phase is Phase.BIDDING:
            return model_bid(obs, self.bid_shift), None
        plays = [a for a in obs.legal if isinstance(a, PlayCard)]
        calls = [a for a in obs.legal if isinstance(a, Contra | Re)]
        if not plays:
            return next((a for a in obs.legal if isinstance(a, Pass)), obs.legal[0]), None
        legal = legal_cards(obs)
        if legal.bit_count() == 1 and not calls:
            return card_action(obs, legal.bit_length() - 1), None
        k = knowledge(obs)
        if sum(obs.hand_counts) > self.search_cards and not calls:
            return card_action(obs, play_card(obs, k)), None
        ev = self.evaluate(obs, k, rng)
        if calls and ev.win_share >= self.call_share:
            return calls[0], ev
        return card_action(obs, self._pick(obs, k, ev)), ev

    def _pick(self, obs: Observation, k: Knowledge, ev: Evaluation) -> int:
        """The card to play after the evaluation ``ev`` (module docstring, step 4)."""
        rule = play_card(obs, k)
        if not ev.values:
            return rule  # not even one world fitted in the budget
        best = max(ev.values, key=lambda c: (ev.values[c], -c))
        if rule in ev.values and ev.values[rule] >= ev.values[best] - self.tie_margin:
            return rule
        return best

    def _location_model(self) -> LocationModel | None:
        """The card-location model, or None when its weights cannot be loaded: then the
        worlds are dealt uniformly (logged once per process), never an error."""
        if _MODEL_FAILED[0]:
            return None
        try:
            return model()
        except (OSError, ValueError):
            _MODEL_FAILED[0] = True
            log.exception("card-location model not loaded: uniform worlds")
            return None

    def _likelihoods(self, obs: Observation) -> list[WorldLikelihood]:
        """The weights of the worlds besides the card-location model's, in the order their
        log-weights are added: the others' bids (``bid_inference``)."""
        return [BidLikelihood(obs)] if self.bid_inference else []

    # ---------------------------------------------------------------------------- evaluate

    def evaluate(self, obs: Observation, k: Knowledge, rng: random.Random) -> Evaluation:
        """Mean utility of every legal card over sampled (or all) worlds (module docstring)."""
        assert obs.trump is not None and obs.maker is not None and obs.seat is not None
        start = time.perf_counter()
        trump = obs.trump.ordinal
        settings = obs.settings
        klammern = settings.roem is RoemMode.DECLARATIONS
        me = team_index(obs.seat.team)
        playing = team_index(obs.maker.team)
        leader = int(obs.leader)
        trick = tuple(((leader + i) % 4, c.index) for i, c in enumerate(obs.trick))
        cards_left = sum(obs.hand_counts)
        objective = "score" if not klammern and cards_left <= self.score_cards else "diff"
        tricks_won = (obs.tricks_won[Team.NS], obs.tricks_won[Team.EW])
        base = [obs.card_points[Team.NS], obs.card_points[Team.EW]]
        if not klammern:
            base[0] += obs.roem[Team.NS]
            base[1] += obs.roem[Team.EW]
        total_est = 162 + obs.roem[Team.NS] + obs.roem[Team.EW]
        mult = 1
        if klammern and obs.klammern is not None:
            mult = 4 if obs.klammern.re is not None else 2 if obs.klammern.contra else 1
        options: dd.Options = {
            "play_rule": settings.play_rule.value,
            "roem": not klammern,
            "four_low_cards": settings.four_low_cards,
            "tricks_taken": tricks_won,
            "pit": not klammern,
            "defender_pit": settings.defender_pit,
            "playing_team": playing,
            "objective": objective,
        }
        sampler = WorldSampler(k)
        worlds = enumerate_worlds(sampler, self.exact_limit)
        weights: list[float] | None = None
        liks: list[WorldLikelihood] = []
        draw = sampler.sample
        located = self._location_model() if self.locations and supported(obs) else None
        if located is not None and (worlds is None or len(worlds) > 1):
            ms = ModelSampler(k, located.seat_weights(obs, k))
            if ms.ok:
                if worlds is None:
                    draw = ms.sample
                else:
                    liks.append(ms)
        liks.extend(self._likelihoods(obs))
        liks = [x for x in liks if x.informative]

        def log_weight(h: tuple[int, int, int, int]) -> float:
            return sum(x.log_weight(h) for x in liks)

        if liks:
            if worlds is None:
                pool = [draw(rng) for _ in range(self.candidates)]
                logw = [log_weight(h) for h in pool]
                top = max(logw)
                cum = list(accumulate(math.exp(x - top) for x in logw))
                picks = sorted(bisect(cum, rng.random() * cum[-1]) for _ in range(self.max_worlds))
                counts = Counter(min(p, len(pool) - 1) for p in picks)
                worlds = [pool[i] for i in sorted(counts)]
                weights = [float(counts[i]) for i in sorted(counts)]
            else:
                logw = [log_weight(h) for h in worlds]
                top = max(logw)
                weights = [math.exp(x - top) for x in logw]
                order = sorted(range(len(worlds)), key=lambda i: -weights[i])  # type: ignore[index]
                worlds = [worlds[i] for i in order]
                weights = [weights[i] for i in order]
        n_worlds = len(worlds) if worlds is not None else self.max_worlds
        sums: dict[int, float] = {}
        weight_sum = 0.0
        wins = 0.0
        nodes = 0
        done = 0
        last_nodes = 0
        n_legal = legal_cards(obs).bit_count()
        # Hard limits: a world whose solve would overrun them is abandoned part-way (the
        # solver's cost per world is heavy-tailed in the first tricks).
        hard_nodes = None if self.node_budget is None else int(HARD_FACTOR * self.node_budget)
        deadline = (
            None
            if self.time_budget_ms is None
            else start + HARD_FACTOR * self.time_budget_ms / 1000
        )

        used: list[float] = []
        for w in range(n_worlds):
            if done:
                # Predict the next world's cost from the mean and the last one (costs within a
                # decision are correlated; the tail decides the worst-case latency).
                per_world = max(nodes / done, last_nodes)
                if self.node_budget is not None and nodes + per_world > self.node_budget:
                    break
                if self.time_budget_ms is not None:
                    spent = (time.perf_counter() - start) * 1000
                    if spent + spent * per_world / max(nodes, 1) > self.time_budget_ms:
                        break
            hands = worlds[w] if worlds is not None else draw(rng)
            taken = (base[0], base[1])
            if klammern:
                taken = _klammern_taken(obs, hands, trump, base)
            opts: dd.Options = {**options, "taken": taken}
            res = dd.solve_moves(
                hands,
                trump,
                leader,
                trick,
                max_nodes=None if hard_nodes is None else hard_nodes - nodes,
                deadline=deadline,
                **opts,
            )
            if len(res.values) < n_legal:
                break  # abandoned part-way: the world is not used
            nodes += res.nodes
            last_nodes = res.nodes
            done += 1
            wt = weights[w] if weights is not None else 1.0
            used.append(wt)
            weight_sum += wt
            best_u = -1e9
            for card, v in res.values.items():
                u = _utility(
                    v, objective, klammern, playing, me, total_est, mult, self.klammern_win
                )
                sums[card] = sums.get(card, 0.0) + wt * u
                best_u = max(best_u, u)
            wins += wt * (best_u > 0)
        if not done:
            return Evaluation({}, 0, nodes, 0.0)
        values = {c: s / weight_sum for c, s in sums.items()}
        return Evaluation(
            values, done, nodes, wins / weight_sum if weight_sum else 0.0, tuple(used)
        )


def _utility(
    v: int,
    objective: str,
    klammern: bool,
    playing: int,
    me: int,
    total_est: int,
    mult: int,
    win: float = KLAMMERN_WIN,
) -> float:
    """A solver value (NS − EW) as the viewer's team's utility (module docstring)."""
    if klammern:
        made = v > 0 if playing == 0 else v < 0
        won = made == (me == playing)
        margin = v if me == 0 else -v
        return mult * win * (1 if won else -1) + margin
    if objective == "diff":
        made = v > 0 if playing == 0 else v < 0
        if not made:
            total = max(total_est, abs(v))
            v = -total if playing == 0 else total
    return float(v if me == 0 else -v)


def _klammern_taken(
    obs: Observation, hands: tuple[int, int, int, int], trump: int, base: list[int]
) -> tuple[int, int]:
    """Klammern points counted before the rest of the play in this world: cards won, the
    declarations (still to come in the first trick: every run of the world's hands, §9.5)
    and bella (announced, or to come from a hand holding trump K and Q, §9.6)."""
    km = obs.klammern
    assert km is not None and obs.seat is not None
    ns, ew = base
    if obs.tricks and obs.declaration_points is not None:
        ns += obs.declaration_points[Team.NS]
        ew += obs.declaration_points[Team.EW]
    else:
        seqs = [(int(d.seat), d.cards) for d in km.declarations]
        played = {(int(obs.leader) + i) % 4 for i in range(len(obs.trick))}
        for seat in range(4):
            if seat in played:
                continue
            done = km.declared_by(Seat(seat))
            seqs.extend((seat, run) for run in runs(hands[seat]) if run not in done)
        dn, de = declared_points(seqs, trump)
        ns += dn
        ew += de
    kq = _QK << (8 * trump)
    if km.bella is not None:
        if int(km.bella) % 2 == 0:
            ns += 20
        else:
            ew += 20
    else:
        played_mask = 0
        for t in obs.tricks:
            for c in t.cards:
                played_mask |= c.bit
        for c in obs.trick:
            played_mask |= c.bit
        if not played_mask & kq:
            bn, be = bella_points(hands, trump)
            ns += bn
            ew += be
    return ns, ew


__all__ = ["Evaluation", "StrongPlayer", "WorldLikelihood"]
