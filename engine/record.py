"""JSON-able game records that replay, and per-round exports.

A record is ``{"format": 1, "settings": {...}, "seed": int, "actions": ["0:pass", ...]}``;
:func:`replay` rebuilds the exact state (state = f(settings, seed, actions), ``design.md`` §2).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.actions import parse_action
from engine.cards import SEATS, Team
from engine.errors import NotationError
from engine.game import GameState
from engine.round import RoundState
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


def round_export(state: RoundState) -> dict[str, Any]:
    """One round as the bot's admin export describes it (seats 0-3, cards in notation)."""
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
        "pit": (result.pit.value if result.pit else None) if result else None,
        "score": _teams(result.score) if result else None,
    }
    return out


def _teams(m: Any) -> dict[str, int]:
    return {t.value: int(m[t]) for t in (Team.NS, Team.EW)}
