#!/usr/bin/env bash
# Cost of transactions: the same librdkafka producer (idempotent, acks=all, 1 KiB values, one
# partition) without and with transactions (bench_client txn-produce), in two cadences: a
# transaction every 100 ms, and one every 1,000 messages. The baseline flushes at the same
# points, so the difference is the transaction itself: AddPartitionsToTxn before the first
# batch, EndTxn after the last, the coordinator's log writes and the COMMIT marker. A fresh skiff
# and data directory per run, rounds A B C D A B C D ..., medians.
#
#   tests/bench/transactions.sh [ROUNDS] [SECONDS]   (defaults: 5 rounds of 5 s)
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then a table:
# value MB/s (MB = 10^6 bytes), the ratio to the baseline, and the commit (or flush) round trip
# p50/p99. Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-5}
seconds=${2:-5}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/skiff_address.sh"
log() { printf '[transactions %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target skiff bench_client -- -j"$(nproc)" >"$build/bench-build.log" 2>&1 \
  || { tail -40 "$build/bench-build.log" >&2; exit 1; }
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client

tmp=$(mktemp -d /tmp/skiff-transactions.XXXXXX)
skiff_pid=''
stop_skiff() {
  [ -n "$skiff_pid" ] || return 0
  kill -TERM "$skiff_pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$skiff_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$skiff_pid" 2>/dev/null || true
  wait "$skiff_pid" 2>/dev/null || true
  skiff_pid=''
  rm -rf "$tmp/data"
}
trap 'stop_skiff; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

raw=$tmp/raw.txt
: >"$raw"
cadences=("100ms:--commit-ms 100 --commit-msgs 1000000000" "1000msgs:--commit-ms 1000000 --commit-msgs 1000")
for r in $(seq "$rounds"); do
  for cadence in "${cadences[@]}"; do
  for t in false true; do
    "$skiff_bin" --override "log.dirs=$tmp/data" --override listeners=PLAINTEXT://127.0.0.1:0 \
      >"$tmp/skiff.log" 2>&1 &
    skiff_pid=$!
    addr=$(skiff_address "$tmp/skiff.log" "$skiff_pid") || exit 1
    line=$(timeout 180 "$client" txn-produce --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic "t-$t" --size 1024 --seconds "$seconds" --transactional "$t" \
      ${cadence#*:} | grep '^result ') || { log "transactional=$t failed"; exit 1; }
    echo "round=$r cadence=${cadence%%:*} ${line#result }" | tee -a "$raw"
    stop_skiff
  done
  done
done

/usr/bin/python3 - "$raw" <<'PY'
import re, statistics, sys
rows = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(sys.argv[1])]
med = lambda rs, k: statistics.median(float(r[k]) for r in rs)
print("\n| cadence | producer | value MB/s | of baseline | commit (or flush) p50 ms | p99 ms |")
print("|---|---|---|---|---|---|")
for cadence in ("100ms", "1000msgs"):
    base = [r for r in rows if r["cadence"] == cadence and r["transactional"] == "false"]
    txn = [r for r in rows if r["cadence"] == cadence and r["transactional"] == "true"]
    for name, rs in (("idempotent, flush", base), ("transactional, commit", txn)):
        print("| %s | %s | %.0f | %.2fx | %.2f | %.2f |" % (
            "every 100 ms" if cadence == "100ms" else "every 1,000 msgs", name, med(rs, "mb_per_s"),
            med(rs, "mb_per_s") / med(base, "mb_per_s"), med(rs, "commit_p50_us") / 1000,
            med(rs, "commit_p99_us") / 1000))
PY
