# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by run.sh and make-corpus.sh: configures (once) and builds the fuzz tree, a clang
# build with -DUROCE_FUZZ=ON in its own folder, so it never disturbs a normal build.
: "${UROCE_FUZZ_BUILD:=$source_dir/build-fuzz}"
export UROCE_FUZZ_BUILD

# fuzz_build TARGET...: configure when needed, then build the targets. Quiet unless it fails.
fuzz_build()
{
	local log
	log=$(mktemp)
	local args=()
	# The first time, the compiler and options; later, only a re-run of CMake, so that a
	# target added since is known (make does not re-configure before "No rule to make").
	[ -f "$UROCE_FUZZ_BUILD/CMakeCache.txt" ] ||
		args=(-DUROCE_FUZZ=ON -DCMAKE_C_COMPILER="${UROCE_FUZZ_CC:-clang}"
			-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF)
	if ! cmake -S "$source_dir" -B "$UROCE_FUZZ_BUILD" "${args[@]}" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	if ! cmake --build "$UROCE_FUZZ_BUILD" --target "$@" -j "${UROCE_FUZZ_BUILD_JOBS:-2}" \
		>"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
}
