#!/bin/bash
# SPDX-License-Identifier: MIT
# Regenerates the seed corpora fuzz/corpus/<target>/: the decoders' from the real captures,
# the engine's and the CM's with their own seed generators (fuzz_engine_seeds.c,
# fuzz_cm_seeds.c; no capture needed).
#   fuzz/make-corpus.sh            captures from ../shared/testdata/captures
#   fuzz/make-corpus.sh engine     only the engine target's seeds
#   fuzz/make-corpus.sh cm         only the CM target's seeds
# Environment: UROCE_CAPTURES (captures folder), UROCE_FUZZ_BUILD (build folder, default
# build-fuzz in the source tree; configured with clang and -DUROCE_FUZZ=ON when absent).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
captures=${UROCE_CAPTURES:-$source_dir/../shared/testdata/captures}
# shellcheck source=fuzz/build.sh
. "$here/build.sh"

only=${1:-}
# The engine seeds are scripts run on the target's own engines; each is checked to reach its
# case while it is written (a seed that no longer does stops the generator).
if [ -z "$only" ] || [ "$only" = engine ]; then
	fuzz_build fuzz_engine_seeds
	rm -rf "${here:?}/corpus/engine"
	mkdir -p "$here/corpus/engine"
	ASAN_OPTIONS=detect_leaks=0 "$UROCE_FUZZ_BUILD/fuzz/fuzz_engine_seeds" "$here/corpus/engine"
fi
# The CM seeds likewise: scripts run on the target's three CMs, each checked as it is written.
if [ -z "$only" ] || [ "$only" = cm ]; then
	fuzz_build fuzz_cm_seeds
	rm -rf "${here:?}/corpus/cm"
	mkdir -p "$here/corpus/cm"
	"$UROCE_FUZZ_BUILD/fuzz/fuzz_cm_seeds" "$here/corpus/cm"
fi
[ -n "$only" ] && exit 0

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
