# Playing levels: a person's rank, played from the network's policy as
# KaTrain's calibrated rank AI plays; max is the full search.
boardsize 9
clear_board
10 kosumi-level
#? [max]
20 kosumi-level 12k
#? []
30 kosumi-level
#? [12k]
40 genmove b
#? [[A-HJ]\d]
50 kata-get-param playingLevel
#? [12k]
60 kata-set-param playingLevel rank_3d
#? []
70 kosumi-level
#? [3d]
80 genmove w
#? [[A-HJ]\d]
# (Bad ranks are refused and change nothing: tests/gtp_errors.rs.)
100 kosumi-level
#? [3d]
120 kata-set-params {"playingLevel": "max"}
#? []
130 kosumi-level
#? [max]
# GoGui's Analyze menu shows the level and asks for a new one.
140 gogui-analyze_commands
#? [(?s).*string/Playing level/kosumi-level\nnone/Set playing level \(30k to 9d, or max\)/kosumi-level %s.*]
