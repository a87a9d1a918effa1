"""Type stub of the C double-dummy core (engine/ai/_dd.c); same contract as _ddpy.search."""

def search(
    hands: tuple[int, int, int, int],
    trump: int,
    rule: int,
    roem: bool,
    four_low: int,
    pit: int,
    leader: int,
    trick: tuple[int, ...],
    ns: int,
    ew: int,
    mode: int,
    playing: int,
    alpha: int,
    beta: int,
    new_tt: bool,
    limit: int = 0,
    budget_ms: float = 0.0,
    /,
) -> tuple[int, int, int]: ...
def legal_mask(
    hand: int, trump: int, rule: int, leader: int, trick: tuple[int, ...] | list[int], /
) -> int: ...
