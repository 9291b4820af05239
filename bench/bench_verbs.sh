#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce against raw UDP, in one run on the same two addresses (docs/performance.md "Verbs
# over UDP"): unmodified perftest on the drop-in libibverbs.so.1 next to udp_baseline.
#
#   bandwidth     ib_write_bw -s 65536 -m 4096 (RC, 64 KiB RDMA WRITEs, MTU 4096)
#                 against 4 KiB UDP datagrams, sendmmsg/recvmmsg      goal: >= 0.7 of UDP
#   latency       ib_send_lat -s 64 (one way: half the round trip, as perftest prints it)
#                 against a 64 B busy-poll UDP ping-pong's half round trip  goal: <= 1.5x
#                 and against the same ping-pong with a 20 B datagram before each message
#                 (pingpong --acked): the ACK that RC adds per direction when each side
#                 waits for its send completion, as ib_send_lat does; the floor of RC over
#                 UDP sockets for that test
#   message rate  ib_write_bw -s 64 (and with -q 2, --post_list 16) against 64 B UDP
#                 datagrams, sendmmsg/recvmmsg
#
#   latency over AF_XDP  the same ib_send_lat with UROCE_XDP (docs/udp.md "AF_XDP"), each side
#                 in a network namespace of its own on a veth pair, against the same UDP
#                 ping-pongs between those namespaces (as root only; BENCH_XDP=0: skipped)
#
# Environment: UROCE_BUILD (the build directory, default ./build), UROCE_UDP_BASELINE (the
# udp_baseline program), BENCH_SECONDS (3: each bandwidth and rate run), BENCH_LAT_ITERS
# (10000), BENCH_REPS (3: the table keeps each figure's best run), BENCH_SERVER_IP and
# BENCH_CLIENT_IP (127.0.0.2, 127.0.0.1), BENCH_PORT (18820: perftest's handshake).
# UROCE_SPIN_US and any other UROCE_ variable pass through to both sides. Figures drift
# between runs on shared VMs (by a factor of 2 within minutes on the project's 2-vCPU VMs):
# each uroce figure is measured right after its baseline, and the ratios are what to compare.
# `cmake --build build --target bench_verbs` runs it with the build's paths.
set -u

build=${UROCE_BUILD:-build}
lib=$(cd "$build/lib" 2>/dev/null && pwd) || { echo "no $build/lib: build first"; exit 1; }
udp=${UROCE_UDP_BASELINE:-$build/bench/udp_baseline}
secs=${BENCH_SECONDS:-3}
lat_iters=${BENCH_LAT_ITERS:-10000}
reps=${BENCH_REPS:-3}
srv_ip=${BENCH_SERVER_IP:-127.0.0.2}
cli_ip=${BENCH_CLIENT_IP:-127.0.0.1}
port=${BENCH_PORT:-18820}

[ -x "$udp" ] || { echo "no udp_baseline at $udp"; exit 1; }
. "$(dirname "$0")/lib.sh"
xdp=${BENCH_XDP:-1}
[ "$(id -u)" = 0 ] || xdp=0
for p in ib_write_bw ib_send_lat; do
	command -v $p >/dev/null || { echo "$p missing: apt-get install perftest"; exit 1; }
done

tmp=$(mktemp -d)
nsa=uroce-bench-a-$$ nsb=uroce-bench-b-$$ xsrv=10.78.0.1 xcli=10.78.0.2
cleanup() {
	rm -rf "$tmp"
	[ "$xdp" = 1 ] && { ip netns del $nsa; ip netns del $nsb; } 2>/dev/null
}
trap cleanup EXIT
# The AF_XDP figures' veth pair: both ends named u0, one per namespace.
if [ "$xdp" = 1 ]; then
	ip netns add $nsa && ip netns add $nsb &&
		ip link add u0 netns $nsa type veth peer name u0 netns $nsb &&
		ip -n $nsa addr add $xsrv/24 dev u0 && ip -n $nsb addr add $xcli/24 dev u0 &&
		ip -n $nsa link set u0 up && ip -n $nsb link set u0 up &&
		ip -n $nsa link set lo up && ip -n $nsb link set lo up ||
		{ echo "cannot set up the veth pair: no AF_XDP figures"; xdp=0; }
fi

# perftest NAME PROG ARGS...: server on srv_ip in the background, client on cli_ip; the
# client's output goes to $tmp/NAME.out. Returns the client's status.
perftest() {
	local name=$1 prog=$2 rc
	shift 2
	local common=(-d uroce0 -x 0 -F -p "$port")
	UROCE_IP=$srv_ip LD_LIBRARY_PATH=$lib timeout 120 "$prog" "${common[@]}" "$@" \
		>"$tmp/$name.srv" 2>&1 &
	local srv=$!
	sleep 0.5 # the server listens on its TCP port before the client connects
	UROCE_IP=$cli_ip LD_LIBRARY_PATH=$lib timeout 120 "$prog" "${common[@]}" "$@" "$srv_ip" \
		>"$tmp/$name.out" 2>&1
	rc=$?
	wait $srv
	if [ $rc -ne 0 ]; then
		echo "  $name: $prog failed ($rc):"
		sed 's/^/    client: /' "$tmp/$name.out" | tail -n 5
		sed 's/^/    server: /' "$tmp/$name.srv" | tail -n 5
	fi
	return $rc
}

# perftest_xdp NAME PROG ARGS...: as perftest, with UROCE_XDP=u0, the server in nsa and the
# client in nsb.
perftest_xdp() {
	local name=$1 prog=$2 rc
	shift 2
	local common=(-d uroce0 -x 0 -F -p "$port")
	ip netns exec $nsa env UROCE_XDP=u0 LD_LIBRARY_PATH="$lib" timeout 120 "$prog" \
		"${common[@]}" "$@" >"$tmp/$name.srv" 2>&1 &
	local srv=$!
	sleep 0.5
	ip netns exec $nsb env UROCE_XDP=u0 LD_LIBRARY_PATH="$lib" timeout 120 "$prog" \
		"${common[@]}" "$@" "$xsrv" >"$tmp/$name.out" 2>&1
	rc=$?
	wait $srv
	if [ $rc -ne 0 ]; then
		echo "  $name: $prog over AF_XDP failed ($rc):"
		sed 's/^/    client: /' "$tmp/$name.out" | tail -n 5
		sed 's/^/    server: /' "$tmp/$name.srv" | tail -n 5
	fi
	return $rc
}

run_udp() {
	local name=$1
	shift
	if [[ $name == xudp* ]]; then # between the AF_XDP figures' namespaces
		set -- "$@" --src-netns $nsb --dst-netns $nsa --src $xcli --dst $xsrv
	else
		set -- "$@" --src "$cli_ip" --dst "$srv_ip"
	fi
	if ! "$udp" "$@" >"$tmp/$name.out" 2>&1; then
		echo "  $name: udp_baseline failed:"
		sed 's/^/    /' "$tmp/$name.out"
	fi
}

echo "bench_verbs: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"UROCE_SPIN_US=${UROCE_SPIN_US:-default}, ${secs} s runs, best of $reps"
echo "  library: $lib/libibverbs.so.1; $srv_ip (server) and $cli_ip (client)"
echo "  UDP: udp_baseline bw -l 4096 | pingpong -l 64 -n $lat_iters [--acked] | bw -l 64"
echo "  uroce: ib_write_bw -s 65536 -m 4096 -D $secs | ib_send_lat -s 64 -n $lat_iters |" \
	"ib_write_bw -s 64 -D $secs [-q 2 | --post_list 16]"

[ "$xdp" = 1 ] && echo "  AF_XDP: ib_send_lat with UROCE_XDP=u0 and the same ping-pongs, between" \
	"$xsrv and $xcli on a veth pair, one namespace each"

udp_gbps=() udp_ow50=() udp_ow99=() udp_ack50=() udp_pps=() bw=() lat50=() lat99=() rate=() rate_q2=() rate_pl=()
xudp50=() xudp99=() xack50=() xlat50=() xlat99=()
for r in $(seq "$reps"); do
	echo
	echo "== run $r of $reps"
	# Each uroce figure right after its baseline, so that both see the same load.
	run_udp udp_bw.$r bw -l 4096 -s "$secs"
	perftest write_bw.$r ib_write_bw -s 65536 -m 4096 -D "$secs" --report_gbits
	run_udp udp_pp.$r pingpong -l 64 -n "$lat_iters"
	run_udp udp_ack.$r pingpong -l 64 -n "$lat_iters" --acked
	perftest send_lat.$r ib_send_lat -s 64 -n "$lat_iters"
	run_udp udp_rate.$r bw -l 64 -s "$secs"
	perftest rate.$r ib_write_bw -s 64 -D "$secs"
	perftest rate_q2.$r ib_write_bw -s 64 -D "$secs" -q 2
	perftest rate_pl.$r ib_write_bw -s 64 -D "$secs" --post_list 16

	udp_gbps+=("$(udp_field udp_bw.$r gbps)")
	udp_ow50+=("$(udp_field udp_pp.$r oneway_p50_us)")
	udp_ow99+=("$(udp_field udp_pp.$r oneway_p99_us)")
	udp_ack50+=("$(udp_field udp_ack.$r oneway_p50_us)")
	udp_pps+=("$(udp_field udp_rate.$r pps)")
	bw+=("$(pt_field write_bw.$r 4)")
	lat50+=("$(pt_field send_lat.$r 5)")
	lat99+=("$(pt_field send_lat.$r 8)")
	rate+=("$(pt_field rate.$r 5)")
	rate_q2+=("$(pt_field rate_q2.$r 5)")
	rate_pl+=("$(pt_field rate_pl.$r 5)")
	k=$((r - 1))
	echo "  bandwidth    UDP 4 KiB ${udp_gbps[k]} Gbit/s;" \
		"ib_write_bw 64 KiB ${bw[k]} Gbit/s"
	echo "  latency      UDP one way ${udp_ow50[k]} us median, ${udp_ow99[k]} us p99," \
		"with ACKs ${udp_ack50[k]} us; ib_send_lat ${lat50[k]} us typical, ${lat99[k]} us p99"
	echo "  64 B rate    UDP ${udp_pps[k]} datagrams/s; ib_write_bw ${rate[k]} Mpps," \
		"-q 2 ${rate_q2[k]}, --post_list 16 ${rate_pl[k]}"
	[ "$xdp" = 1 ] || continue
	run_udp xudp_pp.$r pingpong -l 64 -n "$lat_iters"
	run_udp xudp_ack.$r pingpong -l 64 -n "$lat_iters" --acked
	perftest_xdp xsend_lat.$r ib_send_lat -s 64 -n "$lat_iters"
	xudp50+=("$(udp_field xudp_pp.$r oneway_p50_us)")
	xudp99+=("$(udp_field xudp_pp.$r oneway_p99_us)")
	xack50+=("$(udp_field xudp_ack.$r oneway_p50_us)")
	xlat50+=("$(pt_field xsend_lat.$r 5)")
	xlat99+=("$(pt_field xsend_lat.$r 8)")
	echo "  AF_XDP       UDP on the veth one way ${xudp50[k]} us median, ${xudp99[k]} us p99," \
		"with ACKs ${xack50[k]} us; ib_send_lat ${xlat50[k]} us typical, ${xlat99[k]} us p99"
done

# The table: the best run of each, the ratio and the goal (Markdown, for performance.md).
awk -v bw="$(best max "${bw[@]}")" -v ubw="$(best max "${udp_gbps[@]}")" \
	-v l50="$(best min "${lat50[@]}")" -v u50="$(best min "${udp_ow50[@]}")" \
	-v l99="$(best min "${lat99[@]}")" -v u99="$(best min "${udp_ow99[@]}")" \
	-v ua50="$(best min "${udp_ack50[@]}")" \
	-v r="$(best max "${rate[@]}")" -v rq="$(best max "${rate_q2[@]}")" \
	-v rp="$(best max "${rate_pl[@]}")" -v upps="$(best max "${udp_pps[@]}")" \
	-v x50="$(best min "${xlat50[@]}")" -v xu50="$(best min "${xudp50[@]}")" \
	-v x99="$(best min "${xlat99[@]}")" -v xu99="$(best min "${xudp99[@]}")" \
	-v xa50="$(best min "${xack50[@]}")" -v xdp="$xdp" '
function num(x) { return x ~ /^[0-9.]+$/ }
function fmt(x, d) { return num(x) ? sprintf("%." d "f", x) : "n/a" }
function ratio(a, b, suffix) {
	return num(a) && num(b) && b > 0 ? sprintf("%.2f%s", a / b, suffix) : ""
}
function row(what, u, b, q, goal) {
	printf "| %-40s | %8s | %8s | %8s | %-16s |\n", what, u, b, q, goal
}
BEGIN {
	upm = num(upps) ? upps / 1e6 : "n/a"
	row("measure", "uroce", "raw UDP", "ratio", "goal")
	row("----------------------------------------", "--------", "--------", "--------",
	    "----------------")
	q = ratio(bw, ubw, "")
	goal = q == "" ? ">= 0.7" : (q + 0 >= 0.7 ? ">= 0.7: met" : ">= 0.7: not met")
	row("bandwidth, Gbit/s (64 KiB WRITE; 4 KiB)", fmt(bw, 2), fmt(ubw, 2), q, goal)
	q = ratio(l50, u50, "x")
	goal = q == "" ? "<= 1.5x" : (q + 0 <= 1.5 ? "<= 1.5x: met" : "<= 1.5x: not met")
	row("one-way latency median, us (64 B SEND)", fmt(l50, 2), fmt(u50, 2), q, goal)
	row("  against UDP with an ACK each way", fmt(l50, 2), fmt(ua50, 2), ratio(l50, ua50, "x"), "")
	row("one-way latency p99, us", fmt(l99, 2), fmt(u99, 2), ratio(l99, u99, "x"), "")
	row("message rate, Mpps (64 B WRITE; 64 B)", fmt(r, 3), fmt(upm, 3), ratio(r, upm, ""), "")
	row("  ib_write_bw -q 2", fmt(rq, 3), "", ratio(rq, upm, ""), "")
	row("  ib_write_bw --post_list 16", fmt(rp, 3), "", ratio(rp, upm, ""), "")
	if (xdp != 1)
		exit
	q = ratio(x50, xu50, "x")
	goal = q == "" ? "<= 1.5x" : (q + 0 <= 1.5 ? "<= 1.5x: met" : "<= 1.5x: not met")
	row("AF_XDP on veth: one-way median, us", fmt(x50, 2), fmt(xu50, 2), q, goal)
	row("  against UDP with an ACK each way", fmt(x50, 2), fmt(xa50, 2), ratio(x50, xa50, "x"), "")
	row("  one-way p99, us", fmt(x99, 2), fmt(xu99, 2), ratio(x99, xu99, "x"), "")
}'
echo
echo "For scale: published Linux rxe ib_write_bw figures are 1-7 Gbit/s; hardware RoCE on"
echo "100 GbE reaches about 97 Gbit/s with sub-microsecond latency."
