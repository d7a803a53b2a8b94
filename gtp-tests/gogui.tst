# GoGui's conventions.
10 gogui-analyze_commands
#? [.*dboard/Ownership/kosumi-ownership.*]
20 gogui-analyze_commands
#? [.*gfx/.*/kosumi-gfx_ownership.*]
# Without dice the menu lists no entry that needs them (each would fail);
# the spec entry, which answers "off", stays.
22 gogui-analyze_commands
#? [!(?s).*aleago-(allowed|gfx|roll).*]
24 gogui-analyze_commands
#? [(?s).*string/Dice: spec/aleago-dice.*]
aleago-dice 1d6
26 gogui-analyze_commands
#? [(?s).*plist/Dice: allowed moves/aleago-allowed %m.*gfx/Dice: rolled line/aleago-gfx %m.*string/Dice: roll for the side to move/aleago-roll %m.*]
aleago-dice off
30 gogui-interrupt
#? []
boardsize 9
clear_board
gogui-setup B C7 B G3 W C3
40 list_stones b
#? [G3 C7]
gogui-setup_player W
50 genmove w
#? [[A-HJ][1-9]]
# Take the engine's move back, so the sequence below meets an empty E5.
undo
60 gogui-play_sequence b E5 w D6 b E6
#? []
70 color D6
#? [white]
80 gg-undo 2
#? []
90 color D6
#? [empty]
100 color E5
#? [black]
110 cputime
#? [\d+\.\d+]
120 kosumi-ownership
#? [(-?\d\.\d\d ){8}-?\d\.\d\d\n.*]
130 kosumi-gfx_ownership
#? [INFLUENCE A1 -?\d\.\d\d .*]
140 kgs-rules japanese
#? []
150 kosumi-rules
#? [name japanese\n.*]
160 kgs-rules new_zealand
#? []
170 kosumi-rules
#? [name new-zealand\n.*]
180 kgs-rules aga
#? []
190 kosumi-rules
#? [.*ko situational.*]
