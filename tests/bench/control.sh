#!/usr/bin/env bash
# Cost of the test-control API (issue 35), and how long its reset and snapshots take.
#
# 1. The same librdkafka producer (acks=1, 1 KiB values), consumer (1 KiB values, re-reading a
#    filled topic) and produce round trip (acks=all, 100-byte values, one in flight) against
#    skiff with the control API off, on with no rules, and on with a rule that matches nothing
#    (a Produce error for a topic nobody writes: every request is captured and matched). A fresh
#    skiff and data directory per run, rounds A B C A B C ..., medians.
# 2. Reset: 100 topics with a message each, then POST /control/reset (its total_ms).
# 3. Snapshot and restore of SNAPSHOT_MB (default 1024) MB: one topic filled with 1 KiB values,
#    a snapshot taken, the topic written on and then the snapshot restored; the partition's .log
#    bytes (sha256) must equal those before the snapshot. Times from the API's answers.
#
#   tests/bench/control.sh [ROUNDS] [SECONDS]   (defaults: 3 rounds of 2 s)
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then tables.
# Never fails on a number; fails when the restored contents differ.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-3}
seconds=${2:-2}
snapshot_mb=${SNAPSHOT_MB:-1024}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" control

bench_build bench-build.log skiff bench_client
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client
command -v curl >/dev/null || { log "needs curl"; exit 1; }

bench_workdir "$(mktemp -d /tmp/skiff-control-bench.XXXXXX)"

# start_skiff off|on|nomatch: sets addr, and url (the control API) unless off.
start_skiff() {
  local settings=(--override metrics.listener=HTTP://127.0.0.1:0)
  [ "$1" != off ] && settings+=(--override control.api.enable=true)
  skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" "${settings[@]}"
  addr=$skiff_addr
  url=$(grep -o 'metrics on http://[0-9.:]*' "$tmp/skiff.log" | sed 's/metrics on //')/control
  if [ "$1" = nomatch ]; then
    curl -sf -o /dev/null -X POST "$url/faults" \
      -d '{"api":"Produce","topic":"nobody-writes-here","action":"error","error":"NOT_LEADER_OR_FOLLOWER"}'
  fi
}

for r in $(seq "$rounds"); do
  for mode in off on nomatch; do
    start_skiff "$mode"
    line=$(timeout 120 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic p --size 1024 --acks 1 --max-bytes 3000000000 --seconds "$seconds" \
      | grep '^result ') || { log "produce $mode failed"; exit 1; }
    echo "round=$r control=$mode ${line#result }" | tee -a "$raw"
    timeout 120 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" --topic c --size 1024 --acks 1 \
      --max-bytes 4194304 --seconds 60 >/dev/null
    line=$(timeout 120 "$client" consume --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic c --pass-bytes 4194304 --max-bytes 100000000000 --seconds "$seconds" \
      | grep '^result ') || { log "consume $mode failed"; exit 1; }
    echo "round=$r control=$mode ${line#result }" | tee -a "$raw"
    line=$(timeout 120 "$client" latency --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic lat --size 100 --count 2000 --seconds "$seconds" | grep '^result ') \
      || { log "latency $mode failed"; exit 1; }
    echo "round=$r control=$mode ${line#result }" | tee -a "$raw"
    stop_skiff
  done
done

bench_summary "$raw" <<'PY'
modes = ["off", "on", "nomatch"]
names = {"off": "API off", "on": "on, no rules", "nomatch": "on, a rule matching nothing"}
print("\n| workload | " + " | ".join(names[m] for m in modes) + " | on / off | rule / off |")
print("|---|" + "---|" * (len(modes) + 2))
def row(label, values, fmt):
    print("| %s | %s | %.2fx | %.2fx |" % (label, " | ".join(fmt % v for v in values),
                                            values[1] / values[0], values[2] / values[0]))
pick = lambda m, w: [r for r in rows if r["control"] == m and r["workload"] == w]
row("produce 1 KiB, acks=1 (MB/s)", [med(pick(m, "produce"), "mb_per_s") for m in modes], "%.0f")
row("consume 1 KiB (MB/s)", [med(pick(m, "consume"), "mb_per_s") for m in modes], "%.0f")
for k, name in (("p50_us", "p50"), ("p99_us", "p99")):
    row("produce round trip %s, acks=all (us)" % name,
        [med(pick(m, "latency"), k) for m in modes], "%.0f")
PY

# --- reset and snapshots ---------------------------------------------------------------------
start_skiff on
for i in $(seq 100); do
  timeout 60 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" --topic "r$i" --size 100 --acks 1 \
    --max-bytes 100 --seconds 10 >/dev/null
done
reset=$(curl -sf -X POST "$url/reset" -d '{}')
echo "result reset topics=100 $reset"
timeout 600 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" --topic big --size 1024 --acks 1 \
  --max-bytes $((snapshot_mb * 1024 * 1024)) --seconds 600 >/dev/null
sum_logs() { cat "$tmp/data"/big-0/*.log | sha256sum | cut -d' ' -f1; }
before=$(sum_logs)
took=$(curl -sf -X POST "$url/snapshots/fixture")
echo "result snapshot_take mb=$snapshot_mb $took"
timeout 120 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" --topic big --size 1024 --acks 1 \
  --max-bytes $((64 * 1024 * 1024)) --seconds 60 >/dev/null
[ "$(sum_logs)" != "$before" ] || { log "writing on did not change the log"; exit 1; }
took=$(curl -sf -X POST "$url/snapshots/fixture/restore")
echo "result snapshot_restore mb=$snapshot_mb $took"
after=$(sum_logs)
if [ "$after" != "$before" ]; then
  log "restored contents differ from the snapshot's"
  exit 1
fi
echo "result snapshot_contents equal sha256=$before"
stop_skiff
