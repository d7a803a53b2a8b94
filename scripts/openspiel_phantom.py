#!/usr/bin/env python3
"""kosumi's `openspiel` preset against DeepMind OpenSpiel's phantom_go.

The same random tries go to OpenSpiel (`pyspiel.load_game("phantom_go")`) and
to kosumi's referee (`phantom-new go openspiel`), and after every try the two
are compared: accepted or refused, whose turn, both views, the true board,
the end and the winner. Prints the disagreements by kind and exits 1 if there are any.

    python scripts/openspiel_phantom.py --kosumi target/release/kosumi [--games 200] [--seed 1]

Needs the `open-spiel` package (pip install open-spiel)."""
import argparse
import random
import subprocess
import sys
from collections import Counter

import pyspiel

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


class Kosumi:
    def __init__(self, path, size, komi):
        self.p = subprocess.Popen(
            [path, "--nn", "off", "--size", str(size), "--komi", str(komi),
             "--rules", "chinese", "--playouts", "50"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, command):
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if line == "":
                raise RuntimeError(f"kosumi closed on {command!r}")
            line = line.rstrip("\n")
            if line == "" and lines:
                break
            if line:
                lines.append(line)
        ok = lines[0].startswith("=")
        lines[0] = lines[0][1:].lstrip("0123456789").strip()
        return ok, [l for l in lines if l]

    def close(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.flush()
        self.p.wait()


def vertex(action, size):
    if action == size * size:
        return "pass"
    return f"{COLUMNS[action % size]}{action // size + 1}"


def spiel_view(state, player, size):
    """A player's board from OpenSpiel's observation: rows from the top."""
    rows = state.observation_string(player).split("\n")[:size]
    return ["".join({"X": "X", "O": "O"}.get(c, ".") for c in r[3:3 + size]) for r in rows]


def spiel_truth(state, size):
    """The true board from OpenSpiel's state text: rows from the top."""
    rows = [r for r in str(state).split("\n") if r[:2].strip().isdigit()][:size]
    return ["".join({"X": "X", "O": "O"}.get(c, ".") for c in r[3:3 + size]) for r in rows]


def kosumi_truth(k, size):
    ok, lines = k.send("showboard")
    assert ok, lines
    rows = [l for l in lines if l[:2].strip().isdigit()][:size]
    return ["".join(c if c in "XO" else "." for c in r.split()[1:1 + size]) for r in rows]


def kosumi_view(k, seat, size):
    ok, lines = k.send(f"phantom-view {seat}")
    assert ok, lines
    rows = [l for l in lines if l[:2].strip().isdigit()][:size]
    return ["".join(r.split()[1:1 + size]) for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kosumi", required=True)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    size, komi = args.size, 7.5
    game = pyspiel.load_game("phantom_go", {"board_size": size, "komi": komi})
    rng = random.Random(args.seed)
    disagree = Counter()
    examples = {}
    tries = 0
    for g in range(args.games):
        k = Kosumi(args.kosumi, size, komi)
        k.send("clear_board")
        assert k.send("phantom-new go openspiel")[0]
        state = game.new_initial_state()
        moves = []

        def differ(kind, detail):
            disagree[kind] += 1
            examples.setdefault(kind, f"game {g}, tries {' '.join(moves)}: {detail}")

        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            # Passes now and then, more as the game goes on.
            action = size * size if rng.random() < 0.04 + len(moves) / 3000 else rng.choice(legal)
            if action not in legal:
                action = rng.choice(legal)
            v = vertex(action, size)
            moves.append(f"{player + 1}:{v}")
            tries += 1
            ok, lines = k.send(f"phantom-try {player + 1} {v}")
            state.apply_action(action)
            if not ok:
                differ("kosumi refused the try", lines[0])
                break
            first = lines[0]
            spiel_valid = "Previous move was valid" in state.observation_string(player)
            kosumi_valid = first in ("accepted", "pass")
            if spiel_valid != kosumi_valid:
                differ("accepted or refused", f"kosumi {first!r}, OpenSpiel {'valid' if spiel_valid else 'observational'}")
            ended = [l for l in lines if l.startswith("end")]
            if bool(ended) != state.is_terminal():
                differ("end", f"kosumi {ended}, OpenSpiel terminal {state.is_terminal()}")
                break
            if state.is_terminal():
                spiel = state.returns()[0]
                result = ended[0].split()[1]
                kosumi_sign = 0 if result == "0" else (1 if result.startswith("B") else -1)
                if kosumi_sign != (spiel > 0) - (spiel < 0):
                    differ("winner", f"kosumi {result}, OpenSpiel black {spiel}")
                break
            _, to_move = k.send("phantom-to_move")
            if to_move[0] != str(state.current_player() + 1):
                differ("turn", f"kosumi {to_move[0]}, OpenSpiel {state.current_player() + 1}")
            for seat in (1, 2):
                if kosumi_view(k, seat, size) != spiel_view(state, seat - 1, size):
                    differ(f"view of seat {seat}", "boards differ")
            if kosumi_truth(k, size) != spiel_truth(state, size):
                differ("true board", "\n".join(a + "  " + b for a, b in zip(kosumi_truth(k, size), spiel_truth(state, size))))
                break
        k.close()
    print(f"{args.games} games, {tries} tries")
    for kind, n in disagree.most_common():
        print(f"  {kind}: {n} (first: {examples[kind]})")
    if not disagree:
        print("  no disagreement")
    sys.exit(1 if disagree else 0)


if __name__ == "__main__":
    main()
