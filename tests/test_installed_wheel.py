"""The built wheel, installed into its own virtual environment, works without the sources.

Skipped unless ``KLAVERJAS_WHEEL_PYTHON`` is the python of a venv where the wheel (not an
editable install) is installed; ``.ci/run`` builds the wheel, makes that venv and sets it.
The subprocesses run that python from a temporary folder with no ``PYTHONPATH``, so they can
only import the installed packages: a file the bot reads at run time but the wheel lacks (the
``.po`` catalogues) fails here. The fake Bot API runs in this test process.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bot.helpers import active_buttons, by_action, hand_message, hand_version, pick
from tests.fakebot import FakeBotApi, SimUser
from tests.fakebot.model import FakeMessage

ROOT = Path(__file__).resolve().parents[1]

WHEEL_PYTHON = os.environ.get("KLAVERJAS_WHEEL_PYTHON", "")

pytestmark = pytest.mark.skipif(
    not WHEEL_PYTHON,
    reason="KLAVERJAS_WHEEL_PYTHON (the python of a venv with the wheel installed) is not set",
)

PROBE = """
import json, sys
import bot, engine, locales, storage
import engine.ai.dd
from bot.i18n import LANGUAGES, LOCALES_DIR, preload, get_translator

preload()  # every catalogue, as the bot does at start-up
catalogs = {
    lang: sorted(
        [json.dumps(key), value]
        for key, value in get_translator(lang)._catalog._catalog.items()  # compiled .mo data
        if key
    )
    for lang in LANGUAGES
}
files = {m.__name__: m.__file__ for m in (bot, engine, locales, storage)}

import hashlib
from bot.render.picture import FONT_FILES, FONTS_DIR, render_sheet_png
from bot.render.common import Player
from bot.render.sheet_view import build_sheet_view

fonts = {name: hashlib.sha256((FONTS_DIR / name).read_bytes()).hexdigest() for name in FONT_FILES}
view = build_sheet_view((), {}, [Player("Anna"), Player("Bert"), Player("Cas"), Player("Dirk")])
png = render_sheet_png(view, get_translator("nl"))  # Pillow installed, the fonts found

from importlib import resources
from engine.ai.locations import model
weights = resources.files("engine.ai").joinpath("locations.bin").read_bytes()
model()  # the card-location model loads
print(json.dumps({
    "files": files, "locales": str(LOCALES_DIR), "catalogs": catalogs,
    "fonts": fonts, "fonts_dir": str(FONTS_DIR), "png": png[:8].hex(),
    "locations": hashlib.sha256(weights).hexdigest(),
}))
"""
"""Printed by both the installed package and this checkout: where the packages are, every
compiled message of every language, the shipped fonts' hashes and the first bytes
of a sheet picture drawn with them, and the card-location model's weights."""


def _clean_env(**settings: str) -> dict[str, str]:
    """Our environment without an import path or bot settings, plus ``settings``."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in drop and not k.startswith(("TELEGRAM_", "DATABASE_"))
    }
    return {**env, "PYTHONNOUSERSITE": "1", **settings}


async def _run(
    python: str, args: list[str], cwd: Path, env: dict[str, str], seconds: float = 60
) -> tuple[int, str, str]:
    """Run ``python *args`` to its end; returns (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        python,
        *args,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=seconds)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _outside_checkout(path: str) -> bool:
    """True when ``path`` is not inside this checkout."""
    return not Path(path).resolve().is_relative_to(ROOT)


def _my_turn(user: SimUser, tapped: int | None) -> FakeMessage | None:
    """The user's hand message in their private chat when it has buttons to tap drawn at a
    state newer than ``tapped`` (the version of the last tap), else None. Right after a tap
    the hand keeps its old buttons until the bot's edit arrives (a private chat gets about one
    message a second), and those are stale by then."""
    hand = hand_message(user, user.private_chat)
    if hand is None or not active_buttons(hand):
        return None
    version = hand_version(hand)
    return hand if tapped is None or (version is not None and version > tapped) else None


async def _polling(api: FakeBotApi, proc: asyncio.subprocess.Process) -> None:
    """Wait until the bot polls for updates; fail at once if it stops instead."""
    polling = asyncio.ensure_future(
        api.wait_for(lambda: api.calls.count("getUpdates") > 0, timeout=30)
    )
    exited = asyncio.ensure_future(proc.wait())
    await asyncio.wait({polling, exited}, return_when=asyncio.FIRST_COMPLETED)
    if not polling.done():
        polling.cancel()
        pytest.fail(f"the bot stopped at start-up with exit code {proc.returncode}")
    exited.cancel()
    polling.result()


async def test_installed_package_ships_every_catalogue_and_font(tmp_path: Path) -> None:
    code, out, err = await _run(WHEEL_PYTHON, ["-c", PROBE], tmp_path, _clean_env())
    assert code == 0, err
    installed = json.loads(out)
    code, out, err = await _run(
        sys.executable, ["-c", PROBE], ROOT, _clean_env(PYTHONPATH=str(ROOT))
    )
    assert code == 0, err
    source = json.loads(out)

    assert all(_outside_checkout(f) for f in installed["files"].values()), installed["files"]
    assert _outside_checkout(installed["locales"])
    assert not _outside_checkout(source["files"]["bot"])  # the comparison is with the checkout
    for lang, messages in source["catalogs"].items():
        assert installed["catalogs"][lang] == messages, lang
        if lang != "en":
            assert len(messages) > 100, lang  # translated, not an empty fallback
    assert _outside_checkout(installed["fonts_dir"])
    assert installed["fonts"] == source["fonts"] and len(source["fonts"]) == 3
    assert installed["png"] == source["png"] == "89504e470d0a1a0a"  # a PNG signature
    assert installed["locations"] == source["locations"]  # the card-location weights


async def test_installed_bot_plays_a_round(fake_api: FakeBotApi, tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    env = _clean_env(
        TELEGRAM_BOT_TOKEN=fake_api.token,
        TELEGRAM_API_BASE_URL=fake_api.base_url,
        DATABASE_PATH=str(db),
        COMPUTER_LEVEL="random",
        COMPUTER_WORKERS="0",
        COMPUTER_DELAY_SECONDS="0",  # the pace has its own e2e test; a round in seconds
        TURN_TIMEOUT_SECONDS="0",
        LOG_LEVEL="WARNING",
    )
    anna = fake_api.add_user("Anna", language_code="fr", started=True)
    chat = anna.private_chat
    rng = random.Random(5)
    proc = await asyncio.create_subprocess_exec(
        WHEEL_PYTHON,
        "-m",
        "bot",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    rounds: list[dict[str, Any]] = []
    try:
        await _polling(fake_api, proc)
        await anna.send(chat, "/klaverjas")  # solo: three computer players
        cards = 0
        tapped: int | None = None
        while cards < 8:  # Anna's eight cards: the first round is played out
            turn = functools.partial(_my_turn, anna, tapped)
            hand = await fake_api.wait_for(turn, timeout=15, what="Anna's turn")
            tapped = hand_version(hand)
            _, action = pick(active_buttons(hand), rng)
            tap = await anna.tap(hand, by_action(action))
            answer = await tap.wait_answered(timeout=10)
            assert not answer.show_alert, answer.text  # a legal card, accepted
            cards += action.startswith("play:")
            await fake_api.idle(quiet=0.3, timeout=15)
        for _ in range(30):  # the computers finish the last trick; the round is scored
            code, out, err = await _run(
                WHEEL_PYTHON,
                ["-m", "bot.admin", "export", "--database", str(db)],
                tmp_path,
                _clean_env(),
            )
            assert code == 0, err
            (game,) = json.loads(out)
            rounds = game["rounds"]
            if rounds:
                break
            await asyncio.sleep(0.5)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(proc.communicate(), timeout=30)
        print(stderr.decode(), file=sys.stderr)  # shown by pytest when the test fails
    assert proc.returncode == 0, stderr.decode()
    assert "Traceback" not in stderr.decode(), stderr.decode()
    assert rounds, "no round was scored"
    assert len(rounds[0]["tricks"]) == 8
    fake_api.assert_callbacks_answered_once()
    texts = " ".join(m.text or "" for m in chat.bot_messages)
    assert "atout" in texts and "donne 2/16" in texts, texts[-500:]  # French: the catalogue
