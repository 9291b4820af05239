#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The three backends side by side on one veth pair (docs/backends.md "Choosing"): two network
# namespaces, one end of the pair in each, and unmodified perftest over uroce with the UDP
# backend, AF_XDP (UROCE_XDP=u0) and AF_PACKET (UROCE_PACKET=u0), each right after raw UDP
# between the same namespaces (udp_baseline), so that every ratio compares one moment:
#
#   latency    ib_send_lat -s 64 one way (median and p99) against a 64 B busy-poll UDP
#              ping-pong's half round trip
#   bandwidth  ib_write_bw -s 65536 -m 1024 (the veth's MTU is 1500) against 1 KiB UDP
#              datagrams, sendmmsg/recvmmsg
#
# Needs root (namespaces, raw sockets). Environment: UROCE_BUILD (default ./build),
# BENCH_SECONDS (3), BENCH_LAT_ITERS (10000), BENCH_REPS (3: the best run of each figure),
# BENCH_PORT (18830). `cmake --build build --target bench_backends` runs it.
set -u

build=${UROCE_BUILD:-build}
lib=$(cd "$build/lib" 2>/dev/null && pwd) || { echo "no $build/lib: build first"; exit 1; }
udp=$build/bench/udp_baseline
secs=${BENCH_SECONDS:-3}
lat_iters=${BENCH_LAT_ITERS:-10000}
reps=${BENCH_REPS:-3}
port=${BENCH_PORT:-18830}
[ "$(id -u)" = 0 ] || { echo "bench_backends: needs root (network namespaces, raw sockets)"; exit 1; }
[ -x "$udp" ] || { echo "no udp_baseline at $udp"; exit 1; }
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
nsa=uroce-bb-a-$$ nsb=uroce-bb-b-$$ srv=10.79.0.1 cli=10.79.0.2
cleanup() {
	rm -rf "$tmp"
	ip netns del $nsa 2>/dev/null
	ip netns del $nsb 2>/dev/null
}
trap cleanup EXIT
ip netns add $nsa && ip netns add $nsb &&
	ip link add u0 netns $nsa type veth peer name u0 netns $nsb &&
	ip -n $nsa addr add $srv/24 dev u0 && ip -n $nsb addr add $cli/24 dev u0 &&
	ip -n $nsa link set u0 up && ip -n $nsb link set u0 up &&
	ip -n $nsa link set lo up && ip -n $nsb link set lo up ||
	{ echo "cannot set up the veth pair"; exit 1; }

# perftest_on BACKEND NAME PROG ARGS...: the server in nsa, the client in nsb.
perftest_on() {
	local backend=$1 name=$2 prog=$3 rc
	shift 3
	local env=(LD_LIBRARY_PATH="$lib") common=(-d uroce0 -x 0 -F -p "$port")
	case $backend in
	xdp) env+=(UROCE_XDP=u0) ;;
	packet) env+=(UROCE_PACKET=u0) ;;
	esac
	ip netns exec $nsa env "${env[@]}" UROCE_IP=$srv timeout 120 "$prog" "${common[@]}" "$@" \
		>"$tmp/$name.srv" 2>&1 &
	local s=$!
	sleep 0.5
	ip netns exec $nsb env "${env[@]}" UROCE_IP=$cli timeout 120 "$prog" "${common[@]}" "$@" $srv \
		>"$tmp/$name.out" 2>&1
	rc=$?
	wait $s
	[ $rc -eq 0 ] || { echo "  $name failed ($rc):"; tail -n 5 "$tmp/$name.out" "$tmp/$name.srv"; }
}

run_udp() {
	local name=$1
	shift
	"$udp" "$@" --src-netns $nsb --dst-netns $nsa --src $cli --dst $srv >"$tmp/$name.out" 2>&1 ||
		{ echo "  $name: udp_baseline failed"; cat "$tmp/$name.out"; }
}

echo "bench_backends: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"veth $srv <-> $cli, ${secs} s bandwidth runs, $lat_iters round trips, best of $reps"
backends=(udp xdp packet)
declare -A l50 l99 bw
u50=() u99=() ubw=()
for r in $(seq "$reps"); do
	run_udp udp_pp.$r pingpong -l 64 -n "$lat_iters"
	run_udp udp_bw.$r bw -l 1024 -s "$secs"
	u50+=("$(udp_field udp_pp.$r oneway_p50_us)")
	u99+=("$(udp_field udp_pp.$r oneway_p99_us)")
	ubw+=("$(udp_field udp_bw.$r gbps)")
	for b in "${backends[@]}"; do
		perftest_on "$b" lat.$b.$r ib_send_lat -s 64 -n "$lat_iters"
		perftest_on "$b" bw.$b.$r ib_write_bw -s 65536 -m 1024 -D "$secs" --report_gbits
		l50[$b]+=" $(pt_field lat.$b.$r 5)"
		l99[$b]+=" $(pt_field lat.$b.$r 8)"
		bw[$b]+=" $(pt_field bw.$b.$r 4)"
	done
	echo "  run $r: UDP ${u50[-1]} us one way, ${ubw[-1]} Gbit/s;" \
		"$(for b in "${backends[@]}"; do printf '%s %s us %s Gbit/s; ' "$b" \
			"$(pt_field lat.$b.$r 5)" "$(pt_field bw.$b.$r 4)"; done)"
done

U50=$(best min "${u50[@]}") U99=$(best min "${u99[@]}") UBW=$(best max "${ubw[@]}")
printf '| %-28s | %9s | %9s | %10s | %9s | %11s |\n' backend "median us" "x UDP" "p99 us" \
	"Gbit/s" "of UDP's"
printf '|%s|\n' "------------------------------|-----------|-----------|------------|-----------|-------------"
printf '| %-28s | %9s | %9s | %10s | %9s | %11s |\n' "raw UDP (udp_baseline)" "$U50" 1.00 "$U99" "$UBW" 1.00
for b in "${backends[@]}"; do
	# shellcheck disable=SC2086
	L50=$(best min ${l50[$b]}) L99=$(best min ${l99[$b]}) BW=$(best max ${bw[$b]})
	printf '| %-28s | %9s | %9s | %10s | %9s | %11s |\n' "uroce, $b backend" "$L50" \
		"$(ratio "$L50" "$U50")" "$L99" "$BW" "$(ratio "$BW" "$UBW")"
done
