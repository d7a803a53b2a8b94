#!/usr/bin/env python3
"""How far kosumi's bfloat16 evaluation is from its single-precision one,
on the reference positions of a tests/data/katago_raw_nn*.txt file (their
set-up commands), each position in all eight symmetries: how often the two
agree on the policy's top move, and the largest and mean differences of
White's win rate and lead.

    scripts/compare_precision.py --kosumi target/release/kosumi \\
        --model NET --positions tests/data/katago_raw_nn_katrain.txt
"""
import argparse

from katago_reference import Gtp


def blocks(text):
    """Each symmetry's win rate, lead and top policy point."""
    out = []
    cur = None
    section = None
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "symmetry":
            cur = {"policy": []}
            out.append(cur)
            section = None
        elif w[0] in ("policy", "whiteOwnership"):
            section = w[0]
        elif w[0] == "policyPass":
            cur["pass"] = float(w[1])
            section = None
        elif section == "policy":
            cur["policy"] += [-1.0 if x == "NAN" else float(x) for x in w]
        elif section is None and len(w) == 2:
            cur[w[0]] = float(w[1])
    for b in out:
        moves = b["policy"] + [b["pass"]]
        b["top"] = max(range(len(moves)), key=lambda i: moves[i])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kosumi", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--positions", required=True)
    a = ap.parse_args()
    f32 = Gtp([a.kosumi, "--model", a.model, "--precision", "f32"])
    bf16 = Gtp([a.kosumi, "--model", a.model, "--precision", "bf16"])
    positions = []
    for line in open(a.positions):
        if line.startswith("position "):
            positions.append([])
        elif line.startswith("command "):
            positions[-1].append(line[len("command "):].strip())
    agree = total = 0
    win_diffs, lead_diffs = [], []
    for commands in positions:
        for c in commands:
            f32.send(c)
            bf16.send(c)
        for x, y in zip(blocks(f32.send("kata-raw-nn all 0.2")), blocks(bf16.send("kata-raw-nn all 0.2"))):
            total += 1
            agree += x["top"] == y["top"]
            win_diffs.append(abs(x["whiteWin"] - y["whiteWin"]))
            lead_diffs.append(abs(x["whiteLead"] - y["whiteLead"]))
    print(f"{len(positions)} positions, {total} evaluations: top policy move agrees in {agree} "
          f"({100 * agree / total:.1f}%); White's win rate differs by {max(win_diffs):.4f} at most, "
          f"{sum(win_diffs) / total:.4f} on average; lead by {max(lead_diffs):.3f} at most, "
          f"{sum(lead_diffs) / total:.3f} on average")


if __name__ == "__main__":
    main()
