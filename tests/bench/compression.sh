#!/usr/bin/env bash
# Cost of compression.type: the same librdkafka producer (compression.codec=lz4, 1 KiB values,
# acks=1) against skiff with the broker's compression.type set to each case below, a fresh skiff
# and data directory per run, rounds A B C A B C ..., medians printed. The broker setting is the
# default of the auto-created topic, so every batch takes the path under test:
#   producer  stored as sent (no decompression: today's behaviour and Kafka's default)
#   lz4       the producer's codec: stored as sent after the codec check
#   zstd      every batch decompressed (lz4), checked, compressed with zstd and rebuilt
#   uncompressed  decompressed and stored without a codec
#
#   tests/bench/compression.sh [ROUNDS] [SECONDS] [VALUES]   (defaults: 5 rounds of 3 s, text)
#
# VALUES is bench_client's --values: text (every value a different slice of random words,
# log-like data: lz4 about 2x) or repeated (one value repeated, about 100x: the codecs'
# best case, where the broker's work per byte is smallest).
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then a table:
# value MB/s (MB = 10^6 bytes) and broker CPU seconds per GB of values. Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-5}
seconds=${2:-3}
values=${3:-text}
build=${BENCH_BUILD_DIR:-$root/build-bench}
size=1024
cases=(producer lz4 zstd uncompressed)
. "$root/tests/bench/common.sh" compression

bench_build bench-build.log skiff bench_client
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client

bench_workdir "$(mktemp -d /tmp/skiff-compression.XXXXXX)"
for r in $(seq "$rounds"); do
  for c in "${cases[@]}"; do
    skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" --override "compression.type=$c"
    line=$(timeout 180 "$client" produce --bootstrap "$skiff_addr" --broker-pid "$skiff_pid" \
      --topic "t-$c" --size "$size" --acks 1 --max-bytes 2000000000 --seconds "$seconds" \
      --compression lz4 --values "$values" | grep '^result ') || { log "$c failed"; exit 1; }
    stored=$(du -sk "$tmp/data" | cut -f1)
    echo "case=$c round=$r stored_kib=$stored ${line#result }" | tee -a "$raw"
    stop_skiff
  done
done

bench_summary "$raw" "${cases[@]}" <<'PY'
cases = args
print("\n| topic compression.type (producer sends lz4) | value MB/s | broker CPU s per GB | "
      "stored bytes per value byte |")
print("|---|---|---|---|")
for c in cases:
    rs = [r for r in rows if r["case"] == c]
    mbps = med(rs, "mb_per_s")
    cpu = statistics.median(float(r["broker_cpu_s"]) / (float(r["bytes"]) / 1e9) for r in rs)
    ratio = statistics.median(int(r["stored_kib"]) * 1024 / float(r["bytes"]) for r in rs)
    print("| `%s` | %.0f | %.2f | %.3f |" % (c, mbps, cpu, ratio))
PY
