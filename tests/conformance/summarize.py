#!/usr/bin/python3
"""Reads the rounds of a conformance run (run.sh) and says what passed, failed and was skipped.

  summarize.py next OUT_DIR          test numbers to run again (not started, or still running when
                                     the runner was killed) after the last round
  summarize.py summary OUT_DIR SKIP  prints the summary, writes OUT_DIR/results.tsv; exits 1 when
                                     any test not in the skip list failed or did not finish

OUT_DIR holds round-N.out (the runner's stdout, with its summary table) and round-N.err (its
stderr, with the "### Test ... failed" blocks). The librdkafka runner SIGKILLs itself when a test
times out (pthread_kill(SIGKILL)), so run.sh runs it again on what was left: the rounds are merged
here, a test's first finished state winning.
"""
import glob
import os
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Skipped by -L (a local test, no broker needed): not a result, and not to run again.
FILTERED = ("Filtered due to negative test flags", "filtered due to test flags")
FINAL = ("PASSED", "FAILED", "SKIPPED", "FILTERED")


def rounds(out_dir):
    def num(p):
        return int(re.search(r"round-(\d+)\.out$", p).group(1))
    return sorted(glob.glob(os.path.join(out_dir, "round-*.out")), key=num)


def summary_table(path):
    """{name: (state, text)} from the last summary table in a runner's stdout."""
    with open(path, errors="replace") as f:
        text = ANSI.sub("", f.read())
    blocks = re.split(r"^TEST \S+ \(.*\) SUMMARY\n", text, flags=re.M)
    if len(blocks) < 2:
        return {}
    table = {}
    for line in blocks[-1].splitlines():
        if line.startswith("#=") and table:
            break
        m = re.match(r"^\|\s*(\S+)\s*\|\s*(\w+)\s*\|\s*[\d.]+s\s*\|\s?(.*)$", line)
        if m:
            table[m.group(1)] = (m.group(2), m.group(3).strip())
    return table


def failures(path):
    """{test name: first failure message} from a runner's stderr."""
    first = {}
    if not os.path.exists(path):
        return first
    with open(path, errors="replace") as f:
        lines = ANSI.sub("", f.read()).splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'^### Test "([^" (]+)(?: \((.*)\))?" failed at (\S+) at .*###$', line)
        if m and m.group(1) not in first:
            msg = lines[i + 1].strip() if i + 1 < len(lines) else ""
            sub = f"[{m.group(2)}] " if m.group(2) else ""
            first[m.group(1)] = f"{sub}{m.group(3)}: {msg}"
    return first


def merged(out_dir):
    result = {}  # name -> [state, text]
    for out in rounds(out_dir):
        fails = failures(out[:-4] + ".err")
        for name, (state, text) in summary_table(out).items():
            if name == "<MAIN>":
                continue
            if state == "SKIPPED" and text.startswith(FILTERED):
                state = "FILTERED"
            if name in fails and state in ("FAILED", "RUNNING"):
                text = fails[name]
            old = result.get(name)
            if old is None or (old[0] not in FINAL and state != "DNS"):
                result[name] = [state, text]
    return result


def number(name):
    return name.split("_", 1)[0]


def load_skips(path):
    skips = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                num, _, reason = line.partition(" ")
                skips[num] = reason.strip()
    return skips


def cmd_next(out_dir):
    res = merged(out_dir)
    nums = sorted({number(n) for n, (s, _) in res.items() if s in ("DNS", "RUNNING")})
    print(" ".join(nums))


def cmd_summary(out_dir, skip_path):
    res = merged(out_dir)
    skips = load_skips(skip_path)
    rows = []
    for name in sorted(res):
        state, text = res[name]
        if state in ("DNS", "FILTERED"):
            continue  # a local test, or never reached (listed as not started below)
        if state == "RUNNING":
            state, text = "FAILED", text or "did not finish (runner stopped: timeout or deadline)"
        if state == "SKIPPED" and text.startswith("included in TESTS_SKIP"):
            text = "skip.txt: " + skips.get(number(name), "")
        rows.append((name, state, text))
    not_run = sorted(n for n, (s, _) in res.items() if s == "DNS")
    with open(os.path.join(out_dir, "results.tsv"), "w") as f:
        for row in rows:
            f.write("\t".join(row) + "\n")
    by = {s: [r for r in rows if r[1] == s] for s in ("PASSED", "FAILED", "SKIPPED")}
    print("passed (%d): %s" % (len(by["PASSED"]), " ".join(r[0] for r in by["PASSED"])))
    print("skipped (%d):" % len(by["SKIPPED"]))
    for name, _, text in by["SKIPPED"]:
        print(f"  {name}: {text}")
    print("failed (%d):" % len(by["FAILED"]))
    for name, _, text in by["FAILED"]:
        print(f"  {name}: {text}")
    if not_run:
        print("not started (not reached before the deadline): " + " ".join(not_run))
    print("%d passed, %d failed, %d skipped" % (len(by["PASSED"]), len(by["FAILED"]),
                                               len(by["SKIPPED"])))
    return 1 if by["FAILED"] else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "next":
        cmd_next(sys.argv[2])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "summary":
        return cmd_summary(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
