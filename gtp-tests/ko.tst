# Simple ko under every preset, and superko differences.
boardsize 5
clear_board
kosumi-rules japanese
play b B4
play w C4
play b A3
play w D3
play b B2
play w C2
play b E5
play w B3
play b C3
10 captures b
#? [1]
20 is_legal w B3
#? [0]
30 all_legal w
#? [!.*B3.*]
play w E1
play b A5
40 is_legal w B3
#? [1]
play w B3
50 is_legal b C3
#? [0]

# The same ko under positional superko (Chinese)
kosumi-rules chinese
clear_board
play b B4
play w C4
play b A3
play w D3
play b B2
play w C2
play b E5
play w B3
play b C3
60 is_legal w B3
#? [0]

# Positional versus situational superko: a two-stone suicide that
# recreates the position before A1, with the other side to move.
kosumi-rules egc2011
clear_board
play w B1
play w B2
play w A3
play b A1
play w pass
70 is_legal b A2
#? [0]
kosumi-rules new-zealand
clear_board
play w B1
play w B2
play w A3
play b A1
play w pass
80 is_legal b A2
#? [1]
play b A2
90 captures w
#? [2]
100 color A1
#? [empty]
