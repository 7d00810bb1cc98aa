#!/usr/bin/env bash
# Cost of serving pre-0.11 clients (docs/legacy-formats.md), two ways:
#  1. legacy_formats_bench: the conversion functions alone, per message, against the v2 paths'
#     per-batch work (see legacy_formats_bench.cpp);
#  2. end to end: skiff's own CPU time (utime+stime from /proc/PID/stat) while kafka-python
#     produces N messages (100-byte values, linger 5 ms) with api_version=(0, 10, 1) (message
#     format v1, up-converted) and with its default (record batch v2), then consumes them with
#     each (Fetch v3: down-converted; Fetch v4+: sendfile). A fresh broker per case; the client
#     is the bottleneck, so compare broker CPU, not wall time.
#
#   tests/bench/legacy_formats.sh [N]        (default 50000)
#
# Builds legacy_formats_bench and skiff in build-bench/ (or $BENCH_BUILD_DIR) in Release.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
n=${1:-50000}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" legacy-formats
bench_build legacy-formats-build.log legacy_formats_bench skiff
echo "== conversion functions (1000 messages per set) =="
"$build/tests/bench/legacy_formats_bench" 1000
echo
echo "== end to end: skiff CPU, kafka-python, $n messages =="
/usr/bin/python3 - "$build/broker/skiff" "$n" <<'PY'
import os, sys, time
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "integration"))
import skiff_harness
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

skiff_harness._binary = sys.argv[1]
n = int(sys.argv[2])
tick = os.sysconf("SC_CLK_TCK")

def cpu(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick

value = b"x" * 60 + b" some text that compresses a little " + b"y" * 4
for label, kw in (("v2 (default)", {}), ("v1 (api_version 0.10.1)", {"api_version": (0, 10, 1)})):
    b = skiff_harness.Broker({"num.partitions": 1}, name="bench")
    b.start()
    try:
        p = KafkaProducer(bootstrap_servers=b.bootstrap, acks=1, linger_ms=5, **kw)
        p.send("bench", b"warm", partition=0).get(timeout=30)
        c0, t0 = cpu(b.proc.pid), time.monotonic()
        for i in range(n):
            p.send("bench", key=b"k%d" % (i % 1000), value=value, partition=0)
        p.flush(timeout=120)
        c1, t1 = cpu(b.proc.pid), time.monotonic()
        p.close()
        c = KafkaConsumer(bootstrap_servers=b.bootstrap, group_id=None, enable_auto_commit=False, **kw)
        tp = TopicPartition("bench", 0)
        c.assign([tp])
        c.seek_to_beginning()
        got = 0
        c2, t2 = cpu(b.proc.pid), time.monotonic()
        while got < n + 1:
            for _, rs in c.poll(timeout_ms=500).items():
                got += len(rs)
        c3, t3 = cpu(b.proc.pid), time.monotonic()
        c.close()
        print("%-26s produce: broker CPU %.2f s (%.1f us/message), wall %.1f s | "
              "consume: broker CPU %.2f s (%.1f us/message), wall %.1f s"
              % (label, c1 - c0, (c1 - c0) / n * 1e6, t1 - t0, c3 - c2, (c3 - c2) / n * 1e6, t3 - t2))
    finally:
        b.stop()
        b.cleanup()
PY
