# KataGo's search parameters: the move's budget (maxVisits, maxPlayouts,
# maxTime; none = no fixed limit), the search threads, the network
# search's refinements (each on by default, as in KataGo's GTP engine) and
# kosumi's playing level.
10 kata-list-params
#? [maxVisits maxPlayouts maxTime numSearchThreads useLcbForSelection cpuctUtilityStdevScale fpuParentWeightByVisitedPolicy subtreeValueBiasFactor useNoisePruning valueWeightExponent wideRootNoise playingLevel humanSLProfile]
20 kata-get-param maxVisits
#? [none]
30 kata-set-param maxVisits 40
#? []
40 kata-get-param maxPlayouts
#? [40]
50 kata-set-params {"maxTime": 0.5, "numSearchThreads": 1}
#? []
60 kata-get-params
#? [\{"cpuctUtilityStdevScale":0.85,"fpuParentWeightByVisitedPolicy":true,"humanSLProfile":"","maxPlayouts":40,"maxTime":0.5,"maxVisits":40,"numSearchThreads":1,"playingLevel":"max","subtreeValueBiasFactor":0.45,"useLcbForSelection":true,"useNoisePruning":true,"valueWeightExponent":0.25,"wideRootNoise":0\}]
# (A bad value in kata-set-params sets none of them: tests/gtp_errors.rs.)
70 kata-get-param maxVisits
#? [40]
80 kata-set-param maxTime none
#? []
90 kata-get-param maxTime
#? [none]
100 genmove b
#? [[A-HJ-T][0-9]+]
# A refinement turned off is played without, and reads back so.
110 kata-set-param useLcbForSelection false
#? []
120 kata-get-param useLcbForSelection
#? [false]
130 kata-set-params {"subtreeValueBiasFactor": 0, "cpuctUtilityStdevScale": 0.5, "useNoisePruning": false, "valueWeightExponent": 0}
#? []
135 kata-get-param valueWeightExponent
#? [0]
140 kata-get-param subtreeValueBiasFactor
#? [0]
150 genmove w
#? [[A-HJ-T][0-9]+]
