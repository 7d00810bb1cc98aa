#!/usr/bin/env bash
# Side-by-side benchmark: skiff against librdkafka's in-memory mock broker (the peer), with the
# machine's own limits measured in the same run.
#
#   tests/bench/run.sh [--short]
#
# The partition-count and client-count sweeps are tests/bench/sweep.sh (--short runs its --quick
# smoke point at the end).
#
# Builds Release in build-bench/ (or $BENCH_BUILD_DIR), starts skiff on an ephemeral port with
# a temporary data directory and the mock peer, then runs every workload against both, A B A B,
# for several rounds, and reports medians. A full run writes tests/bench/RESULTS.md and
# tests/bench/throughput.png; --short (a smoke run for CI, about two minutes once built) writes
# them under the build directory instead, so the committed results stay those of a full run.
# Never fails on a number; fails only when something does not work.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

mode=full
[ "${1:-}" = "--short" ] && mode=short
build=${BENCH_BUILD_DIR:-$root/build-bench}

if [ "$mode" = full ]; then
  rounds=7 produce_s=3 produce_max=400000000 consume_s=2 latency_count=2000 latency_s=5
  pagecache_mib=512 loopback_s=1 out_dir=$root/tests/bench
else
  rounds=3 produce_s=0.4 produce_max=40000000 consume_s=0.4 latency_count=200 latency_s=1
  pagecache_mib=128 loopback_s=0.3 out_dir=$build/bench-results
fi
# Consume runs read a topic holding 4 MiB of values, within the peer's ~5 MiB per partition.
consume_bytes=$((4 * 1024 * 1024))
sizes=(100 1024 65536)

. "$root/tests/bench/common.sh" bench

# --- build -----------------------------------------------------------------------------------
log "building Release in $build"
bench_build bench-build.log skiff bench_client mock_peer machine_limits
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client
for f in "$skiff_bin" "$client" "$build/tests/bench/mock_peer" "$build/tests/bench/machine_limits"; do
  [ -x "$f" ] || { log "missing $f after the build"; exit 1; }
done

if ! command -v gnuplot >/dev/null; then
  log "installing gnuplot-nox for the plot"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo -n)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    gnuplot-nox >/dev/null 2>&1 || log "could not install gnuplot-nox; the plot is skipped"
fi

# --- brokers ---------------------------------------------------------------------------------
tmp=$(mktemp -d /tmp/skiff-bench.XXXXXX)
# A tmpfs directory for the diagnostic latency run (skiff without a file system under it).
shm_tmp=''
[ -d /dev/shm ] && [ -w /dev/shm ] && shm_tmp=$(mktemp -d /dev/shm/skiff-bench.XXXXXX)
skiff_pid='' peer_pid=''
cleanup() {
  stop_process "$skiff_pid"
  stop_process "$peer_pid"
  rm -rf "$tmp" "$shm_tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

topics=()
for r in $(seq "$rounds"); do
  for s in "${sizes[@]}"; do topics+=("p-r$r-s$s-a1" "p-r$r-s$s-aall"); done
  for s in "${sizes[@]}"; do topics+=("c-r$r-s$s"); done
  topics+=("lat-r$r")
done

# skiff is restarted with an empty data directory before each of its produce runs (the old
# directory is deleted). On this kind of machine, once a few GB of earlier runs' segments sit
# dirty in the page cache, new file writes slow to the disk's write-back speed (measured: the
# page-cache write limit fell from ~3 GB/s to ~0.3 GB/s after the first GB); without restarts
# every produce run after the first would measure the disk of the machine, not the broker.
# start_skiff [DATA_DIR] (default: under $tmp, on the disk skiff normally writes to).
skiff_gen=0
skiff_data=''
start_skiff() {
  if [ -n "$skiff_pid" ]; then
    stop_process "$skiff_pid"
    rm -rf "$skiff_data"
  fi
  skiff_data=${1:-$tmp/skiff-data}
  skiff_gen=$((skiff_gen + 1))
  skiff_start "$skiff_bin" "$skiff_data" "$tmp/skiff-$skiff_gen.log"
}

"$build/tests/bench/mock_peer" "${topics[@]}" >"$tmp/peer.out" 2>"$tmp/peer.err" &
peer_pid=$!
start_skiff
peer_addr=''
# The mock takes about a quarter of a second per topic it creates (17 s for the 70 topics of a
# full run), so wait up to two minutes.
for _ in $(seq 1200); do
  peer_addr=$(head -1 "$tmp/peer.out" | tr -d '\r\n') || true
  [ -n "$peer_addr" ] && break
  kill -0 "$peer_pid" 2>/dev/null || { cat "$tmp/peer.err" >&2; log "mock_peer exited"; exit 1; }
  sleep 0.1
done
[ -n "$peer_addr" ] || { log "mock_peer did not start"; exit 1; }
log "skiff at $skiff_addr (pid $skiff_pid), peer at $peer_addr (pid $peer_pid)"

# --- workloads -------------------------------------------------------------------------------
raw=$tmp/raw.txt
: >"$raw"
# Runs one client workload against one broker and appends its result line with labels.
bench() { # broker round workload size acks args...
  local broker=$1 round=$2 workload=$3 size=$4 acks=$5
  shift 5
  local addr=$skiff_addr pid=$skiff_pid
  [ "$broker" = peer ] && addr=$peer_addr pid=$peer_pid  # skiff-tmpfs: skiff on tmpfs
  local line
  local command=$workload
  [ "$workload" = fill ] && command=produce
  line=$(timeout 180 "$client" "$command" --bootstrap "$addr" --broker-pid "$pid" "$@" \
    | grep '^result ') || { log "$broker $workload size=$size acks=$acks failed"; exit 1; }
  line=${line#result }
  [ "$workload" = fill ] && line=${line/workload=produce/workload=fill}
  echo "broker=$broker round=$round size=$size acks=$acks $line" >>"$raw"
  log "$broker r$round $workload size=$size acks=$acks: $line"
}

machine_limits=$build/tests/bench/machine_limits
start_load=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)
# Footprint: exec to the first answered ApiVersions on an empty data directory, and idle RSS.
log "start-up time and idle memory ($rounds starts)"
/usr/bin/python3 tests/bench/startup.py --skiff "$skiff_bin" --rounds "$rounds" |
  grep ' round=' | sed 's/^result workload=startup /startup /' >>"$raw"
for r in $(seq "$rounds"); do
  log "round $r of $rounds"
  echo "limit round=$r $("$machine_limits" pagecache "$tmp/cached.bin" "$pagecache_mib" \
    | sed 's/^result //')" >>"$raw"
  echo "limit round=$r $("$machine_limits" loopback "$tmp/cached.bin" "$loopback_s" \
    | sed 's/^result //')" >>"$raw"
  rm -f "$tmp/cached.bin"
  for s in "${sizes[@]}"; do
    for acks in 1 all; do
      for b in skiff peer; do
        [ "$b" = skiff ] && start_skiff
        bench "$b" "$r" produce "$s" "$acks" --topic "p-r$r-s$s-a$acks" --size "$s" \
          --acks "$acks" --max-bytes "$produce_max" --seconds "$produce_s"
      done
    done
    for b in skiff peer; do
      bench "$b" "$r" fill "$s" 1 --topic "c-r$r-s$s" --size "$s" --acks 1 \
        --max-bytes "$consume_bytes" --seconds 60
      bench "$b" "$r" consume "$s" - --topic "c-r$r-s$s" --pass-bytes "$consume_bytes" \
        --max-bytes 100000000000 --seconds "$consume_s"
    done
  done
  for b in skiff peer; do
    bench "$b" "$r" latency 100 all --topic "lat-r$r" --size 100 --count "$latency_count" \
      --seconds "$latency_s"
  done
  echo "rss round=$r broker=skiff kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$skiff_pid/status")" \
    >>"$raw"
  # Diagnostic, not a target: the same latency run with skiff's data on tmpfs, which separates
  # the broker's own latency from the file system's (ext4 writes and write-back) under it.
  if [ -n "$shm_tmp" ]; then
    start_skiff "$shm_tmp/skiff-data"
    bench skiff-tmpfs "$r" latency 100 all --topic "lat-r$r" --size 100 \
      --count "$latency_count" --seconds "$latency_s"
  fi
done
elapsed=$(($(date +%s) - started))

# --- report ----------------------------------------------------------------------------------
mkdir -p "$out_dir"
cp "$raw" "$out_dir/raw-results.txt"
/usr/bin/python3 tests/bench/report.py --raw "$raw" --out-dir "$out_dir" --mode "$mode" \
  --rounds "$rounds" --pass-bytes "$consume_bytes" --elapsed-s "$elapsed" \
  --load-start "$start_load" --load-end "$(cut -d' ' -f1-3 /proc/loadavg)" \
  --commit "${SKIFF_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(
    git diff --quiet HEAD -- broker storage protocol 2>/dev/null || echo ' + uncommitted changes')}"
log "wrote $out_dir/RESULTS.md"
if [ "$mode" = short ]; then
  # Smoke test of the scaling sweep (tests/bench/sweep.sh): one 10-partition produce point
  # against both brokers, about 15 s; the full sweep is run by hand (see RESULTS.md).
  cleanup
  trap - EXIT
  BENCH_BUILD_DIR=$build tests/bench/sweep.sh --quick --out-dir "$out_dir"
fi
