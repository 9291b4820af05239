#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two builds of the drop-in libibverbs.so.1 against each other on unmodified ib_send_lat, in
# one run: the pairs alternate (A B A B ...) so that the machine's drift hits both alike, and
# each line is one pair's typical one-way latency (perftest's t_typical, us), then the median
# of each and their ratio B/A. For what a change costs or gains (docs/performance.md).
#
#   bash bench/bench_lat_ab.sh OLD_BUILD/lib NEW_BUILD/lib [PAIRS]
#
# Environment: BENCH_LAT_ITERS (20000), BENCH_SIZE (64), BENCH_SERVER_IP and BENCH_CLIENT_IP
# (127.0.0.2, 127.0.0.1), BENCH_PORT (18830). Run it where nothing else uses those addresses'
# port 4791 (`unshare -n` gives a private loopback: `ip link set lo up` first).
set -u
[ $# -ge 2 ] || { sed -n 3,12p "$0"; exit 2; }
a=$1 b=$2 pairs=${3:-5}
iters=${BENCH_LAT_ITERS:-20000} size=${BENCH_SIZE:-64}
srv=${BENCH_SERVER_IP:-127.0.0.2} cli=${BENCH_CLIENT_IP:-127.0.0.1} port=${BENCH_PORT:-18830}
command -v ib_send_lat >/dev/null || { echo "ib_send_lat missing: apt-get install perftest"; exit 1; }

# One ib_send_lat pair over the library in $1: prints t_typical.
one() {
	LD_LIBRARY_PATH=$1 UROCE_IP=$srv timeout 120 ib_send_lat -d uroce0 -x 0 -s "$size" \
		-n "$iters" -p "$port" >/dev/null 2>&1 &
	local srv_pid=$! t=
	for _ in $(seq 50); do
		t=$(LD_LIBRARY_PATH=$1 UROCE_IP=$cli timeout 120 ib_send_lat -d uroce0 -x 0 \
			-s "$size" -n "$iters" -p "$port" "$srv" 2>/dev/null |
			awk -v s="$size" '$1 == s { print $5 }') && [ -n "$t" ] && break
		sleep 0.1 # the server is not listening yet
	done
	wait "$srv_pid"
	echo "${t:-nan}"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ta=() tb=()
printf '%-6s %10s %10s\n' pair "A (us)" "B (us)"
for i in $(seq "$pairs"); do
	ta+=("$(one "$a")")
	tb+=("$(one "$b")")
	printf '%-6s %10s %10s\n' "$i" "${ta[-1]}" "${tb[-1]}"
done
ma=$(printf '%s\n' "${ta[@]}" | median)
mb=$(printf '%s\n' "${tb[@]}" | median)
awk -v a="$ma" -v b="$mb" 'BEGIN { printf "median %10s %10s   B/A %.3f\n", a, b, b / a }'
