# shellcheck shell=bash
# Sourced by the benchmark scripts: building the tools, starting and stopping skiff, the tables.
#
#   . "$root/tests/bench/common.sh" NAME     with $root (the repository) and $build set
#
#   log MESSAGE...                    "[NAME HH:MM:SS] MESSAGE" on stderr
#   bench_build [--nice] LOG TARGET... configures Release in $build and builds TARGETs, the output
#                                     in $build/LOG (its tail printed, and exit, on failure)
#   skiff_start BIN DATA_DIR LOG_FILE [ARG...]
#                                     BIN on an ephemeral port (listeners=PLAINTEXT://127.0.0.1:0)
#                                     with its data in DATA_DIR, output in LOG_FILE, ARGs after;
#                                     sets skiff_pid and skiff_addr, exits if it does not listen
#   addr=$(skiff_address LOG_FILE PID) || exit 1
#   stop_process PID                  SIGTERM, SIGKILL after 10 s, reaped (nothing if PID is "")
#   bench_workdir DIR                 DIR (made by the caller) becomes the run's $tmp, with an empty
#                                     $raw in it; stop_skiff stops $skiff_pid and empties
#                                     $tmp/data; on exit skiff is stopped and DIR removed
#   bench_summary RAW [ARG...] <<'PY' runs the Python on stdin with `rows` (each line of RAW as a
#   ...                               dict of its key=value fields), `med(rows, key)` (a field's
#   PY                                median), `args` (the ARGs), re, statistics and sys

bench_name=$1
log() { printf '[%s %s] %s\n' "$bench_name" "$(date +%H:%M:%S)" "$*" >&2; }

bench_build() {
  local nice=()
  [ "$1" = --nice ] && { nice=(nice -n 10); shift; }
  local log_file=$build/$1
  shift
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  "${nice[@]}" cmake --build "$build" --target "$@" -- -j"$(nproc)" >"$log_file" 2>&1 ||
    { tail -40 "$log_file" >&2; exit 1; }
}

# skiff logs the port the kernel chose; this polls its log for that line for up to 10 s. Fails
# (printing the log) if skiff exits or never says where it listens.
skiff_address() {
  local log_file=$1 pid=$2 addr=''
  for _ in $(seq 200); do
    addr=$(grep -o 'skiff listening on 127\.0\.0\.1:[0-9]*' "$log_file" 2>/dev/null \
      | head -1 | sed 's/.* on //') || true
    [ -n "$addr" ] && { echo "$addr"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  cat "$log_file" >&2
  echo "skiff (pid $pid) did not start listening" >&2
  return 1
}

skiff_start() {
  local bin=$1 data=$2 log_file=$3
  shift 3
  "$bin" --override "log.dirs=$data" --override listeners=PLAINTEXT://127.0.0.1:0 "$@" \
    >"$log_file" 2>&1 &
  skiff_pid=$!
  skiff_addr=$(skiff_address "$log_file" "$skiff_pid") || exit 1
}

stop_process() {
  local pid=$1
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

stop_skiff() {
  stop_process "$skiff_pid"
  skiff_pid=''
  rm -rf "$tmp/data"
}

bench_workdir() {
  tmp=$1
  skiff_pid=''
  raw=$tmp/raw.txt
  : >"$raw"
  trap 'stop_skiff; rm -rf "$tmp"' EXIT
  trap 'exit 130' INT TERM
}

bench_summary() {
  local raw=$1
  shift
  /usr/bin/python3 -c "import re, statistics, sys
rows = [dict(re.findall(r'(\w+)=(\S+)', l)) for l in open(sys.argv[1])]
args = sys.argv[2:]
def med(rs, key):
    return statistics.median(float(r[key]) for r in rs)
$(cat)" "$raw" "$@"
}
