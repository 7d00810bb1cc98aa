#!/usr/bin/env bash
# Builds skiff (Release) and runs every test: unit tests of protocol/, storage/, config/, broker/
# and the integration tests that start the real skiff binary and drive it with librdkafka,
# kcat and the Python clients. Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" "$@"
