#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One address, many processes (docs/multiprocess.md): two "hosts", network namespaces joined
# by a veth pair with one address each (A 10.77.0.1, B 10.77.0.2), and no UROCE_IP: every
# program sees its host's GID table and uses GID 1, the veth address. Unmodified programs:
#  - 8 ibv_rc_pingpong servers on A and their 8 clients on B, all at once; uroce-stat on A
#    lists the 8 servers while they wait;
#  - the same with 2% of every process's packets lost (UROCE_IMPAIR; a pair may end in the
#    race every lossy pingpong has, interop/lib.sh ic_end_race);
#  - 8 ib_write_bw pairs at once;
#  - 4 long pingpong pairs, one server killed with SIGKILL in mid-traffic: the other three
#    finish, uroce-stat no longer lists it, and a new pair runs after it;
#  - 3 rping servers (rdma_cm) on A's address, each on its port, and their clients on B at
#    once; a 4th server on a port one of them listens on is refused (EADDRINUSE);
#  - rping and udaddy with both ends on A's address.
. "$(dirname "$0")/../interop/lib.sh"
ic_need ibverbs-utils ibv_rc_pingpong
ic_need perftest ib_write_bw
ic_need rdmacm-utils rping
ic_need rdmacm-utils udaddy
ic_need iproute2 ip
ic_need util-linux nsenter
STAT=${UROCE_BUILD:-/nonexistent}/tools/uroce-stat/uroce-stat
[ -x "$STAT" ] || { echo "FAIL: no uroce-stat at $STAT (UROCE_BUILD)"; exit 1; }

if [ -z "${OA_INSIDE:-}" ]; then
	[ "$(id -u)" -eq 0 ] || ic_skip "needs root for network namespaces"
	trap - EXIT
	rm -rf "$IC_TMP"
	OA_INSIDE=1 exec unshare --net -- bash "$0" "$@"
fi
A=10.77.0.1
ip link set lo up
unshare --net -- sleep infinity &
HB=$!
IC_PIDS+=("$HB")
for _ in $(seq 50); do
	[ "$(readlink /proc/$HB/ns/net)" != "$(readlink /proc/$$/ns/net)" ] && break
	sleep 0.05
done
ip link add oa-a type veth peer name oa-b netns "/proc/$HB/ns/net" &&
	ip addr add $A/24 dev oa-a && ip link set oa-a up &&
	nsenter -t "$HB" -n -- sh -c 'ip link set lo up && ip addr add 10.77.0.2/24 dev oa-b &&
		ip link set oa-b up' || { echo "FAIL: cannot make the two hosts"; exit 1; }
export UROCE_RUNTIME_DIR=$IC_TMP/run
mkdir -m 700 "$UROCE_RUNTIME_DIR"

on_b() { nsenter -t "$HB" -n -- "$@"; }

# listening PORT...: until A listens on every TCP port, 20 s at most
listening()
{
	local p
	for _ in $(seq 200); do
		for p in "$@"; do ic_listening "$p" || continue 2; done
		return 0
	done
	return 1
}

# judge NAME KIND_SERVER KIND_CLIENT S_OUT S_RC C_OUT C_RC [end-race]: one pair's verdict
judge()
{
	local problems
	problems=$( {
		ic_check_output "$1" server "$4" "$5" "$2"
		ic_check_output "$1" client "$6" "$7" "$3"
	})
	[ -z "$problems" ] && { ic_pass "$1"; return 0; }
	if [ "${8:-}" = end-race ] && ic_end_race "$4" "$5" "$6" "$7" "$3" "$2"; then
		ic_pass "$1" "the lossy pingpong's end race (ic_end_race)"
		return 0
	fi
	ic_fail "$1" "$(tr '\n' ';' <<<"$problems")"
	ic_show "server output" "$4"
	ic_show "client output" "$6"
	return 1
}

# pairs NAME COUNT KIND END-RACE [VAR=VALUE...] -- PROGRAM ARGS...: COUNT servers on A (TCP
# ports 18800 + i), then COUNT clients on B at once; PROGRAM ARGS get -p PORT, the clients A
# too. Sets SPIDS, CPIDS (timeout's pids) and leaves the outputs in $IC_TMP/NAME.i.{server,client}.
pairs()
{
	local name=$1 n=$2 kind=$3 race=$4 envs=() i ports=()
	shift 4
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	SPIDS=() CPIDS=()
	for ((i = 0; i < n; i++)); do
		ic_cmd "${envs[@]}" -- "$@" -p $((18800 + i))
		"${IC_CMD[@]}" >"$IC_TMP/$name.$i.server" 2>&1 </dev/null &
		SPIDS+=($!)
		ports+=($((18800 + i)))
	done
	IC_PIDS+=("${SPIDS[@]}")
	listening "${ports[@]}" || { ic_fail "$name" "the servers did not all listen"; return 1; }
	[ -n "${PAIRS_WHILE_WAITING:-}" ] && $PAIRS_WHILE_WAITING
	for ((i = 0; i < n; i++)); do
		ic_cmd "${envs[@]}" -- "$@" -p $((18800 + i)) $A
		on_b "${IC_CMD[@]}" >"$IC_TMP/$name.$i.client" 2>&1 </dev/null &
		CPIDS+=($!)
	done
	IC_PIDS+=("${CPIDS[@]}")
	[ "$race" = wait ] || pairs_end "$name" "$n" "$kind" "$race"
}

pairs_end() # NAME COUNT KIND END-RACE
{
	local i src crc
	for ((i = 0; i < $2; i++)); do
		wait "${CPIDS[$i]}"
		crc=$?
		[ $crc = 0 ] || kill "${SPIDS[$i]}" 2>/dev/null
		wait "${SPIDS[$i]}"
		src=$?
		judge "$1.$i" "$3" "$3" "$IC_TMP/$1.$i.server" $src "$IC_TMP/$1.$i.client" $crc "$4"
	done
}

# uroce-stat's processes on A's address
stat_on_a() { "$STAT" 2>/dev/null | grep -E "^pid [0-9]+ .* addrs .*\b$A\b"; }

count_servers()
{
	local n
	n=$(stat_on_a | grep -c '(ibv_rc_pingpon')
	if [ "$n" = 8 ]; then
		ic_pass stat_lists_all "uroce-stat lists the 8 servers on $A"
	else
		ic_fail stat_lists_all "uroce-stat lists $n ibv_rc_pingpong processes on $A, not 8"
		"$STAT" 2>&1 | head -20
	fi
}

PAIRS_WHILE_WAITING=count_servers pairs pingpong8 8 pingpong:500 - -- ibv_rc_pingpong -g 1 -n 500
PAIRS_WHILE_WAITING= pairs pingpong8_loss 8 pingpong:300 end-race UROCE_IMPAIR=loss=0.02 -- \
	ibv_rc_pingpong -g 1 -n 300
pairs write_bw8 8 perftest:2000 - -- ib_write_bw -d uroce0 -x 1 -s 65536 -n 2000

# SIGKILL in mid-traffic
pairs kill 4 pingpong:20000 wait -- ibv_rc_pingpong -g 1 -n 20000
for _ in $(seq 200); do
	n=0
	for i in 0 1 2 3; do grep -q 'remote address' "$IC_TMP/kill.$i.client" && n=$((n + 1)); done
	[ $n = 4 ] && break
	sleep 0.1
done
victim=$(pgrep -P "${SPIDS[1]}" -x ibv_rc_pingpong)
if [ -z "$victim" ]; then
	ic_fail kill "no server 1 to kill"
else
	kill -9 "$victim"
	kill "${CPIDS[1]}" 2>/dev/null # its client retries into the void
	wait "${CPIDS[1]}" "${SPIDS[1]}" 2>/dev/null
	for i in 0 2 3; do
		wait "${CPIDS[$i]}"
		crc=$?
		wait "${SPIDS[$i]}"
		judge "kill.others.$i" pingpong:20000 pingpong:20000 "$IC_TMP/kill.$i.server" $? \
			"$IC_TMP/kill.$i.client" $crc
	done
	if stat_on_a | grep -q "^pid $victim "; then
		ic_fail kill.stat "uroce-stat still lists the killed process $victim"
	else
		ic_pass kill.stat "uroce-stat no longer lists the killed process"
	fi
	pairs kill.after 1 pingpong:500 - -- ibv_rc_pingpong -g 1 -n 500
fi

# cm_verdict NAME SERVER_RC SERVER_RE CLIENT_RC CLIENT_RE: an rdma_cm pair passes when both
# exit 0 and print a line matching their regex ($IC_TMP/NAME.server, NAME.client)
cm_verdict()
{
	if [ "$4" = 0 ] && [ "$2" = 0 ] && grep -q "$3" "$IC_TMP/$1.server" &&
		grep -q "$5" "$IC_TMP/$1.client"; then
		ic_pass "$1"
	else
		ic_fail "$1" "client exit $4, server exit $2"
		ic_show server "$IC_TMP/$1.server"
		ic_show client "$IC_TMP/$1.client"
	fi
}

# rdma_cm: three listeners on one address, and a fourth refused
cm_pids=() cmc_pids=()
for p in 7471 7472 7473; do
	ic_cmd -- rping -s -a $A -p $p -C 10 -v -V
	"${IC_CMD[@]}" >"$IC_TMP/rping.$p.server" 2>&1 </dev/null &
	cm_pids+=($!)
done
IC_PIDS+=("${cm_pids[@]}")
sleep 1 # rping's bind and listen: no TCP port to wait for
ic_cmd -- rping -s -a $A -p 7471 -C 10 -v -V
"${IC_CMD[@]}" >"$IC_TMP/rping.in_use" 2>&1 </dev/null
rc=$?
if [ $rc != 0 ] && grep -q 'Address already in use' "$IC_TMP/rping.in_use"; then
	ic_pass rping.in_use "exit $rc: $(grep -m1 'in use' "$IC_TMP/rping.in_use")"
else
	ic_fail rping.in_use "exit $rc"
	ic_show output "$IC_TMP/rping.in_use"
fi
for p in 7471 7472 7473; do
	ic_cmd -- rping -c -a $A -p $p -C 10 -v -V
	on_b "${IC_CMD[@]}" >"$IC_TMP/rping.$p.client" 2>&1 </dev/null &
	cmc_pids+=($!)
done
IC_PIDS+=("${cmc_pids[@]}")
for i in 0 1 2; do
	p=$((7471 + i))
	wait "${cmc_pids[$i]}"
	crc=$?
	wait "${cm_pids[$i]}"
	cm_verdict "rping.$p" $? '^server ping data: rdma-ping-9: ' $crc '^ping data: rdma-ping-9: '
done

# Both ends on A's address: every QP1 sends from one (address, UDP port), each process from
# a socket of its own there.
same_pair() # NAME EXPECT_SERVER EXPECT_CLIENT -- SERVER ARGS... -- CLIENT ARGS...
{
	local name=$1 se=$2 ce=$3 srv=() spid crc
	shift 4
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	ic_cmd -- "${srv[@]}"
	"${IC_CMD[@]}" >"$IC_TMP/$name.server" 2>&1 </dev/null &
	spid=$!
	IC_PIDS+=("$spid")
	sleep 1
	ic_cmd -- "$@"
	"${IC_CMD[@]}" >"$IC_TMP/$name.client" 2>&1 </dev/null
	crc=$?
	wait "$spid"
	cm_verdict "$name" $? "$se" $crc "$ce"
}
same_pair rping.same_address '^server ping data: rdma-ping-9: ' '^ping data: rdma-ping-9: ' -- \
	rping -s -a $A -p 7480 -C 10 -v -V -- rping -c -a $A -p 7480 -C 10 -v -V
same_pair udaddy.same_address '^test complete' '^test complete' -- udaddy -b $A -- udaddy -b $A -s $A
ic_finish
