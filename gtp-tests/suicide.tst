# The three suicide rules: forbidden, multi-stone, allowed.
boardsize 5
kosumi-rules chinese
clear_board
play w B1
play w A2
10 is_legal b A1
#? [0]
kosumi-rules japanese
20 is_legal b A1
#? [0]
kosumi-rules aga
30 is_legal b A1
#? [0]
kosumi-rules simple-ko
40 is_legal b A1
#? [0]
# Multi-stone suicide: one stone no, two stones yes
kosumi-rules egc2011
50 is_legal b A1
#? [0]
clear_board
play w B1
play w B2
play w A3
play b A1
play w E5
60 is_legal b A2
#? [1]
play b A2
70 captures w
#? [2]
80 list_stones b
#? []
kosumi-rules new-zealand
clear_board
play w B1
play w B2
play w A3
play b A1
play w E5
90 is_legal b A2
#? [1]
# Tromp-Taylor allows any suicide, but a single-stone suicide repeats the
# position, so superko forbids it; a two-stone suicide is fine.
kosumi-rules tromp-taylor
clear_board
play w B1
play w A2
100 is_legal b A1
#? [0]
clear_board
play w B1
play w B2
play w A3
play b A1
play w E5
110 is_legal b A2
#? [1]
