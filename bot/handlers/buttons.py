"""Callback queries (button taps): decode into a typed tap, call one service method, answer
exactly once (a legal move as soon as it is known to be legal, before it is written), then
hand the outcome to the table driver. Stale, forged or foreign taps get a
short translated alert and change nothing (``docs/design.md`` §3)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import assert_never

from telegram import Message, Update

from bot.context import Context, translator_for
from bot.handlers.alerts import on_alerts_off, on_bell
from bot.handlers.common import answer_query, is_admin_check, remember_user
from bot.handlers.privacy import on_forget_button
from bot.handlers.rematch import on_rematch_button
from bot.handlers.review import on_review_button
from bot.handlers.standings import on_standings_button
from bot.i18n import LANGUAGES, Translator, get_translator
from bot.outbox import Content
from bot.outcome import Outcome, Refusal, refused
from bot.render import messages
from bot.render.common import Player
from bot.render.reasons import tap_answer
from bot.render.tip import tip_text
from bot.tables import Table
from bot.taps import (
    Again,
    AlertsOff,
    Cancel,
    ComputerSeat,
    ConfirmStop,
    DailyTap,
    ForgetMe,
    Handover,
    HandoverStep,
    Leave,
    MalformedCallback,
    Move,
    MyCards,
    NextSetting,
    Payload,
    PickLanguage,
    Ready,
    Reclaim,
    ReviewPlay,
    ShowSheet,
    Sit,
    Start,
    Tap,
    Target,
    Tip,
    TopPeriod,
    WantAlerts,
    decode,
    scope,
)
from bot.telegram_ext import tapped_message

log = logging.getLogger(__name__)


async def on_button(update: Update, context: Context) -> None:
    """Every callback query of the bot."""
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    await remember_user(update, context)
    reader = _Reader(update, context)
    try:
        tap = decode(query.data)
    except MalformedCallback:
        await _answer(update, context, await reader(), refused(Refusal.MALFORMED))
        return
    if isinstance(tap, PickLanguage):
        await _language(update, context, tap, await reader())
        return
    if isinstance(tap, ForgetMe):  # /forgetme's question
        await on_forget_button(update, context, tap, await reader())
        return
    if isinstance(tap, AlertsOff):  # "a fourth wanted": no more (bot.handlers.alerts)
        await on_alerts_off(update, context, tap, await reader())
        return
    if isinstance(tap, DailyTap | TopPeriod):  # the daily's and /top's buttons
        await on_standings_button(update, context, tap, await reader())
        return
    payload = tap.payload
    table: Table | None = None
    # A hand's button tapped in the tapper's own private chat is in its place whatever the
    # game (no read needed); any other button is judged on the table.
    if scope(payload) != "a" or not _in_own_chat(update):
        table = await context.app_data.service.tables.load(tap.game_id)
        if table is not None and not _from_its_place(update, table, payload):
            await _answer(update, context, await reader(), refused(Refusal.WRONG_CHAT))
            return
    if isinstance(payload, ConfirmStop):
        await _stop(update, context, tap, payload, await reader())
        return
    if isinstance(payload, Again | Ready):  # a rematch (bot.handlers.rematch)
        await on_rematch_button(update, context, tap, payload, table, await reader())
        return
    if isinstance(payload, WantAlerts):  # the lobby's 🔔 (bot.handlers.alerts)
        await on_bell(update, context, table, await reader())
        return
    if isinstance(payload, Handover) and payload.step is not HandoverStep.YES:
        await _handover_prompt(update, context, tap, payload, await reader())
        return
    if isinstance(payload, ShowSheet):
        await _switch_sheet(update, context, tap, payload, await reader())
        return
    if isinstance(payload, Tip):
        await _tip(update, context, tap, await reader())
        return
    if isinstance(payload, MyCards):
        await _my_cards(update, context, tap, table, await reader())
        return
    if isinstance(payload, ReviewPlay):
        await on_review_button(update, context, tap, await reader())
        return
    staged = await _dispatch(update, context, tap)
    answer = staged.answer
    players = None if staged.writing is not None else await _players(context, answer)
    # the one answer of the tap; the reader's language is looked up only when it has words
    # (an accepted card's answer has none)
    said = answer.refusal is not None or answer.toast is not None
    tr = await reader() if said else get_translator(None)
    await _answer(update, context, tr, answer, players)
    out = await staged.outcome()
    data = context.app_data
    if out.refusal is Refusal.STALE_BUTTON and out.acted and out.game_id is not None:
        await data.presenter.hand_again(out.game_id, query.from_user.id)
        return
    if out.ok or out.lobby:
        await data.driver.submit(out)


class _Reader:
    """The tapper's translator for a callback's answers (private: their language), looked
    up once when first needed."""

    def __init__(self, update: Update, context: Context) -> None:
        self.update, self.context = update, context
        self.found: Translator | None = None

    async def __call__(self) -> Translator:
        if self.found is None:
            self.found = await translator_for(self.update, self.context, private=True)
        return self.found


def _in_own_chat(update: Update) -> bool:
    """Whether the tapped message is in the tapper's own private chat."""
    query = update.callback_query
    assert query is not None
    message = query.message
    return message is not None and message.chat.id == query.from_user.id


def _from_its_place(update: Update, table: Table, payload: Payload) -> bool:
    """Whether a game button was tapped where it lives (callback data can be sent on any
    message, ``docs/design.md`` §3): the table, lobby, ``/stop`` and sheet buttons on a message of
    the game's own chat (and forum topic); the hand's buttons (cards, bids, hand-over, take
    back, tip) in the tapper's own private chat, or on the hand shown to the tapper alone in
    the game's chat (an ephemeral message, ``bot/telegram_ext.py``); a ``/score`` answer's
    sheet button and a finished game's review button also in the private chat of a player
    (or former player) of the game."""
    query = update.callback_query
    assert query is not None
    message = query.message
    if message is None:
        return False
    chat_id, user_id = message.chat.id, query.from_user.id
    row = table.row
    tapped = tapped_message(query)
    if tapped is not None and tapped.ephemeral:  # a hand shown in the group (telegram_ext)
        return scope(payload) == "a" and tapped.receiver_id == user_id and chat_id == row.chat_id
    if scope(payload) == "a":
        return chat_id == user_id
    topic = isinstance(message, Message) and message.is_topic_message
    thread = message.message_thread_id if isinstance(message, Message) and topic else None
    in_place = chat_id == row.chat_id and (row.thread_id is None or thread == row.thread_id)
    if in_place or not isinstance(payload, ShowSheet | ReviewPlay):
        return in_place
    played = any(user_id in (s.user_id, s.former_user_id) for s in row.seats)
    return chat_id == user_id and played


@dataclass(frozen=True, slots=True)
class Staged:
    """A game tap's service call at the point where the tap is answered: ``answer`` is the
    outcome the callback query is answered with, and :meth:`outcome` the call's final one.
    ``writing``: a legal move accepted before its write, the write still running (then
    ``answer`` is the accepted move and the final outcome may still be a refusal: another
    worker wrote first); None when the call is over (``answer`` is its outcome)."""

    answer: Outcome
    writing: asyncio.Future[Outcome] | None = None

    async def outcome(self) -> Outcome:
        """The call's final outcome (after the write)."""
        return self.answer if self.writing is None else await self.writing


Accept = Callable[[Outcome], object]
"""The hook a move's service call calls once the move is known to be legal."""


async def _accepted_move(call: Callable[[Accept], Awaitable[Outcome]]) -> Staged:
    """Run a move's service call (:meth:`bot.service.play.PlayService.act`) until it is known:
    a legal move as soon as the service accepts it, before it is written (the write goes on
    meanwhile, so the tap is answered first); anything else once the call is over."""
    loop = asyncio.get_running_loop()
    accepted: asyncio.Future[Outcome] = loop.create_future()

    def accept(out: Outcome) -> None:
        if not accepted.done():
            accepted.set_result(out)

    writing = asyncio.ensure_future(call(accept))
    try:
        await asyncio.wait({writing, accepted}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        writing.cancel()
        raise
    if accepted.done():
        return Staged(accepted.result(), writing)
    return Staged(writing.result())


async def _dispatch(update: Update, context: Context, tap: Tap) -> Staged:
    """The one service call of a game tap (not a stop confirmation, nor a hand-over step that
    only changes the message), up to the point where the tap is answered (:class:`Staged`:
    a legal move before it is written, anything else once the call is over)."""
    payload = tap.payload
    if isinstance(payload, Move):
        query = update.callback_query
        assert query is not None
        act, user_id = context.app_data.service.play.act, query.from_user.id
        return await _accepted_move(
            lambda accept: act(tap.game_id, tap.version, user_id, payload, accept)
        )
    return Staged(await _call(update, context, tap))


async def _call(update: Update, context: Context, tap: Tap) -> Outcome:
    """:func:`_dispatch`'s service call of a tap other than a move."""
    query = update.callback_query
    assert query is not None
    user_id = query.from_user.id
    service = context.app_data.service
    payload = tap.payload
    match payload:
        case Sit() | Leave() | ComputerSeat() | NextSetting() | Start() | Cancel():
            table = await service.tables.load(tap.game_id)
            where = table.row.chat_id if table is not None else user_id
            if isinstance(payload, Sit):
                if not await context.app_data.members.is_member(context.bot, where, user_id):
                    return refused(Refusal.NOT_A_MEMBER, tap.game_id)
                if table is None or not await service.lobby.hand_in_group(table, user_id):
                    await _probe_private_chat(update, context)  # their cards come in private
            return await service.lobby.lobby_action(
                tap.game_id, tap.version, user_id, payload, is_admin_check(update, context, where)
            )
        case Reclaim(seat):
            table = await service.tables.load(tap.game_id)
            where = table.row.chat_id if table is not None else user_id
            if not await context.app_data.members.is_member(context.bot, where, user_id):
                return refused(Refusal.NOT_A_MEMBER, tap.game_id)
            return await service.seats.reclaim(tap.game_id, tap.version, user_id, seat)
        case Handover():
            return await service.seats.handover(tap.game_id, user_id)
        case (
            Move()  # staged by _dispatch
            | ConfirmStop()
            | ShowSheet()
            | Tip()
            | ReviewPlay()
            | Again()
            | Ready()
            | WantAlerts()
            | MyCards()
        ):
            return refused(Refusal.MALFORMED)
        case _:
            assert_never(payload)


async def _players(context: Context, out: Outcome) -> Sequence[Player] | None:
    """The table's players, to name them in a rule refusal ("Anna is to play")."""
    if out.refusal is None or isinstance(out.refusal, Refusal) or out.game_id is None:
        return None
    table = await context.app_data.service.tables.load(out.game_id)
    return table.players() if table is not None else None


async def _probe_private_chat(update: Update, context: Context) -> None:
    """A user taking a seat must receive their cards in private. If we have not heard from
    them there yet, greet them: when Telegram lets it through they have started the bot
    before; when it refuses (403) the seat button answers with a deep link instead."""
    user = update.effective_user
    assert user is not None
    data = context.app_data
    if await data.service.people.can_message(user.id):
        return
    tr = await translator_for(update, context, private=True)
    welcome = Content(messages.welcome(tr, user.full_name))
    if await data.presenter.outbox.send_now(user.id, welcome, timeout=5.0):
        await data.service.people.user_started(user.id)


async def _answer(
    update: Update,
    context: Context,
    tr: Translator,
    out: Outcome,
    players: Sequence[Player] | None = None,
) -> None:
    """Answer the callback query exactly once: an alert for a refusal, a toast or a deep link
    otherwise."""
    query = update.callback_query
    assert query is not None
    text = tap_answer(tr, out.refusal, out.toast, out.details, players)
    link = context.app_data.presenter.start_link(out.url) if out.url else None
    await answer_query(context, query, text, alert=out.refusal is not None, url=link)


async def _handover_prompt(
    update: Update, context: Context, tap: Tap, step: Handover, tr: Translator
) -> None:
    """The two-step "let the computer play for me", only in the player's own hand message."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    view = await data.service.tables.view(tap.game_id)
    seat = view.table.seat_of(query.from_user.id) if view is not None else None
    hand = (
        view.table.row.seats[seat].hand_message if view is not None and seat is not None else None
    )
    tapped = tapped_message(query)
    if (
        view is None
        or seat is None
        or hand is None
        or tapped is None
        or (tapped.chat_id, tapped.message_id) != (hand.chat_id, hand.message_id)
    ):
        await _answer(update, context, tr, refused(Refusal.NOT_YOUR_HAND))
        return
    await _answer(update, context, tr, Outcome(game_id=view.game_id))
    if step.step is HandoverStep.ASK:
        data.presenter.handover_prompt(view, seat, query.from_user.id)
    else:
        await data.presenter.hand_again(view.game_id, query.from_user.id)


async def _my_cards(
    update: Update, context: Context, tap: Tap, table: Table | None, tr: Translator
) -> None:
    """The table's "🂠 my cards": a seated player's hand as a message in the group that they
    alone see (:mod:`bot.presenter.ephemeral`), answering this very tap (Telegram takes it
    only so); from now on their choice. Anyone else is refused as on a hand button."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    user_id = query.from_user.id
    seat = table.seat_of(user_id) if table is not None else None
    if table is None or table.state is None or table.state.is_over or seat is None:
        await _answer(update, context, tr, refused(Refusal.NOT_YOUR_HAND))
        return
    await data.service.people.set_hand_place(user_id, "group")
    shown = await data.presenter.cards_in_group(tap.game_id, user_id, query.id)
    out = Outcome(game_id=tap.game_id) if shown else refused(Refusal.NOT_YOUR_HAND)
    await _answer(update, context, tr, out)


async def _tip(update: Update, context: Context, tap: Tap, tr: Translator) -> None:
    """The 💡 button: the tip is the callback's alert, in the tapper's language and
    seen by them alone (no message, nothing of the chat's message budget); a refusal is an
    alert too. The game never changes."""
    query = update.callback_query
    assert query is not None
    found = await context.app_data.service.tips.tip(tap.game_id, tap.version, query.from_user.id)
    if found.suggestion is None or found.obs is None:
        await _answer(update, context, tr, found.outcome)
        return
    await answer_query(context, query, tip_text(tr, found.suggestion, found.obs), alert=True)


async def _switch_sheet(
    update: Update, context: Context, tap: Tap, show: ShowSheet, tr: Translator
) -> None:
    """The picture / text button under a ``/score`` answer: the answer is sent again in the
    other form (a picture message cannot become text by an edit), for whoever tapped."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    table = await data.service.tables.load(tap.game_id)
    message = query.message
    if table is None or not isinstance(message, Message):
        await _answer(update, context, tr, refused(Refusal.GAME_NOT_FOUND))
        return
    await _answer(update, context, tr, Outcome(game_id=table.game_id))
    private = message.chat.type == "private"
    viewer = table.seat_of(query.from_user.id) if private else None
    title = (await data.service.tables.view_of(table)).title if private else ""
    reader = await translator_for(update, context, private=private)
    answer = await data.presenter.score_message(
        table, reader, viewer, picture=show.picture, title=title
    )
    outbox = data.presenter.outbox
    thread = message.message_thread_id if message.is_topic_message else None
    key = ("switch", message.chat.id, message.message_id)  # one answer per tapped message
    if outbox.post(message.chat.id, answer, thread_id=thread, dedupe=key) is not None:
        outbox.delete(message.chat.id, message.message_id)


async def _stop(
    update: Update, context: Context, tap: Tap, answer: ConfirmStop, tr: Translator
) -> None:
    """The /stop confirmation: only the creator or an admin may answer it, and only on the
    confirmation message itself (never on the table)."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    table = await data.service.tables.load(tap.game_id)
    message = query.message
    if table is None or not isinstance(message, Message) or message.chat.id != table.row.chat_id:
        await _answer(update, context, tr, refused(Refusal.MALFORMED))
        return
    if await data.service.tables.stop_prompt(table.game_id) != message.message_id:
        await _answer(update, context, tr, refused(Refusal.NOT_THIS_MESSAGE))
        return
    is_admin = is_admin_check(update, context, table.row.chat_id)
    if query.from_user.id != table.row.creator_id and not await is_admin():
        await _answer(update, context, tr, refused(Refusal.CREATOR_OR_ADMIN_ONLY))
        return
    out = Outcome(game_id=table.game_id)
    if answer.yes:
        out = await data.service.seats.stop(tap.game_id, query.from_user.id, is_admin)
    await _answer(update, context, tr, out)
    if out.ok:
        data.presenter.outbox.delete(message.chat.id, message.message_id)
        if out.stopped:
            await data.driver.submit(out)


async def _language(update: Update, context: Context, tap: PickLanguage, tr: Translator) -> None:
    """A language button: the group's language (admins) or the user's own (private)."""
    query = update.callback_query
    assert query is not None
    data = context.app_data
    if tap.language not in LANGUAGES:
        await _answer(update, context, tr, refused(Refusal.UNKNOWN_LANGUAGE))
        return
    chat = update.effective_chat
    if tap.target is Target.CHAT and chat is not None and chat.type != "private":
        if not await is_admin_check(update, context)():
            await _answer(update, context, tr, refused(Refusal.ADMIN_ONLY))
            return
        outcomes = await data.service.people.set_chat_language(
            chat.id, chat.type, chat.title, tap.language
        )
    else:
        outcomes = await data.service.people.set_user_language(query.from_user.id, tap.language)
    new = get_translator(tap.language)
    await answer_query(context, query, messages.language_set(new))
    if isinstance(query.message, Message):
        done = Content(messages.language_set(new))
        data.presenter.outbox.edit(query.message.chat.id, query.message.message_id, done)
    for out in outcomes:
        await data.driver.submit(out)
