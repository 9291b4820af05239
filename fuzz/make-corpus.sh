#!/bin/bash
# SPDX-License-Identifier: MIT
# Regenerates the seed corpora fuzz/corpus/<target>/ from the real captures.
#   fuzz/make-corpus.sh            captures from ../shared/testdata/captures
# Environment: UROCE_CAPTURES (captures folder), UROCE_FUZZ_BUILD (build folder, default
# build-fuzz in the source tree; configured with clang and -DUROCE_FUZZ=ON when absent).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
captures=${UROCE_CAPTURES:-$source_dir/../shared/testdata/captures}
# shellcheck source=fuzz/build.sh
. "$here/build.sh"

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
