#!/usr/bin/env bash
# Runs the four conformance rounds CI needs side by side, each a run.sh of its own (its own
# skiff on a free port, data directory, output directory and test.conf), and exits non-zero when
# any of them failed, naming it.
#
#   bash tests/conformance/run-rounds.sh [SKIFF_BINARY]
#
#   normal     every broker test                  run.sh SKIFF
#   idempotent the same with idempotent producers run.sh SKIFF -P
#   ssl        0001 0012 0030 0097 over mutual TLS RDKAFKA_SUITE_SECURITY=SSL
#   sasl_ssl   0001 0012 0030 0135 over SCRAM      RDKAFKA_SUITE_SECURITY=SASL_SSL
#
# The rounds spend most of their time waiting on librdkafka's timers (session timeouts, linger,
# rebalance delays, the tests' own sleeps): all four side by side used 75 s of CPU in 300 s
# (tests/conformance/RESULTS.md), one after the other they took 29 min. Each round's
# output goes to a file and is printed whole, with its exit status and wall time, when the round
# ends; the rounds' pass/fail rules are run.sh's. ROUNDS="normal ssl" runs only those. The
# RDKAFKA_SUITE_* settings reach every round, but RDKAFKA_SUITE_SECURITY and TESTS, set per round,
# and RDKAFKA_SUITE_OUT: each round's logs go to RDKAFKA_SUITE_OUT/ROUND when it is set, else to a
# temporary directory that run.sh keeps only when the round fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
skiff=$(readlink -f "${1:-$repo/build/broker/skiff}")
[ -x "$skiff" ] || { echo "run-rounds.sh: no skiff binary at $skiff" >&2; exit 2; }
rounds=${ROUNDS:-normal idempotent ssl sasl_ssl}
for name in $rounds; do
  case $name in normal | idempotent | ssl | sasl_ssl) ;; *)
    echo "run-rounds.sh: unknown round $name (normal, idempotent, ssl, sasl_ssl)" >&2
    exit 2
    ;;
  esac
done
out_base=${RDKAFKA_SUITE_OUT:-}
unset RDKAFKA_SUITE_OUT TESTS RDKAFKA_SUITE_SECURITY

logs=$(mktemp -d /tmp/skiff-conformance-rounds-XXXXXX)
declare -A name_of=() started=()

# shellcheck disable=SC2317 # called by the traps
stop_all() {
  local p
  for p in "${!name_of[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap 'stop_all; rm -rf "$logs"' EXIT
trap 'exit 130' INT TERM

start_round() {
  local name=$1 security="" tests="" args=()
  case $name in
    normal) ;;
    idempotent) args=(-P) ;;
    ssl) security=SSL tests="0001 0012 0030 0097" ;;
    sasl_ssl) security=SASL_SSL tests="0001 0012 0030 0135" ;;
  esac
  (
    if [ -n "$security" ]; then export RDKAFKA_SUITE_SECURITY=$security TESTS=$tests; fi
    if [ -n "$out_base" ]; then export RDKAFKA_SUITE_OUT=$out_base/$name; fi
    exec bash "$here/run.sh" "$skiff" ${args[@]+"${args[@]}"}
  ) >"$logs/$name.log" 2>&1 </dev/null &
  name_of[$!]=$name
  started[$name]=$(date +%s)
}

t0=$(date +%s)
for name in $rounds; do start_round "$name"; done
echo "run-rounds.sh: started ${rounds// /, } side by side; each prints its log when it ends"

failed=()
summary=()
# Polled: wait -n misses a round that ended while the last one's log was being printed.
while [ "${#name_of[@]}" -gt 0 ]; do
  for p in "${!name_of[@]}"; do
    kill -0 "$p" 2>/dev/null && continue
    rc=0
    wait "$p" || rc=$?
    name=${name_of[$p]}
    unset "name_of[$p]"
    secs=$(($(date +%s) - started[$name]))
    echo
    echo "=== round $name: exit $rc after ${secs}s ==="
    cat "$logs/$name.log"
    echo "=== end of round $name ==="
    summary+=("$(printf '%-10s exit %-3s %5ss  %s' "$name" "$rc" "$secs" \
      "$(grep -a -E '^[0-9]+ passed, ' "$logs/$name.log" | tail -n 1)")")
    [ "$rc" -eq 0 ] || failed+=("$name")
  done
  sleep 1
done
echo
echo "run-rounds.sh: all rounds done in $(($(date +%s) - t0))s:"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  # Repeated last, where a CI log that keeps only its head and tail still shows it: which tests
  # failed in each failed round, and their first lines of evidence.
  for name in "${failed[@]}"; do
    echo "run-rounds.sh: round $name's failures:"
    failures=$(sed -n '/^FAILED ([1-9]/,/^[0-9]* passed, /p' "$logs/$name.log" | sed '$d' |
      head -n 24 | cut -c1-400)
    # No FAILED list: run.sh itself stopped (a setup problem, or a broker that exited).
    [ -n "$failures" ] || failures=$(grep -a -v '^ *|' "$logs/$name.log" | tail -n 8 | cut -c1-400)
    printf '%s\n' "$failures" | sed 's/^/  /'
    grep -a -E '^(not started|run.sh: (skiff exited|time budget|giving up|retrying))' \
      "$logs/$name.log" | head -n 5 | sed 's/^/  /' || true
  done
  echo "run-rounds.sh: FAILED: ${failed[*]}"
  exit 1
fi
