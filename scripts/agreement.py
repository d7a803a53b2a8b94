#!/usr/bin/env python3
"""Move agreement at a fixed budget: a per-visit measure that machine load
cannot move, cheaper than a match. Positions are drawn (seeded) from the
SGF records given; for each, an oracle engine (a large budget) chooses a
move, and every engine under test chooses one from the same position; each
engine's share of the oracle's moves is printed with its standard error.

    scripts/agreement.py --oracle "kata-visits 800" --positions 150 \
        --engine "kosumi=target/release/kosumi --playouts 100 --threads 1 --resign 0" \
        --engine "katago=kata-playouts 100" --out rows.jsonl GAMES/*.sgf

Every engine is a GTP program given by its command line; each position is
set up with `loadsgf FILE MOVE` (the record's position before that move)
and answered with `genmove` for the record's player to move there. One row
a position goes to --out (JSON lines) as it is done, so a long run can be
read while it runs.
"""
import argparse
import json
import math
import random
import re
import shlex
import subprocess


class Gtp:
    def __init__(self, command):
        self.p = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        lines = []
        while True:
            text = self.p.stdout.readline()
            if text == "":
                raise RuntimeError(f"the engine closed on '{line}'")
            if text.strip() == "":
                if lines:
                    break
                continue
            lines.append(text.strip())
        reply = " ".join(lines)
        if reply.startswith("?"):
            raise RuntimeError(f"{line}: {reply}")
        return reply[1:].strip()


def positions(files, count, seed):
    """`count` (file, moves before, colour to move) drawn from `files`:
    records of 40 moves or more, a move from the 10th to the 220th."""
    rng = random.Random(seed)
    records = []
    for f in files:
        colours = re.findall(r";([BW])\[", open(f).read())
        if len(colours) >= 40:
            records.append((f, colours))
    drawn = []
    while len(drawn) < count and records:
        f, colours = rng.choice(records)
        m = rng.randrange(10, min(len(colours) - 5, 220))
        drawn.append((f, m, colours[m].lower()))
    return drawn


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--oracle", required=True, help="the oracle's GTP command")
    ap.add_argument("--engine", action="append", required=True, help="NAME=COMMAND, one per engine")
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    ap.add_argument("records", nargs="+")
    args = ap.parse_args()
    engines = {"oracle": Gtp(args.oracle)}
    for spec in args.engine:
        name, command = spec.split("=", 1)
        engines[name] = Gtp(command)
    rows = []
    with open(args.out, "a") as out:
        for f, m, colour in positions(args.records, args.positions, args.seed):
            row = {"file": f, "move": m}
            for name, e in engines.items():
                e.send(f"loadsgf {f} {m + 1}")
                row[name] = e.send(f"genmove {colour}").upper()
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
    n = len(rows)
    for name in engines:
        if name == "oracle":
            continue
        agree = sum(r[name] == r["oracle"] for r in rows)
        p = agree / max(n, 1)
        print(f"{name}: {agree} of {n} ({100 * p:.1f}% ± {100 * math.sqrt(p * (1 - p) / max(n, 1)):.1f}%)")


if __name__ == "__main__":
    main()
