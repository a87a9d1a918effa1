"""Group membership as the bot asks it (``getChatMember``): the statuses that count, "user not
found", a short memory that is bounded and forgets on request."""

from __future__ import annotations

from typing import Any, cast

from telegram import Bot, ChatMemberLeft, ChatMemberMember, ChatMemberRestricted, User
from telegram.error import BadRequest, TimedOut

from bot.membership import Membership

ALICE = User(1, "Alice", is_bot=False)


class _Telegram:
    """Answers ``get_chat_member`` from a dict, counting the questions."""

    def __init__(self, answers: dict[tuple[int, int], Any]) -> None:
        self.answers = answers
        self.asked = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.asked += 1
        answer = self.answers.get((chat_id, user_id), BadRequest("User not found"))
        if isinstance(answer, Exception):
            raise answer
        return answer


def _restricted(is_member: bool) -> ChatMemberRestricted:
    flags = dict.fromkeys(
        (
            "can_change_info", "can_invite_users", "can_pin_messages", "can_send_messages",
            "can_send_polls", "can_send_other_messages", "can_add_web_page_previews",
            "can_manage_topics", "can_send_audios", "can_send_documents", "can_send_photos",
            "can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_edit_tag",
            "can_react_to_messages",
        ),
        True,
    )  # fmt: skip
    return ChatMemberRestricted(ALICE, is_member, until_date=None, **flags)  # type: ignore[arg-type]


async def test_statuses_that_count_and_those_that_do_not() -> None:
    telegram = _Telegram(
        {
            (-1, 1): ChatMemberMember(ALICE),
            (-2, 1): ChatMemberLeft(ALICE),
            (-3, 1): _restricted(True),
            (-4, 1): _restricted(False),
        }
    )
    bot = cast(Bot, telegram)
    members = Membership()
    assert await members.is_member(bot, -1, 1)
    assert not await members.is_member(bot, -2, 1)
    assert await members.is_member(bot, -3, 1)
    assert not await members.is_member(bot, -4, 1)
    assert not await members.is_member(bot, -5, 1)  # "user not found"
    assert await members.is_member(bot, 1, 1) and not await members.is_member(bot, 2, 1)
    assert telegram.asked == 5  # a private chat needs no question


async def test_answers_are_kept_briefly_bounded_and_forgotten_on_request() -> None:
    now = [0.0]
    telegram = _Telegram({(-1, 1): ChatMemberMember(ALICE)})
    bot = cast(Bot, telegram)
    members = Membership(ttl=60, size=2, clock=lambda: now[0])
    assert await members.is_member(bot, -1, 1)
    assert await members.is_member(bot, -1, 1)
    assert telegram.asked == 1
    now[0] = 61
    assert await members.is_member(bot, -1, 1)
    assert telegram.asked == 2
    members.forget(-1, 1)
    assert await members.is_member(bot, -1, 1)
    assert telegram.asked == 3
    for chat in (-2, -3, -4):
        await members.is_member(bot, chat, 1)
    assert len(members) == 2


async def test_a_failure_of_telegram_says_no_and_is_not_remembered() -> None:
    telegram = _Telegram({(-1, 1): TimedOut()})
    bot = cast(Bot, telegram)
    members = Membership()
    assert not await members.is_member(bot, -1, 1)
    telegram.answers[-1, 1] = ChatMemberMember(ALICE)
    assert await members.is_member(bot, -1, 1)
