"""Contract (migration 9): who wants to hear of a table that needs a player (``/notify``),
kept per group and person; at most one such message a person per interval, claimed once
among workers; the wishes follow a group that became a supergroup and go with a forgotten
person."""

from __future__ import annotations

import asyncio

from storage import ANONYMOUS_MAX, Repository
from tests.storage.helpers import ANN, BOB, CAS, CHAT, OTHER_CHAT, T0

HOUR = 3600.0


async def test_wishes_are_kept_per_group_and_person(seeded: Repository) -> None:
    assert await seeded.table_alert_users(CHAT) == []
    assert await seeded.set_table_alert(CHAT, BOB, True, now=T0)
    assert not await seeded.set_table_alert(CHAT, BOB, True, now=T0 + 1)  # already on
    assert await seeded.set_table_alert(CHAT, ANN, True, now=T0)
    assert await seeded.set_table_alert(OTHER_CHAT, CAS, True, now=T0)
    assert await seeded.table_alert_users(CHAT) == sorted([ANN, BOB])
    assert await seeded.table_alert_users(OTHER_CHAT) == [CAS]
    assert await seeded.set_table_alert(CHAT, BOB, False, now=T0)
    assert not await seeded.set_table_alert(CHAT, BOB, False, now=T0)  # already off
    assert await seeded.table_alert_users(CHAT) == [ANN]
    assert (await seeded.row_counts()).table_alerts == 2


async def test_one_message_a_person_per_interval_claimed_once(seeded: Repository) -> None:
    assert await seeded.claim_alert_send(BOB, now=T0, every=HOUR)
    assert not await seeded.claim_alert_send(BOB, now=T0 + HOUR - 1, every=HOUR)
    assert await seeded.claim_alert_send(ANN, now=T0 + 1, every=HOUR)  # per person
    assert await seeded.claim_alert_send(BOB, now=T0 + HOUR, every=HOUR)
    claims = await asyncio.gather(
        *(seeded.claim_alert_send(CAS, now=T0, every=HOUR) for _ in range(5))
    )
    assert sorted(claims) == [False] * 4 + [True]


async def test_wishes_follow_the_supergroup_and_go_with_a_forgotten_person(
    seeded: Repository,
) -> None:
    group, supergroup = -4_001, -1_009_876_543_210
    await seeded.upsert_chat(group, "group", "Club", now=T0)
    await seeded.set_table_alert(group, BOB, True, now=T0)
    await seeded.set_table_alert(group, CAS, True, now=T0)
    await seeded.migrate_chat(group, supergroup, now=T0 + 1)
    assert await seeded.table_alert_users(supergroup) == sorted([BOB, CAS])
    assert await seeded.table_alert_users(group) == []
    # Into a supergroup the bot knew already: the wishes are merged.
    other = -4_002
    await seeded.upsert_chat(other, "group", "Club 2", now=T0)
    await seeded.set_table_alert(other, BOB, True, now=T0)
    await seeded.set_table_alert(other, ANN, True, now=T0)
    await seeded.migrate_chat(other, supergroup, now=T0 + 2)
    assert await seeded.table_alert_users(supergroup) == sorted([ANN, BOB, CAS])
    assert await seeded.table_alert_users(other) == []
    await seeded.claim_alert_send(BOB, now=T0, every=HOUR)
    await seeded.forget_user(BOB, ANONYMOUS_MAX - 3, now=T0 + 3)
    assert await seeded.table_alert_users(supergroup) == sorted([ANN, CAS])
    assert (await seeded.row_counts()).alert_sends == 0
