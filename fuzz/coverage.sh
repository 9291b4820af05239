#!/bin/bash
# SPDX-License-Identifier: MIT
# Line coverage of src/engine by the engine fuzzer's inputs, with clang's source-based
# coverage (docs/fuzzing.md).
#   fuzz/coverage.sh                   the committed seeds (fuzz/corpus/engine)
#   fuzz/coverage.sh DIR|FILE...       other inputs (e.g. a work corpus after fuzz/run.sh)
#   fuzz/coverage.sh --show FILE.c     then the lines of src/engine/FILE.c never executed
# Builds fuzz_engine in its own folder (UROCE_COV_BUILD, default build-cov in the source
# tree: the fuzz build with -fprofile-instr-generate -fcoverage-mapping added), runs it once
# over every input (-runs=0: no fuzzing), and prints llvm-cov's per-file report of
# src/engine/*.c: regions, functions, lines and branches, the TOTAL row last.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
show=
if [ "${1:-}" = --show ]; then
	show=$2
	shift 2
fi
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=("$here/corpus/engine")

llvm_bin=${UROCE_LLVM_BIN:-/usr/lib/llvm-14/bin}
export PATH=$llvm_bin:$PATH
UROCE_FUZZ_BUILD=${UROCE_COV_BUILD:-$source_dir/build-cov}
cov_flags="-fprofile-instr-generate -fcoverage-mapping"
if [ ! -f "$UROCE_FUZZ_BUILD/CMakeCache.txt" ]; then
	cmake -S "$source_dir" -B "$UROCE_FUZZ_BUILD" -DUROCE_FUZZ=ON -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DCMAKE_C_FLAGS="$cov_flags" \
		-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate >/dev/null
fi
# shellcheck source=fuzz/build.sh
. "$here/build.sh"
fuzz_build fuzz_engine

bin=$UROCE_FUZZ_BUILD/fuzz/fuzz_engine
prof=$UROCE_FUZZ_BUILD/fuzz/coverage
rm -rf "$prof"
mkdir -p "$prof"
# Files as arguments are run one by one; folders are read whole (-runs=0 only replays).
files=()
for i in "${inputs[@]}"; do
	if [ -d "$i" ]; then
		while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$i" -type f -print0)
	else
		files+=("$i")
	fi
done
printf '%s\0' "${files[@]}" | LLVM_PROFILE_FILE="$prof/%p.profraw" \
	ASAN_OPTIONS=detect_leaks=0 xargs -0 -n 500 "$bin" -runs=0 >/dev/null 2>&1
llvm-profdata merge -sparse -o "$prof/engine.profdata" "$prof"/*.profraw
engine_sources=("$source_dir"/src/engine/*.c)
echo "inputs: ${#files[@]}"
llvm-cov report "$bin" -instr-profile="$prof/engine.profdata" "${engine_sources[@]}" |
	sed "s|$source_dir/||"
if [ -n "$show" ]; then
	llvm-cov show "$bin" -instr-profile="$prof/engine.profdata" \
		"$source_dir/src/engine/${show#src/engine/}" -show-line-counts-or-regions |
		grep -E '^ *[0-9]+\| *0\|' || true
fi
