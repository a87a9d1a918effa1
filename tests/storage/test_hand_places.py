"""Contract (migration 10): where a person wants their hand at group tables ("group": an
ephemeral message in the group, "private": their private chat, unset: as the table says),
kept beside their other preferences, changed at will, and gone with a forgotten person."""

from __future__ import annotations

import pytest

from storage import ANONYMOUS_MAX, Repository
from tests.storage.helpers import ANN, BOB, CAS, T0


async def test_a_choice_is_kept_changed_and_unset(seeded: Repository) -> None:
    assert await seeded.hand_places([ANN, BOB, CAS]) == {}
    await seeded.set_hand_place(ANN, "group", now=T0)
    await seeded.set_hand_place(BOB, "private", now=T0)
    assert await seeded.hand_places([ANN, BOB, CAS]) == {ANN: "group", BOB: "private"}
    await seeded.set_hand_place(ANN, "private", now=T0 + 1)
    await seeded.set_hand_place(BOB, None, now=T0 + 1)
    assert await seeded.hand_places([ANN, BOB]) == {ANN: "private"}
    assert await seeded.hand_places([]) == {}


async def test_the_board_choice_is_left_alone(seeded: Repository) -> None:
    await seeded.set_board_hidden(ANN, True, now=T0)
    await seeded.set_hand_place(ANN, "group", now=T0 + 1)
    assert await seeded.hidden_users([ANN]) == {ANN}
    await seeded.set_board_hidden(ANN, False, now=T0 + 2)
    assert await seeded.hand_places([ANN]) == {ANN: "group"}


async def test_other_places_are_refused(seeded: Repository) -> None:
    with pytest.raises(ValueError, match="hand place"):
        await seeded.set_hand_place(ANN, "channel", now=T0)
    assert await seeded.hand_places([ANN]) == {}


async def test_a_forgotten_person_takes_the_choice_along(seeded: Repository) -> None:
    await seeded.set_hand_place(ANN, "group", now=T0)
    assert await seeded.forget_user(ANN, ANONYMOUS_MAX - 3, now=T0 + 1)
    assert await seeded.hand_places([ANN]) == {}
