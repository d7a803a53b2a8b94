#!/usr/bin/env python3
"""Plays on from every position where the engine resigned in a match run by
scripts/match.py, with the engine's resignation off, against the same
opponent, GNU Go counting the end: how many of its resignations gave up a game
it would still have won?

  scripts/resign_check.py --match p9q \\
      --a "target/release/kosumi --time 1.6 --threads 1 --resign 0 --seed 7{game}" \\
      --b "/path/to/pachi/pachi -t 2 threads=1,pondering=0" --parallel 2 --out p9q-playon

`--match DIR` is a match.py output folder with its log next to it (DIR.log:
the lines match.py printed); the games engine A lost by resignation are
replayed from their SGF files (DIR/gN.sgf) into fresh engines. One line a game
and a summary.
"""
import argparse, os, re, sys, time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from match import Engine, COLS  # noqa: E402


def vertex(sgf_point, size):
    if sgf_point == "":
        return "PASS"
    return f"{COLS[ord(sgf_point[0]) - 97]}{size - (ord(sgf_point[1]) - 97)}"


def play_on(i, a_col, args):
    sgf = open(os.path.join(args.match, f"g{i}.sgf")).read()
    size = int(re.search(r"SZ\[(\d+)\]", sgf).group(1))
    komi = re.search(r"KM\[([-\d.]+)\]", sgf).group(1)
    moves = [(c, vertex(v, size)) for c, v in re.findall(r";([BW])\[([a-z]*)\]", sgf)]
    other = "W" if a_col == "B" else "B"
    log = open(os.path.join(args.out, f"g{i}.err"), "w")
    a, b, ref = Engine(args.a.replace("{game}", str(i)), log), Engine(args.b, log), Engine(args.referee, log)
    eng = {a_col: a, other: b}
    result, more = None, 0
    try:
        for e in (a, b, ref):
            for line in [f"boardsize {size}", "clear_board", f"komi {komi}"] + [f"play {c} {v}" for c, v in moves]:
                ok, msg = e.cmd(line)
                if not ok:
                    raise RuntimeError(f"{line}: {msg}")
        color = "W" if moves and moves[-1][0] == "B" else "B"
        if color != a_col:
            raise RuntimeError(f"engine A ({a_col}) is not the one to move")
        passes = 0
        while more < 3 * size * size:
            ok, mv = eng[color].cmd(f"genmove {color.lower()}")
            more += 1
            mv = mv.upper()
            opp = "W" if color == "B" else "B"
            if not ok:
                raise RuntimeError(f"genmove {color}: {mv}")
            if mv == "RESIGN":
                result = opp + "+R"
                break
            for e in (ref, eng[opp]):
                ok, msg = e.cmd(f"play {color} {mv}")
                if not ok:
                    raise RuntimeError(f"play {color} {mv}: {msg}")
            passes = passes + 1 if mv == "PASS" else 0
            if passes >= 2:
                break
            color = opp
        if result is None:
            result = ref.cmd("final_score")[1]
    except Exception as ex:  # one broken game must not stop the others
        result = f"?({ex})"
    finally:
        for e in (a, b, ref):
            e.close()
        log.close()
    won = result[:1] == a_col
    print(f"game {i:3d} A={a_col} resigned_at={len(moves)} result={result} A_won={won} more_moves={more}", flush=True)
    return won


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--match", required=True)
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--referee", default="/usr/games/gnugo --mode gtp --chinese-rules")
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    resigned = []
    for line in open(args.match.rstrip("/") + ".log"):
        m = re.match(r"game\s+(\d+) A=([BW])\s+(\S+) A_won=False", line)
        if m and m.group(3).endswith("+R"):
            resigned.append((int(m.group(1)), m.group(2)))
    start = time.time()
    with ThreadPoolExecutor(args.parallel) as ex:
        won = list(ex.map(lambda g: play_on(g[0], g[1], args), resigned))
    print(f"SUMMARY A came back in {sum(won)} of {len(won)} resigned games; wall {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
