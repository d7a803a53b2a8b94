# KataGo's rules commands: kata-get-rules writes the rules as KataGo's JSON,
# kata-set-rules takes KataGo's names (mapped to kosumi's nearest preset).
boardsize 9
clear_board
10 kata-get-rules
#? [\{"friendlyPassOk":true,"hasButton":false,"ko":"POSITIONAL","komi":7.5,"scoring":"AREA","suicide":false,"taxRule":"NONE","whiteHandicapBonus":"N"\}]
20 kata-set-rules korean
#? []
30 kata-get-rules
#? [\{"friendlyPassOk":false,"hasButton":false,"ko":"SIMPLE","komi":6.5,"scoring":"TERRITORY","suicide":false,"taxRule":"SEKI","whiteHandicapBonus":"0"\}]
40 kata-set-rules tromp-taylor
#? []
50 kata-get-rules
#? [.*"ko":"POSITIONAL".*"suicide":true.*]
# No kosumi ruleset for these: refused, the rules unchanged.
60 kata-set-rules stone-scoring
#? [syntax error: no kosumi ruleset matches 'stone-scoring'.*]*
70 kata-set-rules {"ko":"SIMPLE"}
#? [syntax error.*]*
80 kata-set-rules
#? [syntax error.*]*
90 kata-get-rules
#? [.*"suicide":true.*]
