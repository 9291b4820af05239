#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Datagram rsockets over uroce's librdmacm.so.1 (docs/rdmacm.md "Datagram rsockets"), in a
# network namespace of its own:
#  - tests/rdmacm/rsocket_dgram.c at both ends, both processes on 127.0.0.1 (the client
#    sends from an unbound socket, whose route's source is 127.0.0.1): the API's semantics
#    and 200 datagrams of 1 to 2032 bytes echoed and checked byte by byte, "0 failures";
#  - Debian's udpong, unmodified, on 127.0.0.1 (its client does not bind either): 1000
#    datagrams blocking (-T b), nonblocking (-T n), through rpoll (-T a), and echoed by the
#    server (-T e) of the largest size; the capture shows one exchange over UDP (the QP
#    numbers) and everything else RoCEv2 with good ICRCs;
#  - udpong between two hosts (namespaces joined by a veth, MTU 1500: the largest datagram is
#    1016 bytes, one packet of the 1024-byte path MTU with its header) over IPv4 and IPv6,
#    echoed.
# Not under loss: datagrams are as unreliable as UDP's, and udpong's client sends again what
# got no echo within 1 ms, and once more for every late echo, so that copies pile up.
. "$(dirname "$0")/lib.sh"
ic_need rdmacm-utils udpong
ic_need tshark tshark
cm_enter
prog=$UROCE_BUILD/tests/rsocket_dgram
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }

CM_C=127.0.0.1
cm_pair rsocket_dgram '^0 failures$' '^0 failures$' -- "$prog" s 7490 -- "$prog" c 7490

# udpong's server serves until it is stopped (lib.sh's cm_pair)
CM_SERVER_STAYS=1
# udpong's results line: name, size, transfers, bytes, time, Gb/s, usec per transfer
res() { echo "^custom +$1 +$2 "; }
cap=$IC_TMP/udpong.pcap
dumpcap -q -i lo -f udp -w "$cap" >/dev/null 2>&1 &
dump=$!
IC_PIDS+=("$dump")
sleep 1
port=7491
for mode in b n a; do
	# the server counts what it received: a datagram may be dropped when its receive queue
	# is full (UDP's rule), so the client's line is checked for the size only
	cm_pair "udpong_$mode" - "$(res 1000 '[0-9.]+k?')" -- \
		udpong -b $CM_S -p $port -- udpong -s $CM_S -p $port -T $mode -C 1000 -S 1000 &&
		echo "  $(grep -E "^custom" "$IC_TMP/udpong_$mode.client")"
	port=$((port + 1))
done
cm_pair udpong_echo - "$(res 1.9k 2k)" -- \
	udpong -b $CM_S -p $port -T e -- udpong -s $CM_S -p $port -T e -C 1000 -S 2032 &&
	echo "  $(grep -E "^custom" "$IC_TMP/udpong_echo.client")"
sleep 1
kill "$dump" 2>/dev/null
wait "$dump" 2>/dev/null
tshark -r "$cap" -Y 'udp.port == 4791' -w "$IC_TMP/udpong-roce.pcap" 2>/dev/null
if hpc_check_capture udpong.capture "$IC_TMP/udpong-roce.pcap"; then
	udp=$(tshark -r "$cap" -Y 'udp && !(udp.port == 4791)' 2>/dev/null | wc -l)
	# a datagram and its answer per pair (4 pairs), and maybe one more datagram when the
	# client's next one left before its service thread took the answer
	if [ "$udp" -ge 8 ] && [ "$udp" -le 16 ]; then
		ic_pass udpong.udp "$udp datagrams over UDP, the rest RoCEv2"
	else
		ic_fail udpong.udp "$udp datagrams over UDP (a QP number never learned?)"
	fi
fi

# two hosts
cm_two_hosts 10.77.0.1/24 10.77.0.2/24 fd77::1/64 fd77::2/64
port=7500
for pair in 10.77.0.1,10.77.0.2 fd77::1,fd77::2; do
	CM_S=${pair%,*}
	CM_C=${pair#*,}
	cm_pair "udpong_hosts_$CM_S" - "$(res 1000 2k)" -- \
		udpong -b $CM_S -p $port -T e -- udpong -s $CM_S -p $port -T e -C 1000 -S 1000 &&
		echo "  $(grep -E "^custom" "$IC_TMP/udpong_hosts_$CM_S.client")"
	port=$((port + 1))
done
ic_finish
