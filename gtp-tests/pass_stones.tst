# EGC 2011: pass stones, White's extra pass, and the Japanese-style count
# that must agree with the area count in an alternating game.
boardsize 7
kosumi-rules egc2011
clear_board
komi 7.5
10 kosumi-pass_stones b
#? [0]
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
play b F4
play w A4
play b pass
20 kosumi-pass_stones b
#? [1]
play w pass
30 kosumi-pass_stones w
#? [1]
40 final_score
#? [W\+14\.5]
50 kosumi-score
#? [.*japanese_style W\+14\.5]
# Black passes last: White's extra pass gives Black one more stone.
play b pass
60 kosumi-pass_stones b
#? [2]
70 kosumi-score
#? [.*japanese_style W\+14\.5]
# Undo takes the pass stone back.
undo
80 kosumi-pass_stones b
#? [1]
# No pass stones under Chinese rules.
kosumi-rules chinese
clear_board
play b pass
90 kosumi-pass_stones b
#? [0]
kosumi-rules aga
play w pass
100 kosumi-pass_stones w
#? [1]
