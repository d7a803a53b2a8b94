#!/usr/bin/env python3
"""
Lizzie 0.7's engine logic (src/main/java/featurecat/lizzie/analysis/
Leelaz.java and MoveData.java, featurecat/lizzie at ebeb446), transcribed
decision for decision, run against kosumi over GTP: does the README's
recipe bring Lizzie into its KataGo mode, with score leads and ownership?

    scripts/lizzie_check.py target/release/kosumi

What it follows, as Leelaz.java does it:
  - startEngine() resets isKataGo, then numbers and sends `name` (its
    reply starting "KataGo" sets isKataGo) and `version` (only where not
    isKataGo: a minor version below 15 is refused with a dialog);
  - ponder() sends `kata-analyze 10 ownership true` in KataGo mode
    (showKataGoEstimate on), `lz-analyze 10` otherwise;
  - parseLine() reads an `info` line by parseInfoKatago/fromInfoKatago
    (key, value pairs up to `pv`: visits by Integer.parseInt; winrate,
    scoreMean, scoreStdev, prior by Double.parseDouble) and the numbers
    after the line's `ownership` word, each by Double.parseDouble, into
    the estimate it draws.
It checks both command lines: plain (Leela Zero mode, which needs
--override-version) and with --name (KataGo mode); exit 1 on a failure.
"""
import re
import subprocess
import sys


def java_int(s):
    # Integer.parseInt: an optional sign, then digits only.
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError(s)
    return int(s)


def java_double(s):
    # Double.parseDouble takes what Python's float takes, but for the
    # words "nan"/"inf" (Java wants "NaN"/"Infinity").
    if s.lower().lstrip("+-") in ("nan", "inf", "infinity") and s not in ("NaN", "Infinity", "-Infinity"):
        raise ValueError(s)
    return float(s)


def from_info_katago(var):
    data = var.strip().split(" ")
    move = {}
    i = 0
    while i < len(data):
        key = data[i]
        if key == "pv":
            move["variation"] = data[i + 1 :]
            break
        i += 1
        value = data[i]
        if key == "move":
            move["coordinate"] = value
        if key == "visits":
            move["playouts"] = java_int(value)
        if key == "winrate":
            move["winrate"] = java_double(value) * 100
        if key == "scoreMean":
            move["scoreMean"] = java_double(value)
        if key == "scoreStdev":
            move["scoreStdev"] = java_double(value)
        if key == "prior":
            move["policy"] = java_double(value) * 100
        i += 1
    return move


class Leelaz:
    def __init__(self, command):
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.n = 0
        self.is_katago = False

    def send(self, command):
        self.n += 1
        self.proc.stdin.write(f"{self.n} {command}\n")
        self.proc.stdin.flush()

    def reply(self):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise RuntimeError("the engine ended")
            if line.strip() == "" and lines:
                return lines
            if line.strip():
                lines.append(line.rstrip("\n"))

    def start(self):
        self.is_katago = False
        self.send("name")
        params = self.reply()[0].strip().split(" ")
        int(params[0][1:])  # currentCmdNum
        if len(params) > 1 and params[1].startswith("KataGo"):
            self.is_katago = True
        self.send("version")
        params = self.reply()[0].strip().split(" ")
        if not self.is_katago:
            minor = int(params[1].split(".")[1])
            if minor < 15:
                raise RuntimeError(f"Lizzie requires version 0.15 or later of Leela Zero (found {params[1]})")
        for c in ["boardsize 19", "komi 7.5", "play b Q16", "play w D4"]:
            self.send(c)
            self.reply()

    def ponder_once(self):
        self.send("kata-analyze 10 ownership true" if self.is_katago else "lz-analyze 10")
        first = self.proc.stdout.readline()  # "=N"
        assert first.startswith("="), first
        while True:
            line = self.proc.stdout.readline().rstrip("\n")
            if line.startswith("info"):
                visits = sum(m.get("playouts", 0) for m in self.parse(line)[0])
                if visits >= 20:
                    break
        best, estimate = self.parse(line)
        self.send("name")  # ends pondering, as Lizzie does
        while not self.proc.stdout.readline().startswith(f"={self.n}"):
            pass
        return best, estimate

    def parse(self, line):
        if self.is_katago:
            best = [from_info_katago(v) for v in line[5:].split(" info ") if v.strip()]
            estimate = []
            if "ownership" in line:
                estimate = [java_double(x) for x in line.strip().split("ownership")[1].strip().split(" ")]
            return best, estimate
        # parseInfo (Leela Zero mode): the same pairs, no score.
        return [from_info_katago(v) for v in line[5:].split(" info ") if v.strip()], []

    def quit(self):
        self.send("quit")
        self.proc.wait(timeout=30)


def check(command, want_katago):
    lz = Leelaz(command)
    lz.start()
    best, estimate = lz.ponder_once()
    lz.quit()
    mode = "KataGo" if lz.is_katago else "Leela Zero"
    ok = lz.is_katago == want_katago and best and all("playouts" in m and "winrate" in m for m in best)
    if want_katago:
        ok = ok and all("scoreMean" in m for m in best)
        ok = ok and len(estimate) == 361 and all(-1 <= x <= 1 for x in estimate)
    lead = best[0].get("scoreMean") if best else None
    print(
        f"{' '.join(command)}: Lizzie's {mode} mode, {len(best)} moves, "
        f"best {best[0].get('coordinate') if best else None} score lead {lead}, "
        f"ownership of {len(estimate)} points: {'ok' if ok else 'FAIL'}"
    )
    return ok


def main():
    kosumi = sys.argv[1] if len(sys.argv) > 1 else "target/release/kosumi"
    base = [kosumi, "--threads", "1"]
    ok = check(base + ["--override-version", "0.17"], want_katago=False)
    ok &= check(base + ["--name", "KataGo-kosumi"], want_katago=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
