#!/usr/bin/python3
"""Reads the rounds of a conformance run (run.sh) and says what passed, failed and was skipped.

  summarize.py next OUT_DIR --only|--except LIST
                                     test numbers to run again (not started, or still running when
                                     the runner was killed) after the last round: of LIST
                                     (--only) or of all but LIST (--except)
  summarize.py retry OUT_DIR FLAKY  the failed tests listed in FLAKY, to run once more
  summarize.py summary OUT_DIR SKIP XFAIL FLAKY
                                     prints the summary, writes OUT_DIR/results.tsv; exits 1 when
                                     a test on neither list failed or did not finish, or a test on
                                     the expected-to-fail list XFAIL passed (so that the list
                                     cannot go stale)

OUT_DIR, or each of its lanes (OUT_DIR/lane-*: runners side by side), holds for each round N
round-N.json (the runner's report: each test's state), round-N.err (its stderr: failure messages
and skip reasons) and round-N.out (its stdout, with a summary table, used when the report is
missing). The librdkafka runner SIGKILLs itself when a test times out (pthread_kill(SIGKILL)),
so run.sh runs it again on what was left: the rounds are merged here, a test's first finished
state winning.
"""
import glob
import json
import os
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The runner's header of a failure: the test, its sub-test (if any), where it failed.
FAILED_AT = re.compile(r'^### Test "([^" (]+)(?: \((.*)\))?" failed at (\S+) at .*###$')
# Skipped by -L (a local test, no broker needed): not a result, and not to run again.
FILTERED = ("Filtered due to negative test flags", "filtered due to test flags")
FINAL = ("PASSED", "FAILED", "SKIPPED", "FILTERED")


def rounds(out_dir):
    """The rounds in OUT_DIR and in its lanes (OUT_DIR/lane-*, runners side by side), each
    lane's in the order they ran."""
    def key(p):
        return (os.path.dirname(p), int(re.search(r"round-(\d+)\.out$", p).group(1)))
    return sorted(glob.glob(os.path.join(out_dir, "round-*.out"))
                  + glob.glob(os.path.join(out_dir, "lane-*", "round-*.out")), key=key)


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


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path, errors="replace") as f:
        return ANSI.sub("", f.read())


def report_states(path):
    """{name: state} from a round's JSON report (TEST_REPORT), written before the runner exits,
    also when it then aborts on leftover client threads or kills itself on a test timeout."""
    text = read(path)
    try:
        return {n: t["state"] for n, t in json.loads(text)["tests"].items()}
    except (ValueError, KeyError, TypeError):
        # "extra" is not escaped by the runner: fall back to the name/state pairs.
        return dict(re.findall(r'"name": "([^"]+)", "state": "(\w+)"', text))


def messages(path):
    """{test name: text}: the first failure message ("### Test ... failed" block) or skip
    reason ("WARN: SKIPPING TEST:") of each test, from a round's stderr."""
    first = {}
    lines = read(path).splitlines()
    for i, line in enumerate(lines):
        m = FAILED_AT.match(line)
        if m and ("F", m.group(1)) not in first:
            msg = lines[i + 1].strip() if i + 1 < len(lines) else ""
            sub = f"[{m.group(2)}] " if m.group(2) else ""
            first[("F", m.group(1))] = f"{sub}{m.group(3)}: {msg}"
        m = re.match(r"^\[(\S+)\s*/\s*[\d.]+s\] WARN: SKIPPING TEST: (.*)$", line)
        if m and ("S", m.group(1)) not in first:
            first[("S", m.group(1))] = m.group(2).strip()
    return first


def failure_context(out_dir, name, count=30):
    """The last COUNT lines the test NAME printed before its first failure ("### Test ...
    failed"), from the first round's stderr that has one: the runner's one-line reason often
    ends in "see previous errors", and those errors are only here (a CI log keeps only this
    summary)."""
    prefix = re.compile(r"^\[" + re.escape(name) + r"\s*/")
    for out in rounds(out_dir):
        lines = read(out[:-4] + ".err").splitlines()
        own = []
        for line in lines:
            failed = FAILED_AT.match(line)
            if failed and failed.group(1) == name:
                return own[-count:]
            if prefix.match(line):
                own.append(line)
    return []


def skipped_by_list(state, text):
    return state == "SKIPPED" and text.startswith("included in TESTS_SKIP")


def merged(out_dir):
    result = {}  # name -> [state, text]
    for out in rounds(out_dir):
        base = out[:-4]
        states = report_states(base + ".json")
        table = summary_table(out)
        for name, (state, _) in table.items():
            states.setdefault(name, state)
        texts = messages(base + ".err")
        for name, state in states.items():
            if name == "<MAIN>":
                continue
            if state == "FAILED" or state == "RUNNING":
                text = texts.get(("F", name), "")
            elif state == "SKIPPED":
                text = texts.get(("S", name), table.get(name, ("", ""))[1])
            else:
                text = ""
            if state == "SKIPPED" and not text:
                state = "UNLISTED"  # silently, by this round's TESTS list
            elif state == "SKIPPED" and text.startswith(FILTERED):
                state = "FILTERED"  # by the -L flag: a local test
            old = result.get(name)
            # A round's TESTS list (the lanes of run.sh, the rounds after a runner timeout) says
            # nothing about the tests it leaves out: UNLISTED never replaces a state and is
            # replaced by any. Nor does TESTS_SKIP, which holds skip.txt and, in the lane that
            # runs all other tests, the tests of the other lanes: it replaces only UNLISTED, and
            # is replaced by any state but UNLISTED (a skip.txt test has no other).
            if state == "UNLISTED" and old is not None:
                continue
            if skipped_by_list(state, text) and old is not None and old[0] != "UNLISTED":
                continue
            if (old is None or old[0] in ("UNLISTED", "FILTERED") or skipped_by_list(*old)
                    or (old[0] not in FINAL and state != "DNS")):
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


def manual(name):
    """8000_idle and the like: run only when named in TESTS, which the next round does, so
    never put them there."""
    return number(name) >= "8000"


def cmd_next(out_dir, how, listed):
    res = merged(out_dir)
    listed = set(listed.split())
    nums = sorted({number(n) for n, (s, _) in res.items()
                   if s in ("DNS", "RUNNING") and not manual(n)
                   and ((number(n) in listed) == (how == "--only"))})
    print(" ".join(nums))


def cmd_retry(out_dir, flaky_path):
    flaky = load_skips(flaky_path)
    res = merged(out_dir)
    print(" ".join(sorted({number(n) for n, (s, _) in res.items()
                           if s in ("FAILED", "RUNNING") and number(n) in flaky})))


def cmd_summary(out_dir, skip_path, xfail_path, flaky_path):
    res = merged(out_dir)
    skips = load_skips(skip_path)
    xfails = load_skips(xfail_path)
    flaky = load_skips(flaky_path)
    retried = merged(os.path.join(out_dir, "retry"))
    # The timing tests' second retry (run.sh): a pass there counts as a pass on retry too.
    for name, result in merged(os.path.join(out_dir, "retry2")).items():
        if result[0] == "PASSED":
            retried[name] = result
    rows = []
    for name in sorted(res):
        state, text = res[name]
        if state in ("DNS", "FILTERED", "UNLISTED") or (manual(name) and state != "FAILED"):
            continue  # a local test, or never reached (listed as not started below)
        if state == "RUNNING":
            state, text = "FAILED", text or "did not finish (runner stopped: timeout or deadline)"
        if state == "SKIPPED" and text.startswith("included in TESTS_SKIP"):
            if number(name) not in skips or name.endswith(("_local", "_mock")):
                continue  # a local test (-L filters it anyway) sharing a skipped number
            state, text = "SKIPLIST", "skip.txt: " + skips[number(name)]
        elif number(name) in xfails and state == "FAILED":
            state, text = "XFAIL", "expected-failures.txt: " + xfails[number(name)] + " | " + text
        elif number(name) in xfails and state == "PASSED":
            state, text = "XPASS", ("on expected-failures.txt but passed: take it off the list")
        elif (number(name) in flaky and state == "FAILED"
              and retried.get(name, [""])[0] == "PASSED"):
            state, text = "FLAKY", "flaky.txt: " + flaky[number(name)] + " | first run: " + text
        rows.append((name, state, text))
    not_run = sorted(n for n, (s, _) in res.items() if s == "DNS" and not manual(n))
    with open(os.path.join(out_dir, "results.tsv"), "w") as f:
        for row in rows:
            f.write("\t".join(row) + "\n")
    kinds = ("PASSED", "FLAKY", "SKIPPED", "SKIPLIST", "XFAIL", "XPASS", "FAILED")
    by = {s: [r for r in rows if r[1] == s] for s in kinds}
    print("passed (%d): %s" % (len(by["PASSED"]), " ".join(r[0] for r in by["PASSED"])))
    for kind, title in (("FLAKY", "FAILED ONCE, PASSED ON RETRY (flaky.txt)"),
                        ("SKIPPED", "skipped by the runner"), ("SKIPLIST", "on the skip list"),
                        ("XFAIL", "failed as expected"),
                        ("XPASS", "PASSED BUT EXPECTED TO FAIL"), ("FAILED", "FAILED")):
        print("%s (%d):" % (title, len(by[kind])))
        for name, _, text in by[kind]:
            print(f"  {name}: {text}")
            if kind in ("FAILED", "FLAKY"):
                for line in failure_context(out_dir, name):
                    print(f"    | {line}")
    if not_run:
        print("not started (not reached before the deadline): " + " ".join(not_run))
    print("%d passed, %d passed on retry (flaky), %d skipped by the runner, %d on the skip list, "
          "%d expected to fail, %d failed, %d passed unexpectedly" %
          tuple(len(by[k]) for k in ("PASSED", "FLAKY", "SKIPPED", "SKIPLIST", "XFAIL", "FAILED",
                                     "XPASS")))
    return 1 if by["FAILED"] or by["XPASS"] or not_run else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "next" and sys.argv[3] in ("--only", "--except"):
        cmd_next(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "summary":
        return cmd_summary(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    if len(sys.argv) == 4 and sys.argv[1] == "retry":
        cmd_retry(sys.argv[2], sys.argv[3])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
