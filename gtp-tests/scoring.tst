# Counting with dead stones on 7x7: a wall on C for Black, on D for White, a
# dead White stone at A4 in Black's area and a dead Black stone at F4 in White's.
boardsize 7
kosumi-rules chinese
clear_board
komi 7.5
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
play w pass
10 final_status_list dead
#? [A4\nF4|F4\nA4]
20 final_status_list alive
#? [C1 C2 C3 C4 C5 C6 C7\nD1 D2 D3 D4 D5 D6 D7|D1 D2 D3 D4 D5 D6 D7\nC1 C2 C3 C4 C5 C6 C7]
30 final_status_list seki
#? []
# Area: Black 3 columns (21), White 4 columns (28).
40 final_score
#? [W\+14\.5]
50 kosumi-score
#? [result W\+14\.5\nblack 21\nwhite 28\n.*]
# Territory: Black 14 + 1 prisoner, White 21 + 1 prisoner, komi 6.5
kosumi-rules japanese
komi 6.5
60 final_score
#? [W\+13\.5]
kosumi-rules tromp-taylor
komi 7.5
70 final_score
#? [W\+14\.5]
kosumi-rules new-zealand
komi 7
80 final_score
#? [W\+14]
komi -7
90 final_score
#? [0]
# An open position (GoGui's "Final score" early in a game): no stone is
# walled in, none is dead. Counted as it stands the stones and komi would
# decide (W+7.5); as KataGo does, kosumi answers the network's estimate of
# the game, near even at this komi, in half points (GNU Go estimates W+5.5).
boardsize 9
clear_board
komi 7.5
play b E5
play w C5
play b F4
play w G5
100 final_status_list dead
#? []
110 final_score
#? [[BW]\+[0-3]\.5]
120 kosumi-score
#? [result [BW]\+[0-3]\.5 \(estimated: the game is not over.*\)\ncounted W\+7\.5\nblack 2\nwhite 2\n.*]

# A 19x19 game with nine stones against GNU Go 3.8, ended by two passes with
# dead stones left in both sides' areas: counted by the network's search as
# GNU Go counts it (W+12.5; KataGo W+11.5); Monte Carlo playouts had counted
# it W+31.5 under every seed.
200 loadsgf games/nine-stones.sgf
#? [black]
205 final_score
#? [W\+12\.5]
