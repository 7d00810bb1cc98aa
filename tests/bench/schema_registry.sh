#!/usr/bin/env bash
# The schema registry in skiff (docs/schema-registry.md), measured two ways:
#   lookups   16 concurrent HTTP clients on loopback (wrk, Debian's package: 2 threads, 16 kept-
#             alive connections) asking GET /schemas/ids/{id} (what a deserializer asks) and
#             POST /subjects/{subject} (what a serializer asks: is this schema registered?),
#             requests per second and wrk's p99 latency
#   produce   1 KiB records with acks=1 (bench_client produce, librdkafka) to a topic with
#             confluent.value.schema.validation=true against one without, the records carrying a
#             registered schema id: what validation costs on the produce path
# A fresh skiff and data directory per round; rounds alternate the two topics; medians.
#
#   tests/bench/schema_registry.sh [ROUNDS] [SECONDS]   (defaults: 3 rounds of 5 s)
#
# Uses build-bench/ (or $BENCH_BUILD_DIR) like run.sh. Prints "result ..." lines, then a table.
# Never fails on a number.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
rounds=${1:-3}
seconds=${2:-5}
build=${BENCH_BUILD_DIR:-$root/build-bench}
. "$root/tests/bench/common.sh" schema-registry
command -v wrk >/dev/null || { log "wrk is needed (apt-get install wrk)"; exit 1; }

bench_build bench-build.log skiff bench_client
skiff_bin=$build/broker/skiff
client=$build/tests/bench/bench_client

bench_workdir "$(mktemp -d "$root/.bench-registry.XXXXXX")"
schema='{"type":"record","name":"Reading","namespace":"bench","fields":[{"name":"sensor","type":"string"},{"name":"value","type":"double"},{"name":"at","type":"long"}]}'
body=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps({"schema": sys.argv[1]}))' "$schema")
cat >"$tmp/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/vnd.schemaregistry.v1+json"
wrk.body = [==[$body]==]
LUA

# wrk's "Requests/sec" and its p99 (--latency), as "rps=... p99_ms=...".
wrk_result() {
  /usr/bin/python3 -c '
import re, sys
text = sys.stdin.read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print("rps=%.0f p99_ms=%.3f non2xx=%s" % (rps, p99, errors.group(1) if errors else 0))'
}

for r in $(seq "$rounds"); do
  skiff_start "$skiff_bin" "$tmp/data" "$tmp/skiff.log" \
    --override schema.registry.listeners=http://127.0.0.1:0
  port=$(grep -o 'schema registry on http://127.0.0.1:[0-9]*' "$tmp/skiff.log" | sed 's/.*://')
  url=http://127.0.0.1:$port
  id=$(curl -s -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
    --data "$body" "$url/subjects/bench-value/versions" | sed 's/[^0-9]//g')
  line=$(wrk -t2 -c16 -d"${seconds}s" --latency "$url/schemas/ids/$id" | wrk_result)
  echo "round=$r load=lookup-by-id $line" | tee -a "$raw"
  line=$(wrk -t2 -c16 -d"${seconds}s" --latency -s "$tmp/post.lua" "$url/subjects/bench-value" \
    | wrk_result)
  echo "round=$r load=lookup-by-schema $line" | tee -a "$raw"

  # Produce: the same records to a topic with validation and one without.
  /usr/bin/python3 - "$skiff_addr" <<'PY'
import sys
from confluent_kafka.admin import AdminClient, NewTopic
admin = AdminClient({"bootstrap.servers": sys.argv[1]})
fs = admin.create_topics([NewTopic("validated", 1, 1,
                                   config={"confluent.value.schema.validation": "true"}),
                          NewTopic("plain", 1, 1)])
for f in fs.values():
    f.result(30)
PY
  curl -s -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' --data "$body" \
    "$url/subjects/validated-value/versions" >/dev/null
  for topic in plain validated; do
    line=$(timeout 300 "$client" produce --bootstrap "$skiff_addr" --broker-pid "$skiff_pid" \
      --topic "$topic" --size 1024 --acks 1 --max-bytes $((400 << 20)) --seconds "$seconds" \
      --schema-id "$id" | grep '^result ')
    echo "round=$r load=produce topic=$topic ${line#result }" | tee -a "$raw"
  done
  stop_skiff
done

bench_summary "$raw" <<'PY'
print("\n| load | requests/s | p99 ms |")
print("|---|---|---|")
for load in ("lookup-by-id", "lookup-by-schema"):
    rs = [r for r in rows if r.get("load") == load]
    print("| %s (16 clients) | %.0f | %.2f |" % (load, med(rs, "rps"), med(rs, "p99_ms")))
pick = lambda t: [r for r in rows if r.get("load") == "produce" and r.get("topic") == t]
off, on = med(pick("plain"), "mb_per_s"), med(pick("validated"), "mb_per_s")
print("\nproduce 1 KiB acks=1: validation off %.1f MB/s, on %.1f MB/s (%.2fx)" % (off, on, on / off))
PY
