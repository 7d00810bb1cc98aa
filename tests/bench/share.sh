#!/usr/bin/env bash
# Share groups (KIP-932) against a classic consumer group on the same data: one producer fills a
# topic of 4 partitions with RECORDS records of 1 KiB, then
#   share  4 share consumers (tests/integration/node/kafka_ts_share_consumer.mjs, quiet mode:
#          every record accepted, acknowledgements piggy-backed on the next ShareFetch, one
#          batch per fetch of up to 500 records) of a fresh share group read them all;
#   group  4 classic consumer-group consumers of the same client library (kafka-ts 1.5's
#          startConsumer) read them all.
# Reported per run: MB/s from the consumers' start to the last record (group join included) and
# in the steady state (first to last record), the broker's CPU per GB consumed
# (utime+stime of /proc/PID/stat before and after), and for share the records written to
# __share_group_state per record consumed (from `skiff dump-log` of its partitions after a
# clean stop: it must be per batch, far below 1). Clients in one Node.js process per run; a fresh
# skiff and data directory per run; rounds share, group, share, group ..., medians.
#
#   tests/bench/share.sh [ROUNDS] [RECORDS]   (defaults 3, 200000: 195 MiB)
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-3}
records=${2:-200000}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" share

bench_build bench-build.log skiff
skiff_bin=$build/broker/skiff
clients=$build/node-clients
mkdir -p "$clients"
cp "$root/tests/integration/node/package.json" "$root/tests/integration/node/package-lock.json" \
  "$clients/"
[ -d "$clients/node_modules/kafka-ts" ] ||
  (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error)
cp "$root/tests/bench/share.mjs" "$root/tests/integration/node/kafka_ts_share_consumer.mjs" \
  "$root/tests/integration/node/kafka_ts_share_bad_input.mjs" "$clients/"

bench_workdir "$(mktemp -d)"
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$skiff_pid/stat"; }
overrides=(--override group.initial.rebalance.delay.ms=0 --override metrics.listener=
  --override schema.registry.listeners= --override console.listeners=)

# Records in __share_group_state: the sum of the batches' counts in its partitions' logs.
state_records() {
  local n=0 f
  for f in "$tmp"/data/__share_group_state-*/*.log; do
    [ -e "$f" ] || continue
    n=$((n + $("$skiff_bin" dump-log "$f" | awk '/^baseOffset:/ { for (i = 1; i < NF; i++)
      if ($i == "count:") s += $(i + 1) } END { print s + 0 }')))
  done
  echo "$n"
}

for r in $(seq "$rounds"); do
  for load in share group; do
    skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" "${overrides[@]}"
    (cd "$clients" && node share.mjs fill "$skiff_addr" bench 4 "$records") | grep '^result ' \
      >"$tmp/fill.out" || { log "fill failed"; tail -20 "$tmp/skiff.log" >&2; exit 1; }
    before=$(cpu)
    if [ "$load" = share ]; then
      # The group reads from the earliest offset (share.auto.offset.reset, a group config).
      (cd "$clients" && node kafka_ts_share_consumer.mjs group-config "$skiff_addr" bench-share \
        share.auto.offset.reset=earliest) | grep -q '"error":0' ||
        { log "group config refused"; exit 1; }
      config="{\"group\":\"bench-share\",\"topic\":\"bench\",\"quiet\":true,\"stopAfterFinal\":$records,
        \"maxMs\":600000,\"maxRecords\":500,\"batchSize\":500,\"maxWaitMs\":500,
        \"members\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"},{\"name\":\"d\"}]}"
      done=$(cd "$clients" && node kafka_ts_share_consumer.mjs consume "$skiff_addr" "$config" |
        grep '"event":"done"') || { log "share consumers failed"; tail -20 "$tmp/skiff.log" >&2; exit 1; }
      after=$(cpu)
      line=$(/usr/bin/python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print("records=%d bytes=%d ms=%d steady_ms=%d ack_errors=%d" % (d["final"], d["bytes"],
      d["lastDeliveryMs"], d["lastDeliveryMs"] - d["firstDeliveryMs"], d["ackErrors"]))' "$done")
    else
      line=$(cd "$clients" && node share.mjs group "$skiff_addr" bench bench-group "$records" 4 |
        grep '^result ') || { log "group consumers failed"; tail -20 "$tmp/skiff.log" >&2; exit 1; }
      after=$(cpu)
      line=${line#result load=group }
    fi
    cpu_s=$(awk -v a="$after" -v b="$before" -v t="$ticks" 'BEGIN { printf "%.2f", (a - b) / t }')
    # A clean stop first: dump-log reads the state log as the broker left it.
    stop_process "$skiff_pid"
    skiff_pid=''
    state=$(state_records)
    rm -rf "$tmp/data"
    echo "round=$r load=$load $line cpu_s=$cpu_s state_records=$state" | tee -a "$raw"
  done
done

bench_summary "$raw" <<'PY'
def mbs(r, key):
    return float(r["bytes"]) / 1048576 / (float(r[key]) / 1000)
def gb_cpu(r):
    return float(r["cpu_s"]) / (float(r["bytes"]) / 2**30)
print("\n| consumers (4, kafka-ts 1.5) | MB/s, start to last record | MB/s, steady state | broker CPU s per GB consumed | __share_group_state records per record consumed |")
print("|---|---|---|---|---|")
res = {}
for load in ("share", "group"):
    rs = [r for r in rows if r.get("load") == load]
    if not rs:
        continue
    res[load] = (statistics.median(mbs(r, "ms") for r in rs),
                 statistics.median(mbs(r, "steady_ms") for r in rs))
    per = statistics.median(float(r["state_records"]) / float(r["records"]) for r in rs)
    print("| %s | %.1f | %.1f | %.1f | %s |" % (
        "share group" if load == "share" else "classic group", res[load][0], res[load][1],
        statistics.median(gb_cpu(r) for r in rs), "%.4f" % per if load == "share" else "-"))
if len(res) == 2:
    print("\nshare / classic: %.2fx start to last record, %.2fx steady state (target: >= 0.7x)"
          % (res["share"][0] / res["group"][0], res["share"][1] / res["group"][1]))
PY
