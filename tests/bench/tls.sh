#!/usr/bin/env bash
# TLS and SASL against plaintext, in one run on one skiff (issue 20's benchmark): the same
# librdkafka client produces (acks=1) and consumes 1 KiB and 64 KiB values over PLAINTEXT and
# over SSL, and opens connections (client created, connected, one Metadata answered, destroyed)
# over PLAINTEXT, SSL, SASL_PLAINTEXT with SCRAM-SHA-256 and SASL_SSL with SCRAM-SHA-256.
# Rounds interleave the cases (A B A B ...); medians are printed.
#
#   tests/bench/tls.sh [ROUNDS] [SECONDS]     (defaults: 5 rounds of 3 s)
#
# What differs: on SSL the fetch path cannot sendfile(2) (records are read into a staging buffer
# and encrypted), and every byte is encrypted by the broker and decrypted by the client on the
# same two cores. Certificates are made with openssl in a temporary directory. Uses build-bench/
# (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then a table. Never fails on a
# number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-5}
seconds=${2:-3}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" tls

bench_build bench-build.log skiff bench_client
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client

tmp=$(mktemp -d /tmp/skiff-tls-bench.XXXXXX)
skiff_pid=''
cleanup() {
  stop_process "$skiff_pid"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- certificates and the broker --------------------------------------------------------------
ssl() { openssl "$@" >/dev/null 2>&1; }
ssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 2 \
  -subj "/CN=bench CA"
ssl req -newkey rsa:2048 -nodes -keyout "$tmp/broker.key" -out "$tmp/broker.csr" -subj "/CN=localhost"
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$tmp/broker.ext"
ssl x509 -req -in "$tmp/broker.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial \
  -days 2 -extfile "$tmp/broker.ext" -out "$tmp/broker.pem"
cat "$tmp/broker.key" "$tmp/broker.pem" >"$tmp/keystore.pem"
mkdir -p "$tmp/data"
"$skiff_bin" user add bench --password bench-secret --mechanism SCRAM-SHA-256 \
  --override "log.dirs=$tmp/data" >/dev/null
"$skiff_bin" --override "log.dirs=$tmp/data" \
  --override "listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0" \
  --override "ssl.keystore.location=$tmp/keystore.pem" --override metrics.listener= \
  >"$tmp/skiff.log" 2>&1 &
skiff_pid=$!
port_of() {
  for _ in $(seq 200); do
    local p
    p=$(grep -o "skiff listening on 127\.0\.0\.1:[0-9]* ($1)" "$tmp/skiff.log" | head -1 |
      sed 's/.*:\([0-9]*\) .*/\1/') || true
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.05
  done
  cat "$tmp/skiff.log" >&2
  return 1
}
declare -A port conf
for p in PLAINTEXT SSL SASL_PLAINTEXT SASL_SSL; do
  port[$p]=$(port_of "$p")
  conf[$p]=$tmp/$p.conf
  : >"${conf[$p]}"
done
printf 'security.protocol=SSL\nssl.ca.location=%s\n' "$tmp/ca.pem" >"${conf[SSL]}"
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanisms=SCRAM-SHA-256\nsasl.username=bench\nsasl.password=bench-secret\n' \
  >"${conf[SASL_PLAINTEXT]}"
printf 'security.protocol=SASL_SSL\nssl.ca.location=%s\nsasl.mechanisms=SCRAM-SHA-256\nsasl.username=bench\nsasl.password=bench-secret\n' \
  "$tmp/ca.pem" >"${conf[SASL_SSL]}"

bench() {  # bench CASE-LABEL PROTOCOL ROUND ARGS...
  local label=$1 protocol=$2 round=$3
  shift 3
  local line
  line=$(timeout 300 "$client" "$@" --bootstrap "127.0.0.1:${port[$protocol]}" \
    --conf-file "${conf[$protocol]}" --broker-pid "$skiff_pid" | grep '^result ') ||
    { log "$label over $protocol failed"; tail -20 "$tmp/skiff.log" >&2; exit 1; }
  echo "case=$label protocol=$protocol round=$round ${line#result }" | tee -a "$tmp/raw.txt"
}

# Topics to consume: 64 MiB of each value size, written once over PLAINTEXT.
pass_bytes=$((64 * 1024 * 1024))
for size in 1024 65536; do
  "$client" fill --bootstrap "127.0.0.1:${port[PLAINTEXT]}" --topic "c-$size" --partitions 1 \
    --bytes "$pass_bytes" --size "$size" >/dev/null
done
: >"$tmp/raw.txt"
for r in $(seq "$rounds"); do
  for size in 1024 65536; do
    for p in PLAINTEXT SSL; do
      bench "produce-$size" "$p" "$r" produce --topic "p-$p-$size" --size "$size" --acks 1 \
        --max-bytes 4000000000 --seconds "$seconds"
      bench "consume-$size" "$p" "$r" consume --topic "c-$size" --pass-bytes "$pass_bytes" \
        --max-bytes 40000000000 --seconds "$seconds"
    done
  done
  for p in PLAINTEXT SSL SASL_PLAINTEXT SASL_SSL; do
    bench connect "$p" "$r" connect --seconds "$seconds"
  done
done

bench_summary "$tmp/raw.txt" <<'PY'
def med_of(case, protocol, key):
    return med([r for r in rows if r["case"] == case and r["protocol"] == protocol], key)
print("\n| workload | PLAINTEXT MB/s | SSL MB/s | SSL / PLAINTEXT | broker CPU s per GB, PLAINTEXT | SSL |")
print("|---|---|---|---|---|---|")
for case in ("produce-1024", "produce-65536", "consume-1024", "consume-65536"):
    plain, tls = med_of(case, "PLAINTEXT", "mb_per_s"), med_of(case, "SSL", "mb_per_s")
    cpu = [statistics.median(float(r["broker_cpu_s"]) / (float(r["bytes"]) / 1e9) for r in rows
                             if r["case"] == case and r["protocol"] == p)
           for p in ("PLAINTEXT", "SSL")]
    print("| %s | %.0f | %.0f | %.2f | %.2f | %.2f |" % (case, plain, tls, tls / plain, cpu[0], cpu[1]))
print("\n| connection set-up | per second | broker CPU ms per connection |")
print("|---|---|---|")
for p in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"):
    rs = [r for r in rows if r["case"] == "connect" and r["protocol"] == p]
    per_s = med(rs, "per_s")
    ms = statistics.median(1000 * float(r["broker_cpu_s"]) / float(r["connects"]) for r in rs)
    label = p + (" + SCRAM-SHA-256" if p.startswith("SASL") else "")
    print("| %s | %.1f | %.2f |" % (label, per_s, ms))
PY
