"""Contract: a group that becomes a supergroup changes its chat id; its row and games follow."""

from __future__ import annotations

import pytest

from storage import ChatMigration, ChatMoved, GameStatus, OpenGameExists, Repository
from tests.storage.helpers import BOB, CHAT, T0, new_game, start

GROUP = -4_001  # the old basic group
SUPERGROUP = -1_009_876_543_210  # its new supergroup id


async def _group_with_history(repo: Repository) -> tuple[int, int]:
    """A group with its language and defaults set, one finished and one active game."""
    await repo.upsert_chat(GROUP, "group", "Club", now=T0)
    await repo.set_chat_language(GROUP, "de", now=T0)
    await repo.set_chat_defaults(GROUP, '{"rounds": 8}', now=T0)
    old = await new_game(repo, GROUP)
    await repo.append_actions(
        old.game_id, 1, ["0:a"], snapshot="{}", status=GameStatus.ABANDONED, timer=None, now=T0
    )
    current = await new_game(repo, GROUP)
    await start(repo, current)
    return old.game_id, current.game_id


async def test_migration_moves_the_chat_row_and_every_game(seeded: Repository) -> None:
    old_id, current_id = await _group_with_history(seeded)
    moved = await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0 + 9)
    assert moved == ChatMigration(chat_moved=True, games_moved=2)
    assert await seeded.get_chat(GROUP) is None
    chat = await seeded.get_chat(SUPERGROUP)
    assert chat is not None
    assert (chat.title, chat.language, chat.table_defaults) == ("Club", "de", '{"rounds": 8}')
    assert chat.updated_at == T0 + 9
    open_game = await seeded.open_game_of_chat(SUPERGROUP)
    assert open_game is not None
    assert open_game.game_id == current_id
    assert await seeded.open_game_of_chat(GROUP) is None
    exported = await seeded.export_games(chat_id=SUPERGROUP)
    assert [g.game_id for g in exported] == [old_id, current_id]
    assert exported[0].actions == ("0:a",)
    assert await seeded.export_games(chat_id=GROUP) == []


async def test_migration_is_idempotent(seeded: Repository) -> None:
    await _group_with_history(seeded)
    await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0)
    again = await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0)
    assert again == ChatMigration(chat_moved=False, games_moved=0)
    assert len(await seeded.export_games(chat_id=SUPERGROUP)) == 2
    assert await seeded.migrate_chat(SUPERGROUP, SUPERGROUP, now=T0) == ChatMigration(False, 0)


async def test_migration_into_an_already_known_supergroup_merges(seeded: Repository) -> None:
    await _group_with_history(seeded)
    # The bot saw a message from the supergroup before the migration notice.
    await seeded.upsert_chat(SUPERGROUP, "supergroup", "Club (new)", now=T0)
    await seeded.set_chat_defaults(SUPERGROUP, '{"rounds": 16}', now=T0)
    moved = await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0 + 1)
    assert moved == ChatMigration(chat_moved=True, games_moved=2)
    chat = await seeded.get_chat(SUPERGROUP)
    assert chat is not None
    # Its own values win; the old row fills what it lacks.
    assert (chat.chat_type, chat.title) == ("supergroup", "Club (new)")
    assert (chat.table_defaults, chat.language) == ('{"rounds": 16}', "de")
    assert await seeded.get_chat(GROUP) is None
    assert len(await seeded.export_games(chat_id=SUPERGROUP)) == 2


async def test_migration_refuses_to_give_a_chat_two_open_games(seeded: Repository) -> None:
    _, current_id = await _group_with_history(seeded)
    await seeded.upsert_chat(SUPERGROUP, "supergroup", "Club", now=T0)
    other = await new_game(seeded, SUPERGROUP, creator_id=BOB, seats=())
    with pytest.raises(OpenGameExists) as refused:
        await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0)
    assert (refused.value.chat_id, refused.value.game_id) == (SUPERGROUP, other.game_id)
    # Nothing moved.
    assert await seeded.get_chat(GROUP) is not None
    group_game = await seeded.open_game_of_chat(GROUP)
    assert group_game is not None
    assert group_game.game_id == current_id
    assert len(await seeded.export_games(chat_id=GROUP)) == 2


async def test_migrating_an_unknown_chat_moves_nothing(seeded: Repository) -> None:
    assert await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0) == ChatMigration(False, 0)
    assert await seeded.get_chat(SUPERGROUP) is None
    assert await seeded.get_chat(CHAT) is not None


async def test_the_old_id_is_remembered_and_refused_from_then_on(seeded: Repository) -> None:
    await _group_with_history(seeded)
    assert await seeded.chat_successor(GROUP) is None
    await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0 + 1)
    assert await seeded.chat_successor(GROUP) == SUPERGROUP
    assert await seeded.chat_successor(SUPERGROUP) is None
    # A late update from the old id: no row again, no table there.
    with pytest.raises(ChatMoved) as moved:
        await seeded.upsert_chat(GROUP, "group", "Club", now=T0 + 2)
    assert (moved.value.key, moved.value.new_chat_id) == (GROUP, SUPERGROUP)
    assert await seeded.get_chat(GROUP) is None
    with pytest.raises(ChatMoved):
        await new_game(seeded, GROUP)
    assert await seeded.open_game_of_chat(GROUP) is None
    assert [(old, new) for _, old, new in await seeded.chat_migrations_after(0)] == [
        (GROUP, SUPERGROUP)
    ]


async def test_a_migration_of_an_unknown_chat_is_remembered(seeded: Repository) -> None:
    await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0)
    assert await seeded.chat_successor(GROUP) == SUPERGROUP
    with pytest.raises(ChatMoved):
        await seeded.upsert_chat(GROUP, "group", "Club", now=T0)
    # The first record wins; a refused migration records nothing.
    await seeded.migrate_chat(GROUP, CHAT, now=T0)
    assert await seeded.chat_successor(GROUP) == SUPERGROUP
    (first,) = await seeded.chat_migrations_after(0)
    assert await seeded.chat_migrations_after(first[0]) == []


async def test_a_refused_migration_remembers_nothing(seeded: Repository) -> None:
    await _group_with_history(seeded)
    await seeded.upsert_chat(SUPERGROUP, "supergroup", "Club", now=T0)
    await new_game(seeded, SUPERGROUP, creator_id=BOB, seats=())
    with pytest.raises(OpenGameExists):
        await seeded.migrate_chat(GROUP, SUPERGROUP, now=T0)
    assert await seeded.chat_successor(GROUP) is None
    assert await seeded.chat_migrations_after(0) == []
