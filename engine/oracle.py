"""``python -m engine.oracle``: answer worked rule cases (``shared/cases/README.md``).

Reads JSON lines on stdin, writes one JSON line per case on stdout, in order:
``{"id": ..., "actual": {...}}`` or ``{"id": ..., "error": "..."}`` when the engine refuses the
input. Every answer comes from the engine's public functions, the same code the bot plays with.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

from engine.actions import parse_action
from engine.cards import CARDS, SEATS, Card, Seat, Suit, Team, mask_of, parse_cards
from engine.deal import Deal
from engine.errors import EngineError
from engine.klammern import big_points, declaration_points
from engine.round import Phase, RoundState
from engine.rules import LAST_TRICK_BONUS, legal_mask, mask_points, roem, score_round
from engine.rules import winning_position as _winning_position
from engine.settings import FirstLead, Settings, TrumpSelection


class CaseError(ValueError):
    """A field of a case the oracle cannot read."""


def _get(data: dict[str, Any], key: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise CaseError(f"missing field {key!r}")
    return data[key]


def _trick(raw: Any) -> tuple[Seat, tuple[Card, ...]]:
    """Parse a trick list of ``{"seat", "card"}``; returns (leader, cards)."""
    if not isinstance(raw, list):
        raise CaseError("trick must be a list")
    seats = [Seat.parse(_get(x, "seat")) for x in raw]
    cards = parse_cards(_get(x, "card") for x in raw)
    if not raw:
        return Seat.NORTH, ()
    for i, s in enumerate(seats):
        if s != (seats[0] + i) % 4:
            raise CaseError("trick seats are not in clockwise order")
    return seats[0], cards


def _team_map(raw: Any, key: str) -> dict[Team, int]:
    if not isinstance(raw, dict):
        raise CaseError(f"{key} must be an object")
    out = {}
    for t in (Team.NS, Team.EW):
        v = _get(raw, t.value)
        if isinstance(v, bool) or not isinstance(v, int):
            raise CaseError(f"{key}.{t.value} must be an integer")
        out[t] = v
    return out


def legal_moves(settings: Settings, inp: dict[str, Any]) -> dict[str, Any]:
    """``legal_moves``: the legal cards of ``hand`` for ``seat`` (rules.md §4.5, §9.4)."""
    trump = Suit.parse(_get(inp, "trump"))
    leader, trick = _trick(_get(inp, "trick"))
    seat = Seat.parse(_get(inp, "seat"))
    hand = parse_cards(_get(inp, "hand"))
    if trick and seat != (leader + len(trick)) % 4:
        raise CaseError("seat is not the next to play")
    if not trick:
        leader = seat
    if len(trick) > 3 or not hand or mask_of(hand) & mask_of(trick):
        raise CaseError("impossible trick or hand")
    legal = legal_mask(mask_of(hand), trick, seat, leader, trump, settings.play_rule).legal
    return {"legal": [str(c) for c in hand if legal & c.bit]}


def trick_winner(settings: Settings, inp: dict[str, Any]) -> dict[str, Any]:
    """``trick_winner``: winner, card points (with last-trick 10) and roem (§4.6, §1.4, §5)."""
    trump = Suit.parse(_get(inp, "trump"))
    leader, cards = _trick(_get(inp, "trick"))
    if len(cards) != 4:
        raise CaseError("a trick has four cards")
    last = inp.get("last_trick", False)
    if not isinstance(last, bool):
        raise CaseError("last_trick must be a boolean")
    points = mask_points(mask_of(cards), trump) + (LAST_TRICK_BONUS if last else 0)
    trick_roem = (
        0 if settings.variant == "klammern" else roem(cards, trump, settings.four_low_cards)
    )
    winner = Seat((leader + _winning_position(cards, trump)) % 4)
    return {"winner": int(winner), "card_points": points, "roem": trick_roem}


def roem_case(settings: Settings, inp: dict[str, Any]) -> dict[str, Any]:
    """``roem``: roem in the cards of one trick (§5)."""
    trump = Suit.parse(_get(inp, "trump"))
    cards = parse_cards(_get(inp, "cards"))
    if not 1 <= len(cards) <= 4:
        raise CaseError("a trick has one to four cards")
    return {"roem": roem(cards, trump, settings.four_low_cards)}


def round_score(settings: Settings, inp: dict[str, Any]) -> dict[str, Any]:
    """``round_score``: nat, pit and the score per team (§6)."""
    playing = Team.parse(_get(inp, "playing_team"))
    result = score_round(
        playing,
        _team_map(_get(inp, "card_points"), "card_points"),
        _team_map(_get(inp, "roem"), "roem"),
        _team_map(_get(inp, "tricks"), "tricks"),
        settings.defender_pit,
    )
    return {
        "nat": result.nat,
        "pit": result.pit.value if result.pit else None,
        "score": {t.value: result.score[t] for t in (Team.NS, Team.EW)},
    }


def _bidding_deal(settings: Settings, inp: dict[str, Any], dealer: Seat) -> Deal:
    """A deal whose public bidding facts (turned suits, Klammern's proposed card) are the
    case's; the other cards are irrelevant to the auction and filled in a fixed order."""
    fixed: list[Card] = []
    turned: tuple[Suit, ...] = ()
    if settings.trump_selection is TrumpSelection.TURNED:
        number = inp.get("round", 2)
        shown = [Suit.parse(s) for s in inp.get("turned", [])]
        if not shown and number == 1:
            shown = [Suit.CLUBS]
        for s in (Suit.CLUBS, Suit.HEARTS, Suit.SPADES, Suit.DIAMONDS):
            if len(shown) < 2 and s not in shown:
                shown.append(s)
        if len(set(shown)) != 2 or len(shown) != 2:
            raise CaseError("turned must name up to two different suits")
        turned = (shown[0], shown[1])
    elif settings.trump_selection is TrumpSelection.KLAMMERN:
        if "dealer_last_three" in inp:
            fixed = list(parse_cards(inp["dealer_last_three"]))
            if len(fixed) != 3:
                raise CaseError("dealer_last_three must hold three cards")
        else:
            proposed = Suit.parse(_get(inp, "proposed"))
            fixed = [c for c in CARDS if c.suit is proposed][:3]
            fixed = [fixed[1], fixed[0], fixed[2]]
    rest = [c for c in CARDS if c not in fixed]
    hands: list[list[Card]] = [[] for _ in SEATS]
    for seat in SEATS:
        need = 8 - (3 if seat == dealer and fixed else 0)
        hands[seat], rest = rest[:need], rest[need:]
    hands[dealer].extend(fixed)
    return Deal(dealer, tuple(tuple(h) for h in hands), turned)


def bidding(settings: Settings, inp: dict[str, Any]) -> dict[str, Any]:
    """``bidding``: the outcome of an auction, or who acts next and their legal bids (§3, §9.3)."""
    dealer = Seat.parse(_get(inp, "dealer"))
    actions = _get(inp, "actions")
    if not isinstance(actions, list):
        raise CaseError("actions must be a list")
    number = inp.get("round", 2)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise CaseError("round must be a positive integer")
    state, _ = RoundState.start(settings, number, _bidding_deal(settings, inp, dealer))
    for text in actions:
        if state.phase is not Phase.BIDDING:
            raise CaseError("actions after the auction ended")
        state, _ = state.apply(parse_action(text))
    if state.phase is Phase.BIDDING:
        to_act = state.to_act
        assert to_act is not None
        return {
            "to_act": int(to_act),
            "legal": [a.notation(with_seat=False) for a in state.legal_actions()],
        }
    if state.phase is Phase.REDEAL:
        return {
            "redeal": True,
            "dealer": int(dealer),
            "trump": None,
            "maker": None,
            "playing_team": None,
            "leader": None,
        }
    assert state.maker is not None and state.trump is not None
    leader = state.maker if settings.first_lead is FirstLead.MAKER else state.forehand
    return {
        "trump": state.trump.value,
        "maker": int(state.maker),
        "playing_team": state.maker.team.value,
        "leader": int(leader),
    }


def declarations(settings: Settings, inp: dict[str, Any]) -> dict[str, Any]:
    """``declarations`` (Klammern §9.5): points per team; only the best team scores, all of
    its declarations. A team missing from ``declarations`` declared nothing; a card in two
    declarations is an error."""
    trump = Suit.parse(_get(inp, "trump"))
    decl = _get(inp, "declarations")
    if not isinstance(decl, dict):
        raise CaseError("declarations must be an object")
    per_team: dict[Team, list[tuple[Card, ...]]] = {}
    for t in (Team.NS, Team.EW):
        seqs = decl.get(t.value, [])
        if not isinstance(seqs, list) or not all(isinstance(q, list) for q in seqs):
            raise CaseError(f"declarations.{t.value} must be a list of card lists")
        per_team[t] = [parse_cards(seq) for seq in seqs]
    parse_cards(str(c) for seqs in per_team.values() for seq in seqs for c in seq)
    points = declaration_points(per_team, trump)
    return {t.value: points[t] for t in (Team.NS, Team.EW)}


def big_points_case(settings: Settings, inp: dict[str, Any]) -> dict[str, Any]:
    """``big_points`` (Klammern §9.9): big points for the small points reached."""
    small = _team_map(_get(inp, "small_points"), "small_points")
    big = big_points(small)
    return {"big_points": {t.value: big[t] for t in (Team.NS, Team.EW)}}


KINDS: dict[str, Callable[[Settings, dict[str, Any]], dict[str, Any]]] = {
    "legal_moves": legal_moves,
    "trick_winner": trick_winner,
    "roem": roem_case,
    "round_score": round_score,
    "bidding": bidding,
    "declarations": declarations,
    "big_points": big_points_case,
}


def answer(case: Any) -> dict[str, Any]:
    """Answer one parsed case: ``{"id", "actual"}`` or ``{"id", "error"}``; never raises."""
    case_id = case.get("id") if isinstance(case, dict) else None
    try:
        kind = _get(case, "kind")
        if kind not in KINDS:
            raise CaseError(f"unknown kind {kind!r}")
        settings = Settings.from_dict(case.get("settings") or {})
        inp = _get(case, "input")
        if not isinstance(inp, dict):
            raise CaseError("input must be an object")
        return {"id": case_id, "actual": KINDS[kind](settings, inp)}
    except (EngineError, CaseError, ValueError, TypeError, KeyError) as exc:
        return {"id": case_id, "error": f"{type(exc).__name__}: {exc}"}


def run(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Answer every non-blank JSON line; a line that is not JSON gets an error answer."""
    for line in lines:
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except ValueError as exc:
            yield {"id": None, "error": f"invalid JSON: {exc}"}
            continue
        yield answer(case)


def main(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Entry point of ``python -m engine.oracle``."""
    for out in run(stdin):
        stdout.write(json.dumps(out) + "\n")
    stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
