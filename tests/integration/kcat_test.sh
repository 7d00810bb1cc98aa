#!/usr/bin/env bash
# kcat (librdkafka 2.0.2) against the real skiff binary.
#   usage: bash kcat_test.sh /path/to/skiff
# Checks: -L metadata (broker + auto-created 3-partition topic), -P with keys (-K:) through the
# default partitioner and to an explicit partition, -C -e -o beginning (exact content and order per
# partition), -C -o <offset> -c N and -o -N, -Q offsets-for-times (first offset at/after a
# timestamp taken between two produce runs; future timestamp gives -1; -1/-2 give end/start),
# then a SIGTERM restart on the same data dir (exit 0, dump-log --verify ok) and the same reads
# again plus appends continuing at the old end offset.
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 /path/to/skiff" >&2
    exit 2
fi
SKIFF=$(readlink -f "$1")
PY=/usr/bin/python3
SETPRIV=""
if command -v setpriv >/dev/null 2>&1; then SETPRIV="setpriv --pdeathsig KILL"; fi
TMP=$(mktemp -d /tmp/skiff-kcat-XXXXXX)
DATA="$TMP/data"
PID=""
GEN=0
PORT=""
BS=""

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

cleanup() {
    local rc=$?
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -9 "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    if [ "$rc" -ne 0 ]; then
        for f in "$TMP"/skiff-*.log; do
            [ -f "$f" ] || continue
            echo "===== $f (last 200 lines) =====" >&2
            tail -n 200 "$f" >&2
        done
    fi
    rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_broker() {
    GEN=$((GEN + 1))
    LOG="$TMP/skiff-$GEN.log"
    # Created here, not by the background redirect, so the port poll below never reads a file
    # that does not exist yet (with pipefail that would end the script).
    : >"$LOG"
    # setpriv --pdeathsig: the broker dies with this script even if it is SIGKILLed (ctest
    # timeout). setpriv execs, so $! is the broker's pid.
    $SETPRIV "$SKIFF" --override listeners=PLAINTEXT://127.0.0.1:0 --override "log.dirs=$DATA" \
        --override num.partitions=3 >"$LOG" 2>&1 </dev/null &
    PID=$!
    PORT=""
    local i
    for i in $(seq 1 400); do # 20 s
        PORT=$(sed -n 's/.*skiff listening on 127\.0\.0\.1:\([0-9]*\) (PLAINTEXT), advertised as 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$LOG" | head -n1)
        [ -n "$PORT" ] && break
        kill -0 "$PID" 2>/dev/null || fail "skiff exited before listening"
        sleep 0.05
    done
    [ -n "$PORT" ] || fail "skiff did not log its port within 20 s"
    BS="127.0.0.1:$PORT"
    echo "broker generation $GEN listening on $BS (pid $PID)"
}

stop_broker() {
    kill -TERM "$PID"
    local i
    for i in $(seq 1 400); do # 20 s
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$PID" 2>/dev/null && fail "skiff still running 20 s after SIGTERM"
    local rc=0
    wait "$PID" || rc=$?
    PID=""
    [ "$rc" -eq 0 ] || fail "skiff exited with $rc after SIGTERM (expected 0)"
}

kc() {
    timeout 60 kcat -b "$BS" "$@"
}

# Compares two files; prints a diff on mismatch.
expect_same() { # expected actual what
    if ! diff -u "$1" "$2" >"$TMP/diff.txt"; then
        head -n 60 "$TMP/diff.txt" >&2
        fail "$3: output differs from expected (see diff above)"
    fi
}

now_ms() { date +%s%3N; }

# --- start ---------------------------------------------------------------------------------
start_broker
"$SKIFF" health --bootstrap-server "$BS" >/dev/null 2>&1 || fail "skiff health did not exit 0"

# --- 1. -L: metadata lists the broker and auto-creates the topic ----------------------------
kc -L -J -t auto_topic >"$TMP/meta1.json" || fail "kcat -L -t auto_topic exited non-zero"
kc -L -J >"$TMP/meta2.json" || fail "kcat -L exited non-zero"
$PY - "$TMP/meta1.json" "$TMP/meta2.json" "$PORT" <<'EOF' || fail "metadata check"
import json, sys
one = json.load(open(sys.argv[1]))
every = json.load(open(sys.argv[2]))
port = sys.argv[3]
for md in (one, every):
    assert md["brokers"] == [{"id": 1, "name": "127.0.0.1:" + port}], md["brokers"]
    assert md["controllerid"] == 1, md["controllerid"]
    topics = {t["topic"]: t for t in md["topics"]}
    assert "auto_topic" in topics, list(topics)
    t = topics["auto_topic"]
    assert "error" not in t, t
    parts = sorted(t["partitions"], key=lambda p: p["partition"])
    assert [p["partition"] for p in parts] == [0, 1, 2], parts
    for p in parts:
        assert p["leader"] == 1 and p["replicas"] == [{"id": 1}] and p["isrs"] == [{"id": 1}], p
        assert "error" not in p, p
assert [t["topic"] for t in one["topics"]] == ["auto_topic"], one["topics"]
print("metadata ok")
EOF

# --- 2. -P with keys through the default partitioner ----------------------------------------
# librdkafka's default partitioner (consistent_random) puts a non-empty key on crc32(key) % 3.
N=300
$PY - "$N" "$TMP/keyed.in" "$TMP/keyed.expected" <<'EOF'
import sys, zlib
n = int(sys.argv[1])
per = {0: [], 1: [], 2: []}
with open(sys.argv[2], "w") as f:
    for i in range(n):
        k, v = "key%02d" % (i % 23), "value-%04d" % i
        f.write("%s:%s\n" % (k, v))
        per[zlib.crc32(k.encode()) % 3].append((k, v))
assert all(per[p] for p in per), "test data should hit every partition"
with open(sys.argv[3], "w") as f:
    for p in (0, 1, 2):
        for o, (k, v) in enumerate(per[p]):
            f.write("%d %d %s %s\n" % (p, o, k, v))
EOF
kc -P -t keyed -K: <"$TMP/keyed.in" || fail "kcat -P -K: exited non-zero"

consume_keyed() { # out-file
    kc -C -q -t keyed -e -o beginning -f '%p %o %k %s\n' >"$TMP/keyed.raw" || fail "kcat -C keyed exited non-zero"
    # Stable sort by partition keeps the per-partition delivery order intact.
    sort -s -n -k1,1 "$TMP/keyed.raw" >"$1"
    # Within each partition kcat must have delivered offsets in increasing order already.
    $PY - "$TMP/keyed.raw" <<'EOF' || fail "per-partition delivery order"
import sys
last = {}
for line in open(sys.argv[1]):
    p, o = line.split()[:2]
    assert int(o) == last.get(p, -1) + 1, "partition %s: offset %s after %s" % (p, o, last.get(p))
    last[p] = int(o)
EOF
}
consume_keyed "$TMP/keyed.out"
expect_same "$TMP/keyed.expected" "$TMP/keyed.out" "keyed consume"
[ "$(wc -l <"$TMP/keyed.out")" -eq "$N" ] || fail "keyed: expected $N records"
echo "keyed produce/consume ok"

# --- 3. -P with keys to an explicit partition -----------------------------------------------
: >"$TMP/explicit.in"
: >"$TMP/explicit.expected"
for i in $(seq 0 39); do
    echo "ek$i:ev$i" >>"$TMP/explicit.in"
    echo "2 $i ek$i ev$i" >>"$TMP/explicit.expected"
done
kc -P -t explicit -p 2 -K: <"$TMP/explicit.in" || fail "kcat -P -p 2 exited non-zero"
kc -C -q -t explicit -e -o beginning -f '%p %o %k %s\n' >"$TMP/explicit.out" || fail "kcat -C explicit"
expect_same "$TMP/explicit.expected" "$TMP/explicit.out" "explicit partition consume"
for p in 0 1; do
    kc -C -q -t explicit -p "$p" -e -o beginning -f '%o\n' >"$TMP/empty.out" || fail "kcat -C explicit -p $p"
    [ ! -s "$TMP/empty.out" ] || fail "partition $p of 'explicit' should be empty, got: $(head -3 "$TMP/empty.out")"
done
echo "explicit partition ok"

# --- 4. -C from the middle: -o <offset> -c N, and -o -N (relative to the end) ---------------
grep '^2 ' "$TMP/explicit.expected" | sed -n '6,9p' >"$TMP/mid.expected" # offsets 5..8
kc -C -q -t explicit -p 2 -o 5 -c 4 -f '%p %o %k %s\n' >"$TMP/mid.out" || fail "kcat -o 5 -c 4"
expect_same "$TMP/mid.expected" "$TMP/mid.out" "-o 5 -c 4"
tail -n 3 "$TMP/explicit.expected" >"$TMP/tail.expected" # offsets 37..39
kc -C -q -t explicit -p 2 -o -3 -e -f '%p %o %k %s\n' >"$TMP/tail.out" || fail "kcat -o -3"
expect_same "$TMP/tail.expected" "$TMP/tail.out" "-o -3 -e"
# Middle of a keyed partition too (partition 0 has well over 10 records).
grep '^0 ' "$TMP/keyed.expected" | sed -n '8,10p' >"$TMP/mid0.expected" # offsets 7..9
kc -C -q -t keyed -p 0 -o 7 -c 3 -f '%p %o %k %s\n' >"$TMP/mid0.out" || fail "kcat keyed -o 7 -c 3"
expect_same "$TMP/mid0.expected" "$TMP/mid0.out" "keyed -o 7 -c 3"
echo "consume from the middle ok"

# --- 5. -Q: offsets for times ----------------------------------------------------------------
T0=$(now_ms)
sleep 0.2
seq 0 9 | sed 's/^/first-/' | kc -P -t times -p 0 || fail "kcat -P times run 1"
sleep 0.3
T1=$(now_ms)
sleep 0.3
seq 0 9 | sed 's/^/second-/' | kc -P -t times -p 0 || fail "kcat -P times run 2"
FUTURE=$(($(now_ms) + 3600000))

# The stored CreateTime of every record of run 1 is < T1 and of run 2 is >= T1.
kc -C -q -t times -p 0 -e -o beginning -f '%o %T %s\n' >"$TMP/times.out" || fail "kcat -C times"
$PY - "$TMP/times.out" "$T0" "$T1" <<'EOF' || fail "record timestamps"
import sys
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
rows = [l.split() for l in open(sys.argv[1])]
assert [int(r[0]) for r in rows] == list(range(20)), rows
assert [r[2] for r in rows] == ["first-%d" % i for i in range(10)] + ["second-%d" % i for i in range(10)], rows
for o, ts, v in rows:
    ts = int(ts)
    if v.startswith("first"):
        assert t0 <= ts < t1, (o, ts, t0, t1)
    else:
        assert ts >= t1, (o, ts, t1)
EOF

query_times() {
    kc -Q -t "times:0:$T1" >"$TMP/q1.out" || fail "kcat -Q T1"
    [ "$(cat "$TMP/q1.out")" = "times [0] offset 10" ] || fail "-Q at T1: expected 'times [0] offset 10', got '$(cat "$TMP/q1.out")'"
    kc -Q -t "times:0:$T0" >"$TMP/q0.out" || fail "kcat -Q T0"
    [ "$(cat "$TMP/q0.out")" = "times [0] offset 0" ] || fail "-Q at T0: expected 'times [0] offset 0', got '$(cat "$TMP/q0.out")'"
    kc -Q -t "times:0:$FUTURE" >"$TMP/qf.out" || fail "kcat -Q future"
    [ "$(cat "$TMP/qf.out")" = "times [0] offset -1" ] || fail "-Q future: expected 'times [0] offset -1', got '$(cat "$TMP/qf.out")'"
    # -1 / -2 are the LATEST / EARLIEST sentinels of ListOffsets.
    kc -Q -t "times:0:-1" >"$TMP/ql.out" || fail "kcat -Q -1"
    [ "$(cat "$TMP/ql.out")" = "times [0] offset 20" ] || fail "-Q -1: expected 'times [0] offset 20', got '$(cat "$TMP/ql.out")'"
    kc -Q -t "times:0:-2" >"$TMP/qe.out" || fail "kcat -Q -2"
    [ "$(cat "$TMP/qe.out")" = "times [0] offset 0" ] || fail "-Q -2: expected 'times [0] offset 0', got '$(cat "$TMP/qe.out")'"
    # An empty partition has no offset for any timestamp.
    kc -Q -t "times:1:$T0" >"$TMP/qempty.out" || fail "kcat -Q empty partition"
    [ "$(cat "$TMP/qempty.out")" = "times [1] offset -1" ] || fail "-Q empty partition: expected 'times [1] offset -1', got '$(cat "$TMP/qempty.out")'"
}
query_times
echo "offsets for times ok"

# --- 6. restart on the same data: everything reads back the same ---------------------------
stop_broker
for d in "$DATA"/keyed-0 "$DATA"/keyed-1 "$DATA"/keyed-2 "$DATA"/explicit-2 "$DATA"/times-0; do
    [ -d "$d" ] || fail "partition directory $d missing"
    "$SKIFF" dump-log --verify "$d" >"$TMP/verify.out" 2>&1 || { cat "$TMP/verify.out" >&2; fail "dump-log --verify $d"; }
done
start_broker
"$SKIFF" health --bootstrap-server "$BS" >/dev/null 2>&1 || fail "skiff health after restart"

consume_keyed "$TMP/keyed.out2"
expect_same "$TMP/keyed.expected" "$TMP/keyed.out2" "keyed consume after restart"
kc -C -q -t explicit -e -o beginning -f '%p %o %k %s\n' >"$TMP/explicit.out2" || fail "kcat -C explicit after restart"
expect_same "$TMP/explicit.expected" "$TMP/explicit.out2" "explicit consume after restart"
kc -C -q -t explicit -p 2 -o 5 -c 4 -f '%p %o %k %s\n' >"$TMP/mid.out2" || fail "kcat -o 5 -c 4 after restart"
expect_same "$TMP/mid.expected" "$TMP/mid.out2" "-o 5 -c 4 after restart"
kc -C -q -t times -p 0 -e -o beginning -f '%o %T %s\n' >"$TMP/times.out2" || fail "kcat -C times after restart"
expect_same "$TMP/times.out" "$TMP/times.out2" "times (with timestamps) after restart"
query_times

# Appends continue at the old end offset.
printf 'ek40:ev40\nek41:ev41\n' | kc -P -t explicit -p 2 -K: || fail "kcat -P after restart"
printf '2 40 ek40 ev40\n2 41 ek41 ev41\n' >>"$TMP/explicit.expected"
kc -C -q -t explicit -e -o beginning -f '%p %o %k %s\n' >"$TMP/explicit.out3" || fail "kcat -C explicit after append"
expect_same "$TMP/explicit.expected" "$TMP/explicit.out3" "explicit consume after append"
echo "restart ok"

stop_broker
echo "PASS"
