#!/usr/bin/env bash
# Restart time after kill -9 (and a clean start with many segments): from exec to the first
# answered ApiVersions, with a warm and a cold page cache. See restart.py for one data point.
#
#   tests/bench/restart.sh [--skiff BIN] [--data DIR] [--sizes "100 1000 4000"]
#                          [--partitions "10 100"] [--segments "1073741824 1048576"]
#                          [--cache cold,warm] [--clean-start-only] [--no-clean-start]
#
# Sizes are MB (10^6 bytes) of values written since the last (here: no) clean start. Builds
# Release in build-bench/ (or $BENCH_BUILD_DIR) unless --skiff is given (bench_client still comes
# from the build dir). Needs root for the cold runs (drop_caches). Prints "result ..." lines;
# the raw output is also appended to $BENCH_BUILD_DIR/restart-results.txt.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build-bench}
skiff_bin='' data=/tmp/skiff-restart-bench/data
sizes="100 1000 4000" partitions="10 100" segments="1073741824 1048576" cache=cold,warm
clean_start=yes crash=yes extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --skiff) skiff_bin=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --partitions) partitions=$2; shift 2 ;;
    --segments) segments=$2; shift 2 ;;
    --cache) cache=$2; shift 2 ;;
    --extra) extra+=(--extra "$2"); shift 2 ;;
    --clean-start-only) crash=no; shift ;;
    --no-clean-start) clean_start=no; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

. "$root/tests/bench/common.sh" restart
if [ -z "$skiff_bin" ] || [ ! -x "$build/tests/bench/bench_client" ]; then
  log "building Release in $build"
  bench_build restart-build.log skiff bench_client
fi
skiff_bin=${skiff_bin:-$build/broker/skiff}
client=$build/tests/bench/bench_client
mkdir -p "$(dirname "$data")"
out=$build/restart-results.txt
log "skiff $skiff_bin ($(cd "$root" && git rev-parse --short HEAD)), results also in $out"
echo "# $(date -u +%FT%TZ) $skiff_bin $*" >>"$out"

run() { /usr/bin/python3 "$root/tests/bench/restart.py" --skiff "$skiff_bin" --client "$client" \
  --data "$data" "${extra[@]}" "$@" | tee -a "$out"; }

if [ "$crash" = yes ]; then
  for seg in $segments; do
    for p in $partitions; do
      for mb in $sizes; do
        log "kill -9: ${mb} MB over $p partitions, segments of $seg bytes"
        run --partitions "$p" --bytes $((mb * 1000000)) --segment-bytes "$seg" --cache "$cache"
      done
    done
  done
fi
if [ "$clean_start" = yes ]; then
  # 1,000 partitions of ${CLEAN_SEGMENTS:-20} segments each: 16 KiB segments holding about one
  # batch of at most 15,000 bytes (1,000-byte values). An idle partition holds one descriptor
  # (its active .log; sealed segments open on read), so 20,000 segments fit this sandbox's
  # descriptor limit of 20,000, which three per segment (before) did not.
  per=${CLEAN_SEGMENTS:-20}
  log "clean start: 1000 partitions x ~$per segments"
  run --partitions 1000 --bytes $((1000 * (per - 1) * 15000)) --segment-bytes 16384 \
    --value-size 1000 --batch-size 15000 --clean-start --cache "$cache"
fi
rm -rf "$data" "$data.log"
