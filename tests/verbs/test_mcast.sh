#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# UD multicast through the verbs, with real processes (tests/verbs/mcast_peer.c, a program of
# <infiniband/verbs.h> only): four network namespaces, a, b and c each with a veth u0 into a
# bridge in w (IGMP and MLD snooping on, the bridge's default), IPv4 and IPv6 addresses on
# them. For each family: in a, the sender, with a QP of its own attached (its messages come
# back to it); in b, two receiver processes on one address (two processes of one host:
# each gets every message) and a process on it with a UD QP that is not attached (it gets none); in
# c, a third receiver. Each receiver has several attached QPs, each of which gets each message
# once, plus one attached with another Q_Key and one not attached, which get none. Before the
# sender starts, the bridge must have learned the group on b's and c's ports: the joins are
# IGMP and MLD reports on the wire. Then the same with UROCE_XDP=u0 in a and b (one process
# per namespace: an AF_XDP socket has the interface's queue) and the UDP backend in c. The
# attach and detach rules are checked on their own (mcast_peer rules). A capture on the
# bridge must show every packet to the group with destination QP 0xFFFFFF and every ICRC good
# (uroce-dump, and icrc_check.py independently). Needs root; skipped without.
set -u
. "$(dirname "$0")/../interop/lib.sh"
ic_need iproute2 ip bridge
[ "$(id -u)" -eq 0 ] || ic_skip "needs root for network namespaces"
peer=${UROCE_BUILD:-/nonexistent}/tests/mcast_peer
[ -x "$peer" ] || { echo "FAIL: no mcast_peer at $peer (UROCE_BUILD=${UROCE_BUILD:-})"; exit 1; }
dump=${UROCE_BUILD:-/nonexistent}/tools/uroce-dump/uroce-dump
a=uroce-ma-$$ b=uroce-mb-$$ c=uroce-mc-$$ w=uroce-mw-$$
caps=()
ic_netns "$a" "$b" "$c" "$w"
ip -n "$w" link add br0 type bridge || ic_skip "cannot create a bridge"
for end in "$a:pa" "$b:pb" "$c:pc"; do
	ns=${end%:*} port=${end#*:}
	ip link add u0 netns "$ns" type veth peer name "$port" netns "$w" ||
		ic_skip "cannot create a veth pair"
	ip -n "$w" link set "$port" master br0 up
	# No duplicate address detection: the addresses (and the link-local one MLD reports
	# come from) are usable at once.
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
	ip -n "$ns" link set u0 up
done
ip -n "$w" link set br0 up
addr() # NS K: 10.78.0.K and fd00:78::K on u0
{
	ip -n "$1" addr add "10.78.0.$2/24" dev u0
	ip -n "$1" addr add "fd00:78::$2/64" dev u0 nodad
}
addr "$a" 1
addr "$b" 2
addr "$b" 3
addr "$b" 5
addr "$c" 4

cap="$IC_TMP/wire.pcap"
if command -v dumpcap >/dev/null 2>&1; then
	ip netns exec "$w" dumpcap -q -i br0 -f "udp port 4791" -w "$cap" 2>"$IC_TMP/dumpcap.err" &
	caps+=($!)
	IC_PIDS+=($!)
	for _ in $(seq 100); do
		grep -qs "Capturing on" "$IC_TMP/dumpcap.err" && break
		sleep 0.1
	done
fi

# start NAME NS VAR=VALUE... -- ARGS...: mcast_peer ARGS in NS with that environment, in the
# background, output in $IC_TMP/NAME; its PID in $started.
start()
{
	local name=$1 ns=$2
	shift 2
	ic_cmd "$@"
	ip netns exec "$ns" "${IC_CMD[@]}" </dev/null >"$IC_TMP/$name" 2>&1 &
	started=$!
	IC_PIDS+=("$started")
}

# wait_for FILE TEXT: until FILE holds TEXT (a bounded wait: a process that never gets there
# fails below on its own output).
wait_for()
{
	for _ in $(seq 300); do
		grep -qs "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

# mdb_has GROUP PORT...: the bridge forwards GROUP to every PORT (it learned them from the
# hosts' IGMP or MLD reports).
mdb_has()
{
	local group=$1 port out
	shift
	for _ in $(seq 100); do
		out=$(bridge -n "$w" mdb show dev br0 2>/dev/null)
		for port in "$@"; do
			grep -q "port $port grp $group " <<<"$out " || continue 2
		done
		return 0
	done
	return 1
}

# judge NAME PID: the process exited with 0, printed PASS and no error line.
judge()
{
	local name=$1 rc=0 bad
	wait "$2" || rc=$?
	bad=$(ic_error_lines "$IC_TMP/$name" | head -n 3)
	if [ "$rc" = 0 ] && grep -q "^PASS " "$IC_TMP/$name" && [ -z "$bad" ] &&
		{ [ "$IC_SANITIZED" != 1 ] || ic_check_leaks "$IC_TMP/$name" >/dev/null; }; then
		ic_pass "$name" "$(grep "^PASS " "$IC_TMP/$name" | cut -d' ' -f2-)"
	else
		ic_fail "$name" "exited with $rc"
		ic_show "$name" "$IC_TMP/$name"
	fi
}

count=300
# round NAME FAMILY XDP: one sender, three receivers, an idle process; XDP 1: a and b on
# UROCE_XDP=u0 (one receiver and no idle process in b), c on UDP sockets.
round()
{
	local name=$1 fam=$2 xdp=$3 g pre pids=() names=() idle=
	if [ "$fam" = 4 ]; then g=239.78.0.1 pre=10.78.0.; else g=ff0e::78:1 pre=fd00:78::; fi
	local done="$IC_TMP/$name.done"
	if [ "$xdp" = 1 ]; then
		start "$name.recv_b" "$b" UROCE_XDP=u0 -- "$peer" recv "$g" "$count" 2
		pids+=("$started") names+=("$name.recv_b")
	else
		start "$name.recv_b2" "$b" UROCE_IP="${pre}2" -- "$peer" recv "$g" "$count" 2
		pids+=("$started") names+=("$name.recv_b2")
		# a second receiver and the idle process on the same address: processes share
		# it (docs/multiprocess.md), and each gets the group's datagrams
		start "$name.recv_b3" "$b" UROCE_IP="${pre}2" -- "$peer" recv "$g" "$count" 3
		pids+=("$started") names+=("$name.recv_b3")
		start "$name.idle_b5" "$b" UROCE_IP="${pre}2" -- "$peer" idle "$g" "$done"
		idle=$started
	fi
	start "$name.recv_c" "$c" UROCE_IP="${pre}4" -- "$peer" recv "$g" "$count" 1
	pids+=("$started") names+=("$name.recv_c")
	local n
	for n in "${names[@]}" ${idle:+"$name.idle_b5"}; do
		wait_for "$IC_TMP/$n" ready || break
	done
	if ! ip -n "$w" -d link show br0 | grep -q "mcast_snooping 1"; then
		ic_skip_case "$name.joined" "the bridge does no IGMP/MLD snooping here (it floods)"
	elif mdb_has "$g" pb pc; then
		ic_pass "$name.joined" "the bridge forwards $g to b and c"
	else
		ic_fail "$name.joined" "the bridge never learned $g on both ports"
		bridge -n "$w" mdb show dev br0 | sed 's/^/    /'
	fi
	if [ "$xdp" = 1 ]; then
		start "$name.send" "$a" UROCE_XDP=u0 -- "$peer" send "$g" "$count" 1
	else
		start "$name.send" "$a" UROCE_IP="${pre}1" -- "$peer" send "$g" "$count" 1
	fi
	judge "$name.send" "$started"
	for n in "${!pids[@]}"; do
		judge "${names[$n]}" "${pids[$n]}"
	done
	touch "$done"
	[ -z "$idle" ] || judge "$name.idle_b5" "$idle"
}

for fam in 4 6; do
	if [ "$fam" = 4 ]; then g=239.78.0.1 ip=10.78.0.1; else g=ff0e::78:1 ip=fd00:78::1; fi
	start "rules_ipv$fam" "$a" UROCE_IP="$ip" -- "$peer" rules "$g"
	judge "rules_ipv$fam" "$started"
	round "udp_ipv$fam" "$fam" 0
	round "xdp_ipv$fam" "$fam" 1
done

# The capture: every packet goes to a group with the multicast QPN, and every ICRC verifies.
if [ ${#caps[@]} -gt 0 ]; then
	sleep 1
	kill -INT "${caps[@]}" 2>/dev/null
	wait "${caps[@]}" 2>/dev/null
	caps=()
	fields=$("$dump" -q -r "$cap" -T fields -e ip.dst -e ipv6.dst -e infiniband.bth.destqp \
		-e uroce.icrc.status 2>/dev/null)
	n=$(grep -c . <<<"$fields")
	# each round's messages once: the bridge replicates them, and the loopback copies of the
	# senders never reach the wire
	want=$((4 * count))
	odd=$(awk -F'\t' '!(($1 == "239.78.0.1" || $2 == "ff0e::78:1") && $3 == "0xffffff" &&
		$4 == "ok")' <<<"$fields" | head -n 3)
	if [ "$n" -ne "$want" ]; then
		ic_fail capture "$n packets captured, not the $want sent (each once on the wire)"
	elif [ -n "$odd" ]; then
		ic_fail capture "packets not to the group with QPN 0xFFFFFF and a good ICRC: $(tr '\n' '|' <<<"$odd")"
	elif ! python3 "$IC_HERE/icrc_check.py" "$cap" >"$IC_TMP/icrc" 2>&1; then
		ic_fail capture "ICRC check failed"
		ic_show "icrc_check.py" "$IC_TMP/icrc"
	else
		ic_pass capture "$n packets to the groups, destination QP 0xFFFFFF; $(tail -n 1 "$IC_TMP/icrc")"
	fi
fi
ic_finish
