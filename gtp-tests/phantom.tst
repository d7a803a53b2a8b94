# Phantom Go and Phantom Rengo: the referee (docs/phantom.md), scripted games.
# The engine's game is the true game; each seat sees only its view.
boardsize 9
clear_board
komi 7.5
10 phantom-new go
#? []
20 phantom-to_move
#? [1]
30 phantom-try 1 E5
#? [accepted]
# White cannot see E5: trying it reveals the black stone (seed preset).
40 phantom-try 2 E5
#? [illegal occupied black]
50 phantom-to_move
#? [2]
60 phantom-view 2
#? [.* 5 \. \. \. \. X \. \. \. \. 5.*Seat 2 \(White\).*]
70 phantom-try 2 D5
#? [accepted]
# Black's view shows its own stone only.
80 phantom-view 1
#? [.* 5 \. \. \. \. X \. \. \. \. 5.*]
90 showboard
#? [.* 5 \. \. \. O X \. \. \. \. 5.*]
# A capture in the corner: White A1, Black A2 and B1.
phantom-try 1 A2
phantom-try 2 A1
100 phantom-try 1 B1
#? [accepted\ncaptures black 1 A1]
# A suicide try for White at A1 (Black holds A2 and B1).
110 phantom-try 2 A1
#? [illegal suicide]
# Ataris (self-atari too) and a capture of three stones.
120 phantom-try 2 B2
#? [accepted]
phantom-try 1 J1
130 phantom-try 2 C1
#? [accepted\natari black 1]
140 phantom-try 1 A1
#? [accepted\natari self]
150 phantom-try 2 A3
#? [accepted\ncaptures white 3 A1 B1 A2]
# The captured stones are gone from Black's view too.
160 phantom-view 1
#? [.* 1 \. \. \. \. \. \. \. \. X 1.*]
phantom-try 1 pass
170 phantom-try 2 pass
#? [pass\nend [BW]\+[0-9.]+]
180 phantom-to_move
#? [end]
190 final_score
#? [[BW]\+[0-9.]+]
# Olympiad: the reason of an illegal try is hidden.
clear_board
200 phantom-new go olympiad
#? []
phantom-try 1 E5
210 phantom-try 2 E5
#? [illegal]
220 phantom-view 2
#? [.* 5 \. \. \. \. \. \. \. \. \. 5.*]
230 phantom-option
#? [illegal nothing\ntell-others off\ncaptures points\nataris off\nend two-passes\ncount estimate\nrepetition illegal\nshared-view off]
# Rengo: seats 1, 2 on board A, 3, 4 on board B; four passes end it.
clear_board
300 phantom-new rengo
#? []
phantom-try 1 C3
phantom-try 2 G7
phantom-try 3 C7
# Seat 4 sees board B: C7 (seat 3's), not C3 (seat 1's, on board A).
310 phantom-try 4 C3
#? [illegal occupied black]
320 phantom-view 4
#? [.* 7 \. \. X \. \. \. \. \. \. 7.* 3 \. \. X \. \. \. \. \. \. 3.*]
330 phantom-view 1
#? [.* 7 \. \. \. \. \. \. O \. \. 7.* 3 \. \. X \. \. \. \. \. \. 3.*]
phantom-try 4 G3
phantom-try 1 pass
phantom-try 2 pass
phantom-try 3 pass
340 phantom-to_move
#? [4]
350 phantom-try 4 pass
#? [pass\nend .*]
# OpenSpiel: a ko retake at once is refused and play goes on (only a
# longer repetition, played, ends the game drawn).
clear_board
400 phantom-new go openspiel
#? []
phantom-try 1 B4
phantom-try 2 C4
phantom-try 1 A3
phantom-try 2 D3
phantom-try 1 B2
phantom-try 2 C2
phantom-try 1 J9
phantom-try 2 B3
410 phantom-try 1 C3
#? [accepted\ncaptures black 1 B3]
420 phantom-try 2 B3
#? [illegal]
421 phantom-to_move
#? [2]
# A handicap game: the handicap stones are on every view, White tries first.
clear_board
fixed_handicap 2
500 phantom-new go
#? []
510 phantom-to_move
#? [2]
520 phantom-view 2
#? [.* 7 \. \. \. \. \. \. X \. \. 7.*]
# A player's board is its seat's view. A stone it learns of by `play` (a
# board-mate's, or one a try revealed) stands even where the view's own
# history forbids it as a move: the referee judged it on the true game,
# where the view's earlier position need not have been.
clear_board
phantom-seat 1 rengo
play black B1
play black A2
play black B3
play white C1
play white D2
play white C3
play black C2
play white B2
600 play black C2
#? []
610 showboard
#? [.* 2 X \. X O \. \. \. \. \. 2.*]
