"""Drives `kosumi analysis` through KaTrain's own engine code, headless.

KaTrain (the `katrain` package, not part of kosumi: `pip install katrain`)
attaches an analysis engine through its custom-command setting; this script
does what KaTrain's GUI does with that setting: KaTrain's KataGoEngine
starts the command, KaTrain's Game loads a record and asks for the analysis
of every node, KaTrain's AI plays moves with several of its strategies
(some read each candidate's ownership; the handicap strategy asks for a
playout doubling advantage; with a human-like net beside the network,
`--human-model` in the command, also KaTrain's human and pro strategies,
which ask for `humanSLProfile` and draw from `humanPolicy`), and the
engine is shut down.

    KIVY_NO_WINDOW=1 KIVY_NO_ARGS=1 python scripts/katrain_drive.py \
        "target/release/kosumi analysis" GAME.sgf [VISITS]

or, as KaTrain's "Local engine" settings with kosumi as the KataGo
executable (KaTrain then starts `EXE analysis -model MODEL -config CONFIG
-override-config homeDataDir=...`; MODEL and CONFIG default to KaTrain's own
net and analysis config):

    python scripts/katrain_drive.py --local target/release/kosumi GAME.sgf [VISITS] [MODEL] [CONFIG] [HUMAN_MODEL]

(HUMAN_MODEL: KaTrain's "humanlike model" setting, which KaTrain passes as
`-human-model`; its human and pro strategies then play too.)

It prints, per node, KaTrain's win rate and score and the points it says
the played move lost, then each AI move, and fails (exit 1) if KaTrain
logged an engine error or a node was left without analysis.
"""

import os
import sys
import time

os.environ.setdefault("KIVY_NO_WINDOW", "1")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")

from katrain.core.base_katrain import KaTrainBase  # noqa: E402
from katrain.core.constants import (  # noqa: E402
    AI_DEFAULT,
    AI_HANDICAP,
    AI_HUMAN,
    AI_PRO,
    AI_SCORELOSS,
    AI_SIMPLE_OWNERSHIP,
    AI_TERRITORY,
    AI_WEIGHTED,
    OUTPUT_ERROR,
)
from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game import Game, KaTrainSGF  # noqa: E402
from katrain.core.ai import generate_ai_move  # noqa: E402


class Headless(KaTrainBase):
    """KaTrain without its window: logs, and counts what went wrong."""

    def __init__(self):
        super().__init__(force_package_config=True, debug_level=0)
        self.errors = []
        self.warnings = []

    def log(self, message, level=0):
        if level == OUTPUT_ERROR:
            self.errors.append(str(message))
            print("KaTrain error:", message, file=sys.stderr)
        elif "'warning'" in str(message):  # KaTrain logs an engine's warnings for debugging
            self.warnings.append(str(message))

    def __call__(self, *args, **kwargs):  # popups and GUI messages
        self.errors.append(f"GUI message: {args}")

    def update_state(self, *args, **kwargs):
        pass


def main():
    args = sys.argv[1:]
    local = args[0] == "--local"
    if local:
        args = args[1:]
    command, sgf = args[0], args[1]
    visits = int(args[2]) if len(args) > 2 else 100
    katrain = Headless()
    config = dict(katrain.config("engine"))
    if local:
        # KaTrain's own defaults for the net and the config unless given.
        if len(args) > 3:
            config["model"] = args[3]
        if len(args) > 4:
            config["config"] = args[4]
        if len(args) > 5:
            config["humanlike_model"] = args[5]
        config.update(backend="local", katago=command, altcommand="")
    else:
        config.update(backend="custom", altcommand=command)
    print(f"engine settings: backend {config['backend']}, katago {config.get('katago')}, "
          f"model {config.get('model')}, config {config.get('config')}")
    config.update(
        max_visits=visits,
        fast_visits=max(1, visits // 4),
        max_time=30.0,
    )
    engine = KataGoEngine(katrain, config)
    start = time.time()
    game = Game(katrain, engine, move_tree=KaTrainSGF.parse_file(sgf))
    nodes = list(game.root.nodes_in_tree)
    while not all(n.analysis_complete for n in nodes) and time.time() - start < 600:
        time.sleep(0.2)
    missing = [i for i, n in enumerate(nodes) if not n.analysis_complete]
    print(f"{len(nodes)} nodes analysed in {time.time() - start:.1f} s; without analysis: {missing}")
    for i, node in enumerate(nodes):
        if not node.analysis_exists:
            continue
        top = node.candidate_moves[0] if node.candidate_moves else {}
        lost = node.points_lost
        print(
            f"node {i:3d} {node.move.gtp() if node.move else '-':>5}: winrate {100 * node.winrate:5.1f}% "
            f"score {node.score:+6.1f} best {top.get('move', '-'):>4} "
            f"lost {'' if lost is None else f'{lost:.1f}'} ownership {len(node.ownership or [])} "
            f"policy {len(node.policy or [])}"
        )
    # KaTrain's AI on the last position, with strategies that read
    # winrates, scores, the policy and each move's ownership.
    game.set_current_node(nodes[-1])
    modes = [AI_DEFAULT, AI_HANDICAP, AI_SCORELOSS, AI_WEIGHTED, AI_TERRITORY, AI_SIMPLE_OWNERSHIP]
    human = "human-model" in command or bool(config.get("humanlike_model"))
    if human:
        modes += [AI_HUMAN, AI_PRO]
    fallbacks = []
    for mode in modes:
        settings = katrain.config(f"ai/{mode}") or {}
        move, node = generate_ai_move(game, mode, settings)
        thoughts = (node.ai_thoughts or "").strip().splitlines()
        print(f"AI {mode}: {move.gtp() if move else None}" + (f" ({thoughts[0]})" if human and mode in (AI_HUMAN, AI_PRO) and thoughts else ""))
        if mode in (AI_HUMAN, AI_PRO) and "Falling back" in (node.ai_thoughts or ""):
            fallbacks.append(mode)
        game.undo(1)
    if fallbacks:
        katrain.errors.append(f"no humanPolicy: {fallbacks} fell back to the policy")
    # KaTrain's human strategy logs as an error any humanPolicy of other
    # than 19x19's 362 values (KataGo's own answer on a smaller board too).
    size = game.board_size
    if size != (19, 19):
        expected = f"Human policy length {size[0] * size[1] + 1} != 362"
        katrain.errors = [e for e in katrain.errors if expected not in e]
    engine.shutdown(finish=False)
    if katrain.errors or missing:
        print("FAILED:", katrain.errors[:5], file=sys.stderr)
        sys.exit(1)
    print(f"warnings from the engine: {len(katrain.warnings)}", *katrain.warnings[:2], sep="\n  ")
    print("ok: no engine errors")


if __name__ == "__main__":
    main()
