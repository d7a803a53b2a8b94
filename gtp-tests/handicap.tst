# Handicap placement and the handicap bonus of each ruleset.
boardsize 19
clear_board
10 fixed_handicap 9
#? [D4 Q16 D16 Q4 D10 Q10 K4 K16 K10]
20 list_stones b
#? [D4 K4 Q4 D10 K10 Q10 D16 K16 Q16]
boardsize 9
clear_board
30 fixed_handicap 2
#? [C3 G7]
clear_board
40 fixed_handicap 5
#? [C3 G7 C7 G3 E5]
boardsize 13
clear_board
50 fixed_handicap 4
#? [D4 K10 D10 K4]
boardsize 9
clear_board
60 place_free_handicap 3
#? [[A-HJ]\d [A-HJ]\d [A-HJ]\d]
70 list_stones b
#? [[A-HJ]\d [A-HJ]\d [A-HJ]\d]
# White moves first after a handicap.
80 genmove w
#? [[A-HJ]\d|pass]
# Handicap bonus at counting: the 7x7 position of scoring.tst with two
# handicap stones in Black's area (A1 A2) and White moving first.
boardsize 7
kosumi-rules chinese
clear_board
komi 7.5
set_free_handicap A1 A2
play w D1
play b C1
play w D2
play b C2
play w D3
play b C3
play w D4
play b C4
play w D5
play b C5
play w D6
play b C6
play w D7
play b C7
play w F4
play b A4
play w pass
play b pass
90 final_score
#? [W\+16\.5]
kosumi-rules aga
komi 7.5
100 final_score
#? [W\+15\.5]
kosumi-rules egc2011
komi 7.5
110 final_score
#? [W\+14\.5]
kosumi-rules japanese
komi 6.5
120 final_score
#? [W\+15\.5]
# EGC 2011: a handicap game's komi is N - 0.5, whatever komi was
# sent before the handicap; a komi sent after it has the last word.
boardsize 9
clear_board
kosumi-rules egc2011
komi 7.5
fixed_handicap 3
130 kosumi-rules
#? [.*komi 2\.5]
play w pass
play b pass
# White's extra pass is shown: 2 pass stones for White, 1 for Black.
140 kosumi-pass_stones w
#? [2]
150 kosumi-pass_stones b
#? [1]
160 showboard
#? [.*White \(O\) captures 0, pass stones given 2.*]
170 printsgf
#? [.*C\[White's extra pass.*]
# The Japanese-style count agrees with the area count.
180 kosumi-score
#? [result B\+78\.5\n.*japanese_style B\+78\.5]
komi 0.5
190 kosumi-rules
#? [.*komi 0\.5]
clear_board
place_free_handicap 4
200 kosumi-rules
#? [.*komi 3\.5]
# A handicap given as Black moves (as KGS, Pachi and KaTrain give a free
# handicap) counts as KataGo counts it: four opening Black stones earn White
# four points under Chinese rules.
boardsize 9
kosumi-rules chinese
clear_board
komi 0.5
play b C3
play b G7
play b C7
play b G3
play w E5
210 kosumi-score
#? [(?s).*handicap_bonus 4]
# Two White moves in a row after them: a problem set up, no handicap.
play w E6
220 kosumi-score
#? [(?s).*handicap_bonus 0]
