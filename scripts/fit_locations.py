"""Fit the card-location model (:mod:`engine.ai.locations`) and write its weights.

Offline tool (needs NumPy and PyTorch, which the bot does not: ``pip install numpy
torch``)::

    python scripts/fit_locations.py scripts/data/locations_*.jsonl.gz \
        --out engine/ai/locations.bin

Reads the games of ``scripts/gen_location_data.py``, replays every moment of their card play
as both strong seats saw it (:func:`gen_location_data.replay` with ``every``), turns it into
the model's features (:func:`engine.ai.locations.features`) and labels (for every card the
viewer cannot see, the other seat that holds it), and fits the network by cross-entropy over
the seats that may hold each card (the ``cannot`` masks), with the plain suits permuted at
random (the rules treat them alike). A tenth of the games (by deal) is held out; printed per
epoch: the held-out loss against the uniform choice among the allowed seats, in nats per card.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
import struct
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen_location_data import replay

from engine.ai.knowledge import knowledge
from engine.ai.locations import CARD_BLOCKS, N_FEATURES, N_OUTPUTS, card_order, features


def samples(
    paths: Sequence[str], every: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features (N × F, uint8), labels (N × 32, int8: the other seat 0..2 holding each
    trump-first card, −1 for none), allowed seats (N × 32 × 3, bool) and the deal key."""
    xs, ys, allowed, keys = [], [], [], []
    for path in paths:
        with gzip.open(path, "rt") as f:
            for line in f:
                row = json.loads(line)
                key = (int(row["deal"]) * 7 + int(row["seed"])) % 10
                for obs, hands in replay(row, every):
                    k = knowledge(obs)
                    x = np.zeros(N_FEATURES, np.uint8)
                    x[features(obs, k)] = 1
                    order = card_order(obs.trump.ordinal)  # type: ignore[union-attr]
                    y = np.full(32, -1, np.int8)
                    al = np.zeros((32, 3), bool)
                    others = k.others()
                    for c in range(32):
                        if not k.unknown >> c & 1:
                            continue
                        for j, s in enumerate(others):
                            if not k.cannot[s] >> c & 1:
                                al[order[c], j] = True
                            if hands[s] >> c & 1:
                                y[order[c]] = j
                    xs.append(x)
                    ys.append(y)
                    allowed.append(al)
                    keys.append(key)
        print(f"{path}: {len(xs)} samples so far", flush=True)
    return np.stack(xs), np.stack(ys), np.stack(allowed), np.array(keys)


def _perms() -> list[np.ndarray]:
    """Card permutations (of the 32 trump-first cards) that permute the three plain suits."""
    out = []
    for p in itertools.permutations((1, 2, 3)):
        idx = list(range(8))
        for s in p:
            idx.extend(range(8 * s, 8 * s + 8))
        out.append(np.array(idx))
    return out


def _feature_perm(card_perm: np.ndarray) -> np.ndarray:
    idx = [b * 32 + card_perm for b in range(CARD_BLOCKS)]
    idx.append(np.arange(CARD_BLOCKS * 32, N_FEATURES))
    return np.concatenate(idx)


def loss_of(
    net: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, al: torch.Tensor
) -> tuple[torch.Tensor, int]:
    """Summed cross-entropy over the cards with at least two allowed seats, and their count."""
    z = net(x).view(-1, 32, 3).masked_fill(~al, -1e9)
    keep = (y >= 0) & (al.sum(-1) >= 2)
    logp = torch.log_softmax(z, -1)
    picked = logp.gather(-1, y.clamp(min=0).long().unsqueeze(-1)).squeeze(-1)
    return -(picked * keep).sum(), int(keep.sum())


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("data", nargs="+")
    p.add_argument("--out", default="engine/ai/locations.bin")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--in-dropout", type=float, default=0.2)
    p.add_argument("--cache", help="an .npz of the samples (written when missing)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--held", type=int, default=0, help="the deal key (0..9) held out")
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    if args.cache and Path(args.cache).exists():
        d = np.load(args.cache)
        x, y, al, keys = d["x"], d["y"], d["al"], d["keys"]
    else:
        x, y, al, keys = samples(args.data)
        if args.cache:
            np.savez_compressed(args.cache, x=x, y=y, al=al, keys=keys)
    train, held = keys != args.held, keys == args.held
    print(f"samples: {train.sum()} train, {held.sum()} held out")
    # The uniform choice among the allowed seats, for comparison.
    n_al = al[held].sum(-1)
    keep = (y[held] >= 0) & (n_al >= 2)
    uniform = float(np.log(n_al[keep]).mean())
    print(f"held-out uniform loss {uniform:.4f} nats per card")
    net = torch.nn.Sequential(
        torch.nn.Dropout(args.in_dropout),
        torch.nn.Linear(N_FEATURES, args.hidden),
        torch.nn.ReLU(),
        torch.nn.Dropout(args.dropout),
        torch.nn.Linear(args.hidden, N_OUTPUTS),
    )
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    xt, yt, alt = (
        torch.from_numpy(x[train]),
        torch.from_numpy(y[train]),
        torch.from_numpy(al[train]),
    )
    xh = torch.from_numpy(x[held]).float()
    yh, alh = torch.from_numpy(y[held]), torch.from_numpy(al[held])
    perms = _perms()
    fperms = [torch.from_numpy(_feature_perm(cp)) for cp in perms]
    cperms = [torch.from_numpy(cp) for cp in perms]
    n = len(xt)
    steps = args.epochs * math.ceil(n / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps)
    for epoch in range(args.epochs):
        net.train()
        order = torch.from_numpy(rng.permutation(n))
        total, count = 0.0, 0
        for i in range(0, n, args.batch):
            b = order[i : i + args.batch]
            q = int(rng.integers(len(perms)))
            xb = xt[b][:, fperms[q]].float()
            yb = yt[b][:, cperms[q]]
            ab = alt[b][:, cperms[q]]
            loss, cnt = loss_of(net, xb, yb, ab)
            opt.zero_grad()
            (loss / max(cnt, 1)).backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            count += cnt
        net.eval()
        with torch.no_grad():
            hl, hc = loss_of(net, xh, yh, alh)
        print(
            f"epoch {epoch + 1}: train {total / count:.4f}, held out {float(hl) / hc:.4f} "
            f"(uniform {uniform:.4f})",
            flush=True,
        )
    w1 = net[1].weight.detach().numpy().T.astype("<f4")  # F × H
    b1 = net[1].bias.detach().numpy().astype("<f4")
    w2 = net[4].weight.detach().numpy().astype("<f4")  # O × H
    b2 = net[4].bias.detach().numpy().astype("<f4")
    with open(args.out, "wb") as f:
        f.write(struct.pack("<3i", N_FEATURES, args.hidden, N_OUTPUTS))
        for a in (w1, b1, w2, b2):
            f.write(np.ascontiguousarray(a).tobytes())
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
