#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every congestion scenario in full, from one command (docs/congestion.md): each file of
# tools/uroce-sim/scenarios/ and the N:1 incast at N = 2, 4, 8, 16, under DCQCN and without
# congestion control. Each run's summary goes to OUT/NAME-CC.txt, its time series to
# OUT/NAME-CC.csv and, with gnuplot, its plot to OUT/NAME-CC.png; then a table of the figures
# is printed. Extra key=value arguments go to every run (duration_ms=5 for a quick look).
# Usage: tools/uroce-sim/run-all.sh [BUILD_DIR (build)] [OUT_DIR (uroce-sim-out)] [key=value ...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
out=${2:-uroce-sim-out}
shift $(($# < 2 ? $# : 2))
sim=$build/tools/uroce-sim/uroce-sim
[ -x "$sim" ] || { echo "run-all.sh: no $sim: build first (cmake --build $build)" >&2; exit 2; }
mkdir -p "$out"
plot=()
command -v gnuplot >/dev/null && plot=(--plot) || echo "run-all.sh: no gnuplot, no plots" >&2

runs=()
for f in "$here"/scenarios/*.conf; do runs+=("$(basename "$f" .conf):$f"); done
for n in 2 4 8 16; do runs+=("incast$n:$here/scenarios/incast.conf senders=$n"); done

printf '%-12s %-6s %8s %7s %12s %9s %9s %8s\n' scenario cc jain util queue_peak dropped resent pauses
for run in "${runs[@]}"; do
	name=${run%%:*}
	read -r -a args <<<"${run#*:}"
	for cc in dcqcn none; do
		base=$out/$name-$cc
		p=()
		[ ${#plot[@]} = 0 ] || p=(--plot "$base.png")
		"$sim" "${args[@]}" "$@" cc=$cc --quiet --csv "$base.csv" "${p[@]}" >"$base.txt"
		awk -v n="$name" -v c="$cc" '
			/Jain.s index/ { j = $3; sub(",", "", j); u = $5; sub(",", "", u); q = $8 }
			/^whole run/ { for (i = 1; i <= NF; i++) { if ($(i + 1) == "dropped,") d = $i; if ($(i + 1) == "resent,") r = $i } }
			/^PFC:/ { pa = $2 }
			END { printf "%-12s %-6s %8s %7s %12s %9s %9s %8s\n", n, c, j, u, q, d, r, (pa == "" ? "-" : pa) }' "$base.txt"
	done
done
echo "summaries, time series and plots in $out/"
