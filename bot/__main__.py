"""``python -m bot``: run the bot with long polling (settings from the environment / ``.env``)."""

from __future__ import annotations

import logging
import sys

from pydantic import ValidationError

from bot.app import build_application
from bot.config import BotConfig


def main() -> int:
    """Load the settings, build the application and poll until interrupted."""
    try:
        config = BotConfig()  # type: ignore[call-arg]  # values come from the environment
    except ValidationError as exc:
        for error in exc.errors():
            name = ".".join(str(p) for p in error["loc"]).upper()
            if error["type"] == "missing":
                print(
                    f"{name} is not set. Put it in the environment or in .env (see .env.example).",
                    file=sys.stderr,
                )
            else:
                print(f"{name}: {error['msg']}", file=sys.stderr)
        return 2
    logging.basicConfig(
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        level=getattr(logging, config.log_level.upper(), logging.INFO),
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # httpx logs URLs with the token
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    app = build_application(config)
    app.run_polling(allowed_updates=["message", "callback_query"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
