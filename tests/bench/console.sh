#!/usr/bin/env bash
# Cost of the web console (issue 38) on produce and fetch.
#
# The same librdkafka producer (acks=1, 1 KiB values), consumer (1 KiB values, re-reading a
# filled topic) and produce round trip (acks=all, 100-byte values, one in flight) against skiff
# with the console off (console.listeners empty), on with nobody looking, and on with the
# overview page open (its 5 s poll of /api/overview, made here with curl, and the messages view
# of the topic being produced to read once a second). A fresh skiff and data directory per run,
# rounds A B C A B C ..., medians.
#
#   tests/bench/console.sh [ROUNDS] [SECONDS]   (defaults: 3 rounds of 2 s)
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then a table.
# Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-3}
seconds=${2:-2}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" console

bench_build bench-build.log skiff bench_client
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client
command -v curl >/dev/null || { log "needs curl"; exit 1; }

bench_workdir "$(mktemp -d /tmp/skiff-console-bench.XXXXXX)"
watcher=''

# start_skiff off|idle|watched: sets addr, and console (its URL) unless off.
start_skiff() {
  local settings=(--override metrics.listener= --override schema.registry.listeners=)
  if [ "$1" = off ]; then
    settings+=(--override console.listeners=)
  else
    settings+=(--override console.listeners=http://127.0.0.1:0)
  fi
  skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" "${settings[@]}"
  addr=$skiff_addr
  console=''
  if [ "$1" != off ]; then
    # The console's line follows the Kafka listener's by a moment.
    for _ in $(seq 100); do
      console=$(grep -o 'console on http://[0-9.:]*' "$tmp/skiff.log" | sed 's/console on //' || true)
      [ -n "$console" ] && break
      sleep 0.05
    done
    [ -n "$console" ] || { log "skiff logged no console"; exit 1; }
  fi
  if [ "$1" = watched ]; then
    (
      i=0
      while true; do
        [ $((i % 5)) -eq 0 ] && curl -s -o /dev/null "$console/api/overview"
        for t in p c lat; do
          curl -s -o /dev/null "$console/api/topics/$t/partitions/0/records?from=end&limit=50"
        done
        i=$((i + 1))
        sleep 1
      done
    ) &
    watcher=$!
  fi
}

stop_all() {
  if [ -n "$watcher" ]; then
    kill "$watcher" 2>/dev/null || true
    wait "$watcher" 2>/dev/null || true
    watcher=''
  fi
  stop_skiff
}

for r in $(seq "$rounds"); do
  for mode in off idle watched; do
    start_skiff "$mode"
    line=$(timeout 120 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic p --size 1024 --acks 1 --max-bytes 3000000000 --seconds "$seconds" \
      | grep '^result ') || { log "produce $mode failed"; exit 1; }
    echo "round=$r console=$mode ${line#result }" | tee -a "$raw"
    timeout 120 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" --topic c --size 1024 --acks 1 \
      --max-bytes 4194304 --seconds 60 >/dev/null
    line=$(timeout 120 "$client" consume --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic c --pass-bytes 4194304 --max-bytes 100000000000 --seconds "$seconds" \
      | grep '^result ') || { log "consume $mode failed"; exit 1; }
    echo "round=$r console=$mode ${line#result }" | tee -a "$raw"
    line=$(timeout 120 "$client" latency --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic lat --size 100 --count 2000 --seconds "$seconds" | grep '^result ') \
      || { log "latency $mode failed"; exit 1; }
    echo "round=$r console=$mode ${line#result }" | tee -a "$raw"
    stop_all
  done
done

bench_summary "$raw" <<'PY'
modes = ["off", "idle", "watched"]
names = {"off": "console off", "idle": "on, nobody looking", "watched": "on, pages open"}
print("\n| workload | " + " | ".join(names[m] for m in modes) + " | idle / off | watched / off |")
print("|---|" + "---|" * (len(modes) + 2))
def row(label, values, fmt):
    print("| %s | %s | %.2fx | %.2fx |" % (label, " | ".join(fmt % v for v in values),
                                            values[1] / values[0], values[2] / values[0]))
pick = lambda m, w: [r for r in rows if r["console"] == m and r["workload"] == w]
row("produce 1 KiB, acks=1 (MB/s)", [med(pick(m, "produce"), "mb_per_s") for m in modes], "%.0f")
row("consume 1 KiB (MB/s)", [med(pick(m, "consume"), "mb_per_s") for m in modes], "%.0f")
for k, name in (("p50_us", "p50"), ("p99_us", "p99")):
    row("produce round trip %s, acks=all (us)" % name,
        [med(pick(m, "latency"), k) for m in modes], "%.0f")
PY
