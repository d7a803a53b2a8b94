# KataGo's rules commands: kata-get-rules writes the rules as KataGo's JSON,
# kata-set-rules takes KataGo's names (mapped to kosumi's nearest preset).
boardsize 9
clear_board
10 kata-get-rules
#? [\{"friendlyPassOk":true,"hasButton":false,"ko":"POSITIONAL","komi":7.5,"scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N"\}]
20 kata-set-rules korean
#? []
30 kata-get-rules
#? [\{"friendlyPassOk":false,"hasButton":false,"ko":"SIMPLE","komi":6.5,"scoring":"TERRITORY","suicide":false,"tax":"SEKI","whiteHandicapBonus":"0"\}]
40 kata-set-rules tromp-taylor
#? []
50 kata-get-rules
#? [.*"ko":"POSITIONAL".*"suicide":true.*]
# (Rules kosumi has no ruleset for are refused, the rules unchanged:
# tests/gtp_errors.rs.)
90 kata-get-rules
#? [.*"suicide":true.*]
# Rules as KataGo's JSON: the preset whose fields match.
100 kata-set-rules {"ko":"SIMPLE","scoring":"TERRITORY","suicide":false}
#? []
110 kata-get-rules
#? [.*"scoring":"TERRITORY".*]
