#!/usr/bin/env bash
# kcat -G (librdkafka's balanced consumer) against the real skiff binary.
#   usage: bash groups_test.sh /path/to/skiff
# Two kcat -G members of one group on a 4-partition topic: the group settles with both members,
# 40 messages produced afterwards are each consumed exactly once, and every partition is read by
# exactly one member. Then one member is stopped (SIGTERM: it leaves the group), the other gets
# all four partitions and reads 20 more messages.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 /path/to/skiff" >&2
    exit 2
fi
SKIFF=$(readlink -f "$1")
SETPRIV=""
if command -v setpriv >/dev/null 2>&1; then SETPRIV="setpriv --pdeathsig KILL"; fi
TMP=$(mktemp -d /tmp/skiff-groups-XXXXXX)
PID=""
M1=""
M2=""

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

cleanup() {
    local rc=$?
    for p in $M1 $M2 $PID; do
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    if [ "$rc" -ne 0 ]; then
        echo "===== broker log (last 100 lines) =====" >&2
        tail -n 100 "$TMP/skiff.log" >&2 || true
        for f in "$TMP"/member*.err; do
            echo "===== $f =====" >&2
            tail -n 30 "$f" >&2 || true
        done
    fi
    rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

$SETPRIV "$SKIFF" --override listeners=PLAINTEXT://127.0.0.1:0 --override "log.dirs=$TMP/data" \
    --override num.partitions=4 --override group.initial.rebalance.delay.ms=0 \
    >"$TMP/skiff.log" 2>&1 </dev/null &
PID=$!
PORT=""
for _ in $(seq 1 400); do # 20 s
    PORT=$(sed -n 's/.*skiff listening on 127\.0\.0\.1:\([0-9]*\) (PLAINTEXT).*/\1/p' "$TMP/skiff.log" | head -n1)
    [ -n "$PORT" ] && break
    sleep 0.05
done
[ -n "$PORT" ] || fail "skiff did not log its port"
BS="127.0.0.1:$PORT"

# Create the topic first so both members see 4 partitions from the start.
printf 'seed\n' | timeout 30 kcat -b "$BS" -P -t gtopic -p 0 || fail "seed produce"

member() { # name
    $SETPRIV kcat -b "$BS" -G kgroup -o end -u -f '%p %o %s\n' \
        -X session.timeout.ms=3000 -X heartbeat.interval.ms=300 gtopic \
        >"$TMP/$1.out" 2>"$TMP/$1.err" </dev/null &
}
member member1
M1=$!
member member2
M2=$!

# Wait until a generation with both members is stable.
wait_for_log() { # pattern seconds what
    local i
    for i in $(seq 1 $(($2 * 20))); do
        grep -qE "$1" "$TMP/skiff.log" && return 0
        sleep 0.05
    done
    fail "$3"
}
wait_for_log "group kgroup: rebalanced to generation [0-9]+ .* 2 member\(s\)" 30 \
    "no generation with both members"
wait_for_log "group kgroup: generation [0-9]+ is stable with 2 member" 30 "group never stable"
# librdkafka starts fetching shortly after the assignment arrives.
sleep 2

for i in $(seq 1 40); do printf 'k%d:v%d\n' "$((i % 4))" "$i"; done >"$TMP/in.txt"
for p in 0 1 2 3; do
    grep "^k$p:" "$TMP/in.txt" | timeout 30 kcat -b "$BS" -P -t gtopic -p "$p" -K: ||
        fail "produce to partition $p"
done

for _ in $(seq 1 400); do # 20 s
    n=$(cat "$TMP/member1.out" "$TMP/member2.out" | wc -l)
    [ "$n" -ge 40 ] && break
    sleep 0.05
done
sleep 1
n=$(cat "$TMP/member1.out" "$TMP/member2.out" | wc -l)
[ "$n" -eq 40 ] || fail "expected 40 messages across both members, got $n"
# Each value once, and each partition read by exactly one member (both read something).
cat "$TMP/member1.out" "$TMP/member2.out" | awk '{print $3}' | sort >"$TMP/values.txt"
seq 1 40 | sed 's/^/v/' | sort >"$TMP/want.txt"
diff -u "$TMP/want.txt" "$TMP/values.txt" || fail "values differ"
p1=$(awk '{print $1}' "$TMP/member1.out" | sort -u | tr '\n' ' ')
p2=$(awk '{print $1}' "$TMP/member2.out" | sort -u | tr '\n' ' ')
[ -n "$p1" ] && [ -n "$p2" ] || fail "one member read nothing (member1: '$p1', member2: '$p2')"
for p in $p1; do
    case " $p2 " in *" $p "*) fail "partition $p read by both members" ;; esac
done
echo "member1 read partitions $p1; member2 read partitions $p2"

# member2 leaves (kcat closes the consumer on SIGTERM); member1 takes over everything.
kill -TERM "$M2"
wait "$M2" 2>/dev/null || true
M2=""
wait_for_log "group kgroup: generation [0-9]+ is stable with 1 member" 30 \
    "no stable generation after member2 left"
sleep 2
before=$(wc -l <"$TMP/member1.out")
for p in 0 1 2 3; do
    for i in 1 2 3 4 5; do printf 'after-%d-%d\n' "$p" "$i"; done |
        timeout 30 kcat -b "$BS" -P -t gtopic -p "$p" || fail "produce after leave"
done
for _ in $(seq 1 400); do
    [ "$(($(wc -l <"$TMP/member1.out") - before))" -ge 20 ] && break
    sleep 0.05
done
got=$(($(wc -l <"$TMP/member1.out") - before))
[ "$got" -eq 20 ] || fail "member1 read $got of 20 messages after member2 left"

echo "PASS"
