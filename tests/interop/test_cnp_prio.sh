#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CNP's 802.1p priority on the wire (docs/congestion.md, cnp_802p_prio): ib_write_bw over
# uroce between two network namespaces joined by a veth pair. Each veth tags what it sends with
# its priority, as a NIC sending priority-tagged frames does (prio_tag.bpf.c, a tc egress
# program built here with clang: VLAN 0, PCP = the packet's priority, the one SO_PRIORITY sets;
# this kernel has no VLAN devices and their egress-qos-map). The receiver of the WRITEs marks
# CE the ECN-capable packets it receives (UROCE_IMPAIR=ce=P, as a congested switch would) and
# answers with CNPs, under UROCE_CC=dcqcn,cnp_802p_prio=5: in a capture of the veth every CNP
# carries PCP 5 and every other RoCEv2 frame (WRITEs, ACKs) PCP 0, tshark finds nothing
# malformed and every ICRC verifies (icrc_check.py). Then the same with cnp_802p_prio unset:
# the CNPs carry PCP 0. Needs root (namespaces, tc, BPF).
set -u
. "$(dirname "$0")/lib.sh"
ic_need iproute2 ip ss tc
ic_need perftest ib_write_bw
ic_need clang clang
ic_need tshark tshark dumpcap
[ "$(id -u)" -eq 0 ] || ic_skip "needs root for network namespaces, tc and BPF"

obj=$IC_TMP/prio_tag.bpf.o
if ! clang -O2 -g -target bpf -I"/usr/include/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)" \
	-c "$IC_HERE/prio_tag.bpf.c" -o "$obj" 2>"$IC_TMP/clang.err"; then
	ic_fail bpf.build "clang could not build the tagging program"
	ic_show clang "$IC_TMP/clang.err"
	ic_finish
fi

ns_a=uroce-pa-$$ ns_b=uroce-pb-$$
ic_netns "$ns_a" "$ns_b"
ip link add v0 netns "$ns_a" type veth peer name v0 netns "$ns_b" ||
	ic_skip "cannot create a veth pair"
for end in "$ns_a:10.81.0.1" "$ns_b:10.81.0.2"; do
	ns=${end%:*} ip4=${end#*:}
	ip -n "$ns" addr add "$ip4/24" dev v0
	# GSO sends are cut into datagrams at the sender (docs/udp.md "GSO"), as a wire carries
	# them: the capture shows each one, with its own IPv4 ID, which its ICRC covers.
	ip -n "$ns" link set v0 up gso_max_segs 1
	if ! ip netns exec "$ns" tc qdisc add dev v0 clsact ||
		! ip netns exec "$ns" tc filter add dev v0 egress bpf da obj "$obj" sec tc \
			2>"$IC_TMP/tc.err"; then
		ic_fail bpf.load "the tagging program could not be loaded"
		ic_show tc "$IC_TMP/tc.err"
		ic_finish
	fi
done

# in NS, UROCE_IP=IP: ib_write_bw ARGS, its output in OUT
wbw() # NS IP OUT CC ARGS...
{
	local ns=$1 ip=$2 out=$3 cc=$4
	shift 4
	ic_cmd UROCE_IP="$ip" UROCE_STATS=1 UROCE_CC="$cc" UROCE_IMPAIR=ce=0.02,seed=3 -- \
		ib_write_bw -d uroce0 -x 0 -n 300 -s 65536 "$@"
	ip netns exec "$ns" "${IC_CMD[@]}" >"$out" 2>&1 </dev/null
}

run() # NAME CC PORT WANT_PCP
{
	local name=$1 cc=$2 port=$3 want=$4 cap=$IC_TMP/$1.pcap rc=0
	ic_capture_ns "$ns_b" v0 "$cap" "$name" -f "vlan and udp port 4791"
	local dc=$IC_CAPTURE_PID
	wbw "$ns_b" 10.81.0.2 "$IC_TMP/$name.server" "$cc" -p "$port" &
	local srv=$!
	for _ in $(seq 300); do
		ip netns exec "$ns_b" ss -ltn | grep -q ":$port " && break
		sleep 0.1
	done
	wbw "$ns_a" 10.81.0.1 "$IC_TMP/$name.client" "$cc" -p "$port" 10.81.0.2 || rc=1
	wait "$srv" || rc=1
	sleep 0.5 # the last frames reach the capture
	kill "$dc" 2>/dev/null
	wait "$dc" 2>/dev/null
	if [ $rc != 0 ]; then
		ic_fail "$name.run" "a program failed"
		ic_show server "$IC_TMP/$name.server"
		ic_show client "$IC_TMP/$name.client"
		return
	fi
	# PCP by kind: CNPs (opcode 129), the rest
	tshark -r "$cap" -Y infiniband -T fields -e vlan.priority -e infiniband.bth.opcode \
		2>/dev/null | sort | uniq -c >"$IC_TMP/$name.pcp"
	local cnps others bad sent
	cnps=$(awk -v w="$want" '$3 == 129 { n += $1; if ($2 != w) bad = 1 } END { print bad ? -1 : n + 0 }' "$IC_TMP/$name.pcp")
	others=$(awk '$3 != 129 { n += $1; if ($2 != 0) bad = 1 } END { print bad ? -1 : n + 0 }' "$IC_TMP/$name.pcp")
	bad=$(tshark -r "$cap" -Y "_ws.malformed" 2>/dev/null | wc -l)
	sent=$(ic_counter "$IC_TMP/$name.server" np_cnp_sent)
	if [ "$cnps" -gt 0 ] && [ "$others" -gt 0 ] && [ "$bad" = 0 ] &&
		[ "$(ic_counter "$IC_TMP/$name.server" udp_send_prio_unset)" = 0 ] &&
		python3 "$IC_HERE/icrc_check.py" "$cap" >"$IC_TMP/$name.icrc" 2>&1; then
		ic_pass "$name" "$cnps CNPs with PCP $want (the WRITEs' receiver sent $sent), $others other frames with PCP 0, none malformed, every ICRC verifies"
	else
		ic_fail "$name" "CNPs with PCP $want: $cnps, others with PCP 0: $others (-1: a wrong one), $bad malformed"
		ic_show "PCP, opcode" "$IC_TMP/$name.pcp"
		ic_show icrc_check.py "$IC_TMP/$name.icrc"
		ic_show server "$IC_TMP/$name.server"
	fi
}

run prio5 dcqcn,cnp_802p_prio=5 19510 5
run unset dcqcn 19511 0
ic_finish
