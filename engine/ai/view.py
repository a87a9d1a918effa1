"""Small facts about an :class:`~engine.observe.Observation` shared by the computer players:
the current trick as indices, who is winning it, team helpers, roem-claim and Klammern
declaration decisions that both levels make the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action, ClaimRoem, Declare, Pass
from engine.ai.bitrules import POINTS, winning_index
from engine.cards import Team
from engine.observe import Observation
from engine.settings import RoemMode


@dataclass(frozen=True, slots=True)
class TrickView:
    """The current trick from the viewer's seat.

    Attributes:
        cards: card indices in play order.
        seats: the seats that played them.
        winner_pos: position of the winning card (-1 for an empty trick).
        winner_seat: its seat (-1 for an empty trick).
        partner_winning: the viewer's partner is winning it.
        points: card points in it so far.
        last: the viewer plays the fourth card.
    """

    cards: tuple[int, ...]
    seats: tuple[int, ...]
    winner_pos: int
    winner_seat: int
    partner_winning: bool
    points: int
    last: bool


def trick_view(obs: Observation) -> TrickView:
    """The current trick of ``obs`` (needs a trump: play phase)."""
    assert obs.trump is not None and obs.seat is not None
    trump = obs.trump.ordinal
    cards = tuple(c.index for c in obs.trick)
    seats = tuple((int(obs.leader) + i) % 4 for i in range(len(cards)))
    if not cards:
        return TrickView(cards, seats, -1, -1, False, 0, False)
    w = winning_index(cards, trump)
    pts = sum(POINTS[trump][c] for c in cards)
    me = int(obs.seat)
    return TrickView(cards, seats, w, seats[w], (seats[w] - me) % 2 == 0, pts, len(cards) == 3)


def team_index(team: Team) -> int:
    """0 for North–South, 1 for East–West (the solver's team numbers)."""
    return 0 if team is Team.NS else 1


def remaining_points(obs: Observation) -> int:
    """Card points not yet won in completed tricks, last-trick bonus included (§1.4)."""
    return 162 - sum(obs.card_points.values())


def should_claim(obs: Observation) -> bool:
    """Claim the roem of the last trick (claim mode, ``rules.md`` §5.5)?

    Always, except for a playing team that is nat even with this roem after the last trick
    (§6.3): then claiming only adds to what the defenders score. Defenders always claim.
    """
    if obs.maker is None or obs.seat is None or obs.settings.roem is not RoemMode.CLAIM:
        return True
    mine = obs.seat.team
    if obs.maker.team is not mine:
        return True
    ours = obs.card_points[mine] + obs.roem[mine] + obs.claimable_roem
    theirs = obs.card_points[mine.other] + obs.roem[mine.other]
    if remaining_points(obs) > 0:
        return True  # more points and roem may still come
    return ours > theirs


def preliminary(obs: Observation) -> Action | None:
    """Actions both levels take before thinking: claim roem when sensible (otherwise pass in
    the last-trick window), declare every Klammern sequence (§9.5). None when nothing applies."""
    legal = obs.legal
    claim = next((a for a in legal if isinstance(a, ClaimRoem)), None)
    if claim is not None:
        if should_claim(obs):
            return claim
        if len(legal) == 2 and any(isinstance(a, Pass) for a in legal):
            return next(a for a in legal if isinstance(a, Pass))
    declare = next((a for a in legal if isinstance(a, Declare)), None)
    if declare is not None:
        return declare
    return None
