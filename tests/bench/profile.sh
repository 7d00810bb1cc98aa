#!/usr/bin/env bash
# Profiles skiff during one benchmark workload and prints where its CPU time goes.
#
#   tests/bench/profile.sh produce-100|produce-1k|produce-64k|consume-100|consume-64k|latency
#                          [OUT_DIR]
#
# Uses the Release build of tests/bench/run.sh (build-bench/ or $BENCH_BUILD_DIR; run that once
# first). Starts skiff with a temporary data directory, runs the workload with bench_client
# (the same client and settings as the benchmark: a produce run stops after 400 MB, as in
# run.sh), records skiff with `perf record -g` for three seconds, and prints the share of skiff's samples in the call paths the analysis in
# RESULTS.md talks about (inclusive: a path's share includes what it calls). The perf.data file
# is kept in OUT_DIR (default: a temporary directory) for `perf report -i`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build-bench}
workload=${1:?usage: profile.sh produce-100|produce-1k|produce-64k|consume-100|consume-64k|latency}
out=${2:-$(mktemp -d /tmp/skiff-profile.XXXXXX)}
mkdir -p "$out"
client=$build/tests/bench/bench_client
command -v perf >/dev/null || { echo "profile.sh: perf not found (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$build/broker/skiff" ] && [ -x "$client" ] || { echo "profile.sh: run tests/bench/run.sh first" >&2; exit 1; }

case $workload in
  produce-100) size=100 ;; produce-1k) size=1024 ;; produce-64k) size=65536 ;;
  consume-100) size=100 ;; consume-64k) size=65536 ;; latency) size=100 ;;
  *) echo "profile.sh: unknown workload $workload" >&2; exit 1 ;;
esac

data=$(mktemp -d /tmp/skiff-profile-data.XXXXXX)
skiff_pid=''
trap 'stop_process "$skiff_pid"; rm -rf "$data"' EXIT
. "$root/tests/bench/common.sh" profile
skiff_start "$build/broker/skiff" "$data/d" "$out/skiff.log"
pid=$skiff_pid addr=$skiff_addr

topic=profile
if [ "${workload%%-*}" = consume ]; then  # 4 MiB of values, read in passes as run.sh does
  "$client" produce --bootstrap "$addr" --topic $topic --size $size --acks 1 \
    --max-bytes 4194304 --seconds 60 >/dev/null
fi
perf record -g -p "$pid" -o "$out/perf.data" -- sleep 3 2>"$out/perf.log" &
perf_pid=$!
sleep 0.2
if [ "$workload" = latency ]; then  # acks=all, one message in flight, as run.sh does
  "$client" latency --bootstrap "$addr" --topic $topic --size $size --count 3000 --seconds 3
elif [ "${workload%%-*}" = consume ]; then
  "$client" consume --bootstrap "$addr" --broker-pid "$pid" --topic $topic \
    --pass-bytes 4194304 --max-bytes 100000000000 --seconds 3
else
  "$client" produce --bootstrap "$addr" --broker-pid "$pid" --topic $topic --size $size \
    --acks 1 --max-bytes 400000000 --seconds 3
fi
wait $perf_pid

echo "where skiff's samples are (inclusive), $workload:"
perf report -i "$out/perf.data" --children --sort sym -g none --stdio 2>/dev/null | awk '
  BEGIN {
    split("__sys_recvfrom|socket receive (recv)|_copy_to_iter|copies to user space (_copy_to_iter; on produce, the recv copy)|" \
          "do_pwritev|segment write (pwritev)|copy_folio_from_iter_atomic|  of which the copy into the page cache|" \
          "ext4_da_write_begin|  of which ext4 block mapping and buffer heads|" \
          "crc32c_hardware|CRC-32C of produced batches|do_sendfile|sendfile of fetched record bytes|" \
          "handle_softirqs|loopback TCP processing in softirq (includes the peer side)|" \
          "__sys_sendto|response writes (send)|sock_def_readable|  waking the reading client (any path)|__x64_sys_epoll_wait|epoll_wait|" \
          "finish_task_switch.isra.0|context switches", a, "|")
    for (i = 1; i < length(a); i += 2) { label[a[i]] = a[i + 1]; order[(i + 1) / 2] = a[i] }
    n = length(a) / 2
  }
  /%/ { sym = $NF; sub(/^skiff::protocol::/, "", sym); if (sym in label && !(sym in share)) share[sym] = $1 }
  END { for (i = 1; i <= n; i++) if (order[i] in share) printf "  %-66s %s\n", label[order[i]], share[order[i]] }'
echo "by binary (self time): $(perf report -i "$out/perf.data" --no-children --sort dso -g none \
  --stdio 2>/dev/null | awk '/%/ && n < 3 { printf "%s%s %s", (n++ ? ", " : ""), $2, $1 }')"
echo "perf data: $out/perf.data"
