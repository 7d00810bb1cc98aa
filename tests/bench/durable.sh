#!/usr/bin/env bash
# Durable mode against the default: acks=all produce with log.flush.interval.messages=1 (every
# acknowledged batch fdatasynced first, concurrent requests sharing one sync per partition: group
# commit) and with the default flush settings, for 1, 10 and 100 concurrent librdkafka producers
# (bench_client clients: one handle and thread each, 1 KiB values, one partition), in two loads:
#   throughput  at most 100 messages unacknowledged per producer, librdkafka's own batching
#   latency     one message at a time per producer and linger.ms=0: produce() to delivery report
#               is one request's round trip, the figure to hold against the disk's sync time
#   paced       as latency, but the producers together send 2,000 messages/s on a fixed schedule
#               (bench_client --rate): the round trip at a load this 2-core machine carries with
#               cores to spare, where latency's closed loop saturates them (clients and broker
#               share the cores, and a busy core delays the disk's own completions)
# Beside them, this disk's own fdatasync latency (fdatasync_latency.py, 4 KiB appends, on the
# data directory's file system), since that is what durable mode waits for. A fresh skiff and
# data directory per run, rounds A B C ... A B C ..., medians.
#
#   tests/bench/durable.sh [ROUNDS] [SECONDS]   (defaults: 3 rounds of 5 s)
#   DURABLE_LOADS="latency paced" tests/bench/durable.sh ...   (some of the loads only)
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then a table.
# Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-3}
seconds=${2:-5}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" durable

bench_build bench-build.log skiff bench_client
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client

# On disk (not /tmp if that were a tmpfs): the point is the disk's sync cost.
bench_workdir "$(mktemp -d "$root/.bench-durable.XXXXXX")"
printf 'linger.ms=0\n' >"$tmp/no-linger.conf"
loads=("throughput:--max-outstanding 100" "latency:--max-outstanding 1 --conf-file $tmp/no-linger.conf"
  "paced:--max-outstanding 1 --conf-file $tmp/no-linger.conf --rate PACE")
paced_total=2000
for r in $(seq "$rounds"); do
  line=$(/usr/bin/python3 "$root/tests/bench/fdatasync_latency.py" "$tmp" 1000 4096)
  echo "round=$r mode=disk ${line#result }" | tee -a "$raw"
  # The same with every core kept busy (one spinning process per core), as the loads below keep
  # them: on this VM a sync's completion waits for a core too.
  spinners=()
  for _ in $(seq "$(nproc)"); do timeout 60 sh -c 'while :; do :; done' & spinners+=($!); done
  line=$(/usr/bin/python3 "$root/tests/bench/fdatasync_latency.py" "$tmp" 1000 4096)
  kill "${spinners[@]}" 2>/dev/null || true
  wait "${spinners[@]}" 2>/dev/null || true
  echo "round=$r mode=disk-busy ${line#result }" | tee -a "$raw"
  for load in "${loads[@]}"; do
  [[ " ${DURABLE_LOADS:-throughput latency paced} " == *" ${load%%:*} "* ]] || continue
  for producers in 1 10 100; do
  for mode in default durable; do
    extra=()
    [ "$mode" = durable ] && extra=(--override log.flush.interval.messages=1)
    skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" "${extra[@]}"
    options=${load#*:}
    options=${options/PACE/$(awk "BEGIN { print $paced_total / $producers }")}
    # shellcheck disable=SC2086 # the load's options, split on purpose
    line=$(timeout 300 "$client" clients --bootstrap "$skiff_addr" --broker-pid "$skiff_pid" \
      --topic durable --partitions 1 --producers "$producers" --acks all --size 1024 \
      --seconds "$seconds" $options | grep '^result ') ||
      { log "$mode with $producers failed"; exit 1; }
    echo "round=$r load=${load%%:*} mode=$mode ${line#result }" | tee -a "$raw"
    stop_skiff
  done
  done
  done
done

bench_summary "$raw" <<'PY'
disk = [r for r in rows if r["mode"] == "disk"]
busy = [r for r in rows if r["mode"] == "disk-busy"]
print("\nfdatasync of this disk (4 KiB appends): p50 %.2f ms, p99 %.2f ms; with every core busy: "
      "p50 %.2f ms, p99 %.2f ms" % (med(disk, "p50_us") / 1000, med(disk, "p99_us") / 1000,
                                    med(busy, "p50_us") / 1000, med(busy, "p99_us") / 1000))
print("\n| load | producers | mode | msgs/s | MB/s | of default | p50 ms | p99 ms | p99 / fdatasync p99 | late sends |")
print("|---|---|---|---|---|---|---|---|---|---|")
for load in ("throughput", "latency", "paced"):
    for n in ("1", "10", "100"):
        pick = lambda mode: [r for r in rows if r.get("load") == load and r["mode"] == mode
                             and r.get("producers") == n]
        base = pick("default")
        if not base:
            continue
        for mode in ("default", "durable"):
            rs = pick(mode)
            print("| %s | %s | %s | %.0f | %.2f | %.2fx | %.2f | %.2f | %.1f | %.0f |" % (
                load, n, mode, med(rs, "msgs_per_s"), med(rs, "mb_per_s"),
                med(rs, "msgs_per_s") / med(base, "msgs_per_s"), med(rs, "p50_us") / 1000,
                med(rs, "p99_us") / 1000, med(rs, "p99_us") / med(disk, "p99_us"),
                med(rs, "late")))
PY
