"""A fake Telegram Bot API server and simulated users for end-to-end tests.

Typical use (``fake_api`` is the fixture from ``tests.fakebot.fixtures``)::

    app = application_builder(fake_api).build()
    app.add_handler(CommandHandler("klaverjas", start_game))
    anna = fake_api.add_user("Anna", language_code="nl")
    group = fake_api.add_group("Tafel", members=[anna])
    async with run_polling(app, fake_api) as bot:
        await anna.send(group, "/klaverjas")
        await bot.settle()
        table = fake_api.last_message(group)
        tap = await anna.tap(table, "Meedoen")
        await bot.settle()
        assert tap.answered
"""

from .calls import ApiCall, CallLog
from .clock import ManualClock
from .errors import ApiError
from .faults import FAULT_KINDS, FaultInjector, FaultRule
from .flood import FloodRule, RateLimits
from .fuzz import FUZZ_KINDS, FuzzEvent, UpdateFuzzer
from .harness import SimUser, Tap, command_entities
from .html_parser import FormattedText, HtmlParseError, parse_html, utf16_len
from .model import Button, CallbackQueryRecord, FakeChat, FakeMessage, FakeUser, ForumTopic
from .people import GROUP_ANONYMOUS_BOT_ID, is_anonymous_post
from .ptb import BotRunner, application_builder, run_polling
from .ptb_webhook import WebhookRunner, run_webhook
from .server import DEFAULT_TOKEN, FakeBotApi
from .waiting import WaitTimeoutError
from .webhook import WebhookAttempt, WebhookDelivery

__all__ = [
    "DEFAULT_TOKEN",
    "FAULT_KINDS",
    "FUZZ_KINDS",
    "GROUP_ANONYMOUS_BOT_ID",
    "ApiCall",
    "ApiError",
    "BotRunner",
    "Button",
    "CallLog",
    "CallbackQueryRecord",
    "FakeBotApi",
    "FakeChat",
    "FakeMessage",
    "FakeUser",
    "FaultInjector",
    "FaultRule",
    "FloodRule",
    "FormattedText",
    "ForumTopic",
    "FuzzEvent",
    "HtmlParseError",
    "ManualClock",
    "RateLimits",
    "SimUser",
    "Tap",
    "UpdateFuzzer",
    "WaitTimeoutError",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookRunner",
    "application_builder",
    "command_entities",
    "is_anonymous_post",
    "parse_html",
    "run_polling",
    "run_webhook",
    "utf16_len",
]
