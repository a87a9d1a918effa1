"""The phases of a round (``docs/design.md`` §2: an explicit ``phase``), in their own module
(the engine's modules and the computer players use them without the round)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a round stands.

    ``bidding`` (§3, §9.3) → ``play`` (§4, §9.4–9.7) → [``claim``: the last trick's roem window
    in claim mode, §5.5] → ``scored`` (§6, §9.8). ``redeal``: Klammern, everybody passed and the
    same dealer deals again (§9.3); the game replaces such a round with a new deal.
    """

    BIDDING = "bidding"
    PLAY = "play"
    CLAIM = "claim"
    SCORED = "scored"
    REDEAL = "redeal"
