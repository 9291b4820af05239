#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What sharing an address costs one pair (docs/multiprocess.md, docs/performance.md "One
# address, many processes"): unmodified ib_send_lat (t_typical, us) and ib_write_bw (average
# Gbit/s, 64 KiB messages), server on 127.0.0.2 and client on 127.0.0.1, in three settings
# that alternate round by round, so that the machine's drift hits all three alike:
#   excl   UROCE_SHARE=0: each process's port its own, no group, no steering program (the
#          baseline: uroce before processes shared addresses)
#   alone  shared: the pair alone in its addresses' groups, steered by their programs
#   nbrs   shared, with 7 idle neighbours on the server's address: ibv_rc_pingpong servers
#          waiting for clients, a QP each, members of the group whose program the pair's
#          datagrams run through
#   other  shared, the same 7 neighbours on another address (127.0.0.3): what the
#          processes themselves cost the machine, outside the group; nbrs/other is the
#          steering's own cost
# Then the medians, and each setting's ratio to excl.
#
#   bash bench/bench_neighbours.sh BUILD/lib [ROUNDS]
#
# Runs in a network namespace of its own (unshare -n: root), so that nothing else uses the
# addresses' port 4791. Environment: BENCH_LAT_ITERS (20000), BENCH_BW_ITERS (5000).
set -u
[ $# -ge 1 ] || { sed -n 3,19p "$0"; exit 2; }
lib=$(cd "$1" && pwd) rounds=${2:-5}
if [ -z "${BENCH_INSIDE:-}" ]; then
	BENCH_INSIDE=1 exec unshare -n -- bash "$0" "$lib" "$rounds"
fi
ip link set lo up
for p in ib_send_lat ib_write_bw ibv_rc_pingpong; do
	command -v $p >/dev/null || { echo "$p missing: apt-get install perftest ibverbs-utils"; exit 1; }
done
lat_iters=${BENCH_LAT_ITERS:-20000} bw_iters=${BENCH_BW_ITERS:-5000}
export UROCE_RUNTIME_DIR
UROCE_RUNTIME_DIR=$(mktemp -d /tmp/uroce-bench-nbrs.XXXXXX)
trap 'pkill -P $$ 2>/dev/null; rm -rf "$UROCE_RUNTIME_DIR"' EXIT

# pair SHARE PROGRAM ARGS... -- AWK: one server/client pair; prints the client's figure
pair() {
	local share=$1 prog=$2 args=() f= srv
	shift 2
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	LD_LIBRARY_PATH=$lib UROCE_SHARE=$share UROCE_IP=127.0.0.2 timeout 120 \
		$prog -d uroce0 -x 0 "${args[@]}" -p 18830 >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 50); do
		f=$(LD_LIBRARY_PATH=$lib UROCE_SHARE=$share UROCE_IP=127.0.0.1 timeout 120 \
			$prog -d uroce0 -x 0 "${args[@]}" -p 18830 127.0.0.2 2>/dev/null | awk "$2") &&
			[ -n "$f" ] && break
		sleep 0.1 # the server is not listening yet
	done
	wait "$srv"
	echo "${f:-nan}"
}
lat() { pair "$1" ib_send_lat -s 64 -n "$lat_iters" -- '$1 == 64 { print $5 }'; }
bw() { pair "$1" ib_write_bw -s 65536 -n "$bw_iters" -- '$1 == 65536 { print $4 * 8 / 1000 }'; }

neighbours=()
start_neighbours() { # ADDRESS
	for i in $(seq 7); do
		LD_LIBRARY_PATH=$lib UROCE_IP=$1 ibv_rc_pingpong -g 0 -p $((18900 + i)) \
			>/dev/null 2>&1 &
		neighbours+=($!)
	done
	sleep 1 # each has its QP, and so its place in the group
}
stop_neighbours() {
	kill "${neighbours[@]}" 2>/dev/null
	wait "${neighbours[@]}" 2>/dev/null
	neighbours=()
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A L B
sets=(excl alone nbrs other)
row() { printf '%-6s %7s %7s %7s %7s %8s %8s %8s %8s\n' "$@"; }
printf '%-6s %31s %35s\n' "" "ib_send_lat t_typical (us)" "ib_write_bw 64 KiB (Gbit/s)"
row round "${sets[@]}" "${sets[@]}"
for r in $(seq "$rounds"); do
	L[excl,$r]=$(lat 0) B[excl,$r]=$(bw 0)
	L[alone,$r]=$(lat 1) B[alone,$r]=$(bw 1)
	start_neighbours 127.0.0.2
	L[nbrs,$r]=$(lat 1) B[nbrs,$r]=$(bw 1)
	stop_neighbours
	start_neighbours 127.0.0.3
	L[other,$r]=$(lat 1) B[other,$r]=$(bw 1)
	stop_neighbours
	row "$r" "${L[excl,$r]}" "${L[alone,$r]}" "${L[nbrs,$r]}" "${L[other,$r]}" \
		"${B[excl,$r]}" "${B[alone,$r]}" "${B[nbrs,$r]}" "${B[other,$r]}"
done
declare -A ML MB
for s in "${sets[@]}"; do
	ML[$s]=$(for r in $(seq "$rounds"); do echo "${L[$s,$r]}"; done | median)
	MB[$s]=$(for r in $(seq "$rounds"); do echo "${B[$s,$r]}"; done | median)
done
row median "${ML[excl]}" "${ML[alone]}" "${ML[nbrs]}" "${ML[other]}" \
	"${MB[excl]}" "${MB[alone]}" "${MB[nbrs]}" "${MB[other]}"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
row /excl - "$(ratio "${ML[alone]}" "${ML[excl]}")" "$(ratio "${ML[nbrs]}" "${ML[excl]}")" \
	"$(ratio "${ML[other]}" "${ML[excl]}")" - "$(ratio "${MB[alone]}" "${MB[excl]}")" \
	"$(ratio "${MB[nbrs]}" "${MB[excl]}")" "$(ratio "${MB[other]}" "${MB[excl]}")"
echo "steering with 7 neighbours (nbrs/other): latency $(ratio "${ML[nbrs]}" "${ML[other]}"), bandwidth $(ratio "${MB[nbrs]}" "${MB[other]}")"
