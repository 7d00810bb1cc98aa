#!/usr/bin/env bash
# Builds skiff (Release) and runs every test: unit tests of protocol/, storage/, config/, broker/
# and the integration tests that start the real skiff binary and drive it with librdkafka,
# kcat and the Python clients. Exits non-zero when any test fails.
#   tests/run.sh [CTEST_ARGS...]     CMAKE_ARGS (environment): more options for the configure step
#                                    (CI passes -DCMAKE_UNITY_BUILD=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
# shellcheck disable=SC2086 # CMAKE_ARGS is a list of options
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" "$@"
