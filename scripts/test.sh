#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds uroce with warnings as errors and runs the test suite with CTest.
# Usage: scripts/test.sh [BUILD_DIR] [extra cmake options...] [-- ctest options...]
#   scripts/test.sh build-tsan -DUROCE_TSAN=ON -- -L 'verbs|interop|rdmacm'
# The compiler is CMake's choice, or CC's when BUILD_DIR is configured for the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
cmake_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	cmake_args+=("$1")
	shift
done
[ $# -gt 0 ] && shift # the --
cmake -S . -B "$build" -DUROCE_WERROR=ON "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
