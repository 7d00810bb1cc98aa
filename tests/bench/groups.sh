#!/usr/bin/env bash
# Consumer groups: how long a rebalance takes with the classic protocol and with KIP-848's
# consumer protocol, and what idle consumer-protocol members cost the broker.
#   rebalance  a group of N-1 members (10 and 100) holding a topic of 2N partitions settles, one
#              more member joins; the time from its join to every member holding its share of
#              the new balanced assignment. Heartbeats every 500 ms in both protocols (classic:
#              the client's heartbeat.interval; consumer: group.consumer.heartbeat.interval.ms),
#              group.initial.rebalance.delay.ms=0.
#   idle       1,000 consumer-protocol members heartbeating every 5 s (Kafka's default), the 100
#              that hold one of the topic's 100 partitions also long-polling it (nothing is
#              produced; 5 s fetch wait): the broker's CPU over 60 s, as a share of one core
#              (target: under 2%).
# Clients: @platformatic/kafka 1.35 (tests/integration/node, installed into the build directory
# with npm ci), one Node.js process per run. A fresh skiff and data directory per run; rounds
# A B A B ..., medians.
#
#   tests/bench/groups.sh [ROUNDS]   (default 3)
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-3}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" groups

bench_build bench-build.log skiff
skiff_bin=$build/broker/skiff
clients=$build/node-clients
mkdir -p "$clients"
cp "$root/tests/integration/node/package.json" "$root/tests/integration/node/package-lock.json" \
  "$clients/"
[ -d "$clients/node_modules/@platformatic/kafka" ] ||
  (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error)
cp "$root/tests/bench/groups.mjs" "$clients/"

bench_workdir "$(mktemp -d)"
overrides=(--override group.initial.rebalance.delay.ms=0
  --override group.consumer.heartbeat.interval.ms=500
  --override group.consumer.min.heartbeat.interval.ms=100 --override metrics.listener=)
for r in $(seq "$rounds"); do
  for members in 10 100; do
    for protocol in classic consumer; do
      skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" "${overrides[@]}"
      line=$(cd "$clients" && timeout 600 node groups.mjs rebalance "$skiff_addr" "$protocol" \
        "$members" $((2 * members)) | grep '^result ') ||
        { log "rebalance $protocol $members failed"; tail -20 "$tmp/skiff.log" >&2; exit 1; }
      echo "round=$r load=rebalance ${line#result }" | tee -a "$raw"
      stop_skiff
    done
  done
done

# Idle: once, 60 s (the members' own joins are not counted).
skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" --override metrics.listener=
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$skiff_pid/stat"; }
(cd "$clients" && exec node groups.mjs idle "$skiff_addr" 1000) >"$tmp/idle.out" 2>&1 &
idle_pid=$!
for _ in $(seq 600); do grep -q '^ready' "$tmp/idle.out" && break; sleep 1; done
grep -q '^ready' "$tmp/idle.out" || { cat "$tmp/idle.out" >&2; log "idle members never joined"; exit 1; }
sleep 10  # let the joins' rebalance settle
before=$(cpu)
sleep 60
after=$(cpu)
stop_process "$idle_pid"
echo "load=idle members=1000 cpu_pct=$(awk -v a="$after" -v b="$before" -v t="$ticks" \
  'BEGIN { printf "%.2f", (a - b) / t / 60 * 100 }')" | tee -a "$raw"
stop_skiff

bench_summary "$raw" <<'PY'
print("\n| members | classic: ms to the new assignment | consumer: ms | consumer / classic |")
print("|---|---|---|---|")
for n in ("10", "100"):
    c = [r for r in rows if r.get("load") == "rebalance" and r["members"] == n and r["protocol"] == "classic"]
    k = [r for r in rows if r.get("load") == "rebalance" and r["members"] == n and r["protocol"] == "consumer"]
    if c and k:
        print("| %s | %.0f | %.0f | %.2fx |" % (n, med(c, "ms"), med(k, "ms"), med(k, "ms") / med(c, "ms")))
idle = [r for r in rows if r.get("load") == "idle"]
if idle:
    print("\nbroker CPU, 1,000 idle consumer-protocol members heartbeating every 5 s: %.2f%% of a core"
          % float(idle[0]["cpu_pct"]))
PY
