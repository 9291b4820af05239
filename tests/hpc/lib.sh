# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Helpers for the HPC middleware tests (tests/hpc): UCX, Open MPI and MPICH, unmodified Debian
# packages, over uroce. Built on tests/interop/lib.sh (ic_cmd, ic_pair, ic_pass/ic_fail,
# the sanitizer runtimes), sourced first.
#
# hpc_enter: the test runs in a network namespace of its own (its 127.0.0.x addresses and
# TCP ports, MPI's launcher included, touch nobody else's), whose lo cuts GSO sends into the
# datagrams a wire would carry (gso_max_segs 1, as interop/test_capture.sh does), and under
# tools/uroce-devns, which gives UCX the /dev/infiniband/uverbs-uroce0 it insists on.
#
# hpc_capture_start / hpc_capture_stop NAME: dumpcap on lo, UDP port 4791 only.
# hpc_check_capture NAME FILE: every packet is RoCEv2 with a good ICRC, by icrc_check.py (no
# code of uroce's) and by uroce-dump, and there is at least one.
# hpc_bytes FILE: "SRC DST BYTES" per direction (UDP lengths summed), what a transport
# really carried between two addresses.

IC_ERRORS="$IC_ERRORS|UCX +(ERROR|WARN)|Fatal:|[Ss]egmentation fault|[Aa]borting"
HPC_DUMP=${UROCE_BUILD:-/nonexistent}/tools/uroce-dump/uroce-dump
HPC_DEVNS=${UROCE_SOURCE:-/nonexistent}/tools/uroce-devns/uroce-devns
# shellcheck disable=SC2034 # used by the tests that source this file
HPC_RANK=${UROCE_SOURCE:-/nonexistent}/tools/uroce-rank/uroce-rank

hpc_enter()
{
	[ -x "$HPC_DUMP" ] || { echo "FAIL: no uroce-dump at $HPC_DUMP (UROCE_BUILD)"; exit 1; }
	[ -x "$HPC_DEVNS" ] || { echo "FAIL: no uroce-devns at $HPC_DEVNS (UROCE_SOURCE)"; exit 1; }
	ic_need tshark dumpcap
	ic_need python3 python3
	ic_need iproute2 ip
	ic_need util-linux unshare
	if [ -z "${HPC_INSIDE:-}" ]; then
		[ "$(id -u)" -eq 0 ] ||
			ic_skip "needs root for a network namespace of its own and a capture on its lo"
		trap - EXIT
		rm -rf "$IC_TMP"
		HPC_INSIDE=1 exec unshare --net -- "$HPC_DEVNS" bash "$0" "$@"
	fi
	if ! ip link set lo up || ! ip link set lo gso_max_segs 1; then
		echo "FAIL: cannot set up lo in the test's network namespace"
		exit 1
	fi
}

HPC_CAP_PID=

hpc_capture_start() # FILE
{
	local i
	dumpcap -q -i lo -B 64 -f 'udp port 4791 or (udp dst port 9 and dst host 127.0.0.254)' \
		-w "$1" 2>"$1.err" &
	HPC_CAP_PID=$!
	IC_PIDS+=("$HPC_CAP_PID")
	for ((i = 0; i < 100; i++)); do
		grep -qs 'Capturing on' "$1.err" && return 0
		ic_alive "$HPC_CAP_PID" || break
		sleep 0.1
	done
	ic_fail "capture" "dumpcap did not start"
	ic_show dumpcap "$1.err"
	ic_finish
}

# Stops the capture once it has everything: a sentinel datagram (UDP port 9 of an address no
# process uses) sent after the runs is in the file when all that came before it is; then
# only the packets to or from port 4791 are kept.
hpc_capture_stop() # FILE
{
	local i
	for ((i = 0; i < 50; i++)); do
		python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"end", ("127.0.0.254", 9))'
		sleep 0.1
		[ "$(tshark -r "$1" -Y 'udp.dstport == 9' 2>/dev/null | wc -l)" -gt 0 ] && break
	done
	kill "$HPC_CAP_PID" 2>/dev/null
	wait "$HPC_CAP_PID" 2>/dev/null
	tshark -r "$1" -Y 'udp.port == 4791' -w "$1.roce" -F pcap 2>/dev/null && mv "$1.roce" "$1"
}

hpc_check_capture() # NAME FILE
{
	local name=$1 cap=$2 n icrc sum rc
	n=$(tshark -r "$cap" 2>/dev/null | wc -l)
	if [ "$n" -eq 0 ]; then
		ic_fail "$name.roce" "the capture holds no packet to UDP port 4791: nothing went through uroce"
		return 1
	fi
	python3 "$IC_HERE/icrc_check.py" "$cap" >"$cap.icrc" 2>&1
	rc=$?
	icrc=$(tail -n 1 "$cap.icrc")
	"$HPC_DUMP" -r "$cap" >/dev/null 2>"$cap.sum"
	sum=$(grep '^uroce-dump: ' "$cap.sum" | tail -n 1)
	if [ $rc = 0 ] && [[ $icrc == *": $n RoCEv2 packets, $n ICRC ok, 0 bad"* ]] &&
		[[ $sum == *" $n RoCE/InfiniBand, 0 malformed; ICRC $n ok, 0 bad, 0 unchecked;"* ]]; then
		ic_pass "$name.roce" "$n RoCEv2 packets, every ICRC verified by icrc_check.py and uroce-dump"
		return 0
	fi
	ic_fail "$name.roce" "expected $n RoCEv2 packets with good ICRCs: icrc_check.py exit $rc: $icrc; $sum"
	return 1
}

hpc_bytes() # FILE
{
	"$HPC_DUMP" -r "$1" -T fields -e ip.src -e ip.dst -e udp.length 2>/dev/null |
		awk '{ b[$1 " " $2] += $3 } END { for (k in b) print k, b[k] }'
}

# hpc_opcodes FILE: the BTH opcode names of the capture, one per line with counts.
hpc_opcodes()
{
	"$HPC_DUMP" -r "$1" -T fields -e infiniband.bth.opcode 2>/dev/null | sort | uniq -c
}

# ---- MPI ----
# In a sanitizer build the MPI jobs run without LeakSanitizer: Open MPI, MPICH, their
# launchers and UCX leave thousands of their own allocations at exit, and LeakSanitizer's
# report of them took 30 s per job. AddressSanitizer still checks every access the library
# makes (a use after free in the asynchronous events was found so); the library's own leaks
# are checked by the verbs and interop tests, and by test_ucx here.
hpc_mpi_no_leak_check()
{
	[ "$IC_SANITIZED" = 1 ] && export ASAN_OPTIONS=${ASAN_OPTIONS//detect_leaks=1/detect_leaks=0}
	return 0
}

# The MPI program of tests/hpc/mpi_check.c, built per MPI by tests/hpc/CMakeLists.txt.
hpc_mpi_program() # openmpi|mpich
{
	hpc_mpi_no_leak_check
	HPC_MPI_CHECK=${UROCE_BUILD:-/nonexistent}/tests/hpc/mpi_check.$1
	[ -x "$HPC_MPI_CHECK" ] || ic_skip "no $HPC_MPI_CHECK: the build found no mpicc.$1" \
		"(install libopenmpi-dev / libmpich-dev, scripts/install-deps.sh, and build again)"
}

# The least each ordered pair of ranks A -> B must have carried in RoCEv2 packets when no
# byte took a shared-memory shortcut: the data mpi_check sends from A to B (its ping-pong
# between ranks 2k and 2k+1, 5 x 1118279 bytes each way; MPI_Alltoall's 40000 values of 4
# bytes; MPI_Put into the next rank's window, 8 + 2 x 256 KiB; MPI_Get by the previous rank,
# as much), in whatever protocol the transport chose; headers only add to it.
hpc_mpi_need() # NP A B
{
	local np=$1 a=$2 b=$3 n=160000
	[ $((a ^ 1)) -eq "$b" ] && n=$((n + 5 * 1118279))
	[ "$b" -eq $(((a + 1) % np)) ] && n=$((n + 8 + 2 * 262144))
	[ "$a" -eq $(((b + 1) % np)) ] && n=$((n + 8 + 2 * 262144))
	echo $n
}

# HPC_RETRY_HANG (a reason, set by a test): a job that hangs (its timeout) runs once more, with
# a note giving the reason; a second hang fails.
#
# hpc_mpi_case NAME NP [VAR=VALUE...] -- LAUNCHER ARGS...: runs an MPI job of NP ranks (the
# launcher's command line, which starts uroce-rank mpi_check; the variables go to the
# launcher, the library's with them) under a capture, and checks: it exits 0 and prints
# mpi_check's PASS line for NP ranks and no error; rank r ran on $HPC_RANK_NET.(r+1)
# (HPC_RANK_NET: 127.0.0 unless the test set it); every ICRC verifies; and every ordered pair
# of ranks carried at least what mpi_check sent between them.
HPC_UCX_UD_RACE="ud_ep\.c:[0-9]+ +Assertion .ep->dest_ep_id == ctl->conn_rep\.src_ep_id. failed"

hpc_mpi_case()
{
	local name=$1 np=$2 envs=() out cap rc problems a b got need try want t0=$SECONDS
	local net=${HPC_RANK_NET:-127.0.0}
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	out=$IC_TMP/$name.out
	cap=$IC_TMP/$name.pcap
	ic_cmd "${envs[@]}" -- "$@"
	for try in 1 2; do
		hpc_capture_start "$cap"
		"${IC_CMD[@]}" >"$out" 2>&1 </dev/null
		rc=$?
		hpc_capture_stop "$cap"
		# UCX 1.13's UD connection set-up (ud_verbs, which rc_v connects through) can
		# meet a connection reply from a second endpoint of its peer and stop on an
		# assertion: an open UCX bug (openucx/ucx#6040), seen on NICs too. It was seen
		# once in about 30 jobs of the sanitizer build, whose slowness makes UCX resend
		# its requests. That failure alone, once, runs the job again; it is printed.
		[ $rc != 0 ] && [ $try = 1 ] || break
		if grep -Eq "$HPC_UCX_UD_RACE" "$out"; then
			echo "note: $name: UCX's UD connection race (openucx/ucx#6040) ended the job; again:"
			grep -Em1 "$HPC_UCX_UD_RACE" "$out"
		elif [ -n "${HPC_RETRY_HANG:-}" ] && { [ $rc = 124 ] || [ $rc = 137 ]; }; then
			echo "note: $name: the job hung ($HPC_RETRY_HANG); again:"
		else
			break
		fi
	done
	problems=$(
		ic_check_output "$name" job "$out" "$rc" none
		grep -q "^mpi_check: PASS: $np ranks, " "$out" ||
			echo "no 'mpi_check: PASS: $np ranks' line"
		for ((a = 0; a < np; a++)); do
			want=$net.$((a + 1))
			[ -n "${HPC_ONE_ADDRESS:-}" ] && want="(unset)"
			grep -qxF "rank $a: UROCE_IP=$want" "$out" ||
				echo "rank $a did not report UROCE_IP=$want"
		done
	)
	if [ -n "$problems" ]; then
		ic_fail "$name" "$(tr '\n' ';' <<<"$problems")"
		echo "  ${envs[*]} $*"
		ic_show output "$out"
		return 1
	fi
	ic_pass "$name" "$((SECONDS - t0))s: $(grep '^mpi_check: PASS' "$out")"
	hpc_check_capture "$name" "$cap" || return 1
	hpc_bytes "$cap" >"$cap.bytes"
	problems=
	if [ -n "${HPC_ONE_ADDRESS:-}" ]; then
		# every rank on one address: all that mpi_check sent, from it to itself
		need=0
		for ((a = 0; a < np; a++)); do
			for ((b = 0; b < np; b++)); do
				[ $a -ne $b ] && need=$((need + $(hpc_mpi_need "$np" $a $b)))
			done
		done
		got=$(awk -v s="$HPC_ONE_ADDRESS" '$1 == s && $2 == s { print $3 }' "$cap.bytes")
		[ "${got:-0}" -ge "$need" ] ||
			problems+="$HPC_ONE_ADDRESS -> itself: ${got:-0} bytes, at least $need; "
	else
		for ((a = 0; a < np; a++)); do
			for ((b = 0; b < np; b++)); do
				[ $a -eq $b ] && continue
				got=$(awk -v s="$net.$((a + 1))" -v d="$net.$((b + 1))" \
					'$1 == s && $2 == d { print $3 }' "$cap.bytes")
				need=$(hpc_mpi_need "$np" $a $b)
				[ "${got:-0}" -ge "$need" ] ||
					problems+="rank $a -> rank $b: ${got:-0} bytes, at least $need; "
			done
		done
	fi
	if [ -z "$problems" ]; then
		ic_pass "$name.bytes" "every pair of ranks carried at least mpi_check's data in RoCEv2"
	else
		ic_fail "$name.bytes" "$problems(a shared-memory shortcut or another transport?)"
		sort "$cap.bytes" | sed 's/^/    /'
	fi
}
