#!/bin/sh
# Builds the protocol fuzzer with clang (ASan + UBSan + libFuzzer) in build-fuzz and runs it for
# SECONDS (default 60) on a temporary corpus seeded from tests/protocol/fixtures and from one
# encoded request per supported API/version. Exits non-zero if the fuzzer finds a crash; the
# crashing input is left in build-fuzz/fuzz-artifacts/.
set -eu
SECONDS_TO_RUN=${1:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$ROOT/build-fuzz"

CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -G Ninja -DSKIFF_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$BUILD" fuzz_protocol

CORPUS=$(mktemp -d)
trap 'rm -rf "$CORPUS"' EXIT
cp "$ROOT"/tests/protocol/fixtures/*.bin "$CORPUS"/ 2>/dev/null || true
SKIFF_FUZZ_WRITE_SEEDS="$CORPUS" "$BUILD/tests/fuzz/fuzz_protocol" -runs=0 "$CORPUS" >/dev/null 2>&1
echo "seed corpus: $(ls "$CORPUS" | wc -l) files"

mkdir -p "$BUILD/fuzz-artifacts"
"$BUILD/tests/fuzz/fuzz_protocol" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$BUILD/fuzz-artifacts/" "$CORPUS"
