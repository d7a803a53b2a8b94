"""
Plays the person's side of a phantom game hosted by kosumi in GoGui 1.6
under Xvfb, through GoGui's own window: clicks points the board shows
empty (a shuffled order, the centre first), closes any dialog, then passes
(F2) until GoGui reports the end; screenshots along the way. Neither GoGui
nor Xvfb is part of kosumi (GoGui 1.6 built from its sources, Xvfb from
Debian's `xvfb`):

    Xvfb :99 -screen 0 1280x1000x24 &
    DISPLAY=:99 gogui -size 13 -computer-none \
      -program "target/release/kosumi --size 13 --phantom-kind rengo --phantom-human 3 --time 0.2" &
    # move the window to (0,0) at 760x640 (xdotool windowmove/windowsize), then
    python3 scripts/gogui_phantom_clicks.py 13 33 98 40 60 out/rengo 3

Arguments: board size, the pixel of A-top-left's intersection (x, y) and
the spacing of the lines in GoGui's window, clicks before passing, the
screenshots' prefix, the seed of the order.
"""
import random, re, subprocess, sys, time
N, X0, Y0, D, CLICKS, OUT, SEED = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7])
env = {"DISPLAY": ":99", "PATH": "/usr/bin:/bin:/usr/local/bin"}
def run(*a): return subprocess.run(a, env=env, capture_output=True, text=True).stdout
def pixel(x, y):
    m = re.search(r"\((\d+),(\d+),(\d+)", run("import", "-window", "root", "-crop", f"1x1+{x}+{y}", "txt:-"))
    return tuple(int(v) // 257 for v in m.groups())
def stone(i, j):
    r, g, b = pixel(X0 + D * i + D // 5, Y0 + D * j + D // 5)
    return (r < 110 and g < 110 and b < 110) or (r > 200 and g > 200 and b > 200)
def windows(): return [w for w in run("xdotool", "search", "--onlyvisible", "--name", ".").split()]
base = len(windows())
dialogs = 0
def close_dialogs():
    global dialogs
    while len(windows()) > base:
        dialogs += 1
        run("xdotool", "key", "Return"); time.sleep(0.5)
def shot(name): run("import", "-window", "root", "-crop", "760x640+0+0", f"{OUT}-{name}.png")
r = random.Random(SEED)
pts = [(i, j) for i in range(N) for j in range(N)]
pts.sort(key=lambda q: (max(abs(q[0] - (N - 1) / 2), abs(q[1] - (N - 1) / 2)) // 2, r.random()))
clicked = 0
for (i, j) in pts:
    if clicked >= CLICKS: break
    if stone(i, j): continue
    run("xdotool", "mousemove", str(X0 + D * i), str(Y0 + D * j), "click", "1")
    time.sleep(1.3); close_dialogs(); clicked += 1
    if clicked % 15 == 0: shot(f"click{clicked}")
shot("clicks-done")
passes = 0
while passes < 150:
    run("xdotool", "key", "F2"); time.sleep(1.2); passes += 1
    if len(windows()) > base:  # the result, or a message
        shot("final-dialog"); break
print(f"clicks {clicked}, passes {passes}, dialogs closed {dialogs}")
