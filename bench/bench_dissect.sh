#!/bin/bash
# SPDX-License-Identifier: MIT
# Dissector throughput: uroce-dump against tshark, both reading the same generated capture in
# the same run (docs/performance.md, "Dissector throughput").
#   bench/bench_dissect.sh [WORK_DIR]
# or `cmake --build build --target bench_dissect`, which passes the programs below.
# Environment:
#   UROCE_DUMP           uroce-dump binary (default build/tools/uroce-dump/uroce-dump)
#   UROCE_GEN_CAPTURE    gen_capture binary (default build/bench/gen_capture)
#   BENCH_PACKETS        packets in the capture (default 1000000)
#   BENCH_REPS           runs of each uroce-dump mode, the fastest kept (default 3)
#   BENCH_TSHARK         tshark binary, or "none" to skip it (default tshark)
#   BENCH_TSHARK_DEFAULT 1 to also time tshark's one-line-per-packet mode (default 1)
# Every program writes to /dev/null; the capture is read once first so that all of them find
# it in the page cache. tshark runs once per mode (minutes on 1M packets), uroce-dump
# BENCH_REPS times.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
work=${1:-$source_dir/build/bench}
dump=${UROCE_DUMP:-$source_dir/build/tools/uroce-dump/uroce-dump}
gen=${UROCE_GEN_CAPTURE:-$source_dir/build/bench/gen_capture}
packets=${BENCH_PACKETS:-1000000}
reps=${BENCH_REPS:-3}
tshark=${BENCH_TSHARK:-tshark}
tshark_default=${BENCH_TSHARK_DEFAULT:-1}

for b in "$dump" "$gen"; do
	[ -x "$b" ] || { echo "bench_dissect: $b not built" >&2; exit 1; }
done
if [ "$tshark" != none ] && ! command -v "$tshark" >/dev/null; then
	echo "bench_dissect: $tshark not found (BENCH_TSHARK=none skips it)" >&2
	exit 1
fi

mkdir -p "$work"
capture=$work/bench-rocev2-$packets.pcap
if [ ! -s "$capture" ] || [ "$gen" -nt "$capture" ]; then
	"$gen" -n "$packets" -o "$capture"
fi
cat "$capture" >/dev/null

# The same six fields for both tools.
fields=(frame.number infiniband.bth.opcode infiniband.bth.destqp infiniband.bth.psn
	infiniband.reth.va infiniband.aeth.syndrome)
efields=()
for f in "${fields[@]}"; do
	efields+=(-e "$f")
done

# seconds OUT CMD...: wall time of one run writing its output to OUT (its messages are
# dropped); fails if the command fails.
seconds()
{
	local out=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	"$@" >"$out" 2>/dev/null
	t1=$EPOCHREALTIME
	echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }'
}

# best CMD...: the fastest of $reps runs, output discarded.
best()
{
	local b="" s
	for ((i = 0; i < reps; i++)); do
		s=$(seconds /dev/null "$@")
		if [ -z "$b" ] || awk -v a="$s" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$s
		fi
	done
	echo "$b"
}

echo "capture: $capture ($packets packets, $(du -m "$capture" | cut -f1) MB)"
echo "uroce-dump: $dump"
[ "$tshark" != none ] && echo "tshark: $("$tshark" --version 2>/dev/null | head -n 1)"
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo

u_line=$(best "$dump" -r "$capture")
u_fields=$(best "$dump" -r "$capture" -T fields "${efields[@]}")
u_flows=$(best "$dump" -r "$capture" --flows)
t_fields="" t_line="" same=""
if [ "$tshark" != none ]; then
	# tshark's fields go to a file (a few ms against its minutes) to be compared below.
	t_fields=$(seconds "$work/tshark-fields.txt" "$tshark" -n -r "$capture" -T fields \
		"${efields[@]}")
	[ "$tshark_default" = 1 ] && t_line=$(seconds /dev/null "$tshark" -n -r "$capture")
	if "$dump" -r "$capture" -T fields "${efields[@]}" 2>/dev/null |
		cmp -s - "$work/tshark-fields.txt"; then
		same="identical"
	else
		same="DIFFERENT"
	fi
	rm -f "$work/tshark-fields.txt"
fi

# row NAME SECONDS [TSHARK_SECONDS]
row()
{
	awk -v name="$1" -v s="$2" -v t="${3:-}" -v n="$packets" 'BEGIN {
		r = ""
		if (t != "" && s > 0)
			r = sprintf("%8.1fx", t / s)
		printf "%-40s %9.3f s %12.0f pkt/s %s\n", name, s, n / s, r
	}'
}

printf "%-40s %11s %18s %s\n" "run" "time" "throughput" "uroce/tshark"
row "uroce-dump (one line per packet)" "$u_line" "$t_line"
row "uroce-dump -T fields (6 fields)" "$u_fields" "$t_fields"
row "uroce-dump --flows" "$u_flows" "$t_fields"
if [ -n "$t_line" ]; then
	row "tshark -n (one line per packet)" "$t_line"
fi
if [ -n "$t_fields" ]; then
	row "tshark -n -T fields (6 fields)" "$t_fields"
	echo
	echo "uroce/tshark: tshark's time over uroce-dump's on the same file; --flows is compared"
	echo "with tshark -T fields, tshark having no equivalent analysis."
	echo "-T fields output of the two tools: $same"
fi
# uroce-dump's closing summary (packets, CRC verdicts) on standard error.
{ "$dump" -r "$capture" -T fields -e frame.number >/dev/null; } 2>&1
