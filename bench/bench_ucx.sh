#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# UCX's ucx_perftest over uroce (docs/performance.md "UCX"): a server on 127.0.0.1, a client
# on 127.0.0.2, both on the drop-in libibverbs.so.1, with UCX_TLS=rc_v (rc_verbs; ud_verbs
# sets up its connections) and UCX_TLS=ud_v (ud_verbs alone), and, as the baseline of the
# same run, UCX_TLS=tcp over lo:
#
#   tag_lat     8 B tagged ping-pong: one-way latency, us (half the round trip)
#   tag_bw      64 KiB and 1 MiB tagged messages: MB/s (UCX's rendezvous above 8 KiB)
#   ucp_put_bw  64 KiB and 1 MiB one-sided puts: MB/s
#   ucp_get     8 B and 64 KiB one-sided gets, one at a time: latency, us
#
# Each cell is ucx_perftest's "Final" figure (the 50th percentile for latencies, the overall
# average for bandwidths), best of BENCH_REPS runs (default 3). The processes run in a network
# namespace of their own under tools/uroce-devns (UCX's /dev/infiniband check); as root.
# Environment: UROCE_BUILD (default ./build), UROCE_SOURCE (default .), BENCH_REPS.
# `cmake --build build --target bench_ucx` runs it with the build's paths.
set -u

build=$(cd "${UROCE_BUILD:-build}" 2>/dev/null && pwd) || { echo "no build directory"; exit 1; }
src=$(cd "${UROCE_SOURCE:-.}" && pwd)
reps=${BENCH_REPS:-3}
command -v ucx_perftest >/dev/null || { echo "ucx_perftest missing: apt-get install ucx-utils"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench_ucx: needs root (a network namespace of its own)"; exit 1; }
if [ -z "${BENCH_UCX_INSIDE:-}" ]; then
	BENCH_UCX_INSIDE=1 exec unshare --net -- "$src/tools/uroce-devns/uroce-devns" bash "$0" "$@"
fi
ip link set lo up
export LD_LIBRARY_PATH=$build/lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run TLS TEST ARGS...: prints the figure of the best of $reps runs (column 4, the median
# latency, for latency tests; column 7, the overall MB/s, for bandwidth tests), or "fail".
run()
{
	local tl=$1 t=$2 col best=
	shift 2
	case $t in *_lat | ucp_get) col=3 ;; *) col=6 ;; esac
	local dev=uroce0:1
	[ "$tl" = tcp ] && dev=lo
	for ((r = 0; r < reps; r++)); do
		UROCE_IP=127.0.0.1 UCX_TLS=$tl UCX_NET_DEVICES=$dev timeout 120 \
			ucx_perftest -p 13337 >"$tmp/srv" 2>&1 &
		local spid=$! i v
		for ((i = 0; i < 100; i++)); do
			ss -Hltn 'sport = :13337' 2>/dev/null | grep -q . && break
			sleep 0.05
		done
		UROCE_IP=127.0.0.2 UCX_TLS=$tl UCX_NET_DEVICES=$dev timeout 120 \
			ucx_perftest -p 13337 -t "$t" "$@" 127.0.0.1 >"$tmp/cli" 2>&1
		wait $spid
		v=$(awk -v c=$col '$1 == "Final:" { print $c }' "$tmp/cli")
		[ -n "$v" ] || continue
		if [ -z "$best" ]; then
			best=$v
		elif [ $col = 3 ]; then
			best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (b < a ? b : a) }')
		else
			best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (b > a ? b : a) }')
		fi
	done
	echo "${best:-fail}"
}

# ucp_get over ud_verbs and tcp is emulated in software: the passive side answers only when
# ucx_perftest lets it progress, which its server does once per 1 ms poll() timeout; fewer
# iterations there.
cases=("tag_lat|-s 8 -n 20000 -w 1000|8 B, us"
	"tag_bw|-s 65536 -n 5000 -w 200|64 KiB, MB/s"
	"tag_bw|-s 1048576 -n 500 -w 20|1 MiB, MB/s"
	"ucp_put_bw|-s 65536 -n 5000 -w 200|64 KiB, MB/s"
	"ucp_put_bw|-s 1048576 -n 500 -w 20|1 MiB, MB/s"
	"ucp_get|-s 8 -n 2000 -w 100|8 B, us"
	"ucp_get|-s 65536 -n 1000 -w 50|64 KiB, us")
printf '| %-26s | %10s | %10s | %10s |\n' "test" "rc_v" "ud_v" "tcp (lo)"
printf '| %-26s | %10s | %10s | %10s |\n' "---" "---" "---" "---"
for c in "${cases[@]}"; do
	IFS='|' read -r t args what <<<"$c"
	row=()
	for tl in rc_v ud_v tcp; do
		a=$args
		[ "$t" = ucp_get ] && [ "$tl" != rc_v ] && a=${a/-n 2000 -w 100/-n 300 -w 10} &&
			a=${a/-n 1000 -w 50/-n 300 -w 10}
		# shellcheck disable=SC2086 # the arguments are words
		row+=("$(run "$tl" "$t" $a)")
	done
	printf '| %-26s | %10s | %10s | %10s |\n' "$t $what" "${row[@]}"
done
