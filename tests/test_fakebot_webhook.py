"""Webhook mode: Telegram's checks on setWebhook, delivery by POST with the secret header,
retries, two bot processes behind a load balancer, and PTB's own webhook server."""

from __future__ import annotations

import aiohttp
import pytest
from aiohttp import web
from telegram import Bot, Update
from telegram.error import BadRequest, Conflict
from telegram.ext import Application, CommandHandler, ContextTypes

from tests.fakebot import FakeBotApi, application_builder
from tests.fakebot.ptb_webhook import free_port, run_webhook
from tests.fakebot.webhook import SECRET_HEADER

Context = ContextTypes.DEFAULT_TYPE


def echo_app(api: FakeBotApi, name: str, seen: list[tuple[str, str]]) -> Application:  # type: ignore[type-arg]
    async def echo(update: Update, context: Context) -> None:
        assert update.effective_message is not None and update.effective_message.text
        seen.append((name, update.effective_message.text))
        await update.effective_message.reply_text(f"{name}: {update.effective_message.text}")

    app = application_builder(api).build()
    app.add_handler(CommandHandler("echo", echo))
    return app


class Receiver:
    """A plain webhook endpoint answering the statuses it is given, then 200."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.bodies: list[dict[str, object]] = []
        self.secrets: list[str | None] = []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self._runner: web.AppRunner | None = None

    async def _hook(self, request: web.Request) -> web.Response:
        self.bodies.append(await request.json())
        self.secrets.append(request.headers.get(SECRET_HEADER))
        return web.Response(status=self.statuses.pop(0) if self.statuses else 200)

    async def __aenter__(self) -> Receiver:
        app = web.Application()
        app.router.add_post("/hook", self._hook)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()


async def test_set_webhook_is_checked_like_telegram(fake_api: FakeBotApi, bot: Bot) -> None:
    with pytest.raises(
        BadRequest, match=r"^Bad webhook: an https url must be provided for webhook$"
    ):
        await bot.set_webhook("http://bot.example.org/hook")
    with pytest.raises(BadRequest, match="only on ports 80, 88, 443 or 8443"):
        await bot.set_webhook("https://bot.example.org:1234/hook")
    assert await bot.set_webhook("https://bot.example.org:8443/hook", secret_token="geheim")
    await fake_api.add_user("Anna").start_bot()

    with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
        await bot.get_updates()
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count) == ("https://bot.example.org:8443/hook", 1)
    assert fake_api.webhook.secret_token == "geheim"
    assert fake_api.webhook.attempts_log == []  # delivery is off: nothing was sent
    assert await bot.delete_webhook()
    assert [u.message.text for u in await bot.get_updates() if u.message] == ["/start"]
    assert (await bot.get_webhook_info()).url == ""


async def test_delivery_posts_json_with_the_secret_and_retries(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    fake_api.enable_webhook_delivery(attempts=3, retry_delay=0.01)
    anna = fake_api.add_user("Anna")
    async with Receiver([500, 502]) as receiver:
        await bot.set_webhook(receiver.url, secret_token="geheim")
        await anna.start_bot()
        await fake_api.wait_for(lambda: not fake_api.updates.pending)

    assert [a.status for a in fake_api.webhook.attempts_log] == [500, 502, 200]
    assert receiver.secrets == ["geheim"] * 3
    update_id = fake_api.updates.confirmed[-1].update_id
    assert receiver.bodies[-1]["update_id"] == update_id
    assert receiver.bodies[-1]["message"]["text"] == "/start"  # type: ignore[index]
    info = await bot.get_webhook_info()
    assert info.last_error_message == "Wrong response from the webhook: 502 Bad Gateway"
    assert info.pending_update_count == 0


async def test_an_update_is_given_up_after_the_last_attempt(fake_api: FakeBotApi, bot: Bot) -> None:
    fake_api.enable_webhook_delivery(attempts=2, retry_delay=0.01)
    anna = fake_api.add_user("Anna")
    async with Receiver([503, 503]) as receiver:
        await bot.set_webhook(receiver.url)
        await anna.start_bot()
        await fake_api.wait_for(lambda: fake_api.webhook.failed)
        await anna.send(None, "/help")  # the next one gets through
        await fake_api.wait_for(lambda: not fake_api.updates.pending)
    assert [u.payload["text"] for u in fake_api.webhook.failed] == ["/start"]
    assert [b["message"]["text"] for b in receiver.bodies] == ["/start", "/start", "/help"]  # type: ignore[index]
    assert receiver.secrets == [None] * 3  # no secret set: no header


async def test_nothing_is_sent_to_a_host_that_is_not_loopback(
    fake_api: FakeBotApi, bot: Bot
) -> None:
    fake_api.enable_webhook_delivery()
    await bot.set_webhook("https://bot.invalid:8443/hook")
    await fake_api.add_user("Anna").start_bot()
    await fake_api.wait_for(lambda: fake_api.webhook.failed)
    (attempt,) = fake_api.webhook.attempts_log
    assert attempt.status == 0 and "not a loopback address" in (attempt.error or "")


async def test_a_ptb_application_receives_updates_by_webhook(fake_api: FakeBotApi) -> None:
    seen: list[tuple[str, str]] = []
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    app = echo_app(fake_api, "A", seen)
    async with run_webhook(app, fake_api, secret_token="s3cret") as runner:
        await anna.send(group, "/echo een")
        await anna.send(group, "/echo twee")
        await runner.settle()
        info = await app.bot.get_webhook_info()

    assert seen == [("A", "/echo een"), ("A", "/echo twee")]
    assert [m.text for m in group.bot_messages] == ["A: /echo een", "A: /echo twee"]
    assert info.url == runner.url and fake_api.webhook.secret_token == "s3cret"
    assert [a.status for a in fake_api.webhook.attempts_log] == [200, 200]
    assert "getUpdates" not in fake_api.calls.methods()


async def test_ptb_refuses_a_wrong_secret_with_403(fake_api: FakeBotApi) -> None:
    seen: list[tuple[str, str]] = []
    anna = fake_api.add_user("Anna")
    app = echo_app(fake_api, "A", seen)
    fake_api.enable_webhook_delivery(attempts=2, retry_delay=0.01)
    async with run_webhook(app, fake_api, secret_token="goed") as runner:
        async with (
            aiohttp.ClientSession() as session,
            session.post(runner.url, json={"update_id": 1}, headers={SECRET_HEADER: "fout"}) as r,
        ):
            assert r.status == 403
        fake_api.webhook.secret_token = "fout"  # Telegram and the bot disagree
        await anna.send(None, "/echo hallo")
        await fake_api.wait_for(lambda: fake_api.webhook.failed)
        await runner.settle()

    assert seen == []
    assert [a.status for a in fake_api.webhook.attempts_log] == [403, 403]
    info = fake_api.webhook.info()
    assert info["last_error_message"] == (
        "Wrong response from the webhook: 403 Request had the wrong secret token"
    )  # the status line PTB's server sent


async def test_two_bot_processes_behind_a_load_balancer(fake_api: FakeBotApi) -> None:
    seen: list[tuple[str, str]] = []
    anna = fake_api.add_user("Anna")
    group = fake_api.add_group("Tafel", members=[anna])
    app_a, app_b = echo_app(fake_api, "A", seen), echo_app(fake_api, "B", seen)
    async with (
        run_webhook(app_a, fake_api, secret_token="s") as a,
        run_webhook(app_b, fake_api, secret_token="s") as b,
    ):
        fake_api.set_webhook_targets([a.url, b.url])
        for n in range(4):
            await anna.send(group, f"/echo {n}")
        await fake_api.wait_for(lambda: len(seen) == 4)
        await a.settle()
        await b.settle()
        # Per-chat routing: everything of the private chat goes to B.
        fake_api.set_webhook_targets(route=lambda u: b.url if u.payload.get("chat", {}).get(
            "id") == anna.id else a.url)  # fmt: skip
        await anna.send(None, "/echo prive")
        await anna.send(group, "/echo groep")
        await fake_api.wait_for(lambda: len(seen) == 6)
        await a.settle()
        await b.settle()

    assert sorted(seen[:4]) == [
        ("A", "/echo 0"),
        ("A", "/echo 2"),
        ("B", "/echo 1"),
        ("B", "/echo 3"),
    ]
    assert sorted(seen[4:]) == [("A", "/echo groep"), ("B", "/echo prive")]
    urls = [attempt.url for attempt in fake_api.webhook.attempts_log]
    assert urls[:4] == [a.url, b.url, a.url, b.url]
