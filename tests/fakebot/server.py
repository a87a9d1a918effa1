"""The fake Bot API server: HTTP on 127.0.0.1, the world model, and waiting helpers.

Start it in the test's event loop (``async with FakeBotApi() as api``), point
python-telegram-bot at ``api.base_url`` and drive it with simulated users
(``api.add_user(...)``, see ``harness.SimUser``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from . import (  # noqa: F401  (register the methods)
    api_bot,
    api_chats,
    api_ephemeral,
    api_messages,
    api_photos,
)
from .api_photos import Photo
from .calls import ApiCall, CallLog
from .commands import CommandStore
from .errors import ApiError, not_found, unauthorized
from .faults import FaultInjector, FaultsMixin
from .flood import FloodControl, FloodRule, RateLimits
from .harness import SimUser
from .model import CallbackQueryRecord, FakeChat, FakeMessage, FakeUser
from .params import Params, read_params
from .people import PeopleMixin, register_anonymous_bot
from .registry import Handler, lookup
from .topics import TopicsMixin
from .updates import HeldUpdates, QueuedUpdate, UpdateQueue
from .waiting import Waiting
from .webhook import WebhookDelivery, WebhookMixin
from .world import World

JSONDict = dict[str, Any]
ChatRef = FakeChat | int
_LOGGER = logging.getLogger(__name__)

MAX_UPLOAD = 50 * 1024 * 1024
"""The largest request body the server reads (Telegram's upload limit for bots)."""

DEFAULT_TOKEN = "123456789:fake-token-for-tests"
"""Not a real token (and not shaped like one, so secret scanners stay quiet)."""


class FakeBotApi(Waiting, FaultsMixin, TopicsMixin, PeopleMixin, WebhookMixin):
    """A local stand-in for ``api.telegram.org`` that answers like Telegram.

    Attributes tests read: ``world`` (users, chats, messages), ``calls`` (the call log),
    ``updates`` (pending, confirmed and dropped updates), ``flood`` (429 rules and rate model),
    ``commands`` (``setMyCommands`` per scope and language), ``unknown_methods`` (methods
    the fake does not know, answered 404) and ``internal_errors`` (bugs in the fake itself),
    ``faults`` (injected faults, ``faults.py``), ``webhook`` (``webhook.py``).
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "klaverjas_test_bot",
        bot_name: str = "Klaverjas Test",
        clock: Callable[[], float] = time.monotonic,
        strict_html: bool = True,
        privacy_mode: bool = True,
        callback_query_timeout: float | None = None,
    ) -> None:
        self.token = token
        bot = FakeUser(
            id=int(token.split(":", 1)[0]), first_name=bot_name, username=bot_username,
            is_bot=True,
        )  # fmt: skip
        self.world = World(bot)
        register_anonymous_bot(self.world)  # Telegram's GroupAnonymousBot, a known user
        self.updates = UpdateQueue()
        self.calls = CallLog()
        self.clock = clock
        self.flood = FloodControl(clock)
        self.commands = CommandStore(self.world)
        self.strict_html = strict_html
        self.privacy_mode = privacy_mode
        self.callback_query_timeout = callback_query_timeout
        self.disabled_buttons = True
        """The server knows disabled inline buttons (Bot API 10.3); False: an older server, which
        ignores ``disabled`` and so refuses a disabled button as a text button."""
        self.unknown_methods: list[str] = []
        self.internal_errors: list[BaseException] = []
        self.webhook_url: str | None = None
        self.bot_settings: dict[str, Any] = {}
        self.default_menu_button: JSONDict = {"type": "commands"}
        self.files: dict[str, bytes] = {}
        self.photos: dict[str, Photo] = {}
        """Photos sent or set by the bot, by ``file_id`` (:mod:`.api_photos`)."""
        self.closing = False
        self.faults = FaultInjector()
        self.webhook = WebhookDelivery(self)
        self._changed = asyncio.Event()
        self._inflight = 0
        self._last_activity = time.monotonic()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen on ``host:port`` (port 0: a free port) in the running event loop."""
        # Telegram takes uploads up to 50 MB (aiohttp's default limit is 1 MB): the photo
        # limits are the methods' own checks (api_photos.py).
        app = web.Application(client_max_size=MAX_UPLOAD)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._file)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        self._port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        """End pending long polls and close the server."""
        self.closing = True
        self.notify()
        self.faults.release_holds()
        await self.webhook.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        if self._port is None:
            raise RuntimeError("the fake Bot API server is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """Value for ``ApplicationBuilder.base_url`` (PTB appends the token)."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        """Value for ``ApplicationBuilder.base_file_url``."""
        return f"http://127.0.0.1:{self.port}/file/bot"

    @property
    def bot(self) -> FakeUser:
        """The bot's own user."""
        return self.world.bot

    # --- building the world ----------------------------------------------------------------

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        started: bool = False,
        user_id: int | None = None,
    ) -> SimUser:
        """Create a simulated user; ``started=True`` lets the bot message them right away."""
        user = self.world.new_user(
            first_name, last_name=last_name, username=username,
            language_code=language_code, user_id=user_id,
        )  # fmt: skip
        user.started = started
        return SimUser(self, user)

    def add_group(
        self,
        title: str,
        members: Iterable[SimUser] = (),
        admins: Iterable[SimUser] = (),
        *,
        creator: SimUser | None = None,
        bot_admin: bool = False,
    ) -> FakeChat:
        """Create a basic group (the bot already a member); return the chat."""
        return self.world.new_group(
            "group", title, [m.record for m in members], [a.record for a in admins],
            creator=creator.record if creator else None,
            bot_status="administrator" if bot_admin else "member",
        )  # fmt: skip

    def add_supergroup(
        self,
        title: str,
        members: Iterable[SimUser] = (),
        admins: Iterable[SimUser] = (),
        *,
        creator: SimUser | None = None,
        bot_admin: bool = False,
        username: str | None = None,
    ) -> FakeChat:
        """Create a supergroup (the bot already a member); return the chat."""
        return self.world.new_group(
            "supergroup", title, [m.record for m in members], [a.record for a in admins],
            creator=creator.record if creator else None,
            bot_status="administrator" if bot_admin else "member", username=username,
        )  # fmt: skip

    def migrate_group(self, chat: ChatRef, *, from_first: bool = False) -> FakeChat:
        """Upgrade a basic group to a new supergroup and send the two service messages
        (``migrate_to_chat_id`` in the old chat, then ``migrate_from_chat_id`` in the new one;
        the other way round with ``from_first``: Telegram does not promise their order).

        Afterwards every call with the old chat id answers 400 with
        ``parameters.migrate_to_chat_id`` (PTB raises ``ChatMigrated``).
        """
        old = self.chat(chat)
        new = self.world.migrate(old)
        creator_id = next(old.member_ids("creator"), None)
        sender = self.world.users[creator_id] if creator_id is not None else None
        to = self.world.add_message(old, sender, extra={"migrate_to_chat_id": new.id})
        back = self.world.add_message(new, sender, extra={"migrate_from_chat_id": old.id})
        notes = [("message", to.to_api(old)), ("message", back.to_api(new))]
        for kind, payload in reversed(notes) if from_first else notes:
            self.enqueue(kind, payload)
        return new

    def hold_updates(self, when: Callable[[str, JSONDict], bool] | None = None) -> HeldUpdates:
        """Keep back the updates ``when(kind, payload)`` picks (default: every one) until the
        test releases them (``held.release(...)``, in any order; ``held.stop()`` ends the
        holding): Telegram delivering updates late."""
        held = self.updates.hold(when)
        held.notify = self.notify
        return held

    def chat(self, chat: ChatRef) -> FakeChat:
        """The chat record for a chat or chat id (no Telegram checks)."""
        return chat if isinstance(chat, FakeChat) else self.world.chats[chat]

    def user(self, user_id: int) -> SimUser:
        """A handle on an existing user."""
        return SimUser(self, self.world.users[user_id])

    def last_message(self, chat: ChatRef, *, from_bot: bool | None = True) -> FakeMessage:
        """The newest message in a chat (default: the bot's); AssertionError if none."""
        message = self.chat(chat).last_message(from_bot=from_bot)
        if message is None:
            raise AssertionError(f"no message in chat {self.chat(chat).id}")
        return message

    def find_messages(
        self, chat: ChatRef, contains: str | None = None, *, from_bot: bool | None = True
    ) -> list[FakeMessage]:
        """Non-deleted messages in a chat whose text contains ``contains``."""
        return self.chat(chat).find_messages(contains, from_bot=from_bot)

    def ephemeral_messages(self, chat: ChatRef, user: SimUser | int) -> list[FakeMessage]:
        """The ephemeral messages ``user`` sees in a group (not deleted), oldest first
        (``api_ephemeral.py``); nobody else sees them."""
        user_id = user if isinstance(user, int) else user.id
        return [m for m in self.chat(chat).ephemeral if m.receiver_id == user_id and not m.deleted]

    def transcript(self, chat: ChatRef, viewer: SimUser | int) -> list[FakeMessage]:
        """What ``viewer`` sees in a chat: its messages and the ephemeral messages sent to
        them, in the order they were sent."""
        user_id = viewer if isinstance(viewer, int) else viewer.id
        found = self.chat(chat)
        mine = [m for m in found.ephemeral if m.receiver_id == user_id and not m.deleted]
        return sorted([*found.messages, *mine], key=lambda m: m.date)

    def set_offline(self, user: SimUser | int, offline: bool = True) -> None:
        """Mark a user offline (ephemeral messages and edits are not delivered to them) or
        back online."""
        user_id = user if isinstance(user, int) else user.id
        self.world.users[user_id].offline = offline

    # --- flood control and callback bookkeeping --------------------------------------------

    def inject_flood(
        self,
        *,
        chat_id: int | None = None,
        retry_after: int = 1,
        count: int = 1,
        methods: Iterable[str] | None = None,
    ) -> FloodRule:
        """Answer the next ``count`` matching calls with 429 ``retry after N``."""
        return self.flood.inject(
            chat_id=chat_id, retry_after=retry_after, count=count, methods=methods
        )

    def enable_rate_limits(self, limits: RateLimits | None = None) -> RateLimits:
        """Switch on the automatic per-chat limits (default: 20 per minute per group)."""
        self.flood.limits = limits or RateLimits()
        return self.flood.limits

    def unanswered_callback_queries(self) -> list[CallbackQueryRecord]:
        """Callback queries the bot has not answered."""
        return [q for q in self.world.callback_queries.values() if not q.answered]

    def assert_callbacks_answered_once(self) -> None:
        """Fail unless every callback query was answered, and none a second time."""
        unanswered = self.unanswered_callback_queries()
        twice = [q for q in self.world.callback_queries.values() if q.refused_answers]
        if unanswered or twice:
            raise AssertionError(
                f"unanswered callback queries: {[q.data for q in unanswered]}; "
                f"answered more than once: {[q.data for q in twice]}"
            )

    # --- updates and waiting ---------------------------------------------------------------

    def enqueue(self, kind: str, payload: JSONDict) -> QueuedUpdate:
        """Queue an update for the bot and wake a waiting ``getUpdates``."""
        update = self.updates.put(kind, payload)
        self.notify()
        return update

    # --- HTTP ------------------------------------------------------------------------------

    async def _file(self, request: web.Request) -> web.Response:
        return web.json_response(not_found().to_json(), status=404)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["method"]
        found = lookup(name)
        method = found[0] if found else name
        try:
            raw = await read_params(request)
        except ApiError as exc:
            return web.json_response(exc.to_json(), status=exc.status)
        call = ApiCall(
            seq=len(self.calls), method=method, params=raw,
            chat_id=self._chat_id_of(raw), started=self.clock(),
        )  # fmt: skip
        self.calls.append(call)
        long_poll = method == "getUpdates"
        if not long_poll:
            self._inflight += 1
            self.touch()
        self.notify()
        token = request.match_info["token"]
        try:
            fault = self.faults.pick(call)
            if fault is not None:
                return await self.faults.respond(
                    request, fault, call, lambda: self._answer(token, found, call)
                )
            status, body = await self._answer(token, found, call)
        finally:
            if not long_poll:
                self._inflight -= 1
                self.touch()
            call.finished = self.clock()
            self.notify()
        call.record(status, body)
        return web.json_response(body, status=status)

    async def _answer(
        self, token: str, found: tuple[str, Handler] | None, call: ApiCall
    ) -> tuple[int, JSONDict]:
        try:
            result = await self._run(token, found, call)
        except ApiError as exc:
            return exc.status, exc.to_json()
        except Exception as exc:  # a bug in the fake: answer 500 and keep it for the test
            _LOGGER.exception("fake Bot API failed on %s", call.method)
            self.internal_errors.append(exc)
            return 500, {"ok": False, "error_code": 500, "description": f"Internal: {exc!r}"}
        return 200, {"ok": True, "result": result}

    async def _run(self, token: str, found: tuple[str, Handler] | None, call: ApiCall) -> Any:
        if token != self.token:
            raise unauthorized()
        if found is None:
            self.unknown_methods.append(call.method)
            raise not_found()
        is_group = call.chat_id is not None and call.chat_id < 0
        flood = self.flood.check(call.method, call.chat_id, is_group)
        if flood is not None:
            raise flood
        result = await found[1](self, Params(call.params), call)
        self.flood.record(call.method, call.chat_id)
        return result

    def _chat_id_of(self, raw: dict[str, Any]) -> int | None:
        value = raw.get("chat_id")
        if value is None:
            return None
        try:
            return int(value)
        except (TypeError, ValueError):
            name = str(value).removeprefix("@").lower()
            for chat in self.world.chats.values():
                if (chat.username or "").lower() == name:
                    return chat.id
            return None
