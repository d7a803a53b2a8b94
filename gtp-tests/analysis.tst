# Analysis commands that end by themselves: *genmove_analyze (lines while
# thinking, then "play VERTEX") and GoGui's search commands. The *-analyze
# commands stream until the next input arrives, which a regression file
# cannot wait for: tests/analysis.rs drives them as Sabaki does.

boardsize 9
clear_board
komi 6.5
play b E5

10 kata-genmove_analyze w 10
#? [(?s)(info move [^\n]*\n)*play [A-HJ][1-9]]

# allow: only C7 (or a pass) for Black's next move.
20 lz-genmove_analyze b 10 allow b C7 1
#? [(?s)(info move [^\n]*\n)*play (C7|pass)]

30 color C7
#? [black|empty]

40 kosumi-candidates w
#? [([A-HJ][1-9] \d+ ?)+]

50 kosumi-pv w
#? [w [A-HJ][1-9]( [bw] ([A-HJ][1-9]|pass))*]

60 kosumi-evaluation w
#? [white to move: best [A-HJ][1-9], win rate \d+\.\d% \(\d+ of \d+ visits\).*]

70 gogui-analyze_commands
#? [(?s).*pspairs/Search: candidates \(visits\)/kosumi-candidates %m.*var/Search: principal variation/kosumi-pv %m.*]

# genmove_analyze under dice plays on the rolled line.
clear_board
aleago-dice 1d4
aleago-set_roll b 1
80 genmove_analyze b 10
#? [(?s)(info move [^\n]* roll 1 [^\n]*\n)*play ([A-HJ][19]|[AJ][1-9])]
