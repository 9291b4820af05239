#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds one libFuzzer target and runs it for a while on its seed corpus.
#   fuzz/run.sh TARGET SECONDS [libFuzzer options...]
#   fuzz/run.sh rocev2_frame 600
# TARGET is the name with or without its fuzz_ prefix. One process, one job, as the machines
# are shared (no -jobs=1: even that forks a child logging to ./fuzz-0.log). New inputs go to a
# work corpus in the build folder (the committed seeds in fuzz/corpus/TARGET are only read),
# crashes to BUILD/fuzz/artifacts/TARGET/. The reproducers in fuzz/regressions/TARGET/ are
# replayed first and must pass. Ends with libFuzzer's final statistics and a one-line summary.
# Environment: UROCE_FUZZ_BUILD (build folder, default build-fuzz in the source tree).
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 TARGET SECONDS [libFuzzer options...]" >&2
	exit 2
fi
name=${1#fuzz_}
seconds=$2
shift 2

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
# shellcheck source=fuzz/build.sh
. "$here/build.sh"
fuzz_build "fuzz_$name"

bin=$UROCE_FUZZ_BUILD/fuzz/fuzz_$name
work=$UROCE_FUZZ_BUILD/fuzz/corpus-work/$name
artifacts=$UROCE_FUZZ_BUILD/fuzz/artifacts/$name
log=$UROCE_FUZZ_BUILD/fuzz/fuzz_$name.log
mkdir -p "$work" "$artifacts"
seeds=()
[ -d "$here/corpus/$name" ] && seeds=("$here/corpus/$name")

# UBSan only reports and carries on unless told to stop; a report must be a crash here.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}

if [ -d "$here/regressions/$name" ] && [ -n "$(ls -A "$here/regressions/$name")" ]; then
	echo "== replaying fuzz/regressions/$name"
	"$bin" "$here/regressions/$name"/* >/dev/null 2>&1 || {
		echo "a regression input fails again:" >&2
		"$bin" "$here/regressions/$name"/*
		exit 1
	}
fi

echo "== fuzz_$name for ${seconds}s (log: $log)"
stamp=$UROCE_FUZZ_BUILD/fuzz/.run-$name.stamp
touch "$stamp"
set +e
"$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=25 \
	-artifact_prefix="$artifacts/" "$@" "$work" "${seeds[@]}" >"$log" 2>&1
rc=$?
set -e

grep -E '^stat::' "$log" || true
status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
echo "last status: $status"
crashes=$(find "$artifacts" -type f -newer "$stamp" \( -name 'crash-*' -o -name 'leak-*' \
	-o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
echo "summary: target=fuzz_$name seconds=$seconds execs=${execs:-?} exec/s=${speed:-?}" \
	"cov=${cov:-?} ft=${ft:-?} corpus=$(find "$work" -type f | wc -l) crashes=$crashes exit=$rc"
if [ "$rc" -ne 0 ]; then
	grep -E -A40 'ERROR: libFuzzer|ERROR: AddressSanitizer|runtime error|invariant violated' \
		"$log" | head -n 80
	ls -1 "$artifacts"
fi
exit "$rc"
