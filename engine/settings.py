"""Table settings: a preset (``rules.md`` §7) plus single overrides, validated.

>>> s = Settings.from_preset("klassiek", rounds=8)
>>> s.trump_selection, s.roem, s.rounds
(<TrumpSelection.TURNED: 'turned'>, <RoemMode.CLAIM: 'claim'>, 8)

An unknown setting name or a bad value raises :class:`~engine.errors.SettingsError` naming it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.errors import SettingsError


class TrumpSelection(StrEnum):
    """How trump is chosen (``rules.md`` §3; Klammern bidding §9.3)."""

    FREE = "free"
    MANDATORY = "mandatory"
    TURNED = "turned"
    KLAMMERN = "klammern"


class PlayRule(StrEnum):
    """Duties when void in the led suit (``rules.md`` §4.3–4.5; Klammern §9.4)."""

    AMSTERDAM = "amsterdam"
    ROTTERDAM = "rotterdam"
    KLAMMERN = "klammern"


class RoemMode(StrEnum):
    """``auto``: the engine counts trick roem; ``claim``: the winners must claim it (§5.5);
    ``declarations``: Klammern declarations from the hand instead of trick roem (§9.5)."""

    AUTO = "auto"
    CLAIM = "claim"
    DECLARATIONS = "declarations"


class FirstLead(StrEnum):
    """Who leads the first trick (``rules.md`` §3.4)."""

    FOREHAND = "forehand"
    MAKER = "maker"


class Variant(StrEnum):
    """The game family: Klaverjassen or its German cousin Klammern (``rules.md`` §9)."""

    KLAVERJASSEN = "klaverjassen"
    KLAMMERN = "klammern"


PRESETS: dict[str, dict[str, Any]] = {
    "amsterdam": {
        "trump_selection": TrumpSelection.FREE,
        "play_rule": PlayRule.AMSTERDAM,
        "roem": RoemMode.AUTO,
        "first_lead": FirstLead.FOREHAND,
    },
    "rotterdam": {
        "trump_selection": TrumpSelection.FREE,
        "play_rule": PlayRule.ROTTERDAM,
        "roem": RoemMode.AUTO,
        "first_lead": FirstLead.FOREHAND,
    },
    "utrecht": {
        "trump_selection": TrumpSelection.MANDATORY,
        "play_rule": PlayRule.AMSTERDAM,
        "roem": RoemMode.AUTO,
        "first_lead": FirstLead.FOREHAND,
    },
    "klassiek": {
        "trump_selection": TrumpSelection.TURNED,
        "play_rule": PlayRule.AMSTERDAM,
        "roem": RoemMode.CLAIM,
        "first_lead": FirstLead.MAKER,
    },
    "klammern": {
        "trump_selection": TrumpSelection.KLAMMERN,
        "play_rule": PlayRule.KLAMMERN,
        "roem": RoemMode.DECLARATIONS,
        "first_lead": FirstLead.FOREHAND,
    },
}
"""The presets of ``rules.md`` §7, by name."""

DEFAULT_PRESET = "amsterdam"
KLAVERJAS_PRESETS = ("amsterdam", "rotterdam", "utrecht", "klassiek")


@dataclass(frozen=True, slots=True)
class Settings:
    """One table's rules. Build with :meth:`from_preset` or :meth:`from_dict`, never by hand.

    Attributes:
        preset: the preset the table started from (``rules.md`` §7).
        trump_selection, play_rule, roem, first_lead: see the enums.
        four_low_cards: roem for four 9s, 8s or 7s in a trick, 0 or 100 (§5.4).
        defender_pit: defenders who take all 8 tricks get the pit bonus too (§6.4).
        rounds: rounds in a Klaverjassen game, 16 (a boompje) or 8 (§2.3); Klammern has no
            rounds limit and ignores it.
        target_big_points: Klammern: big points that end the game (§9.9), 1..20; the game
            ends as soon as a team has at least this many.
        auto_declare: Klammern: the engine declares every sequence of a seat's hand with its
            first card (§9.5) and announces bella with the first of K/Q of trump (§9.6);
            ``Declare`` and ``Bella`` actions are then not offered and are refused.
    """

    preset: str = DEFAULT_PRESET
    trump_selection: TrumpSelection = TrumpSelection.FREE
    play_rule: PlayRule = PlayRule.AMSTERDAM
    roem: RoemMode = RoemMode.AUTO
    first_lead: FirstLead = FirstLead.FOREHAND
    four_low_cards: int = 0
    defender_pit: bool = True
    rounds: int = 16
    target_big_points: int = 3
    auto_declare: bool = False

    @property
    def variant(self) -> Variant:
        """Klammern when its bidding is used, else Klaverjassen."""
        if self.trump_selection is TrumpSelection.KLAMMERN:
            return Variant.KLAMMERN
        return Variant.KLAVERJASSEN

    @classmethod
    def from_preset(cls, preset: str = DEFAULT_PRESET, **overrides: Any) -> Settings:
        """The preset's settings with single settings overridden.

        Raises:
            SettingsError: unknown preset, unknown setting name, or invalid value.
        """
        return cls.from_dict({"preset": preset, **overrides})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Build from a JSON-like dict: optional ``preset`` plus single settings.

        Values may be given as their JSON form (strings, ints, bools).

        Raises:
            SettingsError: as :meth:`from_preset`.
        """
        if not isinstance(data, dict):
            raise SettingsError("settings", data, "settings must be an object")
        preset = data.get("preset", DEFAULT_PRESET)
        if preset not in PRESETS:
            raise SettingsError("preset", preset, f"unknown preset {preset!r}")
        values: dict[str, Any] = {"preset": preset, **PRESETS[preset]}
        for name, raw in data.items():
            if name == "preset":
                continue
            if name not in _PARSERS:
                raise SettingsError(name, None, f"unknown setting {name!r}")
            values[name] = _PARSERS[name](name, raw)
        settings = cls(**values)
        settings._check_consistent()
        return settings

    def replace(self, **overrides: Any) -> Settings:
        """A copy with single settings changed (validated like :meth:`from_dict`)."""
        return Settings.from_dict({**self.to_dict(), **overrides})

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict; ``Settings.from_dict(s.to_dict()) == s``."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.value if isinstance(v, StrEnum) else v
        return out

    def _check_consistent(self) -> None:
        klammern_parts = (
            self.trump_selection is TrumpSelection.KLAMMERN,
            self.play_rule is PlayRule.KLAMMERN,
            self.roem is RoemMode.DECLARATIONS,
        )
        if any(klammern_parts) and not all(klammern_parts):
            name = ("trump_selection", "play_rule", "roem")[klammern_parts.index(False)]
            raise SettingsError(
                name, getattr(self, name), f"{name!r} must be 'klammern'-style with the others"
            )


def _enum_parser(enum: type[StrEnum]) -> Any:
    def parse(name: str, raw: object) -> StrEnum:
        try:
            return enum(str(raw))
        except ValueError:
            raise SettingsError(name, raw) from None

    return parse


def _choice_parser(*choices: int) -> Any:
    def parse(name: str, raw: object) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or raw not in choices:
            raise SettingsError(name, raw)
        return raw

    return parse


def _bool_parser(name: str, raw: object) -> bool:
    if not isinstance(raw, bool):
        raise SettingsError(name, raw)
    return raw


def _range_parser(lo: int, hi: int) -> Any:
    def parse(name: str, raw: object) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or not lo <= raw <= hi:
            raise SettingsError(name, raw)
        return raw

    return parse


_PARSERS: dict[str, Any] = {
    "trump_selection": _enum_parser(TrumpSelection),
    "play_rule": _enum_parser(PlayRule),
    "roem": _enum_parser(RoemMode),
    "first_lead": _enum_parser(FirstLead),
    "four_low_cards": _choice_parser(0, 100),
    "defender_pit": _bool_parser,
    "rounds": _choice_parser(8, 16),
    "target_big_points": _range_parser(1, 20),
    "auto_declare": _bool_parser,
}
