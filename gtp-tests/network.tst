# The network (KataGo's six-block net, embedded): kata-raw-nn in KataGo's
# format. The figures themselves are checked against KataGo's own in
# tests/katago_equal.rs; here, the form and what a position makes likely.

boardsize 9
clear_board
komi 7.5

# An empty board: the centre is the policy's favourite, the game even.
10 kata-raw-nn 0
#? [symmetry 0\nwhiteWin 0\.[3-6][0-9]*\nwhiteLoss 0\.[3-6][0-9]*\nnoResult 0\.000000\nwhiteLead -?[0-9]\.[0-9]{3}\n.*policyPass .*whiteOwnership\n.*]

# All eight symmetries, one after another.
20 kata-raw-nn all
#? [symmetry 0\n.*symmetry 1\n.*symmetry 7\n.*]

# An occupied point is illegal: NAN in its place (E5 is row 5, column 5).
play b E5
30 kata-raw-nn w 0
#? [.*policy\n(.*\n){4}( *[0-9.]+ ){4}    NAN .*]

# White to move after Black's E5: Black owns its stone (White's ownership
# near -1 at E5).
40 kata-raw-nn 0
#? [.*whiteOwnership\n(.*\n){4}( *-?[0-9.]+ ){4}-0\.9.*]

# Black to move in the same position (as KataGo does, without history).
50 kata-raw-nn b 3 0.5
#? [symmetry 3\n.*]
