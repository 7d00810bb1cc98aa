#!/usr/bin/env bash
# Builds skiff (Release) and runs every test: unit tests of protocol/, storage/, config/, broker/
# and the integration tests that start the real skiff binary and drive it with librdkafka,
# kcat and the Python clients. Exits non-zero when any test fails, and when a broker started by
# the tests is still running after them (it is listed and killed).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j"$(nproc)"

skiff_bin=$(readlink -f "$build_dir/broker/skiff")
# "PID:START-TIME" of every process running this build's skiff binary. The start time (field 22
# of /proc/PID/stat) tells a new process from an old one that had the same pid.
build_brokers() {
  local pid exe stat
  for pid in $(pgrep -x skiff || true); do
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
    [ "${exe% (deleted)}" = "$skiff_bin" ] || continue
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
    stat=${stat##*) }  # the fields after the command name, which may hold spaces
    echo "$pid:$(echo "$stat" | cut -d' ' -f20)"
  done
}
# Brokers of this build already running (a user's own on 9092) are not the tests'.
before=$(build_brokers)

# Twice as many tests as cores at a time: most integration tests wait on their clients' and the
# broker's timers rather than compute (test_sasl.py: 70 s of wall time, 1.7 s of CPU), and at one
# per core the whole run took 311 s here against 152 s like this. No test asserts a duration.
rc=0
ctest --test-dir "$build_dir" --output-on-failure -j"$(($(nproc) * 2))" "$@" || rc=$?

leftover=()
for p in $(build_brokers); do
  grep -qxF "$p" <<<"$before" || leftover+=("${p%%:*}")
done
if [ ${#leftover[@]} -gt 0 ]; then
  echo "FAIL: ${#leftover[@]} skiff broker(s) started by the tests still running after them:" >&2
  ps -o pid=,args= -p "$(IFS=,; echo "${leftover[*]}")" >&2 || true
  kill -TERM "${leftover[@]}" 2>/dev/null || true
  for _ in $(seq 50); do  # 5 s for them to go
    alive=0
    for pid in "${leftover[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || break
    sleep 0.1
  done
  kill -KILL "${leftover[@]}" 2>/dev/null || true
  [ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
