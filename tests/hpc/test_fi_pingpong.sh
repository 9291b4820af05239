#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libfabric 1.17's verbs provider over uroce (Debian's libfabric-bin, unmodified), in its two
# connected modes, with fi_pingpong between two processes:
#  - `-p verbs -e msg`: FI_EP_MSG, the provider's RC endpoints, found and connected through
#    librdmacm (uroce's librdmacm.so.1: rdma_getaddrinfo, rdma_bind_addr, rdma_listen,
#    rdma_resolve_addr, rdma_connect);
#  - `-p 'verbs;ofi_rxm' -e rdm`: reliable datagrams of the ofi_rxm utility provider over
#    those RC endpoints, connected on demand.
# The verbs provider offers FI_EP_MSG only on an RDMA device that holds the address of a
# non-loopback interface (prov/verbs/src/verbs_info.c vrb_getifaddrs skips IFF_LOOPBACK;
# FI_VERBS_IFACE=ofi0 keeps it to ofi0), so the test's namespace gets a veth pair, ofi0 / ofi1
# (dummy links are not in every kernel), with 10.11.0.1 and 10.11.0.2 on ofi0: the server
# on the first, the client on the second (each uroce process owns its address). Their
# RoCEv2 packets go from one local address to another, through lo, where they are captured.
# Checked: fi_info lists FI_EP_MSG on uroce0; each fi_pingpong run (64 bytes x 500 and
# 1 MiB x 50, with fi_pingpong's data check -c) exits 0 on both sides with its result row;
# the captures hold RoCEv2 only, every ICRC good, at least the bytes of the 1 MiB messages
# in each direction, RC opcodes only, and, for rdm, the RDMA READs of rxm's rendezvous
# protocol (its default for messages above 16 KiB). The figures are not judged.
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need libfabric-bin fi_info fi_pingpong
hpc_enter "$@"

srv=10.11.0.1
cli=10.11.0.2
port=47592 # fi_pingpong's control port (TCP): the server's -B, the client's -P
if ! ip link add name ofi0 type veth peer name ofi1 || ! ip link set ofi0 up ||
	! ip link set ofi1 up || ! ip addr add $srv/24 dev ofi0 || ! ip addr add $cli/24 dev ofi0; then
	echo "FAIL: cannot make the veth pair ofi0/ofi1 in the test's network namespace"
	exit 1
fi
ofi_env=(FI_VERBS_IFACE=ofi0)

# ---- fi_info ----
ic_cmd UROCE_IP=$srv "${ofi_env[@]}" -- fi_info -p verbs -t FI_EP_MSG
"${IC_CMD[@]}" >"$IC_TMP/fi_info" 2>&1 </dev/null
rc=$?
if [ $rc = 0 ] && grep -q '^ *domain: uroce0$' "$IC_TMP/fi_info" &&
	grep -q '^ *type: FI_EP_MSG$' "$IC_TMP/fi_info"; then
	ic_pass fi_info "verbs offers FI_EP_MSG on uroce0 (FI_VERBS_IFACE=ofi0, UROCE_IP=$srv)"
else
	ic_fail fi_info "fi_info -p verbs -t FI_EP_MSG: exit $rc, no FI_EP_MSG on domain uroce0"
	ic_show fi_info "$IC_TMP/fi_info"
	ic_finish
fi

# pp NAME PROVIDER EP_TYPE SIZE ITERS: one fi_pingpong run, server on $srv, client on $cli.
pp()
{
	local name=$1 prov=$2 ep=$3 size=$4 iters=$5 s c spid cpid src crc i problems f side
	local args=(fi_pingpong -p "$prov" -e "$ep" -S "$size" -I "$iters" -c)
	local pids=("${IC_PIDS[@]}")
	s=$IC_TMP/$name.server
	c=$IC_TMP/$name.client
	ic_cmd UROCE_IP=$srv "${ofi_env[@]}" -- "${args[@]}" -B $port
	"${IC_CMD[@]}" >"$s" 2>&1 </dev/null &
	spid=$!
	IC_PIDS+=("$spid")
	for ((i = 0; i < 300; i++)); do
		ic_listening $port && break
		ic_alive "$spid" || break
		sleep 0.1
	done
	ic_cmd UROCE_IP=$cli "${ofi_env[@]}" -- "${args[@]}" -P $port $srv
	"${IC_CMD[@]}" >"$c" 2>&1 </dev/null &
	cpid=$!
	IC_PIDS+=("$cpid")
	wait "$cpid"
	crc=$?
	wait "$spid"
	src=$?
	IC_PIDS=("${pids[@]}")
	problems=$(
		for side in server client; do
			f=$IC_TMP/$name.$side
			[ $side = server ] && rc=$src || rc=$crc
			ic_check_output "$name" $side "$f" "$rc" perftest-quiet
			# The result row: size (1k, 1m, or bytes), sent, acknowledged, then figures.
			grep -Eq "^[0-9]+[km]? +$iters +=$iters +" "$f" ||
				echo "$side printed no result row with $iters messages sent and acknowledged"
		done
	)
	if [ -n "$problems" ]; then
		ic_fail "$name" "$(tr '\n' ';' <<<"$problems")"
		echo "  server: UROCE_IP=$srv ${ofi_env[*]} ${args[*]} -B $port"
		echo "  client: UROCE_IP=$cli ${ofi_env[*]} ${args[*]} -P $port $srv"
		ic_show "server output" "$s"
		ic_show "client output" "$c"
		return 1
	fi
	ic_pass "$name" "$(grep -E "^[0-9]+[km]? +$iters +=$iters +" "$c" | tr -s ' ')"
}

for mode in msg rdm; do
	prov=verbs
	[ $mode = rdm ] && prov='verbs;ofi_rxm'
	cap=$IC_TMP/$mode.pcap
	hpc_capture_start "$cap"
	pp "$mode.64" "$prov" $mode 64 500
	pp "$mode.1m" "$prov" $mode 1048576 50
	hpc_capture_stop "$cap"
	hpc_check_capture "$mode" "$cap" || continue

	# Each side sends each message once: 50 MiB each way at least, in RoCEv2 packets.
	need=$((50 * 1048576))
	hpc_bytes "$cap" >"$cap.bytes"
	up=$(awk -v s=$cli -v d=$srv '$1 == s && $2 == d { print $3 }' "$cap.bytes")
	down=$(awk -v s=$srv -v d=$cli '$1 == s && $2 == d { print $3 }' "$cap.bytes")
	if [ "${up:-0}" -ge $need ] && [ "${down:-0}" -ge $need ]; then
		ic_pass "$mode.bytes" "$cli -> $srv $up bytes, $srv -> $cli $down bytes in RoCEv2 packets"
	else
		ic_fail "$mode.bytes" "$cli -> $srv ${up:-0} bytes, $srv -> $cli ${down:-0}, each at least $need"
	fi

	# The opcodes (IBA Table 38): RC only (0..23: SEND, RDMA WRITE, READ, ACK, atomics) and
	# the CM's MADs on QP1 (UD SEND ONLY, 100); rdm moves its 1 MiB messages by RDMA READ
	# (request 12, responses 13..15).
	hpc_opcodes "$cap" >"$cap.ops"
	other=$(awk '$2 > 23 && $2 != 100 { print $2 }' "$cap.ops" | xargs)
	reads=$(awk '$2 == 12 { print $1 }' "$cap.ops")
	if [ -n "$other" ]; then
		ic_fail "$mode.opcodes" "opcodes other than RC and the CM's: $other"
	elif [ $mode = rdm ] && [ "${reads:-0}" -lt 50 ]; then
		ic_fail "$mode.opcodes" "${reads:-0} RDMA READ requests, at least 50 (rxm's rendezvous)"
	else
		ic_pass "$mode.opcodes" "$(awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }' "$cap.ops")"
	fi
done
ic_finish
