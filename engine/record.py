"""JSON-able game records that replay, and per-round exports.

A record is ``{"format": 1, "settings": {...}, "seed": int, "actions": ["0:pass", ...]}``;
:func:`replay` rebuilds the exact state (state = f(settings, seed, actions), ``docs/design.md`` §2).
Klammern actions (``kleintje``, ``beter``, ``declare``, ``bella``, ``contra``, ``re``) are in
the same log, and a voided deal replays to the same redeal (§9.3).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.actions import parse_action
from engine.cards import SEATS, Team
from engine.errors import NotationError
from engine.game import GameState
from engine.klammern import Tally
from engine.klammern import play as kplay
from engine.round import RoundState
from engine.rules import RoundScore
from engine.settings import Settings

RECORD_FORMAT = 1


def to_record(game: GameState) -> dict[str, Any]:
    """The game's record: settings, seed and every action in notation."""
    return {
        "format": RECORD_FORMAT,
        "settings": game.settings.to_dict(),
        "seed": game.seed,
        "actions": [a.notation() for a in game.log],
    }


def replay_actions(settings: Settings, seed: int, actions: Iterable[str]) -> GameState:
    """Replay actions in notation from a fresh game.

    Raises:
        NotationError: for text that is not an action.
        IllegalAction: for an action the rules refuse (the record is corrupt).
    """
    game = GameState.new(settings, seed)
    for text in actions:
        game, _ = game.apply(parse_action(text))
    return game


def replay(record: dict[str, Any]) -> GameState:
    """Rebuild a game from :func:`to_record` output.

    Raises:
        NotationError: unknown format or malformed fields; IllegalAction: corrupt log;
        SettingsError: bad settings.
    """
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise NotationError("not a game record")
    seed = record.get("seed")
    actions = record.get("actions")
    if isinstance(seed, bool) or not isinstance(seed, int) or not isinstance(actions, list):
        raise NotationError("not a game record")
    return replay_actions(Settings.from_dict(record.get("settings") or {}), seed, actions)


def round_export(state: RoundState, tally: Tally | None = None) -> dict[str, Any]:
    """One round as the bot's admin export describes it (seats 0-3, cards in notation).

    Klaverjassen keys: ``number``, ``dealer``, ``hands`` (as dealt), ``bids``, ``trump``,
    ``maker``, ``playing_team``, ``tricks``, ``card_points``, ``roem``, ``nat``, ``pit``,
    ``score``. A Klammern round (§9) has ``variant: "klammern"``, ``proposed`` (the dealer's
    face-up card, §9.2), the same bidding/trick keys, and ``declarations`` (seat, cards,
    points), ``declaration_points``, ``bella`` (seat), ``contra``/``re`` (seat or None),
    ``points`` (cards + declarations + bella), ``winner``, ``multiplier``, ``small_points``
    won, and with ``tally`` (from :meth:`GameState.tallies`) ``tally``: the small and big
    points after the round (§9.9). Unfinished rounds have None for the result keys.
    """
    if state.klammern is not None:
        return _klammern_round_export(state, tally)
    tricks = []
    for t in state.tricks:
        tricks.append(
            {
                "leader": int(t.leader),
                "cards": [{"seat": int(s), "card": str(c)} for s, c in t.played()],
                "winner": int(t.winner),
                "roem": t.roem,
            }
        )
    result = state.result
    out: dict[str, Any] = {
        "number": state.number,
        "dealer": int(state.dealer),
        "hands": {str(int(s)): [str(c) for c in state.deal.hands[s]] for s in SEATS},
        "bids": [a.notation() for a in state.bids],
        "trump": state.trump.value if state.trump else None,
        "maker": int(state.maker) if state.maker is not None else None,
        "playing_team": state.maker.team.value if state.maker is not None else None,
        "tricks": tricks,
        "card_points": _teams(state.team_card_points()),
        "roem": _teams(state.team_roem()),
        "nat": result.nat if result else None,
        "pit": (result.pit.value if result.pit else None)
        if isinstance(result, RoundScore)
        else None,
        "score": _teams(result.score) if result else None,
    }
    return out


def _klammern_round_export(state: RoundState, tally: Tally | None) -> dict[str, Any]:
    km = kplay.klammern_state(state)
    assert km is not None
    result = state.result
    card_points = state.team_card_points()
    out: dict[str, Any] = {
        "variant": "klammern",
        "number": state.number,
        "dealer": int(state.dealer),
        "hands": {str(int(s)): [str(c) for c in state.deal.hands[s]] for s in SEATS},
        "proposed": str(state.deal.dealer_middle_card),
        "bids": [a.notation() for a in state.bids],
        "trump": state.trump.value if state.trump else None,
        "maker": int(state.maker) if state.maker is not None else None,
        "playing_team": state.maker.team.value if state.maker is not None else None,
        "tricks": [
            {
                "leader": int(t.leader),
                "cards": [{"seat": int(s), "card": str(c)} for s, c in t.played()],
                "winner": int(t.winner),
            }
            for t in state.tricks
        ],
        **km.to_dict(),
        "declaration_points": _teams(kplay.declaration_points(state)),
        "card_points": _teams(card_points),
        "points": None,
        "winner": None,
        "multiplier": None,
        "small_points": None,
    }
    if result is not None:
        d = result.to_dict()
        for key in ("points", "winner", "multiplier", "small_points"):
            out[key] = d[key]
    if tally is not None:
        out["tally"] = tally.to_dict()
    return out


def game_export(game: GameState) -> dict[str, Any]:
    """The whole game for the admin export: ``settings``, ``seed``, ``variant``, ``rounds``
    (:func:`round_export` of every finished round, Klammern with its tally, then the round in
    progress if any), ``voided`` (Klammern deals everybody passed, §9.3: number, dealer,
    proposed card, hands, bids), ``totals`` (Klaverjassen points, Klammern big points),
    ``small_points`` (Klammern), ``winner`` (team or None) and ``over``."""
    tallies = game.tallies() or (None,) * len(game.rounds)
    rounds = [round_export(r, t) for r, t in zip(game.rounds, tallies, strict=True)]
    if game.current is not None:
        rounds.append(round_export(game.current))
    winner = game.winner()
    return {
        "settings": game.settings.to_dict(),
        "seed": game.seed,
        "variant": game.settings.variant.value,
        "rounds": rounds,
        "voided": [
            {
                "number": v.number,
                "dealer": int(v.dealer),
                "proposed": str(v.deal.dealer_middle_card),
                "hands": {str(int(s)): [str(c) for c in v.deal.hands[s]] for s in SEATS},
                "bids": [a.notation() for a in v.bids],
            }
            for v in game.voided
        ],
        "totals": _teams(game.totals()),
        "small_points": _teams(game.small_points()) if game.is_klammern else None,
        "winner": winner.value if winner else None,
        "over": game.is_over,
    }


def _teams(m: Any) -> dict[str, int]:
    return {t.value: int(m[t]) for t in (Team.NS, Team.EW)}
