# SPDX-License-Identifier: MIT
# Helpers for the rdma_cm tests: unmodified Debian programs (rdmacm-utils, perftest -R, qperf
# -cm1) over uroce's librdmacm.so.1 and libibverbs.so.1 (LD_LIBRARY_PATH, interop/lib.sh's
# ic_cmd), two processes per case, each restricted by UROCE_IP to its own loopback address.
#
# cm_enter: the test runs in a network namespace of its own (its 127.0.0.x addresses, UDP
# port 4791 and TCP ports touch nobody else's), with lo cutting GSO sends into wire-sized
# datagrams for the capture (hpc/lib.sh's hpc_enter, without uroce-devns: rdma_cm needs no
# /dev/infiniband).
#
# cm_pair NAME SERVER_RE CLIENT_RE [VAR=VALUE...] -- SERVER ARGS... -- CLIENT ARGS...: runs the
# server with UROCE_IP=127.0.0.1, waits until its port is up (UDP 127.0.0.1:4791 bound: the
# library attached to the port when the program bound its address), then the client with
# UROCE_IP=127.0.0.2. Passes when both exit 0, print no error line (interop/lib.sh's
# IC_ERRORS) and their outputs match the extended regular expressions given ("-": anything).
# Outputs in $IC_TMP/NAME.server and $IC_TMP/NAME.client. With CM_SERVER_STAYS set, the server
# is one that serves until stopped: it is stopped (SIGTERM) once the client ended.
. "$(dirname "${BASH_SOURCE[0]}")/../interop/lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../hpc/lib.sh"

if [ ! -e "$IC_LIBDIR/librdmacm.so.1" ]; then
	echo "FAIL: no librdmacm.so.1 in $IC_LIBDIR"
	exit 1
fi
CM_S=127.0.0.1
CM_C=127.0.0.2
# From a server's bind (its uroce port comes up: cm_wait_bound) to its rdma_listen nothing
# outside the process shows the way: a grace period. The sanitizers slow a program's start
# several times, and a client's REQ that came first was rejected, as by the kernel's CM (a
# perftest UD server missed 0.5 s under ASan on a loaded machine).
CM_LISTEN_GRACE=0.5
if [ "$IC_SANITIZED" = 1 ] || [ "$IC_TSAN" = 1 ]; then CM_LISTEN_GRACE=2; fi

cm_enter()
{
	ic_need util-linux unshare
	ic_need iproute2 ip
	if [ -z "${CM_INSIDE:-}" ]; then
		[ "$(id -u)" -eq 0 ] || ic_skip "needs root for a network namespace of its own"
		trap - EXIT
		rm -rf "$IC_TMP"
		CM_INSIDE=1 exec unshare --net -- bash "$0" "$@"
	fi
	if ! ip link set lo up || ! ip link set lo gso_max_segs 1; then
		echo "FAIL: cannot set up lo in the test's network namespace"
		exit 1
	fi
}

# True when UDP ADDR:4791 (IPv4 or IPv6) is bound.
cm_bound()
{
	ss -Hnul 2>/dev/null | awk -v a="$1:4791" -v b="[$1]:4791" '$4 == a || $4 == b { f = 1 } END { exit !f }'
}

# cm_wait_bound PID ADDR: until the process has its uroce port up, at most 30 s.
cm_wait_bound()
{
	local i
	for ((i = 0; i < 300; i++)); do
		cm_bound "$2" && return 0
		ic_alive "$1" || return 1
		sleep 0.1
	done
	return 1
}

# cm_client_ns COMMAND...: runs the command in the client's network namespace, that of the
# process CM_CLIENT_NS (a pid) when set (cm_two_hosts), else in the test's own.
cm_client_ns()
{
	if [ -n "${CM_CLIENT_NS:-}" ]; then
		nsenter -t "$CM_CLIENT_NS" -n -- "$@"
	else
		"$@"
	fi
}

# cm_two_hosts ADDR_A/LEN ADDR_B/LEN...: a second network namespace, "host B", joined to the
# test's ("host A") by a veth pair; each address pair goes to A's end and B's end (IPv6 ones
# without duplicate address detection). Sets CM_CLIENT_NS to B's holder process, so that
# cm_pair runs its clients on B. B's namespace ends with the test (ic_cleanup kills its holder).
cm_two_hosts()
{
	local holder dad
	ic_need util-linux nsenter
	hpc_ns_holder
	holder=$HPC_NS_HOLDER
	ip link add cm-a type veth peer name cm-b netns "/proc/$holder/ns/net" &&
		ip link set cm-a up && nsenter -t "$holder" -n -- ip link set lo up &&
		nsenter -t "$holder" -n -- ip link set cm-b up ||
		{ echo "FAIL: cannot join the two namespaces with a veth pair"; exit 1; }
	while [ $# -ge 2 ]; do
		case $1 in *:*) dad=nodad ;; *) dad= ;; esac
		ip addr add "$1" dev cm-a $dad && nsenter -t "$holder" -n -- ip addr add "$2" dev cm-b $dad ||
			{ echo "FAIL: cannot add $1 and $2"; exit 1; }
		shift 2
	done
	CM_CLIENT_NS=$holder
}

cm_pair()
{
	local name=$1 sre=$2 cre=$3 envs=() srv=() cli=() spid cpid src crc i problems lingered
	local s="$IC_TMP/$name.server" c="$IC_TMP/$name.client" t0=$SECONDS
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	ic_cmd UROCE_IP=$CM_S "${envs[@]}" -- "${srv[@]}"
	"${IC_CMD[@]}" >"$s" 2>&1 </dev/null &
	spid=$!
	IC_PIDS+=("$spid")
	if ! cm_wait_bound "$spid" $CM_S; then
		ic_alive "$spid" && kill "$spid"
		wait "$spid"
		ic_fail "$name" "the server's uroce port never came up (exit $?)"
		ic_show "server: ${srv[*]}" "$s"
		return 1
	fi
	sleep "$CM_LISTEN_GRACE"
	ic_cmd UROCE_IP=$CM_C "${envs[@]}" -- "${cli[@]}"
	cm_client_ns "${IC_CMD[@]}" >"$c" 2>&1 </dev/null &
	cpid=$!
	IC_PIDS+=("$cpid")
	wait "$cpid"
	crc=$?
	for ((i = 0; i < 300; i++)); do
		[ -z "${CM_SERVER_STAYS:-}" ] && ic_alive "$spid" || break
		sleep 0.1
	done
	lingered=
	if [ -n "${CM_SERVER_STAYS:-}" ]; then
		# a server that serves until it is stopped (udpong): stopped now, and its end by
		# that SIGTERM (exit 143, through the watchdog) is its success
		kill "$spid" 2>/dev/null
		wait "$spid"
		src=$?
		[ "$src" = 143 ] && src=0
	elif ic_alive "$spid"; then
		kill "$spid"
		[ -n "${CM_LINGER:-}" ] && [ "$crc" = 0 ] && lingered=1
	fi
	[ -z "${CM_SERVER_STAYS:-}" ] && { wait "$spid"; src=$?; }
	if [ -n "$lingered" ]; then
		echo "note: $name: the server still waited for its disconnections 30 s after the client ended ($CM_LINGER); stopped"
		src=0
	fi
	problems=$( {
		ic_check_output "$name" server "$s" "$src" none
		ic_check_output "$name" client "$c" "$crc" none
		[ "$sre" = - ] || grep -Eq "$sre" "$s" || echo "server printed no line matching '$sre'"
		[ "$cre" = - ] || grep -Eq "$cre" "$c" || echo "client printed no line matching '$cre'"
	})
	if [ -n "$problems" ]; then
		ic_fail "$name" "$(tr '\n' ';' <<<"$problems")"
		echo "  server: UROCE_IP=$CM_S ${envs[*]} ${srv[*]}"
		echo "  client: UROCE_IP=$CM_C ${envs[*]} ${cli[*]}"
		ic_show "server output" "$s"
		ic_show "client output" "$c"
		return 1
	fi
	ic_pass "$name" "$((SECONDS - t0))s"
}

# cm_check_cm_capture NAME FILE: the exchange was RoCEv2 (hpc_check_capture: every packet a
# RoCEv2 packet with a good ICRC) and its connection management went over QP1: CM MADs
# (class 0x07) to destination QP 1 were captured.
cm_check_cm_capture()
{
	local name=$1 cap=$2 mads
	hpc_check_capture "$name" "$cap" || return 1
	mads=$(tshark -r "$cap" -Y 'infiniband.bth.destqp == 1 && infiniband.mad.mgmtclass == 0x07' 2>/dev/null | wc -l)
	if [ "$mads" -lt 3 ]; then
		ic_fail "$name.cm" "only $mads CM MADs to QP1 in the capture"
		return 1
	fi
	ic_pass "$name.cm" "$mads CM MADs to QP1"
}
