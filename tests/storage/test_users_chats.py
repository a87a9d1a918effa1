"""Contract: users and chats (last-writer-wins mirrors of Telegram)."""

from __future__ import annotations

import pytest

from storage import NotFound, Repository
from tests.storage.helpers import ANN, BOB, CHAT, T0


async def test_a_new_user_cannot_be_messaged_until_they_start_the_bot(repo: Repository) -> None:
    user = await repo.upsert_user(ANN, "Ann", "de", now=T0)
    assert (user.user_id, user.display_name, user.telegram_language) == (ANN, "Ann", "de")
    assert user.language is None
    assert user.can_message is False
    assert await repo.get_user(ANN) == user


async def test_upsert_refreshes_telegram_facts_and_keeps_the_users_choices(
    repo: Repository,
) -> None:
    await repo.upsert_user(ANN, "Ann", "de", now=T0)
    await repo.set_user_language(ANN, "fr", now=T0 + 1)
    await repo.set_can_message(ANN, True, now=T0 + 2)
    user = await repo.upsert_user(ANN, "Anna", None, now=T0 + 3)
    assert (user.display_name, user.telegram_language) == ("Anna", None)
    assert (user.language, user.can_message) == ("fr", True)
    assert user.updated_at == T0 + 3


async def test_blocking_the_bot_and_clearing_the_language_are_recorded(repo: Repository) -> None:
    await repo.upsert_user(ANN, "Ann", "nl", now=T0)
    await repo.set_can_message(ANN, True, now=T0)
    await repo.set_user_language(ANN, "de", now=T0)
    await repo.set_can_message(ANN, False, now=T0 + 1)
    user = await repo.set_user_language(ANN, None, now=T0 + 2)
    assert (user.can_message, user.language, user.updated_at) == (False, None, T0 + 2)
    assert await repo.get_user(ANN) == user


async def test_unknown_users(repo: Repository) -> None:
    assert await repo.get_user(ANN) is None
    with pytest.raises(NotFound) as missing:
        await repo.set_can_message(ANN, True, now=T0)
    assert (missing.value.kind, missing.value.key) == ("user", ANN)
    with pytest.raises(NotFound):
        await repo.set_user_language(ANN, "nl", now=T0)


async def test_get_users_returns_the_known_ones_by_id(repo: Repository) -> None:
    await repo.upsert_user(ANN, "Ann", "nl", now=T0)
    await repo.upsert_user(BOB, "Bob", None, now=T0)
    users = await repo.get_users([BOB, ANN, 12345, ANN])
    assert sorted(users) == [ANN, BOB]
    assert users[BOB].display_name == "Bob"
    assert await repo.get_users([]) == {}


async def test_user_ids_need_64_bits(repo: Repository) -> None:
    big = 2**63 - 1
    await repo.upsert_user(big, "Max", None, now=T0)
    user = await repo.get_user(big)
    assert user is not None
    assert user.user_id == big
    with pytest.raises(ValueError, match="64-bit"):
        await repo.upsert_user(2**63, "Too big", None, now=T0)


async def test_chat_round_trip_and_upsert_keeps_language_and_defaults(repo: Repository) -> None:
    chat = await repo.upsert_chat(CHAT, "group", "Club", now=T0)
    assert (chat.chat_id, chat.chat_type, chat.title) == (CHAT, "group", "Club")
    assert (chat.language, chat.table_defaults) == (None, None)
    await repo.set_chat_language(CHAT, "nl", now=T0 + 1)
    await repo.set_chat_defaults(CHAT, '{"rounds": 8}', now=T0 + 2)
    chat = await repo.upsert_chat(CHAT, "supergroup", "Club!", now=T0 + 3)
    assert (chat.chat_type, chat.title, chat.language) == ("supergroup", "Club!", "nl")
    assert chat.table_defaults == '{"rounds": 8}'
    assert await repo.get_chat(CHAT) == chat


async def test_chat_defaults_must_be_json_and_can_be_cleared(repo: Repository) -> None:
    await repo.upsert_chat(CHAT, "group", None, now=T0)
    with pytest.raises(ValueError, match="JSON"):
        await repo.set_chat_defaults(CHAT, "{rounds: 8", now=T0)
    await repo.set_chat_defaults(CHAT, '{"rounds": 8}', now=T0)
    chat = await repo.set_chat_defaults(CHAT, None, now=T0)
    assert chat.table_defaults is None


async def test_unknown_chats(repo: Repository) -> None:
    assert await repo.get_chat(CHAT) is None
    with pytest.raises(NotFound) as missing:
        await repo.set_chat_language(CHAT, "nl", now=T0)
    assert (missing.value.kind, missing.value.key) == ("chat", CHAT)
