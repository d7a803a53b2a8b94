# Move generation: always a legal move, rules-aware, on the clock.
boardsize 9
clear_board
komi 7.5
10 genmove b
#? [[A-HJ][1-9]]
20 genmove w
#? [[A-HJ][1-9]]
30 reg_genmove b
#? [[A-HJ][1-9]]
# reg_genmove does not play
40 list_stones b
#? [[A-HJ][1-9]]
# A move for White in a small tactical position (any legal point).
boardsize 5
clear_board
komi 0.5
play b A1
play w B1
play b C1
play w B2
play b D4
50 reg_genmove w
#? [[A-E][1-5]]
# A tiny board: a legal point, a pass, or (komi 7.5 on four points) resign
boardsize 2
clear_board
play b A1
play w B2
play b pass
60 genmove b
#? [pass|A2|B1|resign]
# Japanese rules: a finished game, the opponent passed, the mover wins:
# pass.
boardsize 7
kosumi-rules japanese
clear_board
komi 0.5
play b C1
play w D1
play b C2
play w D2
play b C3
play w D3
play b C4
play w D4
play b C5
play w D5
play b C6
play w D6
play b C7
play w D7
play b pass
70 genmove w
#? [pass]
# Time controls are accepted and respected
time_settings 10 0 0
time_left b 2 0
80 genmove b
#? [[A-HJ][1-9]|pass|resign]
kgs-time_settings byoyomi 0 1 3
time_left w 1 3
90 genmove w
#? [[A-HJ][1-9]|pass|resign]
kgs-time_settings canadian 0 5 5
100 kgs-genmove_cleanup b
#? [[A-HJ][1-9]|pass|resign]
kgs-time_settings absolute 60
kgs-time_settings none
110 kgs-game_over
#? []
# A search tree is reused only for the game it was grown for: not after
# boardsize (a 9x9 tree's points on 25x25 made the search panic or spin),
# nor after undo and another move with the same number of moves.
boardsize 9
clear_board
play b E5
play w C3
120 reg_genmove b
#? [[A-HJ][1-9]]
boardsize 25
play b D4
play w Q16
130 genmove b
#? [[A-HJ-Z][0-9]+]
boardsize 9
clear_board
play b E5
play w C3
140 reg_genmove b
#? [[A-HJ][1-9]]
undo
play w G7
150 genmove b
#? [[A-HJ][1-9]]
160 list_stones w
#? [G7]
