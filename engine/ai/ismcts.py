"""``ismcts``: an information-set Monte Carlo tree search player with random rollouts, the
sparring partner against which ``strong`` is measured (``docs/ai-history.md``).

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012) over the card play of one
round: every iteration deals the unseen cards once, uniformly among the deals consistent with
what the seat saw (:class:`~engine.ai.sampler.WorldSampler`: hand sizes, voids shown by not
following suit or not trumping, ``rules.md`` §4.5), then walks one tree of move sequences
shared by all deals. At a node only the moves legal in this iteration's deal are candidates
(the §4.5 duties via :func:`~engine.ai.bitrules.legal_mask`); the node picks by UCB1 with
availability counts, from the view of the team whose seat moves; the first untried move is
expanded, and ``rollouts`` random playouts from there score the round (card points, 10 for the
last trick, the roem of every trick as in ``RoemMode.AUTO``, pit, nat: ``rules.md`` §5–§6).
The reward is the difference of the round scores of the two teams, seen by the moving team,
divided by 250. After ``iterations`` iterations the most visited legal card of the root is
played.

Bidding, trump choice, roem claims and every Klammern decision (contra, re, declarations,
bella; ``rules.md`` §9) are made as ``strong`` makes them: the level differs in card play only,
which is what the duplicate comparison measures. Deterministic for ``(obs, rng)``: no clock.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from engine.actions import Action, PlayCard
from engine.ai.basic import card_action, legal_cards
from engine.ai.bitrules import legal_mask, trick_points, trick_roem, trick_winner
from engine.ai.dd import round_scores
from engine.ai.knowledge import knowledge
from engine.ai.sampler import WorldSampler
from engine.ai.view import team_index
from engine.cards import Team
from engine.observe import Observation
from engine.phase import Phase
from engine.players import Player
from engine.settings import RoemMode

REWARD_SCALE = 250.0
"""Round-score differences are divided by this, so rewards are mostly within [-1, 1]."""


@dataclass(slots=True)
class _Node:
    """A move sequence's node: visits, total reward (for the team that moved into it) and how
    often it was available when its parent was visited."""

    visits: int = 0
    reward: float = 0.0
    available: int = 0
    children: dict[int, _Node] = field(default_factory=dict)


@dataclass(slots=True)
class _Deal:
    """One determinized position of the card play (seats 0..3, NS = team 0)."""

    hands: list[int]
    trick: list[tuple[int, int]]  # (seat, card) in play order
    to_move: int
    points: list[int]  # card points + roem so far, per team
    tricks: list[int]  # tricks taken per team
    trump: int
    rule: str
    four_low: int
    defender_pit: bool
    playing: int

    def copy(self) -> _Deal:
        return _Deal(
            list(self.hands), list(self.trick), self.to_move, list(self.points),
            list(self.tricks), self.trump, self.rule, self.four_low,
            self.defender_pit, self.playing,
        )  # fmt: skip

    def legal(self) -> int:
        seat = self.to_move
        return legal_mask(
            self.hands[seat],
            [c for _, c in self.trick],
            [s for s, _ in self.trick],
            seat,
            self.trump,
            self.rule,
        )

    def play(self, card: int) -> None:
        seat = self.to_move
        self.hands[seat] &= ~(1 << card)
        self.trick.append((seat, card))
        if len(self.trick) < 4:
            self.to_move = (seat + 1) % 4
            return
        cards = [c for _, c in self.trick]
        winner = trick_winner(cards, [s for s, _ in self.trick], self.trump)
        mask = 0
        for c in cards:
            mask |= 1 << c
        team = winner % 2
        self.points[team] += trick_points(mask, self.trump)
        self.points[team] += trick_roem(mask, self.trump, self.four_low)
        self.tricks[team] += 1
        self.trick = []
        self.to_move = winner
        if not any(self.hands):
            self.points[team] += 10  # the last trick, §1.4
            if self.tricks[team] == 8 and (team == self.playing or self.defender_pit):
                self.points[team] += 100  # pit, §6.4

    def over(self) -> bool:
        return not any(self.hands) and not self.trick

    def reward(self, team: int) -> float:
        ns, ew = round_scores(self.points[0], self.points[1], self.playing)
        diff = ns - ew if team == 0 else ew - ns
        return diff / REWARD_SCALE


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class IsmctsPlayer:
    """See the module docstring.

    Args:
        iterations: tree iterations per card decision (one deal each).
        rollouts: random playouts per iteration, averaged.
        exploration: the UCB1 constant.
        fallback: the player of every decision that is not a card-play search (default: a
            :class:`~engine.ai.strong.StrongPlayer` by node budget only).
    """

    def __init__(
        self,
        iterations: int = 200,
        rollouts: int = 5,
        exploration: float = 0.7,
        fallback: Player | None = None,
    ) -> None:
        from engine.ai.strong import StrongPlayer

        self.iterations = iterations
        self.rollouts = rollouts
        self.exploration = exploration
        self._strong: Player = fallback or StrongPlayer(time_budget_ms=None)

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        """See :class:`engine.players.Player`. Raises ``ValueError`` for no legal action."""
        if not obs.legal:
            raise ValueError("no legal action")
        plays = [a for a in obs.legal if isinstance(a, PlayCard)]
        if (
            obs.phase is Phase.BIDDING
            or not plays
            or len(plays) != len(obs.legal)
            or obs.settings.roem is RoemMode.DECLARATIONS
            or obs.trump is None
            or obs.maker is None
            or obs.seat is None
        ):
            return self._strong.choose(obs, rng)
        legal = legal_cards(obs)
        if legal.bit_count() == 1:
            return card_action(obs, legal.bit_length() - 1)
        return card_action(obs, self.search(obs, rng))

    def search(self, obs: Observation, rng: random.Random) -> int:
        """The card (index 0..31) the search plays in ``obs`` (a card-play decision)."""
        assert obs.trump is not None and obs.maker is not None and obs.seat is not None
        sampler = WorldSampler(knowledge(obs))
        leader = int(obs.leader)
        s = obs.settings
        base = _Deal(
            hands=[0, 0, 0, 0],
            trick=[((leader + i) % 4, c.index) for i, c in enumerate(obs.trick)],
            to_move=int(obs.seat),
            points=[obs.card_points[t] + obs.roem[t] for t in (Team.NS, Team.EW)],
            tricks=[obs.tricks_won[t] for t in (Team.NS, Team.EW)],
            trump=obs.trump.ordinal,
            rule=s.play_rule.value,
            four_low=s.four_low_cards,
            defender_pit=s.defender_pit,
            playing=team_index(obs.maker.team),
        )
        root = _Node()
        own = legal_cards(obs)
        for _ in range(self.iterations):
            deal = base.copy()
            deal.hands = list(sampler.sample(rng))  # the seat's own hand included
            self._iterate(root, deal, rng)
        return max(
            _bits(own), key=lambda c: (root.children[c].visits if c in root.children else -1, -c)
        )

    def _iterate(self, root: _Node, deal: _Deal, rng: random.Random) -> None:
        path: list[tuple[_Node, int]] = []  # (node entered, team that moved into it)
        node = root
        while not deal.over():
            legal = _bits(deal.legal())
            untried = [c for c in legal if c not in node.children]
            team = deal.to_move % 2
            if untried:
                card = untried[rng.randrange(len(untried))]
                child = _Node()
                node.children[card] = child
                for c in legal:
                    if c in node.children:
                        node.children[c].available += 1
                deal.play(card)
                path.append((child, team))
                break
            best_card, best_value = legal[0], -math.inf
            for c in legal:
                ch = node.children[c]
                ch.available += 1
            for c in legal:
                ch = node.children[c]
                log_n = math.log(max(ch.available, 1))
                value = ch.reward / ch.visits + self.exploration * math.sqrt(log_n / ch.visits)
                if value > best_value:
                    best_card, best_value = c, value
            node = node.children[best_card]
            deal.play(best_card)
            path.append((node, team))
        totals = [0.0, 0.0]
        for _ in range(self.rollouts):
            sim = deal.copy()
            while not sim.over():
                moves = _bits(sim.legal())
                sim.play(moves[rng.randrange(len(moves))])
            totals[0] += sim.reward(0)
            totals[1] += sim.reward(1)
        for n, team in path:
            n.visits += 1
            n.reward += totals[team] / self.rollouts
