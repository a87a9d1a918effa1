"""The Telegram bot: handlers, rendering and i18n glue on top of :mod:`engine` and
:mod:`storage`."""

import os

# Opt in to PTB's timedelta time periods (RetryAfter.retry_after etc.) now, so the bot behaves
# the same in production and in tests and never trips PTB's deprecation warning.
os.environ.setdefault("PTB_TIMEDELTA", "true")
