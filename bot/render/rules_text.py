"""The ``/rules`` text: the rules of one table, in the reader's language, from ``rules.md``.

Sections: cards and points (§1), seats and rounds (§2), choosing trump (§3, §9.3), the first
lead (§3.4), the duties when playing a card (§4.5 in plain words; §9.4), roem (§5) or Klammern
declarations (§9.5–9.7), and scoring (§6, §9.8–9.9).
"""

from __future__ import annotations

from bot.i18n import Translator
from bot.render.cards import rank_letter
from bot.render.common import bold
from bot.render.presets import game_name, preset_name, rounds_text
from engine.cards import Rank
from engine.rules import PLAIN_POINTS, PLAIN_STRENGTH, TRUMP_POINTS, TRUMP_STRENGTH
from engine.settings import FirstLead, PlayRule, RoemMode, Settings, TrumpSelection, Variant


def _order(tr: Translator, strength: tuple[int, ...], points: tuple[int, ...]) -> str:
    ranks = sorted(Rank, key=lambda r: -strength[r])
    return " ".join(f"{rank_letter(tr, r)} ({points[r]})" for r in ranks)


def _cards_section(tr: Translator) -> list[str]:
    return [
        bold(tr.gettext("Cards and points")),
        tr.gettext("32 cards, 7 to ace. Trump: {order}.").format(
            order=_order(tr, TRUMP_STRENGTH, TRUMP_POINTS)
        ),
        tr.gettext("Other suits: {order}.").format(order=_order(tr, PLAIN_STRENGTH, PLAIN_POINTS)),
        tr.gettext("Together 152 points, plus 10 for the last trick: 162."),
    ]


def _table_section(tr: Translator, s: Settings) -> list[str]:
    return [
        bold(tr.gettext("Players")),
        tr.gettext(
            "Four players; partners sit opposite: North and South against East and West. Each "
            "player gets 8 cards (3-2-3); the dealer moves one seat clockwise every round."
        ),
        tr.gettext("Length: {rounds}.").format(rounds=rounds_text(tr, s)),
    ]


def _trump_section(tr: Translator, s: Settings) -> list[str]:
    texts = {
        TrumpSelection.FREE: tr.gettext(
            "Starting left of the dealer, each player names a trump suit or passes. The first "
            "to name a suit plays. If all four pass, the forehand must choose."
        ),
        TrumpSelection.MANDATORY: tr.gettext(
            "The forehand (left of the dealer) must choose a trump suit and may not pass."
        ),
        TrumpSelection.TURNED: tr.gettext(
            "A suit is turned up (clubs in the first round). Each player in turn says \"I'll "
            'play" or passes. If all pass, a second suit is turned; if that is passed too, the '
            "forehand chooses one of the other two suits."
        ),
        TrumpSelection.KLAMMERN: tr.gettext(
            "The middle of the dealer's last three cards is turned up and proposes trump. Each "
            'player accepts ("I\'m in") or passes. Then each may call a kleintje (any suit) or '
            "pass; after a kleintje the others may say beter: clubs is trump and that player "
            "plays. If nobody plays, the same dealer deals again."
        ),
    }
    lead = (
        tr.gettext("The player who chose trump leads the first trick.")
        if s.first_lead is FirstLead.MAKER
        else tr.gettext("The forehand leads the first trick.")
    )
    return [bold(tr.gettext("Choosing trump")), texts[s.trump_selection], lead]


def _play_section(tr: Translator, s: Settings) -> list[str]:
    lines = [
        bold(tr.gettext("Playing a card")),
        "• " + tr.gettext("Follow suit if you can."),
        "• "
        + tr.gettext(
            "Trump led: play a higher trump than all trumps in the trick if you can, also over "
            "your partner; otherwise any trump."
        ),
    ]
    void = {
        PlayRule.AMSTERDAM: [
            tr.gettext(
                "Cannot follow, an opponent is winning: beat the trick with a trump if you "
                "can; if you cannot, discard another suit. Undertrump only with nothing but "
                "lower trumps."
            ),
            tr.gettext(
                "Cannot follow, your partner is winning: any card, but do not undertrump your "
                "partner's trump unless you hold nothing else."
            ),
        ],
        PlayRule.ROTTERDAM: [
            tr.gettext(
                "Cannot follow: you must trump, even when your partner is winning. Overtrump "
                "if you can, otherwise undertrump. Discard only without trumps."
            ),
        ],
        PlayRule.KLAMMERN: [
            tr.gettext(
                "Cannot follow: you must trump, even when your partner is winning, and "
                "overtrump if you can; if you cannot, discard another suit. Undertrump only "
                "with nothing but lower trumps."
            ),
        ],
    }
    lines += ["• " + t for t in void[s.play_rule]]
    lines.append(
        "• "
        + tr.gettext("The highest trump wins the trick, else the highest card of the suit led.")
    )
    return lines


def _roem_section(tr: Translator, s: Settings) -> list[str]:
    if s.roem is RoemMode.DECLARATIONS:
        return [
            bold(tr.gettext("Declarations")),
            tr.gettext(
                "With your first card you declare sequences from your hand: terz (three in a "
                "row) 20, fifty (four or more) 50. Only the team with the best sequence scores, "
                "then all its sequences."
            ),
            tr.gettext(
                "Bella: king and queen of trump in one hand, 20, announced with the first of "
                "the two."
            ),
            tr.gettext(
                "Contra: a defender may double during the first trick; re: the playing team "
                "may redouble during the second trick."
            ),
            tr.gettext("The bot declares every sequence and bella for you at this table.")
            if s.auto_declare
            else tr.gettext(
                'Declare with the buttons in your hand ("Declare all" declares every '
                "sequence); bella is a second button on king and queen of trump."
            ),
            tr.gettext(
                "Contra until the first card of the second trick, re until the first card of "
                'the third. Computer players wait for your answer before that card; "No '
                'contra" or "No re" lets them go on.'
            ),
        ]
    lines = [
        bold(tr.gettext("Roem")),
        tr.gettext(
            "Combinations in one trick score for the team that wins it: three in a row 20, four "
            "in a row 50 (order 7-8-9-10-J-Q-K-A), stuk (king and queen of trump) 20 on top."
        ),
        tr.gettext("Four jacks 200; four aces, kings, queens or tens 100."),
    ]
    if s.four_low_cards:
        lines.append(tr.gettext("Four nines, eights or sevens: 100."))
    if s.roem is RoemMode.CLAIM:
        lines.append(
            tr.gettext(
                "Roem must be claimed with the Roem! button before the next card is played; "
                "unclaimed roem is lost."
            )
        )
    else:
        lines.append(tr.gettext("The bot counts roem automatically."))
    return lines


def _score_section(tr: Translator, s: Settings) -> list[str]:
    if s.variant is Variant.KLAMMERN:
        return [
            bold(tr.gettext("Scoring")),
            tr.gettext(
                "The team with more points (cards, last trick, declarations, bella) wins the "
                "round; a tie goes to the defenders. The winners get 1 small point, 2 after "
                "contra, 4 after re."
            ),
            tr.gettext(
                "5 small points make 1 big point (2 if the other team has none); then both "
                "start again at 0. The game goes {rounds}."
            ).format(rounds=rounds_text(tr, s)),
        ]
    lines = [
        bold(tr.gettext("Scoring")),
        tr.gettext(
            "The playing team must score more than the other team, card points and roem of "
            "both included. Then each team writes its own points."
        ),
        tr.gettext(
            "Otherwise it is nat: the playing team scores 0 and the other team gets 162 plus "
            "all roem."
        ),
    ]
    if s.defender_pit:
        lines.append(tr.gettext("Pit: a team that takes all 8 tricks gets 100 roem extra."))
    else:
        lines.append(
            tr.gettext("Pit: the playing team gets 100 roem extra when it takes all 8 tricks.")
        )
    lines.append(tr.gettext("After the last round the team with the most points wins."))
    return lines


def rules_text(tr: Translator, settings: Settings) -> str:
    """The ``/rules`` message for a table with ``settings`` (HTML, under 4096 characters)."""
    game, preset = game_name(tr, settings), preset_name(tr, settings.preset)
    title = "📖 " + bold(
        game if game == preset else tr.gettext("{game} — {preset}").format(game=game, preset=preset)
    )
    sections = [
        [title],
        _cards_section(tr),
        _table_section(tr, settings),
        _trump_section(tr, settings),
        _play_section(tr, settings),
        _roem_section(tr, settings),
        _score_section(tr, settings),
    ]
    return "\n\n".join("\n".join(sec) for sec in sections)
