# SPDX-License-Identifier: MIT
# A raw Ethernet backend with unmodified programs, sourced by test_xdp.sh (IC_RAW=xdp: AF_XDP,
# UROCE_XDP) and test_packet.sh (IC_RAW=packet: AF_PACKET, UROCE_PACKET); docs/backends.md.
# Two network namespaces, each with a veth u0 into a bridge in a third, IPv4 and IPv6
# addresses on them, one process in each namespace with the backend on u0. RC, UD and SRQ
# pingpongs over IPv4 and IPv6, perftest's SEND, WRITE, READ and atomic tests, WRITE and READ
# with UROCE_IMPAIR, and the errors a user gets when the interface cannot be used (AF_XDP: or
# its queue is another process's; AF_PACKET: without CAP_NET_RAW). Traffic is captured on the
# bridge and must decode in tshark with no malformed packet and every ICRC verifying
# (icrc_check.py, independent of uroce's CRC code); no ICMP port unreachable may answer it.
# Needs root (namespaces, XDP, packet sockets); skipped without.
set -u
. "$(dirname "$0")/lib.sh"
case ${IC_RAW:-} in
xdp) var=UROCE_XDP ;;
packet) var=UROCE_PACKET ;;
*) echo "raw_backend.sh: IC_RAW must be xdp or packet" >&2; exit 2 ;;
esac
ic_need iproute2 ip ss
ic_need ibverbs-utils ibv_rc_pingpong ibv_ud_pingpong ibv_srq_pingpong ibv_devinfo
ic_need perftest ib_send_lat ib_write_bw ib_read_lat ib_atomic_bw
[ "$(id -u)" -eq 0 ] || ic_skip "needs root for network namespaces and raw sockets"
a=uroce-xa-$$
b=uroce-xb-$$
w=uroce-xw-$$ # the wire between them: a bridge, where the capture listens
ip netns add "$a" || ic_skip "cannot create a network namespace"
ip netns add "$b"
ip netns add "$w"
caps=()
cleanup()
{
	local ns p
	for p in "${caps[@]}"; do kill "$p" 2>/dev/null; done
	for ns in "$a" "$b" "$w"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	ic_cleanup
}
trap cleanup EXIT
ip netns exec "$a" true 2>/dev/null || ic_skip "ip netns exec does not work here"
# Each endpoint's u0 is a veth whose other end is a port of the bridge in w. A capture cannot
# listen on u0 itself: an AF_XDP socket sends past the interface's taps, and the XDP program
# takes what arrives before them.
ip -n "$w" link add br0 type bridge || ic_skip "cannot create a bridge"
for end in "$a:pa" "$b:pb"; do
	ns=${end%:*} port=${end#*:}
	ip link add u0 netns "$ns" type veth peer name "$port" netns "$w" ||
		ic_skip "cannot create a veth pair"
	ip -n "$w" link set "$port" master br0 up
	ip -n "$ns" link set lo up
	ip -n "$ns" link set u0 up
done
ip -n "$w" link set br0 up
ip -n "$a" addr add 10.77.0.1/24 dev u0
ip -n "$b" addr add 10.77.0.2/24 dev u0
ip -n "$a" addr add fd00:77::1/64 dev u0 nodad
ip -n "$b" addr add fd00:77::2/64 dev u0 nodad

cap="$IC_TMP/wire.pcap"
if command -v dumpcap >/dev/null 2>&1; then
	ip netns exec "$w" dumpcap -q -i br0 -f "udp port 4791 or icmp or icmp6" -w "$cap" \
		2>"$IC_TMP/dumpcap.err" &
	caps+=($!)
	for _ in $(seq 100); do
		grep -qs "Capturing on" "$IC_TMP/dumpcap.err" && break
		sleep 0.1
	done
fi

run() # NS PROGRAM ARGS...: a program in a namespace on the backend under test
{
	local ns=$1
	shift
	ic_cmd "$var=u0" ${IMPAIR:+UROCE_IMPAIR=$IMPAIR} -- "$@"
	ip netns exec "$ns" "${IC_CMD[@]}" </dev/null
}

# Does the backend work here at all? A device that cannot open is a failure, not a skip: the
# kernel of every supported machine has AF_XDP, veth's native XDP and packet sockets.
if ! run "$a" ibv_devinfo -v -d uroce0 >"$IC_TMP/devinfo" 2>&1 ||
	! grep -q "GID\[  1\]:.*fd00:77::1" "$IC_TMP/devinfo"; then
	ic_fail devinfo "ibv_devinfo failed with $var=u0, or GID 1 is not fd00:77::1"
	ic_show devinfo "$IC_TMP/devinfo"
else
	ic_pass devinfo
fi

ic_server() { run "$a" "$@"; }
ic_client() { run "$b" "$@"; }
pair() # NAME SERVER-KIND CLIENT-KIND ARGS... -- CLIENT-EXTRA...: server in a, client in b;
{      # the kinds as ic_check_output takes them
	ic_ns_pair "$1" "$2" "$3" "$a" "${@:4}"
}

# GID 0 is 10.77.0.x (IPv4 first), GID 1 fd00:77::x. The TCP exchange of connection data goes
# over the veth too; the port comes last so that pair() can find it.
pp=pingpong:500 lat=perftest:2000 bw=perftest:2000
pair rc_pingpong $pp $pp ibv_rc_pingpong -g 0 -n 500 -p 18901 -- 10.77.0.1
pair rc_pingpong_ipv6 $pp $pp ibv_rc_pingpong -g 1 -n 500 -p 18902 -- 10.77.0.1
pair ud_pingpong $pp $pp ibv_ud_pingpong -g 0 -n 500 -s 512 -p 18903 -- 10.77.0.1
pair srq_pingpong $pp $pp ibv_srq_pingpong -g 0 -n 500 -p 18904 -- 10.77.0.1
pair send_lat $lat $lat ib_send_lat -d uroce0 -x 0 -s 64 -n 2000 -F -p 18905 -- 10.77.0.1
pair write_bw $bw $bw ib_write_bw -d uroce0 -x 0 -s 65536 -n 2000 -F -p 18906 -- 10.77.0.1
# The passive side of READ and atomics prints no result row.
pair read_lat_ipv6 perftest-quiet $lat ib_read_lat -d uroce0 -x 1 -s 64 -n 2000 -F -p 18907 \
	-- 10.77.0.1
pair atomic_bw $bw $bw ib_atomic_bw -d uroce0 -x 0 -n 2000 -F -p 18908 -- 10.77.0.1
# UROCE_IMPAIR acts on this backend's received packets too: 2 % loss and some reordering on
# both sides, which RC recovers from.
IMPAIR=loss=0.02,reorder=0.01,seed=3 pair write_bw_impaired perftest:300 perftest:300 \
	ib_write_bw -d uroce0 -x 0 -s 65536 -n 300 -F -p 18910 -- 10.77.0.1
IMPAIR=loss=0.02,seed=4 pair read_bw_impaired perftest:300 perftest:300 \
	ib_read_bw -d uroce0 -x 0 -s 65536 -n 300 -F -p 18911 -- 10.77.0.1

# Misuse: clear errors, no hang.
check_error() # NAME EXPECTED-TEXT VAR=VALUE...: ibv_rc_pingpong must fail and say so
{
	local name=$1 want=$2 out="$IC_TMP/$1.err" rc
	shift 2
	ic_cmd "$@" -- ibv_rc_pingpong -g 0 -n 1 -p 18909
	ip netns exec "$a" timeout 10 "${IC_CMD[@]}" </dev/null >"$out" 2>&1 &
	local pid=$!
	# Server side: the device opens, the QP start fails before or at the TCP exchange.
	sleep 2
	kill "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if grep -q "$want" "$out"; then
		ic_pass "$name"
	else
		ic_fail "$name" "expected '$want' (exit $rc)"
		ic_show output "$out"
	fi
}
check_error no_such_interface "$var=nosuch0: no usable address on nosuch0" "$var=nosuch0"
check_error both_backends "UROCE_XDP and UROCE_PACKET are both set: choose one backend" \
	UROCE_XDP=u0 UROCE_PACKET=u0
if [ "$IC_RAW" = xdp ]; then
	check_error bad_queue "the queue is not a number below 1024" UROCE_XDP=u0:x
	# A second process on a queue another one holds: AF_XDP binds a queue to one socket,
	# and the message names the UDP backend, which processes sharing an address use.
	ic_cmd UROCE_XDP=u0 -- ibv_rc_pingpong -g 0 -p 18912
	ip netns exec "$a" timeout 30 "${IC_CMD[@]}" </dev/null >"$IC_TMP/holder.out" 2>&1 &
	holder=$!
	for _ in $(seq 100); do ip netns exec "$a" ss -ltn | grep -q ":18912 " && break; sleep 0.1; done
	check_error queue_taken "another XDP program or socket has it (AF_XDP binds a queue to one process: processes that share an address use the UDP backend" UROCE_XDP=u0
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
else
	# Without CAP_NET_RAW (dropped from the bounding set, so that root's program has it
	# not): the error says what is missing and which backend needs nothing.
	check_error no_cap_net_raw "a packet socket needs CAP_NET_RAW (the UDP backend, without UROCE_PACKET, needs no privilege)" \
		setpriv --bounding-set=-net_raw env UROCE_PACKET=u0
fi

# The capture: no malformed packet, every ICRC verifies.
if [ ${#caps[@]} -gt 0 ]; then
	sleep 1
	kill -INT "${caps[@]}" 2>/dev/null
	wait "${caps[@]}" 2>/dev/null
	caps=()
	n=$(tshark -r "$cap" -Y infiniband 2>/dev/null | wc -l)
	bad=$(tshark -r "$cap" -Y "_ws.malformed" 2>/dev/null | wc -l)
	# An ICMP port unreachable for a RoCE packet, sent by a host whose uroce was still
	# running: that host sent RoCE packets within the next 50 ms. (A packet that reaches a
	# host whose program has just exited is answered by its kernel, as with any backend; the
	# neighbour lookup's probes to port 9 are not RoCE.)
	unreach=$(tshark -r "$cap" -Y "((icmp.type == 3 || icmpv6.type == 1) && udp.dstport == 4791) || (udp.dstport == 4791 && !icmp && !icmpv6)" \
		-T fields -e frame.time_epoch -e ip.src -e ipv6.src -e icmp.type -e icmpv6.type 2>/dev/null |
		python3 -c '
import sys
rows = [l.rstrip("\n").split("\t") for l in sys.stdin]
roce = {}
for t, s4, s6, i4, i6 in rows:
    if not (i4 or i6):
        roce.setdefault((s4 or s6).split(",")[0], []).append(float(t))
alive = 0
for t, s4, s6, i4, i6 in rows:
    if i4 or i6:
        src, t = (s4 or s6).split(",")[0], float(t)
        alive += any(t < u <= t + 0.05 for u in roce.get(src, []))
print(alive)')
	if [ "$unreach" -eq 0 ]; then
		ic_pass no_icmp_unreachable
	else
		ic_fail no_icmp_unreachable "$unreach ICMP port unreachable answered RoCE packets while uroce ran"
	fi
	if [ "$n" -lt 10000 ]; then
		ic_fail capture "only $n RoCE packets captured"
		ic_show dumpcap "$IC_TMP/dumpcap.err"
	elif [ "$bad" -ne 0 ]; then
		ic_fail capture "$bad malformed packets of $n"
	elif ! python3 "$IC_HERE/icrc_check.py" "$cap" >"$IC_TMP/icrc" 2>&1; then
		ic_fail capture "ICRC check failed"
		ic_show "icrc_check.py" "$IC_TMP/icrc"
	else
		ic_pass capture "$(tail -n 1 "$IC_TMP/icrc")"
	fi
	# The loss acted: the capture point is before the receivers, so the packets they lost
	# and RC sent again are there (the clean runs on this veth resend nothing).
	dump=${UROCE_BUILD:-}/tools/uroce-dump/uroce-dump
	if [ -x "$dump" ]; then
		retx=$("$dump" -q -r "$cap" --flows=json 2>/dev/null | python3 -c '
import json, sys
print(sum(((f.get("requests") or {}).get("sequence") or {}).get("retransmitted_packets") or 0
          for f in json.load(sys.stdin)["flows"]))')
		if [ "${retx:-0}" -gt 0 ]; then
			ic_pass capture_impaired_resends "$retx packets sent again"
		else
			ic_fail capture_impaired_resends "no packet was sent again: UROCE_IMPAIR did not act"
		fi
	fi
fi
ic_finish
