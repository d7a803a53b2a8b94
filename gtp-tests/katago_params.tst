# KataGo's search parameters: the move's budget (maxVisits, maxPlayouts,
# maxTime; none = no fixed limit) and the search threads.
10 kata-list-params
#? [maxVisits maxPlayouts maxTime numSearchThreads]
20 kata-get-param maxVisits
#? [none]
30 kata-set-param maxVisits 40
#? []
40 kata-get-param maxPlayouts
#? [40]
50 kata-set-params {"maxTime": 0.5, "numSearchThreads": 1}
#? []
60 kata-get-params
#? [\{"maxPlayouts":40,"maxTime":0.5,"maxVisits":40,"numSearchThreads":1\}]
# A bad value in kata-set-params sets none of them.
kata-set-params {"maxVisits": 7, "maxTime": -1}
70 kata-get-param maxVisits
#? [40]
80 kata-set-param maxTime none
#? []
90 kata-get-param maxTime
#? [none]
100 genmove b
#? [[A-HJ-T][0-9]+]
