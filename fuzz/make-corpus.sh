#!/bin/bash
# SPDX-License-Identifier: MIT
# Regenerates the seed corpora fuzz/corpus/<target>/: the decoders' from the real captures,
# the engine target's with its own seed generator (fuzz_engine_seeds.c, no capture needed).
#   fuzz/make-corpus.sh            captures from ../shared/testdata/captures
#   fuzz/make-corpus.sh engine     only the engine target's seeds
# Environment: UROCE_CAPTURES (captures folder), UROCE_FUZZ_BUILD (build folder, default
# build-fuzz in the source tree; configured with clang and -DUROCE_FUZZ=ON when absent).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
captures=${UROCE_CAPTURES:-$source_dir/../shared/testdata/captures}
# shellcheck source=fuzz/build.sh
. "$here/build.sh"

# The engine seeds are scripts run on the target's own engines; each is checked to reach its
# case while it is written (a seed that no longer does stops the generator).
fuzz_build fuzz_engine_seeds
rm -rf "${here:?}/corpus/engine"
mkdir -p "$here/corpus/engine"
ASAN_OPTIONS=detect_leaks=0 "$UROCE_FUZZ_BUILD/fuzz/fuzz_engine_seeds" "$here/corpus/engine"
[ "${1:-}" = engine ] && exit 0

[ -d "$captures" ] || { echo "no captures folder at $captures" >&2; exit 1; }
fuzz_build fuzz_make_corpus
# Only the generated targets are replaced: a hand-written seed elsewhere survives.
for t in rocev2_frame rocev1_frame ib_packet erf mad dump; do
	rm -rf "${here:?}/corpus/$t"
done
mkdir -p "$here/corpus"
# The generator is built with ASan like everything else in the fuzz tree; leaks at exit are
# not what this run is about.
ASAN_OPTIONS=detect_leaks=0 "$UROCE_FUZZ_BUILD/fuzz/fuzz_make_corpus" "$captures" "$here/corpus"
