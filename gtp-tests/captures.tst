# Captures, liberties and the stone queries of GNU Go.
boardsize 9
clear_board
komi 0
play b C3
play w D3
play b C5
play w C4
play b B4
10 countlib C4
#? [1]
20 countlib D3
#? [3]
30 countlib C3
#? [2]
play w E4
play b D4
40 captures b
#? [1]
50 color C4
#? [empty]
60 countlib D4
#? [2]
70 list_stones w
#? [D3 E4]
80 list_stones b
#? [C3 B4 D4 C5]
boardsize 5
clear_board
play w A1
play b B1
play b A2
90 color A1
#? [empty]
100 captures b
#? [1]
110 captures w
#? [0]
# Two black stones in atari on one liberty, captured together
play w C1
play w B2
play w A3
120 countlib B1
#? [1]
125 countlib A2
#? [1]
play w A1
130 captures w
#? [2]
140 list_stones b
#? []
150 list_stones w
#? [A1 C1 B2 A3]
