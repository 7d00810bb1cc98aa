#!/usr/bin/env bash
# Scaling sweeps: skiff and librdkafka's mock broker (the peer) in the same run.
#
#   tests/bench/sweep.sh [--partitions "1 100 1000"] [--with-10000] [--rounds 3] [--seconds 3]
#                        [--no-clients] [--no-many] [--quick] [--out-dir DIR]
#
# 1. Partition sweep: one librdkafka producer, 100-byte values, acks=1, messages round-robin over
#    the P partitions of one topic (explicit partition per message), for P in --partitions
#    (10,000 added by --with-10000: it takes long). The topic is created and every partition
#    written once before the timed part (skiff: restarted on an empty data directory with
#    num.partitions=P, the topic auto-created; the peer: mock_peer TOPIC:P at its start).
#    Reports msgs/s, MB/s, broker CPU seconds and CPU per GB, median of --rounds.
# 2. Client sweep (once): 50 producer threads and 50 consumer threads in one bench_client
#    process (`bench_client clients`), 100 partitions, consumers (a) in one group and
#    (b) each assigning all 100 partitions; against the peer and against skiff.
# 3. Fetch of many partitions (each round): 50 MB of 1 KiB values filled round-robin into 1,000
#    partitions, then one consumer assigns all 1,000 from the beginning and reads them
#    (`bench_client consume-many`); for skiff the sendfile calls during that read are counted
#    with `perf stat -e syscalls:sys_enter_sendfile64 -p <skiff pid>` and divided by the Fetch
#    requests the client sent (librdkafka statistics).
#
# Result lines go to OUT_DIR/scaling-raw.txt, then scaling.py writes OUT_DIR/scaling.md (the
# table) and OUT_DIR/scaling.png (gnuplot). Default OUT_DIR: tests/bench for a full run;
# --quick (one 10-partition produce round against both brokers, for run.sh --short) writes
# under the build directory. Builds Release in build-bench/ (or $BENCH_BUILD_DIR) first.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

partition_counts="1 100 1000" rounds=3 produce_s=3 clients=1 many=1 quick=0 out_dir=''
clients_s=5 many_partitions=1000 many_bytes=50000000
while [ $# -gt 0 ]; do
  case $1 in
    --partitions) partition_counts=$2; shift 2 ;;
    --with-10000) partition_counts="$partition_counts 10000"; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --seconds) produce_s=$2; shift 2 ;;
    --no-clients) clients=0; shift ;;
    --no-many) many=0; shift ;;
    --quick) quick=1; shift ;;
    --out-dir) out_dir=$2; shift 2 ;;
    *) echo "sweep.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
build=${BENCH_BUILD_DIR:-$root/build-bench}
if [ "$quick" = 1 ]; then
  partition_counts=10 rounds=1 produce_s=1 clients=0 many=0
  out_dir=${out_dir:-$build/bench-results}
fi
out_dir=${out_dir:-$root/tests/bench}
produce_max=400000000

. "$root/tests/bench/common.sh" sweep

log "building Release in $build"
bench_build --nice sweep-build.log skiff bench_client mock_peer
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client

tmp=$(mktemp -d /tmp/skiff-sweep.XXXXXX)
skiff_pid='' peer_pid='' perf_pid=''
cleanup() {
  stop_process "$perf_pid"
  stop_process "$skiff_pid"
  stop_process "$peer_pid"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The peer's topics, created at its start: one per round and partition count, and the others.
topics=()
for r in $(seq "$rounds"); do
  for p in $partition_counts; do topics+=("sp-r$r-p$p:$p"); done
  [ "$many" = 1 ] && topics+=("many-r$r:$many_partitions")
done
[ "$clients" = 1 ] && topics+=("cl-group:100" "cl-assign:100")
"$build/tests/bench/mock_peer" "${topics[@]}" >"$tmp/peer.out" 2>"$tmp/peer.err" &
peer_pid=$!

# start_skiff PARTITIONS: a fresh skiff on an empty data directory (see run.sh for why), with
# num.partitions set so that the topic auto-created by the client's metadata request has them.
skiff_gen=0
skiff_data=$tmp/skiff-data
start_skiff() {
  if [ -n "$skiff_pid" ]; then
    stop_process "$skiff_pid"
    rm -rf "$skiff_data"
  fi
  skiff_gen=$((skiff_gen + 1))
  skiff_start "$skiff_bin" "$skiff_data" "$tmp/skiff-$skiff_gen.log" \
    --override "num.partitions=$1"
}

peer_addr=''
for _ in $(seq 6000); do  # the mock takes a while per topic: up to 10 minutes
  peer_addr=$(head -1 "$tmp/peer.out" | tr -d '\r\n') || true
  [ -n "$peer_addr" ] && break
  kill -0 "$peer_pid" 2>/dev/null || { cat "$tmp/peer.err" >&2; log "mock_peer exited"; exit 1; }
  sleep 0.1
done
[ -n "$peer_addr" ] || { log "mock_peer did not start"; exit 1; }
log "peer at $peer_addr (pid $peer_pid), ${#topics[@]} topics"

raw=$tmp/scaling-raw.txt
: >"$raw"
echo "meta commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown) start=$(date -u +%FT%TZ) load_start=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)" >>"$raw"

# run_client BROKER ROUND LABELS -- ARGS...: one bench_client run, its result line labelled.
run_client() {
  local broker=$1 round=$2 labels=$3
  shift 4
  local addr=$skiff_addr pid=$skiff_pid line
  [ "$broker" = peer ] && addr=$peer_addr pid=$peer_pid
  line=$(timeout 600 "$client" "$1" --bootstrap "$addr" --broker-pid "$pid" "${@:2}" \
    | grep '^result ') || { log "$broker $* failed"; exit 1; }
  line="broker=$broker round=$round $labels ${line#result }"
  echo "$line" >>"$raw"
  log "$line"
}

started=$(date +%s)
for r in $(seq "$rounds"); do
  log "round $r of $rounds ($(cut -d' ' -f1-3 /proc/loadavg))"
  for p in $partition_counts; do
    for b in skiff peer; do
      [ "$b" = skiff ] && start_skiff "$p"
      run_client "$b" "$r" "sweep=partitions" -- produce --topic "sp-r$r-p$p" --partitions "$p" \
        --size 100 --acks 1 --max-bytes "$produce_max" --seconds "$produce_s"
    done
  done
  if [ "$many" = 1 ]; then
    for b in skiff peer; do
      [ "$b" = skiff ] && start_skiff "$many_partitions"
      addr=$peer_addr
      [ "$b" = skiff ] && addr=$skiff_addr
      timeout 600 "$client" fill --bootstrap "$addr" --topic "many-r$r" \
        --partitions "$many_partitions" --bytes "$many_bytes" --size 1024 >/dev/null \
        || { log "fill of many-r$r failed"; exit 1; }
      if [ "$b" = skiff ] && command -v perf >/dev/null; then
        perf stat -x, -e syscalls:sys_enter_sendfile64 -p "$skiff_pid" -o "$tmp/perf-$r.csv" &
        perf_pid=$!
        sleep 0.5
      fi
      run_client "$b" "$r" "sweep=many" -- consume-many --topic "many-r$r" \
        --partitions "$many_partitions" --bytes "$many_bytes" --seconds 300
      if [ -n "$perf_pid" ]; then
        kill -INT "$perf_pid" 2>/dev/null || true
        wait "$perf_pid" 2>/dev/null || true
        perf_pid=''
        calls=$(awk -F, '/sendfile64/ {print $1}' "$tmp/perf-$r.csv" | head -1)
        echo "sendfile broker=skiff round=$r calls=${calls:-unknown}" >>"$raw"
        log "skiff sendfile calls during consume-many: ${calls:-unknown}"
      fi
    done
  fi
done

if [ "$clients" = 1 ]; then
  log "client sweep: 50 producers, 50 consumers, 100 partitions"
  for mode in group assign; do
    for b in peer skiff; do
      [ "$b" = skiff ] && start_skiff 100
      run_client "$b" 1 "sweep=clients" -- clients --topic "cl-$mode" --partitions 100 \
        --producers 50 --consumers 50 --consumer-mode "$mode" --size 100 --acks 1 \
        --seconds "$clients_s"
    done
  done
fi
echo "meta end=$(date -u +%FT%TZ) load_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /) elapsed_s=$(($(date +%s) - started))" >>"$raw"

mkdir -p "$out_dir"
cp "$raw" "$out_dir/scaling-raw.txt"
/usr/bin/python3 tests/bench/scaling.py --raw "$out_dir/scaling-raw.txt" --out-dir "$out_dir"
log "wrote $out_dir/scaling.md"
