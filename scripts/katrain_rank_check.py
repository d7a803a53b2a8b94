"""Holds kosumi's playing level to KaTrain's own rank AI on one position.

KaTrain (the `katrain` package, not part of kosumi) is given kosumi's
analysis engine as its custom engine, loads GAME.sgf up to move MOVES, and
its own `RankStrategy` (`generate_ai_move(game, AI_RANK, {"kyu_rank": K})`)
chooses a move DRAWS times from that node's policy; kosumi's GTP engine at
`--level RANK` plays `genmove` DRAWS times on the same position (a new
seed each search). Both sets of choices are bucketed by the move's place in
the policy (KaTrain's ranking of the node's policy: 1st, 2nd, 3rd, 4th-5th,
6th-10th, 11th-20th, beyond), and the two distributions are compared with
Pearson's chi-square test of homogeneity.

    KIVY_NO_WINDOW=1 KIVY_NO_ARGS=1 python scripts/katrain_rank_check.py \
        target/release/kosumi GAME.sgf MOVES RANK [DRAWS]

It prints both bucket counts, the statistic and its degrees of freedom,
and fails (exit 1) where the statistic passes the 0.1% critical value.
kosumi evaluates the position under a symmetry drawn for each move, where
KaTrain reads the policy of one evaluation; the small differences between
symmetries move a few draws between neighbouring buckets.
"""

import os
import subprocess
import sys
import time

os.environ.setdefault("KIVY_NO_WINDOW", "1")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")

from katrain.core.ai import generate_ai_move  # noqa: E402
from katrain.core.base_katrain import KaTrainBase  # noqa: E402
from katrain.core.constants import AI_RANK  # noqa: E402
from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game import Game, KaTrainSGF  # noqa: E402

BUCKETS = [(1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 20), (21, 10_000)]
# Chi-square critical values at 0.1% by degrees of freedom.
CRITICAL = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46}


class Headless(KaTrainBase):
    def __init__(self):
        super().__init__(force_package_config=True, debug_level=0)

    def log(self, message, level=0):
        pass

    def __call__(self, *args, **kwargs):
        pass

    def update_state(self, *args, **kwargs):
        pass


def kyu_rank(rank):
    """KaTrain's kyu_rank of `5k` (5) or `3d` (-2)."""
    n = int(rank[:-1])
    return n if rank.endswith("k") else 1 - n


def bucket(place):
    return next(i for i, (lo, hi) in enumerate(BUCKETS) if lo <= place <= hi)


def main():
    exe, sgf, moves, rank = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    draws = int(sys.argv[5]) if len(sys.argv) > 5 else 500
    katrain = Headless()
    config = dict(katrain.config("engine"))
    config.update(backend="custom", altcommand=f"{exe} analysis", max_visits=2, fast_visits=1)
    engine = KataGoEngine(katrain, config)
    game = Game(katrain, engine, move_tree=KaTrainSGF.parse_file(sgf))
    node = game.root
    for _ in range(moves):
        node = node.children[0]
    game.set_current_node(node)
    start = time.time()
    while not node.analysis_complete and time.time() - start < 120:
        time.sleep(0.1)
    ranking = [mv.gtp() for _, mv in node.policy_ranking]
    place = {m: i + 1 for i, m in enumerate(ranking)}
    theirs = [0] * len(BUCKETS)
    for _ in range(draws):
        move, _ = generate_ai_move(game, AI_RANK, {"kyu_rank": kyu_rank(rank)})
        theirs[bucket(place[move.gtp()])] += 1
        game.undo(1)
    engine.shutdown(finish=False)

    color = "w" if node.next_player == "W" else "b"
    gtp = subprocess.Popen(
        [exe, "--level", rank, "--seed", "1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )

    def send(command):
        gtp.stdin.write(command + "\n")
        gtp.stdin.flush()
        reply = ""
        while True:
            line = gtp.stdout.readline()
            if line.strip() == "" and reply:
                return reply.strip()[1:].strip()
            reply += line

    send(f"loadsgf {os.path.abspath(sgf)} {moves + 1}")
    ours = [0] * len(BUCKETS)
    for _ in range(draws):
        move = send(f"genmove {color}").upper()
        ours[bucket(place.get(move, 10_000))] += 1
        send("undo")
    send("quit")

    used = [i for i in range(len(BUCKETS)) if theirs[i] + ours[i] > 0]
    total = 2 * draws
    chi = 0.0
    for i in used:
        column = theirs[i] + ours[i]
        for row in (theirs, ours):
            expected = draws * column / total
            chi += (row[i] - expected) ** 2 / expected
    dof = len(used) - 1
    labels = [f"{lo}" if lo == hi else f"{lo}-{hi}" if hi < 10_000 else f"{lo}+" for lo, hi in BUCKETS]
    print(f"position: {sgf} after {moves} moves, {color} to play, rank {rank}, {draws} draws each")
    print("policy place: " + " ".join(f"{l:>6}" for l in labels))
    print("KaTrain:      " + " ".join(f"{n:>6}" for n in theirs))
    print("kosumi:       " + " ".join(f"{n:>6}" for n in ours))
    print(f"chi-square {chi:.2f} on {dof} degrees of freedom (0.1% critical value {CRITICAL.get(dof, 'n/a')})")
    if dof in CRITICAL and chi > CRITICAL[dof]:
        print("FAILED: the distributions differ")
        sys.exit(1)
    print("ok: the same distribution")


if __name__ == "__main__":
    main()
