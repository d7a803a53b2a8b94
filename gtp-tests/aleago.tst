# Aléago (docs/aleago.md): rolls, lines, bonus, descent, options, SGF.
boardsize 13
clear_board
10 aleago-dice
#? [off]
aleago-dice 1d6
20 aleago-dice
#? [1d6]
aleago-set_roll b 1
30 aleago-allowed b
#? [A1 B1 C1 D1 E1 F1 G1 H1 J1 K1 L1 M1 N1 A2 N2 .* A13 B13 C13 D13 E13 F13 G13 H13 J13 K13 L13 M13 N13]
40 is_legal b G7
#? [1]
# A 6 on 1d6 on 13x13 gives lines 6 and 7.
aleago-set_roll b 6
50 aleago-allowed b
#? [F6 G6 H6 F7 G7 H7 F8 G8 H8]
play b G7
# White has no pending roll: any legal move (the roll was made elsewhere).
60 play w A1
#? []
# A 3 without room on line 3: go down to line 2.
boardsize 7
clear_board
aleago-dice 1d4
gogui-setup b C3 b D3 b E3 b C4 b E4 b C5 b D5 b E5
aleago-set_roll w 4
# 1d4 on 7x7: 4 is the top line (the tengen D4), all... D4 is Black's eye
# (suicide for White), so White descends to line 3, all occupied, then 2.
70 aleago-allowed w
#? [B2 C2 D2 E2 F2 B3 F3 B4 F4 B5 F5 B6 C6 D6 E6 F6]
80 aleago-gfx w
#? [COLOR green B2 .*\nTEXT white rolled 4 \(1d4\): line 4]
# Pass is always allowed.
90 play w pass
#? []
100 aleago-roll w
#? [[1-4]]
# The original mapping: no descent, the centre is never playable.
aleago-option mapping original
aleago-set_roll b 4
110 aleago-allowed b
#? []
# Biggest double: 2d4 total 8 gives the whole board when double-free is on.
boardsize 9
clear_board
# (dice off first: a change of dice keeps the options set before)
aleago-dice off
aleago-dice 2d4
aleago-set_roll b 8
120 aleago-allowed b
#? [A1 B1 C1 D1 E1 F1 G1 H1 J1 A2 N2|A1 B1 C1 D1 E1 F1 G1 H1 J1 A2 J2 .*]
aleago-option double-free on
aleago-set_roll b 8
130 aleago-allowed b
#? [(\S+ ){80}\S+]
# 2d6 has no top-value bonus by default.
aleago-dice off
aleago-dice 2d6
140 aleago-option
#? [bonus off\ndouble-free off\nexempt none\ncrystal-ball off\nmapping standard\nreferee off]
# genmove rolls first and plays on the rolled line; undo restores the roll.
aleago-dice 1d4
aleago-seed 42
150 genmove b
#? [[A-HJ]\d|pass]
undo
aleago-seed 42
160 genmove b
#? [[A-HJ]\d|pass]
170 undo
#? []
180 showboard
#? [.*Dice 1d4: Black's roll [1-4], White's roll none.*]
# Exempt players never roll.
aleago-option exempt black
190 genmove b
#? [[A-HJ]\d|pass]
# SGF keeps the dice and the pending roll.
200 loadsgf games/dice.sgf
#? [white]
210 aleago-dice
#? [1d4]
220 aleago-allowed w
#? [B2 C2 D2 E2 F2 G2 H2 B3 H3 B4 H4 B5 H5 B6 H6 B7 H7 B8 C8 D8 E8 F8 G8 H8]
230 printsgf
#? [.*DI\[1d4\].*;B\[ee\]DR\[4\];W\[aa\]DR\[1\];B\[cc\]DR\[3\]DP\[W:2\]\)]
# Turning the dice off lifts every constraint.
aleago-dice off
240 aleago-dice
#? [off]
# A change of dice voids the rolls of the old dice, also those undo would
# bring back (a 7 of 1d8 left pending under 1d4 could make the search
# panic).
boardsize 9
clear_board
aleago-dice 1d8
aleago-set_roll b 7
# 7 on 1d8 on 9x9: the tengen.
245 play b E5
#? []
aleago-dice 1d4
247 undo
#? []
250 aleago-roll b
#? [[1-4]]
260 genmove b
#? [[A-HJ][1-9]|pass]
# A change of dice keeps the variant's options (players may
# switch to one die near the end).
boardsize 9
clear_board
aleago-dice 1d6
aleago-option exempt white
aleago-option crystal-ball on
aleago-dice 1d4
270 aleago-option
#? [bonus on\ndouble-free off\nexempt white\ncrystal-ball on\nmapping standard\nreferee off]
# A dice change during a game is recorded where it happened and loads back.
clear_board
aleago-dice 1d3
aleago-option exempt none
aleago-set_roll b 1
play b A1
aleago-dice 3d4
280 printsgf
#? [.*DI\[1d3\].*;B\[ai\]DR\[1\];DI\[3d4\].*]
printsgf dice-change.sgf
290 loadsgf dice-change.sgf
#? [white]
300 aleago-dice
#? [3d4]
310 color A1
#? [black]
# Referee mode: kosumi rolls for the controller's stones (a stone off the
# rolled line is refused with the roll, which stays pending: checked in
# tests/hostile.rs, as gogui-regress has no way to expect an error).
clear_board
aleago-dice 1d4
aleago-seed 3
aleago-option referee on
320 color E5
#? [empty]
330 aleago-roll b
#? [1]
340 play b A1
#? []
350 aleago-allowed w
#? [.+]
