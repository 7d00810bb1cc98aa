#!/usr/bin/env bash
# Cost of transactions: the same librdkafka producer (idempotent, acks=all, 1 KiB values, one
# partition) without and with transactions (bench_client txn-produce), in two cadences: a
# transaction every 100 ms, and one every 1,000 messages. The baseline flushes at the same
# points, so the difference is the transaction itself: AddPartitionsToTxn before the first
# batch, EndTxn after the last, the coordinator's log writes and the COMMIT marker. A fresh skiff
# and data directory per run, rounds A B C D A B C D ..., medians. The same runs against
# librdkafka's in-memory mock broker (mock_peer, which writes no log and no markers) show what
# the client's own transaction protocol costs, whatever the broker does.
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
. "$root/tests/bench/common.sh" transactions

bench_build bench-build.log skiff bench_client mock_peer
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client
peer=$build/tests/bench/mock_peer

bench_workdir "$(mktemp -d /tmp/skiff-transactions.XXXXXX)"
cadences=("100ms:--commit-ms 100 --commit-msgs 1000000000" "1000msgs:--commit-ms 1000000 --commit-msgs 1000")
# start_broker skiff|peer: sets addr and skiff_pid (the peer's, for it) for one run; stop_skiff
# stops either.
start_broker() {
  if [ "$1" = skiff ]; then
    skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log"
    addr=$skiff_addr
  else
    # Emptied here: the poll below could otherwise read the previous peer's address before the
    # new peer's redirection truncates the file.
    : >"$tmp/peer.out"
    "$peer" t-false t-true >"$tmp/peer.out" 2>"$tmp/peer.err" &
    skiff_pid=$!
    for _ in $(seq 100); do [ -s "$tmp/peer.out" ] && break; sleep 0.1; done
    addr=$(head -n1 "$tmp/peer.out")
    [ -n "$addr" ] || { log "mock_peer did not start"; exit 1; }
  fi
}
for r in $(seq "$rounds"); do
  for broker in skiff peer; do
  for cadence in "${cadences[@]}"; do
  for t in false true; do
    start_broker "$broker"
    line=$(timeout 180 "$client" txn-produce --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic "t-$t" --size 1024 --seconds "$seconds" --transactional "$t" \
      ${cadence#*:} | grep '^result ') || { log "$broker transactional=$t failed"; exit 1; }
    echo "round=$r broker=$broker cadence=${cadence%%:*} ${line#result }" | tee -a "$raw"
    stop_skiff
  done
  done
  done
done

bench_summary "$raw" <<'PY'
print("\n| broker | cadence | producer | value MB/s | of baseline | commit (or flush) p50 ms | p99 ms |")
print("|---|---|---|---|---|---|---|")
for broker in ("skiff", "peer"):
    for cadence in ("100ms", "1000msgs"):
        pick = lambda t: [r for r in rows if r["broker"] == broker and r["cadence"] == cadence
                          and r["transactional"] == t]
        base, txn = pick("false"), pick("true")
        for name, rs in (("idempotent, flush", base), ("transactional, commit", txn)):
            print("| %s | %s | %s | %.0f | %.2fx | %.2f | %.2f |" % (
                "skiff" if broker == "skiff" else "librdkafka mock",
                "every 100 ms" if cadence == "100ms" else "every 1,000 msgs", name,
                med(rs, "mb_per_s"), med(rs, "mb_per_s") / med(base, "mb_per_s"),
                med(rs, "commit_p50_us") / 1000, med(rs, "commit_p99_us") / 1000))
PY
