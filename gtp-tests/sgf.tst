# Loading and writing SGF.
boardsize 19
10 loadsgf games/ko.sgf
#? [white]
20 list_stones b
#? [B2 C3 A3 B4 E5|.*C3.*]
30 color B3
#? [empty]
40 kosumi-rules
#? [name japanese\n.*komi 0\.5]
50 is_legal w B3
#? [0]
60 loadsgf games/ko.sgf 9
#? [black]
70 color B3
#? [white]
80 loadsgf games/handicap.sgf
#? [black]
90 list_stones b
#? [C3 E4 G7]
100 list_stones w
#? [D4 E5]
110 printsgf
#? [\(;FF\[4\]GM\[1\].*SZ\[9\].*KM\[0\.5\].*HA\[2\].*AB.*;W\[ee\];B\[ef\];W\[df\]\)]
play b pass
play w pass
120 printsgf
#? [.*RE\[[BW]\+.*]
130 printsgf saved.sgf
#? []
140 loadsgf saved.sgf 3
#? [white]
150 list_stones w
#? [E5]
