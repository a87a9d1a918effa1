"""The review of a finished game for one seat: where the seat's decisions cost points, judged
by the ``strong`` computer from what the seat could see.

Pure and deterministic. Every decision of the seat that had a choice (a bid or pass, a trump
choice, a card, a roem claim in claim mode, ``rules.md`` §3–5, §9.3) is judged from the seat's
:class:`~engine.observe.Observation` alone (never a hidden card, ``docs/design.md`` §2):

* **cards** by the tip (:func:`engine.ai.tip.tip`, every legal card scored): the expected
  round score of the viewer's team after the seat's card and after strong's card
  (:mod:`engine.ai.tip`'s docstring), with the same player and the same seed the tip would
  have had there, so the numbers are the tip's. Klammern (§9.8) has no round score: the value
  is half of strong's utility (:mod:`engine.ai.strong`: the card-point margin plus
  :data:`~engine.ai.strong.KLAMMERN_WIN` per small point of a won round), named points too;
* **bids and the trump choice** by the bidding model (:mod:`engine.ai.bidding`): the
  predicted round-score margin of each suit against the threshold at which strong passes
  (passing is worth the threshold), as a round score ``(162 + margin) / 2``: half the
  difference is the round score given up;
* **roem claims** (§5.5): unclaimed roem that strong would have claimed
  (:func:`engine.ai.view.should_claim`), or roem claimed when claiming only helped the
  other team, costs the roem;
* **contra and re** (Klammern, §9.7) by strong's evaluation of the seat's position (its
  share of sampled worlds where the seat's team wins the round, ``p``): strong calls when
  ``p`` reaches :attr:`~engine.ai.strong.StrongPlayer.call_share`. A call doubles the small
  points at stake, worth ``KLAMMERN_WIN · (2p − 1) / 2`` points more in the review's units
  (half of strong's utility; a later re is not foreseen). The seat's last chance to call is
  judged: its call, or its last action while it could have called (a card, or a pass that
  declined it). Judged where the search is sound, i.e. the seat or its partner is to play;
* **declarations** (Klammern, §9.5, §9.6): a sequence the seat held but did not declare
  with its first card costs its points (20 or 50) unless a declaration of the other team
  already made beats the seat's best one; a K or Q of trump played without bella while
  bella was open costs 20.

A daily's review also puts the game next to the day's par (the same deals played by the
daily's computers in all four seats, :mod:`bot.daily`): :func:`choices` lists the seat's
decisions, the bot asks the par's computer at each of them, round by round, until it would have
chosen otherwise (:func:`par_without_computer` first: the par claims every roem), and
:func:`parting` / :func:`compare_par` keep where the two lines parted with both round scores.
Up to the first parting the game is the par's move for move (the other seats are the same
deterministic computers with the same seeds), so "the same position" is exact there; in a
later round the par's computer is asked in the game's own position, while the par's round
score is that of the par game (whose seeds differ once the two logs differ in length).

The cost of a decision is strong's value minus the seat's, at least 0 (strong's card may be
the basic player's within its tie margin, a little below the best). :func:`hindsight` adds,
for a card, the double-dummy cost with all hands shown: a second number, never the verdict.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from engine.actions import (
    Accept,
    Action,
    Bella,
    Beter,
    Choose,
    ClaimRoem,
    Contra,
    Declare,
    Kleintje,
    Pass,
    PlayCard,
    Re,
)
from engine.ai import bidcoef, dd
from engine.ai.bidding import _hand, _position, _rel, predict
from engine.ai.bidding import bid as model_bid
from engine.ai.knowledge import knowledge
from engine.ai.strong import KLAMMERN_WIN, StrongPlayer
from engine.ai.tip import tip, tip_player
from engine.ai.view import should_claim, team_index
from engine.cards import CARDS, Card, Rank, Seat, Suit, Team
from engine.game import GameState
from engine.klammern.scoring import BELLA_POINTS as BELLA
from engine.klammern.sequences import best_team, sequence_value
from engine.observe import Observation, observe
from engine.phase import Phase
from engine.record import replay_actions
from engine.rules import card_points, roem, winning_position
from engine.settings import PlayRule, RoemMode, Settings, TrumpSelection, Variant

TOP = 5
"""Decisions shown in a review by default: the costliest."""

HINDSIGHT_NODES = 1_500_000
"""Solver nodes for one hindsight value (a full deal early in a round may need more: then
there is no hindsight number)."""


class Kind(StrEnum):
    """What was decided."""

    BID = "bid"
    """Play the suit or pass (§3.3, §9.3), or pass a free choice (§3.1)."""
    TRUMP = "trump"
    """Which suit to name (§3.1, §3.2)."""
    CARD = "card"
    """A card (§4)."""
    CLAIM = "claim"
    """A roem claim (§5.5)."""
    CALL = "call"
    """Klammern contra or re, or not calling it (§9.7)."""
    DECLARE = "declare"
    """Klammern: declaring a sequence or bella, or not (§9.5, §9.6)."""


class Why(StrEnum):
    """A short reason, where a simple one exists."""

    TRUMP_NOT_PULLED = "trump_not_pulled"
    """The playing team on lead did not lead trump where strong did."""
    PARTNER_ACE_OVERTAKEN = "partner_ace_overtaken"
    """The seat took its partner's trick won by an ace."""
    PARTNER_OVERTAKEN = "partner_overtaken"
    """The seat took its partner's trick."""
    ROEM_GIVEN = "roem_given"
    """The card made roem in a trick the other team was winning."""
    POINTS_GIVEN = "points_given"
    """A high card on a trick the other team was winning."""
    TRICK_LEFT = "trick_left"
    """The other team's trick left to them where strong's card took it."""
    TOO_WEAK = "too_weak"
    """Played a hand the bidding model rates below the threshold."""
    STRONG_ENOUGH = "strong_enough"
    """Passed a hand the bidding model rates above the threshold."""
    OTHER_SUIT = "other_suit"
    """Another trump suit was better."""
    ROEM_NOT_CLAIMED = "roem_not_claimed"
    """Roem of the team's trick was not claimed."""
    ROEM_CLAIMED_NAT = "roem_claimed_nat"
    """Roem claimed by a team that was nat: it went to the other team (§6.3)."""
    CALL_MISSED = "call_missed"
    """Contra or re not called on a round the seat's team was likely to win."""
    CALL_RISKY = "call_risky"
    """Contra or re called on a round the seat's team was likely to lose."""
    NOT_DECLARED = "not_declared"
    """A sequence of the hand not declared with the first card (§9.5)."""
    BELLA_LOST = "bella_lost"
    """Trump K or Q played without announcing bella (§9.6)."""


@dataclass(frozen=True, slots=True)
class Point:
    """A decision of the reviewed seat, to be judged.

    Attributes:
        index: actions of the game before it (its place in the log).
        kind: what was decided.
        obs: the seat's observation then (with the legal actions).
        action: what the seat did (a claim not made: :class:`~engine.actions.Pass`).
        roem: a roem claim: the roem at stake, points (0 otherwise).
    """

    index: int
    kind: Kind
    obs: Observation
    action: Action
    roem: int = 0


@dataclass(frozen=True, slots=True)
class Judgement:
    """One judged decision.

    Attributes:
        index: as :attr:`Point.index`; round: the round number (1-based); trick: the trick
            number in the round (1–8: the card's trick, the claimed trick; 0 in bidding).
        kind: what was decided.
        seat: the reviewed seat; leader: who led the trick as it stood.
        table: the trick as it stood (cards in play order from ``leader``).
        trump: the trump suit (None in bidding before it is known).
        yours: what the seat did; its: what strong would have done.
        your_value: expected round score of the seat's team after ``yours`` (points; bids:
            ``(162 + margin) / 2`` of the predicted margin, or of the pass threshold;
            Klammern calls: half of strong's utility; declarations: the points they add).
        its_value: the same after ``its``.
        cost: ``its_value - your_value``, at least 0 (points).
        why: a short reason, or None.
        hindsight: the double-dummy cost with all hands shown (points, negative when the
            seat's card was the better one in the real deal; None: not computed).
    """

    index: int
    round: int
    trick: int
    kind: Kind
    seat: Seat
    leader: Seat
    table: tuple[Card, ...]
    trump: Suit | None
    yours: Action
    its: Action
    your_value: float
    its_value: float
    cost: float
    why: Why | None = None
    hindsight: float | None = None


@dataclass(frozen=True, slots=True)
class RoundCost:
    """One round's sum.

    Attributes:
        number: the round (1-based); decisions: the seat's judged decisions in it;
        cost: their summed cost (points); differed: decisions where strong chose otherwise.
    """

    number: int
    decisions: int
    cost: float
    differed: int


@dataclass(frozen=True, slots=True)
class Parting:
    """Where a round of the seat left the day's par: the first decision of the round where
    the seat chose otherwise than the par's computer in the same position (a daily,
    :mod:`bot.daily`).

    Attributes:
        round: the round (1-based); index: the decision's place in the log.
        kind: what was decided; trick: the trick number (1–8; 0 in bidding).
        seat: the seat; leader: who led the trick as it stood; table: the trick as it stood.
        trump: the trump suit (None in bidding before it is known).
        yours: what the seat did; par: what the par's computer did there.
        your_score: the round score of the seat's team in the game (points); par_score: the
            par's round score (points).
    """

    round: int
    index: int
    kind: Kind
    trick: int
    seat: Seat
    leader: Seat
    table: tuple[Card, ...]
    trump: Suit | None
    yours: Action
    par: Action
    your_score: int
    par_score: int

    @property
    def cost(self) -> int:
        """The par's round score minus the seat's (points; negative: the seat did better)."""
        return self.par_score - self.your_score


@dataclass(frozen=True, slots=True)
class ParComparison:
    """A daily game next to the day's par.

    Attributes:
        first: the first decision where the game left the par's line (None: it never did).
        worst: the partings whose rounds cost the most against the par (cost > 0, costliest
            first, at most ``top``).
        scores: per round, (the seat's team's round score, the par's).
    """

    first: Parting | None
    worst: tuple[Parting, ...]
    scores: tuple[tuple[int, int], ...]

    @property
    def yours(self) -> int:
        """The game's points over the rounds compared."""
        return sum(y for y, _ in self.scores)

    @property
    def par(self) -> int:
        """The par's points over the same rounds."""
        return sum(p for _, p in self.scores)


@dataclass(frozen=True, slots=True)
class Review:
    """A seat's review of a game.

    Attributes:
        seat: the reviewed seat; variant: the game's variant.
        rounds: per round, in order.
        worst: the costliest decisions, costliest first (at most ``top`` of them, each with
            a cost above 0).
        decisions: decisions judged.
    """

    seat: Seat
    variant: Variant
    rounds: tuple[RoundCost, ...]
    worst: tuple[Judgement, ...]
    decisions: int = 0
    total: float = field(default=0.0)
    par: ParComparison | None = None
    """A daily: where the game and the day's par parted (:func:`compare_par`)."""


# --- finding the decisions ----------------------------------------------------------------


def points(game: GameState, seat: Seat) -> list[Point]:
    """The decisions of ``seat`` in the finished (or running) ``game``, in order: every
    action of the seat where it had more than one legal action, every roem of its team that
    could have been claimed (claim mode), and in Klammern the seat's last chance to call
    contra or re in a round (its call, else its last action while it could have called, as
    a :class:`~engine.actions.Pass`), sequences left undeclared at its first card (a
    :class:`~engine.actions.Pass` of kind :attr:`Kind.DECLARE`) and a trump K or Q played
    without bella while bella was open (the card, kind :attr:`Kind.DECLARE`).

    Raises:
        IllegalAction: a corrupt log.
    """
    state = GameState.new(game.settings, game.seed)
    out: list[Point] = []
    claim_mode = game.settings.roem is RoemMode.CLAIM
    chances: list[tuple[int, int, int, Observation]] = []  # (index, round, trick, obs)
    declined: dict[tuple[int, str], Point] = {}  # (round, contra/re) -> the last chance
    called: set[tuple[int, str]] = set()
    for index, action in enumerate(game.log):
        cur = state.current
        assert cur is not None
        if action.seat == seat:
            point = point_at(state, action, index)
            if point is not None and point.kind is Kind.CALL:
                key = (point.obs.number, _call_name(point.obs))
                if isinstance(action, Contra | Re):
                    called.add(key)
                    out.append(point)
                else:
                    declined[key] = point
            elif point is not None:
                out.append(point)
            if isinstance(action, PlayCard) and game.settings.variant is Variant.KLAMMERN:
                out.extend(_klammern_chances(state, action, index, declined))
        before, number = len(cur.tricks), cur.number
        state, _ = state.apply(action)
        after = state.current if state.current is not None else state.rounds[-1]
        if claim_mode and after.number == number and len(after.tricks) > before:
            trick = after.tricks[-1]
            if trick.roem and trick.winner.team is seat.team:
                chances.append((index + 1, number, len(after.tricks), observe(after, seat)))
    out.extend(p for key, p in declined.items() if key not in called)
    rounds = {r.number: r for r in (*state.rounds, *([state.current] if state.current else []))}
    for index, number, trick_no, obs in chances:
        rnd = rounds.get(number)
        if rnd is not None and not rnd.claimed[trick_no - 1] and obs.claimable_roem:
            out.append(Point(index, Kind.CLAIM, obs, Pass(seat), obs.claimable_roem))
    out.sort(key=lambda p: p.index)
    return out


def _call_name(obs: Observation) -> str:
    """Which call ``obs`` offers: "contra" or "re"."""
    return "re" if any(isinstance(a, Re) for a in obs.legal) else "contra"


def _klammern_chances(
    state: GameState, action: PlayCard, index: int, declined: dict[tuple[int, str], Point]
) -> list[Point]:
    """The Klammern decisions a card of ``action.seat`` also made (:func:`points`): not
    calling (kept in ``declined``, the last one of a round counts), not declaring, no bella.
    """
    seat = action.seat
    obs = observe(state, seat)
    out: list[Point] = []
    if any(isinstance(a, Contra | Re) for a in obs.legal):
        declined[(obs.number, _call_name(obs))] = Point(index, Kind.CALL, obs, Pass(seat))
    if any(isinstance(a, Declare) for a in obs.legal):
        out.append(Point(index, Kind.DECLARE, obs, Pass(seat)))
    if not isinstance(action, Bella) and Bella(seat, action.card) in obs.legal:
        out.append(Point(index, Kind.DECLARE, obs, action))
    return out


def point_at(state: GameState, action: Action, index: int | None = None) -> Point | None:
    """The decision ``action`` of ``action.seat`` in ``state`` (before it is applied), or
    None when it is not judged (no choice). ``index``: its place in the log (default: the
    actions of ``state`` so far)."""
    obs = observe(state, action.seat)
    kind = _kind(obs, action)
    if kind is None:
        return None
    at = len(state.log) if index is None else index
    return Point(at, kind, obs, action, obs.claimable_roem if kind is Kind.CLAIM else 0)


def _kind(obs: Observation, action: Action) -> Kind | None:
    """What ``action`` decided, or None when it is not judged."""
    if isinstance(action, ClaimRoem):
        return Kind.CLAIM if obs.settings.roem is RoemMode.CLAIM else None
    if isinstance(action, Contra | Re):
        return Kind.CALL
    if isinstance(action, Declare):
        return Kind.DECLARE
    if obs.phase is Phase.BIDDING:
        if len(obs.legal) < 2:
            return None
        if isinstance(action, Choose) and sum(isinstance(a, Choose) for a in obs.legal) > 1:
            return Kind.TRUMP
        if isinstance(action, Pass | Accept | Choose | Kleintje | Beter):
            return Kind.BID
        return None
    if isinstance(action, Pass) and any(isinstance(a, Contra | Re) for a in obs.legal):
        return Kind.CALL
    if isinstance(action, PlayCard):
        cards = {a.card for a in obs.legal if isinstance(a, PlayCard)}
        return Kind.CARD if len(cards) > 1 else None
    return None


# --- judging ------------------------------------------------------------------------------


def judge(point: Point, seed: int, player: StrongPlayer | None = None) -> Judgement | None:
    """Strong's judgement of one decision, from ``point.obs`` only (module docstring).

    Args:
        point: the decision.
        seed: the seed a computer (and the tip) would get there.
        player: the strong player (default :func:`engine.ai.tip.tip_player`).

    Returns:
        The judgement, or None when there is nothing to compare (no world fitted the budget).
    """
    if point.kind is Kind.CLAIM:
        return _judge_claim(point)
    if point.kind in (Kind.BID, Kind.TRUMP):
        return _judge_bid(point)
    if point.kind is Kind.DECLARE:
        return _judge_declare(point)
    if point.kind is Kind.CALL:
        return _judge_call(point, seed, player if player is not None else tip_player())
    return _judge_card(point, seed, player if player is not None else tip_player())


def _base(point: Point, yours: Action, its: Action, mine: float, theirs: float) -> Judgement:
    obs = point.obs
    assert obs.seat is not None
    return Judgement(
        point.index,
        obs.number,
        len(obs.tricks) + (point.kind in (Kind.CARD, Kind.CALL, Kind.DECLARE)),
        point.kind,
        obs.seat,
        obs.leader,
        obs.trick,
        obs.trump,
        yours,
        its,
        round(mine, 1),
        round(theirs, 1),
        round(max(0.0, theirs - mine), 1),
    )


def _judge_card(point: Point, seed: int, player: StrongPlayer) -> Judgement | None:
    obs = point.obs
    yours = point.action
    assert isinstance(yours, PlayCard)
    if obs.settings.variant is Variant.KLAVERJASSEN:
        n = sum(isinstance(a, PlayCard) for a in obs.legal)
        s = tip(obs, seed, n, player=player)
        values = {cs.card: cs.score for cs in s.scores}
        its = s.action
    else:
        its, ev = player.decide(obs, random.Random(seed))
        if ev is None:
            ev = player.evaluate(obs, knowledge(obs), random.Random(seed))
        values = {CARDS[c]: v / 2 for c, v in ev.values.items()}
    if not isinstance(its, PlayCard) or yours.card not in values or its.card not in values:
        return None
    j = _base(point, yours, its, values[yours.card], values[its.card])
    if j.cost > 0:
        j = _with_why(j, _card_why(obs, yours.card, its.card))
    return j


def _with_why(j: Judgement, why: Why | None) -> Judgement:
    return replace(j, why=why)


def _card_why(obs: Observation, yours: Card, its: Card) -> Why | None:
    """A simple reason the seat's card was worse than strong's, if one applies."""
    trump = obs.trump
    assert trump is not None and obs.seat is not None and obs.maker is not None
    me = obs.seat
    if not obs.trick:
        if obs.maker.team is me.team and its.suit is trump and yours.suit is not trump:
            return Why.TRUMP_NOT_PULLED
        return None
    seats = obs.trick_seats
    win = winning_position(obs.trick, trump)
    partner = seats[win].team is me.team
    mine_wins = winning_position((*obs.trick, yours), trump) == len(obs.trick)
    its_wins = winning_position((*obs.trick, its), trump) == len(obs.trick)
    if partner and mine_wins and not its_wins:
        if obs.trick[win].rank is Rank.ACE:
            return Why.PARTNER_ACE_OVERTAKEN
        return Why.PARTNER_OVERTAKEN
    if not partner and not mine_wins:
        four = obs.settings.four_low_cards
        if obs.settings.variant is Variant.KLAVERJASSEN:
            given = roem((*obs.trick, yours), trump, four) - roem(obs.trick, trump, four)
            kept = roem((*obs.trick, its), trump, four) - roem(obs.trick, trump, four)
            if given > kept:
                return Why.ROEM_GIVEN
        if its_wins:
            return Why.TRICK_LEFT
        if card_points(yours, trump) >= card_points(its, trump) + 10:
            return Why.POINTS_GIVEN
    return None


def bid_values(obs: Observation) -> dict[Action, float]:
    """What each legal bidding action of ``obs`` is worth to the bidder's team by the
    bidding model (:func:`engine.ai.bidding.bid`'s own numbers): a suit its predicted round
    margin, passing the threshold at which strong passes; Klammern predictions (2·P(win)−1)
    times :data:`~engine.ai.strong.KLAMMERN_WIN`. Points of margin (halve for a round score).
    """
    hand, rel, pos = _hand(obs), _rel(obs), _position(obs)
    rule = obs.settings.play_rule
    scale = KLAMMERN_WIN if rule is PlayRule.KLAMMERN else 1.0
    out: dict[Action, float] = {}
    threshold: float | None = None
    for a in obs.legal:
        if isinstance(a, Choose):
            out[a] = predict(hand, a.suit.ordinal, rel, rule) * scale
            threshold = bidcoef.FREE_THRESHOLDS[pos]
        elif isinstance(a, Accept):
            out[a] = predict(hand, obs.shown[-1].ordinal, rel, rule) * scale
            if obs.settings.trump_selection is TrumpSelection.KLAMMERN:
                threshold = bidcoef.KLAMMERN_ACCEPT[pos] * scale
            else:
                threshold = bidcoef.TURNED_THRESHOLDS[pos + (4 if len(obs.shown) > 1 else 0)]
        elif isinstance(a, Kleintje):
            out[a] = predict(hand, a.suit.ordinal, rel, rule) * scale
            threshold = bidcoef.KLAMMERN_KLEINTJE[pos] * scale
        elif isinstance(a, Beter):
            out[a] = predict(hand, Suit.CLUBS.ordinal, rel, rule) * scale
            threshold = bidcoef.KLAMMERN_BETER * scale
    for a in obs.legal:
        if isinstance(a, Pass):
            out[a] = threshold if threshold is not None else 0.0
    return out


def _judge_bid(point: Point) -> Judgement | None:
    obs = point.obs
    values = bid_values(obs)
    its = model_bid(obs)
    yours = point.action
    if yours not in values or its not in values:
        return None
    j = _base(point, yours, its, (162 + values[yours]) / 2, (162 + values[its]) / 2)
    if j.cost > 0:
        why = (
            Why.STRONG_ENOUGH
            if isinstance(yours, Pass)
            else Why.TOO_WEAK
            if isinstance(its, Pass)
            else Why.OTHER_SUIT
        )
        j = _with_why(j, why)
    return j


def _judge_claim(point: Point) -> Judgement | None:
    obs = point.obs
    assert obs.seat is not None
    wanted = should_claim(obs)
    claimed = isinstance(point.action, ClaimRoem)
    its: Action = ClaimRoem(obs.seat) if wanted else Pass(obs.seat)
    r = float(point.roem)
    mine = r if claimed == wanted else 0.0
    j = _base(point, point.action, its, mine, r)
    if j.cost > 0:
        j = _with_why(j, Why.ROEM_NOT_CLAIMED if wanted else Why.ROEM_CLAIMED_NAT)
    return j


def _judge_call(point: Point, seed: int, player: StrongPlayer) -> Judgement | None:
    """Contra or re, called or not (module docstring); None when the search is not sound
    from the seat's view (an opponent to play) or no world fitted the budget."""
    obs = point.obs
    seat = obs.seat
    assert seat is not None and obs.klammern is not None
    calls = [a for a in obs.legal if isinstance(a, Contra | Re)]
    mover = Seat((int(obs.leader) + len(obs.trick)) % 4)
    if not calls or mover.team is not seat.team or obs.trump is None:
        return None
    ev = player.evaluate(obs, knowledge(obs), random.Random(seed))
    if not ev.values:
        return None
    km = obs.klammern
    stake = 4 if km.re is not None else 2 if km.contra is not None else 1
    base = max(ev.values.values()) / 2
    more = stake * player.klammern_win * (2 * ev.win_share - 1) / 2
    its: Action = calls[0] if ev.win_share >= player.call_share else Pass(seat)

    def value(a: Action) -> float:
        return base + more if isinstance(a, Contra | Re) else base

    j = _base(point, point.action, its, value(point.action), value(its))
    if j.cost > 0:
        j = _with_why(j, Why.CALL_MISSED if isinstance(point.action, Pass) else Why.CALL_RISKY)
    return j


def _judge_declare(point: Point) -> Judgement | None:
    """A Klammern declaration (module docstring): a declared sequence costs nothing; the
    sequences left undeclared their points unless the other team's declarations already
    made beat the seat's best; a forgotten bella 20."""
    obs = point.obs
    seat = obs.seat
    km = obs.klammern
    assert seat is not None and km is not None and obs.trump is not None
    yours = point.action
    if isinstance(yours, Declare):
        return _base(point, yours, yours, 0.0, 0.0)
    if isinstance(yours, PlayCard):
        j = _base(point, yours, Bella(seat, yours.card), 0.0, float(BELLA))
        return _with_why(j, Why.BELLA_LOST)
    left = [a for a in obs.legal if isinstance(a, Declare)]
    if not left:
        return None
    ours = [d.cards for d in km.declarations if d.team is seat.team] + [a.cards for a in left]
    theirs = [d.cards for d in km.declarations if d.team is not seat.team]
    beaten = best_team({seat.team: ours, seat.team.other: theirs}, obs.trump) is not seat.team
    lost = 0.0 if beaten else float(sum(sequence_value(a.cards) for a in left))
    j = _base(point, yours, left[0] if lost else yours, 0.0, lost)
    return _with_why(j, Why.NOT_DECLARED) if j.cost > 0 else j


# --- hindsight ------------------------------------------------------------------------------


def hindsight(state: GameState, j: Judgement, max_nodes: int = HINDSIGHT_NODES) -> float | None:
    """The double-dummy cost of a card decision with all hands of ``state`` shown (the game
    before the decision): half the difference of the exact round margins (§6) after strong's
    card and the seat's (negative: the seat's card was the better one in this deal). None for
    other decisions, Klammern, or when the solver
    needs more than ``max_nodes``. Hindsight: never the verdict."""
    if j.kind is not Kind.CARD or not isinstance(j.yours, PlayCard):
        return None
    cur = state.current
    if cur is None or cur.trump is None or state.settings.variant is not Variant.KLAVERJASSEN:
        return None
    assert isinstance(j.its, PlayCard) and cur.maker is not None
    obs = observe(state, j.seat)
    hands = tuple(cur.hands)
    leader = int(obs.leader)
    trick = tuple(((leader + i) % 4, c.index) for i, c in enumerate(obs.trick))
    base = (
        obs.card_points[Team.NS] + obs.roem[Team.NS],
        obs.card_points[Team.EW] + obs.roem[Team.EW],
    )
    options: dd.Options = {
        "play_rule": state.settings.play_rule.value,
        "roem": True,
        "four_low_cards": state.settings.four_low_cards,
        "tricks_taken": (obs.tricks_won[Team.NS], obs.tricks_won[Team.EW]),
        "pit": True,
        "defender_pit": state.settings.defender_pit,
        "playing_team": team_index(cur.maker.team),
        "objective": "score",
        "taken": base,
    }
    res = dd.solve_moves(hands, cur.trump.ordinal, leader, trick, max_nodes=max_nodes, **options)
    mine, its = j.yours.card.index, j.its.card.index
    if mine not in res.values or its not in res.values:
        return None
    sign = 1 if j.seat.team is Team.NS else -1
    return round(sign * (res.values[its] - res.values[mine]) / 2, 1)


# --- next to the par ---------------------------------------------------------------------------


def choices(game: GameState, seat: Seat) -> list[Point]:
    """Every action of ``seat`` in ``game`` where it had more than one legal action, in log
    order (kind :attr:`Kind.BID` in bidding, else as :func:`points` says or
    :attr:`Kind.CARD`): the places where it could leave the par's line.

    Raises:
        IllegalAction: a corrupt log.
    """
    state = GameState.new(game.settings, game.seed)
    out: list[Point] = []
    for index, action in enumerate(game.log):
        if action.seat == seat:
            obs = observe(state, seat)
            if len(obs.legal) > 1:
                kind = _kind(obs, action) or (Kind.BID if obs.phase is Phase.BIDDING else Kind.CARD)
                out.append(Point(index, kind, obs, action))
        state, _ = state.apply(action)
    return out


def par_without_computer(point: Point) -> Action | None:
    """The par's action at ``point`` when it needs no computer: the par game claims every
    roem at once (:meth:`bot.service.daily.DailyOps.daily_par`). None: ask the computer."""
    seat = point.obs.seat
    assert seat is not None
    claim = ClaimRoem(seat)
    return claim if claim in point.obs.legal else None


def parting(point: Point, par: Action, your_score: int, par_score: int) -> Parting:
    """The :class:`Parting` at ``point`` where the par's computer chose ``par``."""
    obs = point.obs
    assert obs.seat is not None
    bidding = obs.phase is Phase.BIDDING
    return Parting(
        obs.number,
        point.index,
        point.kind,
        0 if bidding else len(obs.tricks) + 1,
        obs.seat,
        obs.leader,
        obs.trick,
        obs.trump,
        point.action,
        par,
        your_score,
        par_score,
    )


def compare_par(
    partings: Sequence[Parting], scores: Sequence[tuple[int, int]], top: int = 3
) -> ParComparison:
    """The comparison from each round's parting (at most one a round, any order) and the
    round scores ``(yours, par's)`` per round: the first parting, and the ``top`` partings
    whose rounds cost the most against the par."""
    ordered = sorted(partings, key=lambda p: p.index)
    worst = sorted((p for p in ordered if p.cost > 0), key=lambda p: (-p.cost, p.index))
    return ParComparison(ordered[0] if ordered else None, tuple(worst[:top]), tuple(scores))


# --- the review ------------------------------------------------------------------------------


def summarize(
    seat: Seat, variant: Variant, judged: Sequence[Judgement], rounds: int, top: int = TOP
) -> Review:
    """The review from the judged decisions of ``seat`` (in log order): per-round sums for
    rounds 1..``rounds``, the ``top`` costliest decisions (cost > 0, costliest first, then
    earliest)."""
    per: list[RoundCost] = []
    for n in range(1, rounds + 1):
        mine = [j for j in judged if j.round == n]
        per.append(
            RoundCost(
                n,
                len(mine),
                round(sum(j.cost for j in mine), 1),
                sum(j.yours != j.its for j in mine),
            )
        )
    worst = sorted((j for j in judged if j.cost > 0), key=lambda j: (-j.cost, j.index))[:top]
    return Review(
        seat,
        variant,
        tuple(per),
        tuple(worst),
        len(judged),
        round(sum(j.cost for j in judged), 1),
    )


def with_hindsight(game: GameState, review: Review) -> Review:
    """``review`` with the hindsight cost (:func:`hindsight`) of its shown card decisions."""
    worst = []
    for j in review.worst:
        if j.kind is Kind.CARD:
            before = replay_actions(
                game.settings, game.seed, (a.notation() for a in game.log[: j.index])
            )
            worst.append(replace(j, hindsight=hindsight(before, j)))
        else:
            worst.append(j)
    return replace(review, worst=tuple(worst))


def review_game(
    game: GameState,
    seat: Seat,
    seed_of: Callable[[int], int],
    player: StrongPlayer | None = None,
    top: int = TOP,
    *,
    with_hind: bool = True,
) -> Review:
    """The whole review of ``seat`` in ``game`` in one call (the bot spreads the judging
    over the computer pool instead: :mod:`bot.service.review`).

    Args:
        game: the game (finished, or as far as played).
        seat: the reviewed seat.
        seed_of: the seed of the decision after that many actions (the bot's computer seed).
        player: the strong player (default :func:`engine.ai.tip.tip_player`).
        top: decisions shown.
        with_hind: add the hindsight numbers.
    """
    strong = player if player is not None else tip_player()
    judged = [j for p in points(game, seat) if (j := judge(p, seed_of(p.index), strong))]
    review = summarize(seat, game.settings.variant, judged, len(game.rounds) or 1, top)
    return with_hindsight(game, review) if with_hind else review


__all__ = [
    "TOP",
    "Judgement",
    "Kind",
    "ParComparison",
    "Parting",
    "Point",
    "Review",
    "RoundCost",
    "Why",
    "bid_values",
    "choices",
    "compare_par",
    "hindsight",
    "hindsight_of",
    "judge",
    "par_without_computer",
    "parting",
    "point_at",
    "points",
    "review_game",
    "summarize",
    "with_hindsight",
]


def hindsight_of(settings: Settings, seed: int, actions: Sequence[str], review: Review) -> Review:
    """:func:`with_hindsight` of the game replayed from ``actions`` (notation): a top-level
    function a process pool can run.

    Raises:
        NotationError, IllegalAction: a corrupt log.
    """
    return with_hindsight(replay_actions(settings, seed, actions), review)
