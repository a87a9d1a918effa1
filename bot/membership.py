"""Who belongs to a group: ``getChatMember``, asked when somebody takes a seat or opens a
group's link, and cached briefly in a bounded cache (``docs/design.md`` §3: a tap or a link is a
claim, never an authority).

Telegram answers ``getChatMember`` with the member's status (``creator``, ``administrator``,
``member``, ``restricted`` with ``is_member``, ``left``, ``kicked``), or refuses with "user not
found" for somebody the group has never seen: both of the last say "not a member".
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final

from telegram import Bot, ChatMemberRestricted
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden, TelegramError

log = logging.getLogger(__name__)

PRESENT: Final = frozenset(
    {ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER}
)
"""The statuses of a member of the group (``restricted`` counts when ``is_member``)."""


class Membership:
    """A bounded, briefly remembered answer to "is this user a member of this chat?".

    Args:
        ttl: seconds an answer is kept (a person who just joined or left waits at most this
            long; a ``chat_member`` or ``left_chat_member`` update forgets it at once).
        size: at most this many answers are kept (the oldest go first).
        clock: monotonic seconds (injectable for tests).
    """

    def __init__(
        self,
        *,
        ttl: float = 60.0,
        size: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.size = size
        self.clock = clock
        self._known: OrderedDict[tuple[int, int], tuple[float, bool]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._known)

    async def is_member(self, bot: Bot, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` is a member of ``chat_id`` now (a private chat: its own user).
        A Telegram failure other than a refusal answers False and is not remembered."""
        if chat_id > 0:
            return chat_id == user_id
        key = (chat_id, user_id)
        now = self.clock()
        found = self._known.get(key)
        if found is not None and found[0] > now:
            return found[1]
        try:
            member = await bot.get_chat_member(chat_id, user_id)
        except (BadRequest, Forbidden):  # "user not found", or the bot is not in the chat
            answer = False
        except TelegramError as exc:
            log.info("getChatMember failed: %s", exc)
            return False
        else:
            answer = member.status in PRESENT or (
                isinstance(member, ChatMemberRestricted) and member.is_member
            )
        self._known[key] = (now + self.ttl, answer)
        self._known.move_to_end(key)
        while len(self._known) > self.size:
            self._known.popitem(last=False)
        return answer

    def forget(self, chat_id: int, user_id: int) -> None:
        """Drop the remembered answer (the user joined or left the chat)."""
        self._known.pop((chat_id, user_id), None)
