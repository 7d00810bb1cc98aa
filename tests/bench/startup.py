#!/usr/bin/python3
"""Footprint of a fresh broker: time from exec to the first answered ApiVersions on an empty data
directory, and its resident memory once idle.

    startup.py --skiff BIN [--rounds N] [--idle-seconds S]

Each round starts BIN on a new empty data directory and a free port, polls ApiVersions v0 every
millisecond until answered (the clock starts right before the exec), waits S seconds, reads
VmRSS from /proc/PID/status, and stops the broker with SIGTERM. Prints one line per round and
a median line:
    result workload=startup round=1 seconds=0.012 idle_rss_kb=5740
    result workload=startup median_seconds=0.012 median_idle_rss_kb=5740 rounds=5
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from skiff_harness import api_versions_answered, free_port  # noqa: E402


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def one_round(skiff, idle_seconds):
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="skiff-startup-") as data:
        cmd = [skiff, "--override", "listeners=PLAINTEXT://127.0.0.1:%d" % port,
               "--override", "log.dirs=" + os.path.join(data, "data")]
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not api_versions_answered(port):
                if proc.poll() is not None:
                    raise SystemExit("skiff exited with %s" % proc.returncode)
                if time.monotonic() - t0 > 60:
                    raise SystemExit("skiff did not answer within 60 s")
                time.sleep(0.001)
            seconds = time.monotonic() - t0
            time.sleep(idle_seconds)
            return seconds, rss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skiff", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--idle-seconds", type=float, default=1.0)
    args = ap.parse_args()
    times, rss = [], []
    for i in range(args.rounds):
        seconds, kb = one_round(args.skiff, args.idle_seconds)
        times.append(seconds)
        rss.append(kb)
        print("result workload=startup round=%d seconds=%.4f idle_rss_kb=%d" % (i + 1, seconds, kb),
              flush=True)
    print("result workload=startup median_seconds=%.4f median_idle_rss_kb=%d rounds=%d"
          % (statistics.median(times), statistics.median(rss), args.rounds), flush=True)


if __name__ == "__main__":
    main()
