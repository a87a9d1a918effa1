"""Every other text the bot sends: help, command menus, language picker, stop confirmation,
game start / stop / end, turn reminders, computer take-overs, private-chat problems.

HTML unless a docstring says plain. The buttons here carry :mod:`bot.taps` payloads:
:class:`~bot.taps.PickLanguage`, :class:`~bot.taps.ConfirmStop`, :class:`~bot.taps.Handover`,
:class:`~bot.taps.Reclaim` (take back the seat a computer plays for you).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.i18n import LANGUAGE_FLAGS, LANGUAGE_NAMES, LANGUAGES, Translator
from bot.render.cards import card_label
from bot.render.common import (
    Button,
    Keyboard,
    Player,
    Rendered,
    bold,
    chunk,
    esc,
    mention_html,
    player_html,
    seat_name,
    shorten,
    team_html,
)
from bot.render.presets import game_name, preset_name, rounds_text, settings_summary
from bot.render.sheet import winner_html
from bot.render.sheet_klammern import klammern_winner_html
from bot.taps import (
    ConfirmStop,
    ForgetAnswer,
    ForgetMe,
    Handover,
    HandoverStep,
    PickLanguage,
    Reclaim,
    Target,
)
from engine.cards import Card, Seat, Team
from engine.settings import Settings

COMMANDS: tuple[str, ...] = (
    "klaverjas",
    "daily",
    "score",
    "top",
    "stats",
    "review",
    "stop",
    "language",
    "rules",
    "notify",
    "help",
    "forgetme",
)
"""The bot's commands, in menu order."""


def command_descriptions(tr: Translator) -> tuple[tuple[str, str], ...]:
    """``(command, description)`` pairs for ``setMyCommands`` in the translator's language
    (plain; each description ≤ 256 characters)."""
    return (
        ("klaverjas", tr.gettext("Open a table (in private: play with three computers)")),
        ("daily", tr.gettext("Today's daily deal: the same deals for everybody")),
        ("score", tr.gettext("Show the score sheet")),
        ("top", tr.gettext("The group's standings")),
        ("stats", tr.gettext("Your statistics (in a group: reply to somebody for theirs)")),
        ("review", tr.gettext("Where your last game cost points (in private)")),
        ("stop", tr.gettext("Stop the game")),
        ("language", tr.gettext("Choose the language")),
        ("rules", tr.gettext("The rules of this table")),
        ("notify", tr.gettext("Tell me in private when a table here needs a player")),
        ("help", tr.gettext("How this bot works")),
        ("forgetme", tr.gettext("Delete your name and id from my records (in private)")),
    )


def help_text(tr: Translator) -> str:
    """The ``/help`` text: what the bot does, the commands, and how a game goes."""
    lines = [
        "🃏 " + bold(tr.gettext("Klaverjas bot")),
        tr.gettext("I host Klaverjassen for four players in a group chat."),
        "",
    ]
    lines += [f"/{cmd} — {text}" for cmd, text in command_descriptions(tr)]
    lines += [
        "",
        bold(tr.gettext("How to play")),
        "1. " + tr.gettext("Send /klaverjas in the group and take a seat; partners sit opposite."),
        "2. "
        + tr.gettext(
            "Empty seats can go to computer players. Start when all four seats are taken."
        ),
        "3. "
        + tr.gettext(
            "Your cards arrive as buttons in your private chat with me. Tap a card to play it."
        ),
        "4. "
        + tr.gettext("Cards you may not play now are marked like ·7♠·, trump cards like ★9♥."),
        "5. "
        + tr.gettext(
            "The group sees the table and every trick; after each round its result and the "
            "score. /score shows the whole score sheet."
        ),
        "6. "
        + tr.gettext(
            "Klammern, the German cousin: choose it with the rules button in the lobby. "
            "Declarations, bella, contra and re are buttons in your hand."
        ),
        "7. "
        + tr.gettext(
            "Alone against the computer: send /klaverjas here in private, or for other "
            "rules /klaverjas rotterdam, utrecht, klassiek or klammern."
        ),
        "8. 💡 "
        + tr.gettext(
            "On your hand: the card the computer would play and the expected round points "
            "of the best cards. Alone against the computer and in a daily played again "
            "(unranked); at a group table only when the lobby allows tips."
        ),
        "9. 🔍 "
        + tr.gettext(
            "After a game: the review button under the final sheet (or /review in private) "
            "shows where your decisions cost points, judged from what you could see."
        ),
        "",
        bold(tr.gettext("Privacy")),
        tr.gettext(
            "I store your Telegram id, your name and language, the games you play, your "
            "statistics, ratings and daily results. /forgetme in our private chat deletes "
            "your name and id from all of it; your past games stay, with an anonymous player "
            "in your seat."
        ),
    ]
    return "\n".join(lines)


def forget_prompt(tr: Translator) -> Rendered:
    """``/forgetme``'s question in the private chat, with the confirm and cancel buttons."""
    text = "\n".join(
        (
            "⚠️ " + bold(tr.gettext("Forget me?")),
            tr.gettext(
                "I delete your name and Telegram id from my records: your statistics, ratings, "
                "daily results and settings. Your past games stay, with an anonymous player in "
                "your seat. This cannot be undone."
            ),
        )
    )
    keyboard = (
        (
            Button("🗑 " + tr.gettext("Yes, forget me"), ForgetMe(ForgetAnswer.YES)),
            Button(tr.gettext("Cancel"), ForgetMe(ForgetAnswer.NO)),
        ),
    )
    return Rendered(text, keyboard)


def forget_in_group(tr: Translator) -> str:
    """``/forgetme`` sent in a group."""
    return tr.gettext("/forgetme works in our private chat: send it to me there.")


def forget_done(tr: Translator) -> str:
    """``/forgetme`` confirmed and done."""
    return tr.gettext(
        "Done: I have deleted your name and id from my records. If you write to me again, I "
        "start afresh."
    )


def forget_cancelled(tr: Translator) -> str:
    """``/forgetme`` cancelled."""
    return tr.gettext("Nothing was deleted.")


def forget_seated(tr: Translator) -> str:
    """``/forgetme`` confirmed by somebody seated at an open table: nothing changes."""
    return tr.gettext(
        "You sit at a table that is still open: finish or leave your table first, then send "
        "/forgetme again."
    )


def language_prompt(tr: Translator, target: Target, current: str | None = None) -> Rendered:
    """The ``/language`` picker: a question and one button per language for ``target`` (the
    chat or the user), the current one ticked."""
    buttons = [
        Button(
            f"{'✓ ' if code == current else ''}{LANGUAGE_FLAGS[code]} {LANGUAGE_NAMES[code]}",
            PickLanguage(target, code),
        )
        for code in LANGUAGES
    ]
    return Rendered(tr.gettext("Which language shall I speak here?"), chunk(buttons, 2))


def language_set(tr: Translator) -> str:
    """Confirmation after ``/language``, written in the new language (pass its translator)."""
    return "✓ " + tr.gettext("From now on I speak English here.")


def stop_confirm(tr: Translator) -> Rendered:
    """ "Stop this game?" with Yes (``stop:yes``) / No (``stop:no``)."""
    return Rendered(
        "⚠️ " + tr.gettext("Stop this game? The score so far is kept, the game cannot go on."),
        (
            (
                Button(tr.gettext("Yes, stop"), ConfirmStop(True)),
                Button(tr.gettext("No, play on"), ConfirmStop(False)),
            ),
        ),
    )


def game_stopped(tr: Translator, by_name: str) -> str:
    """Posted when ``/stop`` was confirmed; ``by_name`` is the raw name of who stopped it
    (empty: the bot closed the table because no human player was left)."""
    if not by_name:
        return "⏹ " + tr.gettext("The table is closed: no human player is left.")
    return "⏹ " + tr.gettext("{name} stopped the game.").format(name=bold(esc(shorten(by_name))))


def stop_cancelled(tr: Translator) -> str:
    """The stop confirmation was answered with No."""
    return tr.gettext("The game goes on.")


def lobby_cancelled(tr: Translator, by_name: str) -> str:
    """The lobby was closed before the game started."""
    return tr.gettext("{name} closed the table.").format(name=bold(esc(shorten(by_name))))


def lobby_idle_closed(tr: Translator, minutes: int) -> str:
    """The bot closed a lobby that nobody started within ``minutes``."""
    return tr.ngettext(
        "Nobody started the game within {n} minute, so I closed the table. "
        "Open a new one with /klaverjas.",
        "Nobody started the game within {n} minutes, so I closed the table. "
        "Open a new one with /klaverjas.",
        minutes,
    ).format(n=minutes)


def game_started(tr: Translator, settings: Settings, players: Sequence[Player]) -> str:
    """Posted in the group when the game starts: the rules, the teams, where the cards are."""
    ns = bold(team_html(tr, players, Team.NS))
    ew = bold(team_html(tr, players, Team.EW))
    return "\n".join(
        [
            "🃏 " + tr.gettext("{game} begins!").format(game=bold(game_name(tr, settings))),
            tr.gettext("Rules: {preset} ({summary})").format(
                preset=bold(preset_name(tr, settings.preset)),
                summary=settings_summary(tr, settings),
            ),
            tr.gettext("Length: {rounds}.").format(rounds=rounds_text(tr, settings)),
            tr.gettext("{first} against {second}").format(first=ns, second=ew),
            hand_in_private(tr),
        ]
    )


def hand_in_private(tr: Translator) -> str:
    """ "Your cards are in your private chat with me." (group and reply text)."""
    return "📩 " + tr.gettext("Your cards are in your private chat with me.")


def welcome(tr: Translator, name: str) -> str:
    """The private ``/start`` greeting (without a deep-link payload)."""
    return "\n".join(
        [
            "👋 " + tr.gettext("Hello {name}!").format(name=esc(shorten(name))),
            tr.gettext(
                "I host Klaverjassen. Add me to a group and send /klaverjas there, or send "
                "/klaverjas here to play with three computer players."
            ),
            tr.gettext("Your cards will appear here as buttons. /help explains more."),
        ]
    )


def seated_via_link(tr: Translator, seat: Seat, table_title: str) -> str:
    """Private reply after a deep link seated the user."""
    return "✓ " + tr.gettext("You sit {seat} at the table in {group}.").format(
        seat=seat_name(tr, seat), group=bold(esc(shorten(table_title, 40)))
    )


def group_start(tr: Translator) -> str:
    """Reply to ``/start`` in a group: how to begin here."""
    return "👋 " + tr.gettext("Send /klaverjas to open a table here; /help explains more.")


def group_greeting(tr: Translator) -> str:
    """Posted once when the bot is added to a group: what it does and how to begin."""
    return "\n".join(
        [
            "👋 " + bold(tr.gettext("Hello! I host Klaverjassen for four players here.")),
            "1. "
            + tr.gettext(
                "/klaverjas opens a table: take a seat with the buttons; empty seats can go "
                "to computer players."
            ),
            "2. "
            + tr.gettext(
                "Your cards come in your private chat with me: open it with the button at the "
                "table."
            ),
            tr.gettext("/help explains more, /language changes my language."),
        ]
    )


def unknown_preset(tr: Translator, given: str, presets: Sequence[str]) -> str:
    """Reply to ``/klaverjas <word>`` with a word that names no preset (``rules.md`` §7):
    the word and the presets to choose from, as typed after /klaverjas."""
    return "❓ " + tr.gettext(
        "Unknown rules: {given}. Choose one of {presets}, for example /klaverjas {example}."
    ).format(
        given=bold(esc(shorten(given, 30))),
        presets=", ".join(f"<code>{esc(p)}</code>" for p in presets),
        example=presets[1] if len(presets) > 1 else presets[0],
    )


def private_chat_open(tr: Translator, table_title: str, *, seated: bool) -> str:
    """Private reply to the lobby's "open my private chat" link: the chat works; take a seat
    (``seated`` False) or wait for the start (True)."""
    group = bold(esc(shorten(table_title, 40)))
    if seated:
        text = tr.gettext(
            "Our private chat is open: your cards will come here when the game in {group} starts."
        )
    else:
        text = tr.gettext(
            "Our private chat is open. Take a seat at the table in {group}; your cards will "
            "come here."
        )
    return "✓ " + text.format(group=group)


def not_dealt_in(tr: Translator, table_title: str) -> str:
    """Private reply to a table's "my cards" link from someone without a seat in that game."""
    return "ℹ️ " + tr.gettext(
        "You are not playing in the game in {group}, so there are no cards for you. Sit at "
        "the next table and your cards will come here."
    ).format(group=bold(esc(shorten(table_title, 40))))


def solo_started(tr: Translator) -> str:
    """Private ``/klaverjas``: a game alone with three computer players."""
    return "🃏 " + tr.gettext(
        "A game with three computer players: you sit South, your partner is the computer "
        "in the North."
    )


def need_private_chat(tr: Translator, name: str, url: str) -> Rendered:
    """Group message when Telegram refused to write to a user who never started the bot:
    explains and offers the deep link (``url``)."""
    text = "🔒 " + tr.gettext(
        "{name}, I cannot send you private messages yet. Tap the button to start a chat "
        "with me; your cards will come right away."
    ).format(name=bold(esc(shorten(name))))
    return Rendered(text, ((Button("💬 " + tr.gettext("Start the private chat"), url=url),),))


def chat_moved(tr: Translator, title: str | None) -> str:
    """Answer to a command that came from the old id of a group that became a supergroup
    (``title``: the supergroup's, if known); it is delivered in the supergroup."""
    where = bold(esc(title)) if title else tr.gettext("the new supergroup")
    return "➡️ " + tr.gettext(
        "This group has moved to {group}: please send your command again there."
    ).format(group=where)


def table_already_open(
    tr: Translator, url: str | None = None, *, private: bool = False
) -> Rendered:
    """Reply to a second ``/klaverjas``: points to the running table (``url``: a link to its
    message, if known; ``private``: the player's own game in the private chat)."""
    if private:
        text = "☝️ " + tr.gettext("Your game is still running here: finish or /stop it first.")
    else:
        text = "☝️ " + tr.gettext("A table is already open in this group.")
    keyboard: Keyboard = ()
    if url:
        keyboard = ((Button(tr.gettext("Go to the table"), url=url),),)
    return Rendered(text, keyboard)


def turn_reminder(tr: Translator, players: Sequence[Player], seat: Seat, seconds_left: int) -> str:
    """ "Anna, your turn — 20 seconds left." (mention when the user id is known)."""
    return "⏰ " + tr.ngettext(
        "{name}, your turn — {n} second left.",
        "{name}, your turn — {n} seconds left.",
        seconds_left,
    ).format(name=mention_html(tr, players, seat), n=seconds_left)


def computer_played(
    tr: Translator, players: Sequence[Player], seat: Seat, card: Card | None = None
) -> str:
    """The turn time ran out: "The computer played 7♠ for Anna." (``card`` None for a
    bidding decision: "The computer decided for Anna.")."""
    name = player_html(tr, players, seat)
    if card is None:
        return "🤖 " + tr.gettext("Time is up: the computer decided for {name}.").format(name=name)
    return "🤖 " + tr.gettext("Time is up: the computer played {card} for {name}.").format(
        card=bold(card_label(tr, card)), name=name
    )


def handover_button(tr: Translator) -> Button:
    """A button for the hand keyboard: give one's seat to a computer (``handover``)."""
    return Button("🤖 " + tr.gettext("Let the computer play for me"), Handover(HandoverStep.ASK))


def handover_confirm(tr: Translator) -> Rendered:
    """ "Hand your seat to a computer?" with ``handover:yes`` / ``handover:no``."""
    return Rendered(
        tr.gettext("Hand your seat to a computer player? You can take it back later."),
        (
            (
                Button(tr.gettext("Yes, hand it over"), Handover(HandoverStep.YES)),
                Button(tr.gettext("No, I play on"), Handover(HandoverStep.NO)),
            ),
        ),
    )


def seat_handed_over(tr: Translator, name: str, seat: Seat) -> str:
    """Group notice: "Anna handed her seat (North) to a computer." (``name`` raw)."""
    return "🤖 " + tr.gettext("{name} handed the seat {seat} to a computer player.").format(
        name=bold(esc(shorten(name))), seat=seat_name(tr, seat)
    )


def seat_taken_over(tr: Translator, name: str, seat: Seat) -> str:
    """Group notice after three timeouts in a row: a computer takes the absent player's seat
    for the rest of the game (``name`` raw)."""
    return "🤖 " + tr.gettext(
        "{name} let the time run out three times: a computer player takes the seat {seat}."
    ).format(name=bold(esc(shorten(name))), seat=seat_name(tr, seat))


def seat_left_group(tr: Translator, name: str, seat: Seat) -> str:
    """Group notice: a player left the group, a computer player takes their seat for the rest
    of the game (``name`` raw)."""
    return "🤖 " + tr.gettext(
        "{name} left the group: a computer player takes the seat {seat}."
    ).format(name=bold(esc(shorten(name))), seat=seat_name(tr, seat))


def you_left_group(tr: Translator, title: str) -> str:
    """Private message to a player who left the group of their table (``title`` raw)."""
    return tr.gettext(
        "You left {group}: a computer player plays your seat there until the game ends."
    ).format(group=bold(esc(shorten(title))) if title else "—")


def reclaim_button(tr: Translator, seat: Seat) -> Button:
    """The former player's way back: "Take my seat back" (``reclaim:<seat>``)."""
    return Button("↩️ " + tr.gettext("Take my seat back"), Reclaim(int(seat)))


def reclaim_offer(tr: Translator, seat: Seat, table_title: str) -> str:
    """Private message to a player whose seat a computer plays (sent again on ``/start``),
    shown with the :func:`reclaim_button`."""
    return "🤖 " + tr.gettext(
        "A computer player plays your seat {seat} at the table in {group}. You can take it "
        "back at any time."
    ).format(seat=seat_name(tr, seat), group=bold(esc(shorten(table_title, 40))))


def seat_taken_back(tr: Translator, name: str, seat: Seat) -> str:
    """Group notice: "Anna is back and takes the seat North again." (``name`` raw)."""
    return "↩️ " + tr.gettext("{name} is back and takes the seat {seat} again.").format(
        name=bold(esc(shorten(name))), seat=seat_name(tr, seat)
    )


def ack_reclaimed(tr: Translator) -> str:
    """Callback answer (and the closed offer message) after taking one's seat back (plain)."""
    return tr.gettext("Welcome back! Your cards follow.")


def redeal(tr: Translator, players: Sequence[Player], dealer: Seat) -> str:
    """Klammern: nobody played, the same dealer deals again (``rules.md`` §9.3)."""
    return "🔁 " + tr.gettext("Nobody wanted to play: {name} deals again.").format(
        name=player_html(tr, players, dealer)
    )


def game_over(
    tr: Translator,
    totals: Mapping[Team, int],
    players: Sequence[Player],
    *,
    klammern: bool = False,
) -> str:
    """The end of the game: the winner or the draw (``rules.md`` §2.4) and how to go on;
    ``klammern``: ``totals`` are big points (§9.9)."""
    result = (
        klammern_winner_html(tr, totals, players) if klammern else winner_html(tr, totals, players)
    )
    return "\n".join(
        [
            "🏁 " + bold(tr.gettext("Game over!")),
            result,
            tr.gettext("Thanks for playing. /klaverjas starts a new game."),
        ]
    )


def game_finished_notice(tr: Translator) -> str:
    """Replaces a hand or table message of a game that ended or was stopped."""
    return tr.gettext("This game is over.")


def hand_outdated(tr: Translator) -> str:
    """An old hand message the bot could not delete: a newer one is below (no buttons)."""
    return tr.gettext("This hand is no longer current: your cards are in the newest message.")


def hand_in_group(tr: Translator, title: str) -> str:
    """The private hand once the player shows their cards in the group (no buttons)."""
    return "🂠 " + tr.gettext(
        "Your cards are now shown in {group}, to you alone. The table's “My hand” link brings "
        "them back here."
    ).format(group=esc(title) if title else tr.gettext("the group"))


def something_went_wrong(tr: Translator) -> str:
    """Generic answer when an unexpected error happened (plain, alert-safe)."""
    return tr.gettext("Something went wrong. Please try again.")


def ack_seated(tr: Translator, seat: Seat) -> str:
    """Callback answer: "Je zit Noord." (plain)."""
    return tr.gettext("You sit {seat}.").format(seat=seat_name(tr, seat))


def ack_moved(tr: Translator, old: Seat, new: Seat) -> str:
    """Callback answer after changing seats in the lobby: "Je zat Noord, nu West." (plain)."""
    return tr.gettext("You moved from {old} to {new}.").format(
        old=seat_name(tr, old), new=seat_name(tr, new)
    )


def ack_left(tr: Translator) -> str:
    """Callback answer after leaving a seat (plain)."""
    return tr.gettext("You left your seat.")
