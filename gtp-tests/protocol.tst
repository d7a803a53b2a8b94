# The required commands and the protocol basics.
10 protocol_version
#? [2]
20 name
#? [kosumi]
30 version
#? [\d+\.\d+\.\d+]
40 known_command play
#? [true]
50 known_command frobnicate
#? [false]
60 known_command kosumi-rules
#? [true]
70 list_commands
#? [.*\nkgs-genmove_cleanup\n.*]
80 list_commands
#? [.*\ngogui-analyze_commands\n.*]
boardsize 7
clear_board
komi 0.5
90 showboard
#? [A B C D E F G\n 7 \. \. .*]
play b D4
100 showboard
#? [.* 4 \. \. \. X \. \. \. 4.*White to move.*]
110 boardsize 25
#? []
120 play b Z25
#? []
130 color Z25
#? [black]
140 boardsize 2
#? []
150 play b A1
#? []
160 play w B2
#? []
170 all_legal b
#? [B1|A2|B1 A2|A2 B1]
