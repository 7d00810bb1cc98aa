#!/usr/bin/env bash
# Cost of the metrics (issue 19): the same librdkafka producer (acks=1, 100-byte and 1 KiB
# values, one partition) and the same produce round-trip latency run (acks=all, 100-byte values,
# one message in flight) against skiff with the metrics endpoint off, and with it on and scraped
# every second by a curl loop, as Prometheus would. A fresh skiff and data directory per run,
# rounds A B A B ..., medians; each produce run lasts SECONDS (up to 3 GB), so it is scraped
# about once a second throughout. The request path updates its counters either way (they are not
# optional); the scraped runs add the endpoint's thread and a full /metrics every second.
#
#   tests/bench/metrics_overhead.sh [ROUNDS] [SECONDS]   (defaults: 5 rounds of 3 s)
#
# BASELINE_SKIFF=/path/to/skiff adds a third mode, "before": that binary (a build from before the
# metrics existed) with no metrics setting, to show what the counters on the request path cost.
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then a table.
# Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-5}
seconds=${2:-3}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" metrics-overhead

bench_build bench-build.log skiff bench_client
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client
command -v curl >/dev/null || { log "needs curl"; exit 1; }

tmp=$(mktemp -d /tmp/skiff-metrics-overhead.XXXXXX)
skiff_pid='' scraper_pid=''
stop_skiff() {
  [ -n "$scraper_pid" ] && { kill "$scraper_pid" 2>/dev/null || true; wait "$scraper_pid" 2>/dev/null || true; }
  scraper_pid=''
  [ -n "$skiff_pid" ] || return 0
  stop_process "$skiff_pid"
  skiff_pid=''
  rm -rf "$tmp/data"
}
trap 'stop_skiff; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# start_skiff before|off|scraped: sets addr; "scraped" also starts the once-a-second scraper.
start_skiff() {
  local listener='' bin=$skiff_bin setting=()
  [ "$1" = scraped ] && listener=HTTP://127.0.0.1:0
  if [ "$1" = before ]; then bin=$BASELINE_SKIFF; else setting=(--override "metrics.listener=$listener"); fi
  skiff_start "$bin" "$tmp/data" "$tmp/skiff.log" "${setting[@]}"
  addr=$skiff_addr
  if [ "$1" = scraped ]; then
    local url
    url=$(grep -o 'metrics on http://[0-9.:]*/metrics' "$tmp/skiff.log" | sed 's/metrics on //')
    [ -n "$url" ] || { log "no metrics endpoint in the log"; exit 1; }
    (while sleep 1; do curl -sf -o /dev/null "$url" || echo "scrape failed" >&2; done) &
    scraper_pid=$!
  fi
}

raw=$tmp/raw.txt
: >"$raw"
modes=(off scraped)
[ -n "${BASELINE_SKIFF:-}" ] && modes=(before off scraped)
for r in $(seq "$rounds"); do
  for mode in "${modes[@]}"; do
    for size in 100 1024; do
      start_skiff "$mode"
      line=$(timeout 120 "$client" produce --bootstrap "$addr" --broker-pid "$skiff_pid" \
        --topic "p-$size" --size "$size" --acks 1 --max-bytes 3000000000 --seconds "$seconds" \
        | grep '^result ') || { log "produce $mode size=$size failed"; exit 1; }
      echo "round=$r metrics=$mode size=$size ${line#result }" | tee -a "$raw"
      stop_skiff
    done
    start_skiff "$mode"
    line=$(timeout 120 "$client" latency --bootstrap "$addr" --broker-pid "$skiff_pid" \
      --topic lat --size 100 --count 2000 --seconds "$seconds" | grep '^result ') \
      || { log "latency $mode failed"; exit 1; }
    echo "round=$r metrics=$mode size=100 ${line#result }" | tee -a "$raw"
    stop_skiff
  done
done

bench_summary "$raw" <<'PY'
before = any(r["metrics"] == "before" for r in rows)
modes = (["before"] if before else []) + ["off", "scraped"]
names = {"before": "before the metrics", "off": "endpoint off", "scraped": "scraped every second"}
print("\n| workload | " + " | ".join(names[m] for m in modes) + " | scraped / %s |"
      % ("before" if before else "off"))
print("|---|" + "---|" * (len(modes) + 1))
def row(label, values, fmt):
    print("| %s | %s | %.2fx |" % (label, " | ".join(fmt % v for v in values), values[-1] / values[0]))
for size in ("100", "1024"):
    pick = lambda m: [r for r in rows if r["metrics"] == m and r["size"] == size
                      and r["workload"] == "produce"]
    row("produce %s B, acks=1 (MB/s)" % size, [med(pick(m), "mb_per_s") for m in modes], "%.0f")
lat = lambda m, k: med([r for r in rows if r["metrics"] == m and r["workload"] == "latency"], k)
for k, name in (("p50_us", "p50"), ("p99_us", "p99")):
    row("produce round trip %s, acks=all (us)" % name, [lat(m, k) for m in modes], "%.0f")
PY
