"""Building the PTB application: handlers, rate limiter, HTML defaults, job queue for turn
timers, command menus per language, and resuming games after a restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any, cast

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.constants import ParseMode
from telegram.ext import (
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    Defaults,
    MessageHandler,
    filters,
)

from bot.budget import GROUP, OVERALL, PRIVATE, ChatBudget, shared
from bot.computer import ComputerPlayers
from bot.config import BotConfig
from bot.context import BotData, Context, KlaverjasApp
from bot.daily import DailyConfig
from bot.daily_result import DailyResult
from bot.driver import TableDriver
from bot.handlers.alerts import cmd_notify
from bot.handlers.buttons import on_button
from bot.handlers.commands import (
    cmd_help,
    cmd_klaverjas,
    cmd_language,
    cmd_rules,
    cmd_score,
    cmd_start,
    cmd_stop,
    on_member_left,
    on_migrate,
    on_new_members,
)
from bot.handlers.privacy import cmd_forgetme
from bot.handlers.review import cmd_review
from bot.handlers.standings import cmd_daily, cmd_stats, cmd_top
from bot.i18n import LANGUAGES, get_translator, preload
from bot.outbox import Outbox
from bot.presenter import Presenter
from bot.presenter.base import StoredMessageIds, SurfaceClaims
from bot.render import messages
from bot.service import GameService, TableLimits
from bot.telegram_buttons import configure as configure_buttons
from storage import Repository, open_repository

log = logging.getLogger(__name__)


def build_application(
    config: BotConfig,
    *,
    repository: Repository | None = None,
    computers: ComputerPlayers | None = None,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    clock: Any = None,
    seeds: Any = None,
    budget: ChatBudget | None = None,
    computer_delay: float | None = None,
    read_timeout: float | None = None,
) -> KlaverjasApp:
    """The bot application, ready for ``run_polling`` (or ``initialize``/``start`` in tests).

    Args:
        config: the settings.
        repository: an open repository (tests); by default ``config.database`` is opened in
            ``post_init``.
        computers: the computer-player runner (tests pass one with ``workers=0``).
        rate_limiter: a PTB rate limiter to put in front of every call (tests); by default
            none: the outbox's budget (:mod:`bot.budget`) is the bot's one rate mechanism,
            per chat and for the whole bot, and the outbox retries a ``429`` itself in that
            chat only (PTB's limiter would hold back every call of the bot, tap answers
            included, after one).
        clock, seeds: injectable time and seed sources for the service (tests).
        budget: the per-chat message budget (default: Telegram's limits, see
            :mod:`bot.budget`; tests switch it off or run it on a scaled clock).
        computer_delay: seconds between two computer moves (default: the config's).
        read_timeout: seconds to wait for Telegram's answer to a call (PTB's default 5 s;
            tests of timeouts lower it).
    """
    configure_buttons(disabled=config.disabled_buttons)
    builder = (
        ApplicationBuilder()
        .token(config.telegram_bot_token.get_secret_value())
        .defaults(Defaults(parse_mode=ParseMode.HTML, disable_notification=False))
        .context_types(ContextTypes(context=Context))
        .concurrent_updates(True)
    )
    if read_timeout is not None:
        builder = builder.read_timeout(read_timeout)
    if config.telegram_api_base_url:
        base = config.telegram_api_base_url.rstrip("/")
        builder = builder.base_url(base).base_file_url(base.removesuffix("/bot") + "/file/bot")
    if rate_limiter is not None:
        builder = builder.rate_limiter(cast(Any, rate_limiter))

    extra: dict[str, Any] = {}
    if clock is not None:
        extra["clock"] = clock
    if seeds is not None:
        extra["seeds"] = seeds

    def spawn(coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """A background task the application awaits on stop (a plain task while stopping)."""
        if app.running:
            return app.create_task(coroutine)
        return asyncio.create_task(coroutine)

    async def post_init(app: KlaverjasApp) -> None:
        preload()  # a broken catalogue fails here, not in the middle of a game
        repo = repository or await open_repository(
            config.database, sole_writer=config.bot_workers == 1, claim=True
        )
        runner = computers or ComputerPlayers(config.computer_level, config.computer_workers)
        shared_db = repo.shared  # several workers may share it: timers live in the database
        service = GameService(
            repo,
            runner,
            default_timeout=config.turn_timeout_seconds,
            default_language=config.default_language,
            scheduler=repo.arm_timer if shared_db else _scheduler(app),
            computer_watch=COMPUTER_WATCH_SECONDS if shared_db else 0.0,
            limits=TableLimits(
                config.max_tables_per_player,
                config.max_open_tables,
                config.lobby_idle_minutes * 60,
            ),
            rematch_wait=config.rematch_confirm_seconds,
            daily_config=_daily_config(config),
            timezone=config.daily_timezone,
            spawn=spawn,
            **extra,
        )
        outbox = Outbox(
            app.bot,
            budget or _shared_budget(config.bot_workers),
            _migrated(app),
            _forbidden(app),
            spawn,
            running=_not_stopping(app),
            shared=repo.shared,
        )
        presenter = Presenter(
            service.tables, StoredMessageIds(repo), outbox, app.bot.username, clock=service.clock
        )
        outbox.on_lost = presenter.hand_lost  # an ephemeral hand not shown: the private one
        if outbox.shared:
            outbox.refresh = presenter.refresh
            outbox.claims = SurfaceClaims(repo, service.clock)
        driver = TableDriver(
            service.play,
            presenter,
            spawn,
            computer_delay=(
                config.computer_delay_seconds if computer_delay is None else computer_delay
            ),
            running=lambda: app.running,
            sleep=outbox.budget.sleep,
            views=service.tables,
            line=outbox,
            after_end=DailyResult(
                service.daily, service.people, outbox, pictures=presenter.pictures
            ),
        )
        app.bot_data["app"] = BotData(config, service, presenter, driver)
        if shared_db:
            if app.job_queue is not None:
                app.job_queue.run_repeating(
                    _sweep, interval=config.timer_sweep_seconds, first=0.0, name="timers"
                )
            await learn_migrations(app.bot_data["app"])
        await runner.start()
        await _set_commands(app, config.default_language)
        resumed = await service.timers.resume()
        for out in resumed:  # redrawn now; their computers move once the bot runs
            await driver.show(out)
        if app.job_queue is not None and resumed:
            ids = [out.game_id for out in resumed if out.game_id is not None]
            app.job_queue.run_once(_wake, 0.0, data=ids, name="resume")
        await service.stats.record_missing()  # games that ended just before a crash

    async def post_shutdown(app: KlaverjasApp) -> None:
        data = app.bot_data.get("app")
        if isinstance(data, BotData):
            await data.presenter.outbox.close()
            data.service.computers.shutdown()
            if repository is None:
                await data.service.repo.close()

    builder = builder.post_init(post_init).post_shutdown(post_shutdown)
    app = cast(KlaverjasApp, builder.build())
    add_handlers(app)
    return app


def add_handlers(app: KlaverjasApp) -> None:
    """Register every handler and the error handler."""
    app.add_handler(CommandHandler("start", cmd_start))
    app.add_handler(CommandHandler("klaverjas", cmd_klaverjas))
    app.add_handler(CommandHandler("score", cmd_score))
    app.add_handler(CommandHandler("stop", cmd_stop))
    app.add_handler(CommandHandler("language", cmd_language))
    app.add_handler(CommandHandler("help", cmd_help))
    app.add_handler(CommandHandler("rules", cmd_rules))
    app.add_handler(CommandHandler("daily", cmd_daily))
    app.add_handler(CommandHandler("top", cmd_top))
    app.add_handler(CommandHandler("stats", cmd_stats))
    app.add_handler(CommandHandler("forgetme", cmd_forgetme))
    app.add_handler(CommandHandler("review", cmd_review))
    app.add_handler(CommandHandler("notify", cmd_notify))
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(MessageHandler(filters.StatusUpdate.NEW_CHAT_MEMBERS, on_new_members))
    app.add_handler(MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, on_member_left))
    app.add_handler(ChatMemberHandler(on_member_left, ChatMemberHandler.CHAT_MEMBER))
    app.add_error_handler(on_error)


async def on_error(update: object, context: Context) -> None:
    """Log an unexpected error; never touches game state (``docs/design.md`` §1)."""
    log.error("error while handling an update", exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        query = update.callback_query
        data = context.bot_data.get("app")
        if isinstance(data, BotData) and query.id in data.answered:
            return
        with contextlib.suppress(Exception):
            await query.answer()


def _daily_config(config: BotConfig) -> DailyConfig:
    """The daily's settings (``DAILY_*``)."""
    secret = config.daily_secret.get_secret_value() if config.daily_secret else None
    return DailyConfig(
        config.daily_rounds,
        config.daily_preset,
        config.daily_timezone,
        config.daily_level,
        secret,
    )


def _not_stopping(app: KlaverjasApp) -> Callable[[], bool]:
    """False once the application stops (it was running and is no more); True before it
    starts (``post_init`` resumes the games) and while it runs."""
    seen = [False]

    def check() -> bool:
        if app.running:
            seen[0] = True
        return app.running or not seen[0]

    return check


COMPUTER_WATCH_SECONDS = 30.0
"""On a shared database, a computer turn left undone this long (its worker died) is run by
another worker (:attr:`bot.service.core.Tables.computer_watch`)."""

TIMER_LEASE_SECONDS = 30.0
"""How long a worker's claim on a due timer lasts; a worker that dies holding one loses it
then, and another runs the timer."""


def _shared_budget(workers: int) -> ChatBudget:
    """Telegram's limits (:mod:`bot.budget`), this worker's share of them."""
    return ChatBudget(
        shared(GROUP, workers), shared(PRIVATE, workers), overall=shared(OVERALL, workers)
    )


async def _sweep(context: Context) -> None:
    """The timer sweep of a shared database: run the due timers this worker claims, and
    learn of the groups other workers saw become supergroups (their waiting messages and
    budgets here follow them)."""
    data = context.app_data
    await learn_migrations(data)
    for out in await data.service.timers.sweep_timers(lease=TIMER_LEASE_SECONDS):
        await data.driver.submit(out)


async def _wake(context: Context) -> None:
    """After a restart, once the bot runs: the table driver lets the computers of the resumed
    games move (:meth:`bot.service.timers.TimerService.resume` only redraws them)."""
    job = context.job
    assert job is not None
    for game_id in cast(list[int], job.data):
        context.app_data.driver.wake(game_id)


async def learn_migrations(data: BotData) -> int:
    """Apply the migrations recorded since this worker last looked (storage's
    ``chat_migrations``) to its outbox; returns how many were new here."""
    learnt = 0
    while True:
        rows = await data.service.people.migrations_after(data.migrations_seen)
        for seq, old, new in rows:
            data.migrations_seen = max(data.migrations_seen, seq)
            learnt += data.presenter.outbox.migrate(old, new)
        if len(rows) < 1000:
            return learnt


def _scheduler(app: KlaverjasApp) -> Any:
    """Arm a turn timer as a one-off JobQueue job (the deadline itself is stored)."""

    async def fire(context: Context) -> None:
        job = context.job
        assert job is not None
        game_id, version = cast(tuple[int, int], job.data)
        data = context.app_data
        await data.driver.submit(await data.service.timers.timer_fired(game_id, version))

    def schedule(game_id: int, version: int, at: float) -> None:
        queue = app.job_queue
        if queue is None:
            return
        name = f"turn:{game_id}"
        for job in queue.get_jobs_by_name(name):
            job.schedule_removal()
        data = app.bot_data.get("app")
        now = data.service.clock() if isinstance(data, BotData) else 0.0
        queue.run_once(fire, when=max(0.0, at - now), data=(game_id, version), name=name)

    return schedule


def _migrated(app: KlaverjasApp) -> Any:
    """The outbox learnt from Telegram that a group became a supergroup: move its games (and
    draw its table there), as the service message would."""

    async def on_migrated(old: int, new: int) -> None:
        data = app.bot_data.get("app")
        if isinstance(data, BotData):
            for out in await data.service.people.migrate_chat(old, new):
                await data.driver.submit(out)

    return on_migrated


def _forbidden(app: KlaverjasApp) -> Any:
    async def on_forbidden(chat_id: int) -> None:
        data = app.bot_data.get("app")
        if chat_id > 0 and isinstance(data, BotData):
            await data.service.people.user_unreachable(chat_id)
            await data.presenter.unreachable(chat_id)

    return on_forbidden


async def _set_commands(app: KlaverjasApp, default_language: str) -> None:
    """Command menus per scope and language (``docs/design.md`` §8); users whose Telegram language
    is none of ours see the default language's menu."""
    for lang in (*LANGUAGES, None):
        tr = get_translator(lang or default_language)
        commands = [BotCommand(name, desc) for name, desc in messages.command_descriptions(tr)]
        code = lang
        for scope in (BotCommandScopeAllPrivateChats(), BotCommandScopeAllGroupChats()):
            try:
                await app.bot.set_my_commands(commands, scope=scope, language_code=code)
            except Exception:
                log.warning("setting the command menu failed", exc_info=True)
