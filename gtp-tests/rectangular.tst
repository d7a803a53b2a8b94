# Rectangular boards: KataGo's boardsize forms (13 9, 13:9 and
# rectangular_boardsize), the edges in both directions, handicap on each
# axis's star lines, SGF SZ[columns:rows], and moves played on the board.
rectangular_boardsize 13 9
clear_board
10 play b N9
#? []
20 play w A1
#? []
30 list_stones b
#? [N9]
40 showboard
#? [A B C D E F G H J K L M N\n 9 \. \. \. \. \. \. \. \. \. \. \. \. X 9\n.* 1 O \. \. \. \. \. \. \. \. \. \. \. \. 1\n.*]
# A corner capture at the far corner (N9: columns 13, rows 9).
50 play w M9
#? []
60 play b A2
#? []
70 play w N8
#? []
80 list_stones b
#? [A2]
90 captures w
#? [1]
boardsize 19:7
clear_board
100 fixed_handicap 4
#? [D3 Q5 D5 Q3]
110 genmove w
#? [[A-HJ-T][1-7]|pass]
boardsize 9
clear_board
130 loadsgf games/rectangle.sgf
#? [black]
140 list_stones b
#? [F4 C5 D7 N9]
150 printsgf
#? [\(;FF\[4\].*SZ\[13:9\].*;B\[dc\];W\[jf\];B\[ce\];W\[kc\];B\[ff\];W\[gd\];B\[ma\];W\[ai\]\)]
160 genmove b
#? [[A-HJ-N][1-9]|pass]
170 kata-raw-nn 0
#? [symmetry 0\n.*policy\n(([0-9.]+|NAN) +){13}\n.*]
