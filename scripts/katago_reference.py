#!/usr/bin/env python3
"""Capture KataGo's own network outputs on a set of positions, for the test
that holds kosumi's evaluator equal to KataGo's (tests/katago_equal.rs).

    scripts/katago_reference.py --katago PATH --model FILE --config FILE \
        [--gnugo gnugo] > tests/data/katago_raw_nn.txt

The positions: games played by GNU Go against itself (level 0, a seed per
game) cut at several move numbers, on 7x7 to 19x19, under each of kosumi's
rulesets (KataGo is given the same rule fields as JSON, the fields kosumi's
nn::inputs::NetRules maps each ruleset to), several komi, both colours to
move, handicap stones, and hand-made ko and ladder positions. For each, the
file holds the GTP commands that set it up and KataGo's `kata-raw-nn all`.

With --rectangular, positions on rectangular boards instead (GNU Go plays
square boards only): a few seeded random moves, then KataGo's own moves at
a few visits, set up with `rectangular_boardsize`.

With --profiles, each position is evaluated under one of the human-like
nets' profiles in turn (`kata-set-param humanSLProfile`), for a net with
KataGo's metadata encoder.
"""
import random
import argparse
import subprocess
import sys

# kosumi's presets and the KataGo rule fields they map to (see nn/inputs.rs).
RULES = {
    "chinese": ("POSITIONAL", "AREA", "NONE", False, "N", True),
    "egc2011": ("POSITIONAL", "AREA", "NONE", True, "0", True),
    "japanese": ("SIMPLE", "TERRITORY", "SEKI", False, "0", False),
    "aga": ("SITUATIONAL", "AREA", "NONE", False, "N-1", True),
    "new-zealand": ("SITUATIONAL", "AREA", "NONE", True, "N", True),
    "tromp-taylor": ("POSITIONAL", "AREA", "NONE", True, "0", True),
    "simple-ko": ("SIMPLE", "AREA", "NONE", False, "0", True),
}


def katago_rules(name):
    ko, scoring, tax, suicide, bonus, fpok = RULES[name]
    return (
        '{"ko":"%s","scoring":"%s","tax":"%s","suicide":%s,"hasButton":false,'
        '"whiteHandicapBonus":"%s","friendlyPassOk":%s}'
        % (ko, scoring, tax, str(suicide).lower(), bonus, str(fpok).lower())
    )


class Gtp:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        lines = []
        while True:
            l = self.p.stdout.readline()
            if l == "":
                raise RuntimeError("engine closed on " + line)
            if l.strip() == "" and lines:
                break
            if l.strip() == "" and not lines:
                continue
            lines.append(l.rstrip("\n"))
        text = "\n".join(lines)
        if text.startswith("?"):
            raise RuntimeError(f"{line}: {text}")
        return text[1:].strip()

    def close(self):
        try:
            self.send("quit")
        except Exception:
            pass
        self.p.wait()


def gnugo_moves(gnugo, size, komi, count, seed, handicap):
    g = Gtp([gnugo, "--mode", "gtp", "--level", "0", "--seed", str(seed), "--chinese-rules"])
    g.send(f"boardsize {size}")
    g.send("clear_board")
    g.send(f"komi {komi}")
    if handicap:
        g.send("set_free_handicap " + " ".join(handicap))
    moves = []
    color = "w" if handicap else "b"
    passes = 0
    while len(moves) < count and passes < 2:
        m = g.send(f"genmove {color}").upper()
        if m == "RESIGN":
            break
        passes = passes + 1 if m == "PASS" else 0
        moves.append((color, m))
        color = "w" if color == "b" else "b"
    g.close()
    # Stop before a second pass: kosumi's game would be over there.
    while len(moves) >= 2 and moves[-1][1] == "PASS" and moves[-2][1] == "PASS":
        moves.pop()
    return moves


# (size, rules, komi, moves, seed, handicap stones, colour argument or None)
GAMES = [
    (7, "chinese", 7.5, 12, 1, None, None),
    (7, "japanese", 6.5, 30, 2, None, None),
    (7, "tromp-taylor", 9.0, 36, 3, None, None),
    (8, "new-zealand", 7.0, 25, 4, None, None),
    (9, "chinese", 7.5, 0, 5, None, None),
    (9, "chinese", 7.5, 17, 6, None, None),
    (9, "japanese", 6.5, 40, 7, None, None),
    (9, "aga", 7.5, 33, 8, None, None),
    (9, "egc2011", 7.5, 55, 9, None, None),
    (9, "simple-ko", 0.5, 61, 10, None, None),
    (9, "tromp-taylor", 7.5, 70, 11, None, None),
    (9, "chinese", -3.0, 28, 12, None, "w"),
    (9, "chinese", 0.5, 4, 13, ["C3", "G7"], None),
    (10, "chinese", 7.5, 50, 14, None, None),
    (11, "japanese", 6.5, 80, 15, None, None),
    (13, "chinese", 7.5, 40, 16, None, None),
    (13, "aga", 7.5, 90, 17, ["D4", "K10", "D10", "K4"], None),
    (13, "new-zealand", 7.0, 120, 18, None, None),
    (13, "japanese", 6.5, 150, 19, None, None),
    (15, "chinese", 5.5, 60, 20, None, None),
    (19, "chinese", 7.5, 0, 21, None, None),
    (19, "chinese", 7.5, 30, 22, None, None),
    (19, "japanese", 6.5, 101, 23, None, None),
    (19, "aga", 7.5, 160, 24, None, None),
    (19, "chinese", 0.5, 60, 25, ["D4", "Q16", "D16", "Q4"], None),
    (19, "tromp-taylor", 7.5, 250, 26, None, None),
    (19, "simple-ko", 7.5, 45, 27, None, "b"),
    (9, "japanese", 6.5, 31, 28, None, "b"),
    (9, "japanese", 0.5, 11, 29, ["C3", "G7"], None),
]

# Hand-made: an active ko, ladders (one broken), a pass, pass-alive groups.
MADE = [
    ("a ko just taken", 9, "chinese", 7.5, "B D5 W F6 B E6 W F4 B E4 W G5 B A9 W E5 B F5"),
    ("a ko just taken, japanese", 9, "japanese", 6.5, "B D5 W F6 B E6 W F4 B E4 W G5 B A9 W E5 B F5"),
    ("a ko just taken, situational", 9, "aga", 7.5, "B D5 W F6 B E6 W F4 B E4 W G5 B A9 W E5 B F5"),
    ("ladder", 9, "chinese", 7.5, "B C2 W C3 B B3 W H8 B D4 W J9 B D3"),
    ("ladder broken", 9, "chinese", 7.5, "B C2 W C3 B B3 W B5 B D4 W J9 B D3"),
    ("two-liberty ladder", 9, "new-zealand", 7.0, "B C2 W C3 B B3 W J9 B D4"),
    ("a pass under territory scoring", 9, "japanese", 6.5, "B E5 W D5 B pass"),
    ("a pass under area scoring", 9, "aga", 7.5, "B E5 W D5 B D4 W pass"),
    ("pass-alive corner", 7, "chinese", 7.5,
     "B B7 W E3 B D7 W E4 B A6 W E5 B B6 W E6 B C6 W E7 B D6 W F5"),
]


# (columns, rows, rules, komi, moves, seed, colour argument or None)
RECTANGLES = [
    (13, 9, "chinese", 7.5, 0, 1, None),
    (13, 9, "chinese", 7.5, 30, 2, None),
    (9, 13, "japanese", 6.5, 45, 3, None),
    (19, 11, "aga", 7.5, 60, 4, None),
    (7, 17, "tromp-taylor", 7.5, 40, 5, None),
    (11, 5, "new-zealand", 7.0, 20, 6, None),
    (19, 7, "simple-ko", 0.5, 35, 7, "w"),
    (6, 10, "egc2011", 7.5, 25, 8, None),
    (13, 9, "japanese", 6.5, 80, 9, None),
    (2, 9, "chinese", 0.5, 5, 10, None),
    (17, 13, "chinese", 7.5, 120, 11, "b"),
    (10, 19, "aga", 7.5, 90, 12, None),
]


# KataGo's profile forms: a rank (both players), a rank each, before
# AlphaZero, a historical and a modern professional year.
PROFILES = [
    "rank_5k", "rank_9d", "rank_20k", "preaz_1d", "preaz_15k",
    "rank_3k_7d", "proyear_1850", "proyear_2022", "rank_1k", "preaz_9d_12k",
]


def katago_moves(kata, width, height, rules, komi, count, seed):
    """Seeded random moves for a varied opening, then KataGo's own."""
    rng = random.Random(seed)
    kata.send(f"rectangular_boardsize {width} {height}")
    kata.send("clear_board")
    kata.send("kata-set-rules " + katago_rules(rules))
    kata.send(f"komi {komi}")
    kata.send("kata-set-param maxVisits 4")
    letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    moves, color = [], "b"
    tries = 0
    while len(moves) < count and tries < 1000:
        tries += 1
        m = kata.send(f"genmove {color}").upper() if len(moves) >= 6 else None
        if m is None or m == "RESIGN":
            # A random move instead (the opening's, or where KataGo resigns).
            m = f"{letters[rng.randrange(width)]}{rng.randrange(height) + 1}"
            try:
                kata.send(f"play {color} {m}")
            except RuntimeError:
                continue
        else:
            if m == "PASS" and moves and moves[-1][1] == "PASS":
                kata.send("undo")  # a second pass would end kosumi's game
                break
        moves.append((color, m))
        color = "w" if color == "b" else "b"
    return moves


def setup_commands(size, rules, komi, handicap, moves):
    if isinstance(size, tuple):
        cmds = [f"rectangular_boardsize {size[0]} {size[1]}"]
    else:
        cmds = [f"boardsize {size}"]
    cmds += ["clear_board", f"kosumi-rules {rules}", f"komi {komi}"]
    if handicap:
        cmds.append("set_free_handicap " + " ".join(handicap))
    cmds += [f"play {c} {m}" for c, m in moves]
    return cmds


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--katago", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--gnugo", default="gnugo")
    ap.add_argument("--rectangular", action="store_true")
    ap.add_argument("--profiles", action="store_true")
    args = ap.parse_args()
    kata = Gtp([args.katago, "gtp", "-model", args.model, "-config", args.config,
                "-override-config", "numSearchThreads=1,numEigenThreadsPerModel=1,logToStderr=false"
                + (",humanSLProfile=rank_5k" if args.profiles else "")])
    positions = []
    for width, height, rules, komi, count, seed, color in (RECTANGLES if args.rectangular else []):
        moves = katago_moves(kata, width, height, rules, komi, count, seed)
        name = f"{width}x{height} game {seed}, {len(moves)} moves"
        positions.append((name, (width, height), rules, komi, None, moves, color))
    for size, rules, komi, count, seed, handicap, color in ([] if args.rectangular else GAMES):
        moves = gnugo_moves(args.gnugo, size, komi, count, seed, handicap)
        name = f"gnugo game {seed}, {len(moves)} moves"
        positions.append((name, size, rules, komi, handicap, moves, color))
    for name, size, rules, komi, seq in ([] if args.rectangular else MADE):
        t = seq.split()
        positions.append((name, size, rules, komi, None, list(zip(t[::2], t[1::2])), None))
    for i, (name, size, rules, komi, handicap, moves, color) in enumerate(positions):
        if isinstance(size, tuple):
            kata.send(f"rectangular_boardsize {size[0]} {size[1]}")
        else:
            kata.send(f"boardsize {size}")
        kata.send("clear_board")
        kata.send("kata-set-rules " + katago_rules(rules))
        kata.send(f"komi {komi}")
        if handicap:
            kata.send("set_free_handicap " + " ".join(handicap))
        for c, m in moves:
            kata.send(f"play {c} {m}")
        commands = setup_commands(size, rules, komi, handicap, moves)
        if args.profiles:
            profile = f"kata-set-param humanSLProfile {PROFILES[i % len(PROFILES)]}"
            kata.send(profile)
            commands.append(profile)
            name += f", {PROFILES[i % len(PROFILES)]}"
        query = "kata-raw-nn " + (f"{color} " if color else "") + "all"
        print(f"position {name}")
        for cmd in commands:
            print(f"command {cmd}")
        print(f"query {query}")
        # One symmetry at a time: KataGo's `all` separates them with blank
        # lines, which end a GTP reply.
        for s in range(8):
            print(kata.send(query.replace("all", str(s))))
        print("end")
        sys.stdout.flush()
    kata.close()


if __name__ == "__main__":
    main()
