"""Fit the trump-choice model of the ``strong`` player and write ``engine/ai/bidcoef.py``.

Usage (the labelled corpora used for the stored coefficients are in ``scripts/data/``,
gzipped: 1,200 Amsterdam, 1,061 Rotterdam and 2,000 Klammern deals)::

    python scripts/fit_bidding.py --amsterdam A.jsonl --rotterdam R.jsonl --klammern K.jsonl

Inputs: files of ``scripts/gen_bidding_data.py`` (open-hand outcomes of a fixed deal corpus for
every playing team and trump). Every deal gives 16 rows (4 seats × 4 suits): the features of
the seat's hand for that suit (:func:`engine.ai.handeval.features`, the seat relative to the
forehand, who leads) and the outcome for the seat's team: Klaverjassen the round score
difference (own − other, §6), Klammern +1 won / −1 lost (§9.8). Ridge least squares (pure
Python normal equations, λ = 1) on the first 80 % of the deals; the rest is held out.

Thresholds: replaying the auction of each held-out deal (§3.1 free, §3.3 turned, §9.3 Klammern)
with every seat using the model, choosing a suit when its prediction reaches the threshold
of the seat's position, and looking up the solved outcome; a few rounds of coordinate search
(one team's thresholds against the other's current ones, duplicate: both seatings) pick the
thresholds. The script prints the held-out fit (R², made-rate of the forehand's choice when it
must choose) and writes the module. Deterministic.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai.handeval import FEATURES, features
from engine.cards import SEATS
from engine.deal import deal, round_rng

SEED = 20240505  # the corpus seed of gen_bidding_data.py
PLAY_SHIFT = 12.0  # lower the replayed-auction thresholds by this much (see main)
TURNED_SHIFT = 75.0  # the turned-suit thresholds are the free ones plus this (see main)
Row = dict[str, object]


def load(path: str) -> list[Row]:
    """The labelled deals of one file (``.gz`` is read compressed)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def target(v: Sequence[Sequence[int]], team: int, suit: int, klammern: bool) -> float:
    """The outcome for ``team`` playing ``suit`` (own − other; Klammern ±1)."""
    x = v[team][suit] if team == 0 else -v[team][suit]
    if klammern:
        return 1.0 if x > 0 else -1.0
    return float(x)


def design(rows: list[Row], klammern: bool) -> tuple[list[list[float]], list[float]]:
    """Feature rows and targets (16 per deal)."""
    xs, ys = [], []
    for r in rows:
        forehand = (int(r["dealer"]) + 1) % 4  # type: ignore[call-overload]
        hands: list[int] = r["hands"]  # type: ignore[assignment]
        v: list[list[int]] = r["v"]  # type: ignore[assignment]
        for seat in range(4):
            rel = (seat - forehand) % 4
            for suit in range(4):
                xs.append(features(hands[seat], suit, rel, klammern))
                ys.append(target(v, seat % 2, suit, klammern))
    return xs, ys


def ridge(xs: list[list[float]], ys: list[float], lam: float = 1.0) -> list[float]:
    """Ridge least squares by the normal equations (Gauss–Jordan; the bias is not shrunk)."""
    n = len(xs[0])
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for x, y in zip(xs, ys, strict=True):
        for i in range(n):
            xi = x[i]
            if xi == 0:
                continue
            b[i] += xi * y
            row = a[i]
            for j in range(n):
                row[j] += xi * x[j]
    for i in range(1, n):
        a[i][i] += lam
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        p = m[col][col]
        if abs(p) < 1e-12:
            continue
        m[col] = [v / p for v in m[col]]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col]
                m[r] = [vr - f * vc for vr, vc in zip(m[r], m[col], strict=True)]
    return [m[i][n] for i in range(n)]


def dot(w: Sequence[float], x: Sequence[float]) -> float:
    """Linear prediction."""
    return sum(a * b for a, b in zip(w, x, strict=True))


def r2(w: list[float], xs: list[list[float]], ys: list[float]) -> float:
    """Coefficient of determination on a data set."""
    mean = sum(ys) / len(ys)
    ss = sum((y - mean) ** 2 for y in ys)
    res = sum((y - dot(w, x)) ** 2 for x, y in zip(xs, ys, strict=True))
    return 1 - res / ss


Pred = Callable[[int, int, int], float]


def forced_made_rate(rows: list[Row], w: list[float], klammern: bool = False) -> float:
    """Share of deals where the forehand's model choice (it must choose, leads) is made."""
    ok = 0
    for r in rows:
        f = (int(r["dealer"]) + 1) % 4  # type: ignore[call-overload]
        hand = r["hands"][f]  # type: ignore[index]
        best = max(range(4), key=lambda s: (dot(w, features(hand, s, 0, klammern)), -s))
        ok += target(r["v"], f % 2, best, False) > 0  # type: ignore[arg-type]
    return ok / len(rows)


def free_auction(r: Row, w: list[float], th: dict[int, list[float]]) -> float:
    """NS's result (NS − EW) of the free auction (§3.1) of deal ``r``; ``th[team][pos]``."""
    f = (int(r["dealer"]) + 1) % 4  # type: ignore[call-overload]
    hands: list[int] = r["hands"]  # type: ignore[assignment]
    v: list[list[int]] = r["v"]  # type: ignore[assignment]
    for pos in range(5):
        seat = (f + pos) % 4
        rel = pos % 4
        value, suit = max((dot(w, features(hands[seat], s, rel)), s) for s in range(4))
        if pos == 4 or value >= th[seat % 2][pos]:
            return float(v[seat % 2][suit])
    raise AssertionError


def klammern_auction(r: Row, w: list[float], th: dict[int, list[float]]) -> float:
    """NS's small points minus EW's of the Klammern auction (§9.3) of deal ``r``;
    ``th[team]`` = 4 accept thresholds, 4 kleintje thresholds, 1 beter threshold."""
    i = int(r["i"])  # type: ignore[call-overload]
    d = deal(round_rng(SEED, i + 1), SEATS[i % 4])
    proposed = d.dealer_middle_card.suit.ordinal
    f = (int(r["dealer"]) + 1) % 4  # type: ignore[call-overload]
    hands: list[int] = r["hands"]  # type: ignore[assignment]
    v: list[list[int]] = r["v"]  # type: ignore[assignment]

    def result(team: int, suit: int) -> float:
        own = v[0][suit] if team == 0 else -v[0][suit]
        win = 1.0 if own > 0 else -1.0
        return win if team == 0 else -win

    for pos in range(4):
        seat = (f + pos) % 4
        if dot(w, features(hands[seat], proposed, pos, True)) >= th[seat % 2][pos]:
            return result(seat % 2, proposed)
    for pos in range(4):
        seat = (f + pos) % 4
        value, suit = max((dot(w, features(hands[seat], s, pos, True)), s) for s in range(4))
        if value >= th[seat % 2][4 + pos]:
            for k in range(1, 4):
                other = (seat + k) % 4
                rel = (other - f) % 4
                if dot(w, features(hands[other], 3, rel, True)) >= th[other % 2][8]:
                    return result(other % 2, 3)
            return result(seat % 2, suit)
    return 0.0


def duplicate(
    rows: list[Row],
    play: Callable[[Row, dict[int, list[float]]], float],
    a: list[float],
    b: list[float],
) -> float:
    """Mean per deal of team A's result minus B's over both seatings."""
    total = 0.0
    for r in rows:
        total += play(r, {0: a, 1: b}) - play(r, {0: b, 1: a})
    return total / (2 * len(rows))


def tune(
    rows: list[Row],
    play: Callable[[Row, dict[int, list[float]]], float],
    start: list[float],
    grid: Sequence[float],
    rounds: int = 3,
) -> list[float]:
    """Coordinate search of thresholds against the current ones (module docstring)."""
    cur = list(start)
    for _ in range(rounds):
        opp = list(cur)
        for k in range(len(cur)):
            best, best_v = cur[k], duplicate(rows, play, cur, opp)
            for g in grid:
                cand = list(cur)
                cand[k] = g
                val = duplicate(rows, play, cand, opp)
                if val > best_v + 1e-9:
                    best, best_v = g, val
            cur[k] = best
    return cur


def fmt(name: str, xs: Sequence[float]) -> str:
    """A tuple constant."""
    return f"{name}: tuple[float, ...] = (\n" + "".join(f"    {x!r},\n" for x in xs) + ")\n"


def main() -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--amsterdam", required=True)
    p.add_argument("--rotterdam", required=True)
    p.add_argument("--klammern", required=True)
    p.add_argument(
        "--out", default=str(Path(__file__).resolve().parents[1] / "engine/ai/bidcoef.py")
    )
    a = p.parse_args()
    models: dict[str, list[float]] = {}
    extra: list[str] = []
    for name, path in (
        ("amsterdam", a.amsterdam),
        ("rotterdam", a.rotterdam),
        ("klammern", a.klammern),
    ):
        rows = load(path)
        cut = len(rows) * 4 // 5
        kl = name == "klammern"
        xs, ys = design(rows[:cut], kl)
        w = ridge(xs, ys)
        hx, hy = design(rows[cut:], kl)
        models[name] = w
        print(
            f"{name}: {len(rows)} deals, R² train {r2(w, xs, ys):.3f} held-out {r2(w, hx, hy):.3f}"
        )
        if not kl:
            print(f"  forced choice made (held-out): {forced_made_rate(rows[cut:], w):.3f}")
        held = rows[cut:]
        if name == "amsterdam":
            th = tune(held, lambda r, t, w=w: free_auction(r, w, t), [40.0] * 4, range(-20, 101, 5))
            print(f"  free thresholds from the replayed auction {th}")
            # Duplicate A/B in real play (strong vs strong, 200 deals each): shifting these
            # thresholds by +12 lost 4.2 ± 3.0 points a round, -12 won 5.7 ± 3.4, -24 against
            # -12 lost 2.7 ± 3.5; so the stored thresholds are the replay's minus 12.
            th = [float(x) - PLAY_SHIFT for x in th]
            extra.append(fmt("FREE_THRESHOLDS", th))
            # Turned suit (klassiek, §3.3): the maker leads (the model's lead bonus always
            # applies), so the same thresholds made strong accept 81 % of the rounds and make
            # only 76 % (+6.8 ± 4.3 vs basic, 300 deals). Duplicate A/B strong vs strong, 200
            # deals each: +30 vs 0 won 7.7 ± 3.9, +55 vs 0 15.6 ± 4.9, +80 vs +55 5.9 ± 4.5,
            # +40 vs +55 -3.1 ± 4.0: stored free + TURNED_SHIFT.
            turned = [x + TURNED_SHIFT for x in th]
            extra.append(fmt("TURNED_THRESHOLDS", [*turned, *turned]))
        if kl:
            th = tune(
                held, lambda r, t, w=w: klammern_auction(r, w, t), [0.2] * 9,
                [x / 10 for x in range(-6, 11)],
            )  # fmt: skip
            print(f"  klammern thresholds from the replayed auction (not used): {th}")
            # The open-hand replay overrates the player who accepts (measured with these
            # coefficients: thresholds near -0.6..0.2 made strong accept 87 % of the rounds
            # and win only 64 % of them against basic). Fixed, conservative thresholds
            # (accept at a predicted 2·P(win) − 1 >= 0.3, kleintje/beter 0.4) won +0.21 small
            # points a round instead of -0.01 (100 duplicate deals, seed 11); then duplicate
            # A/B strong vs strong (250 deals): all +0.15 lost 0.06 ± 0.03 small points a
            # round, all -0.15 won 0.07 ± 0.03. Stored: 0.15 to accept, 0.25 kleintje/beter.
            extra.append(fmt("KLAMMERN_ACCEPT", [0.15] * 4))
            extra.append(fmt("KLAMMERN_KLEINTJE", [0.25] * 4))
            extra.append("KLAMMERN_BETER = 0.25\n")
    text = [
        '"""Fitted coefficients of the trump-choice model (:mod:`engine.ai.bidding`).\n\n'
        "Generated by ``scripts/fit_bidding.py`` from ``scripts/gen_bidding_data.py`` data; do\n"
        "not edit by hand. Feature order: :data:`engine.ai.handeval.FEATURES`.\n"
        '"""\n',
        "FEATURES: tuple[str, ...] = (\n" + "".join(f'    "{n}",\n' for n in FEATURES) + ")\n",
    ]
    for name, w in models.items():
        text.append(fmt(name.upper(), w))
    text.extend(extra)
    Path(a.out).write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
