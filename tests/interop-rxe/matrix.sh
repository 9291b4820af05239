#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce on the host against Linux rxe (rdma_rxe, Linux 6.1) in guest vm1 of
# ../shared/tools/rxe-vm, both directions: unmodified ibverbs-utils and perftest on both sides.
# The guests must be up (`run.sh up`); tier.sh boots them, impairs the link and calls this.
#
# Usage: matrix.sh LIBDIR 4|6 [CASE...]   (RoCEv2 between the IPv4 or the IPv6 addresses;
#                                          no CASE: every case below)
# Environment:
#   RXE_MATRIX_TAG  words put in front of every result line (tier.sh: "ipv4 mtu1024 clean")
#   RXE_MATRIX_MTU  the path MTU in use (1024 or 4096): message sizes span several packets of it
#   RXE_MATRIX_UROCE_TIMEOUT  perftest's -u on uroce's side (default 18, below)
#   RXE_MATRIX_ITERS  iterations of every case (default 200 for pingpong and bandwidth, 300 for
#                   atomics and latency)
#   RXE_VM_TOOL     the rxe-vm run.sh (default ../shared/tools/rxe-vm/run.sh)
#   RXE_MATRIX_XDP  an interface: uroce's side runs on the AF_XDP backend there (UROCE_XDP)
#   RXE_MATRIX_PACKET  an interface: uroce's side runs on the AF_PACKET backend there
#                   (UROCE_PACKET)
# Prints one "PASS|FAIL TAG CASE uroce->rxe|rxe->uroce (seconds)" line per case and direction,
# with both sides' output tails on failure; exits 1 if any failed, 77 if the guests are not up.
set -u
lib=$(cd "${1:?usage: matrix.sh LIBDIR 4|6 [CASE...]}" && pwd)
fam=${2:?usage: matrix.sh LIBDIR 4|6 [CASE...]}
shift 2
tag=${RXE_MATRIX_TAG:-ipv$fam}
mtu=${RXE_MATRIX_MTU:-1024}
here=$(cd "$(dirname "$0")" && pwd)
vm=${RXE_VM_TOOL:-$here/../../../shared/tools/rxe-vm/run.sh}
[ -x "$vm" ] || { echo "SKIP: no rxe-vm tool at $vm"; exit 77; }
# RoCE runs between the addresses of family $fam; the programs' TCP side channel always uses
# IPv4 (perftest's socket is AF_INET only, the pingpong servers listen on the first address
# getaddrinfo gives, IPv4).
case $fam in
6) host_ip=fd00:198:18:10::1 ;;
4) host_ip=198.18.10.1 ;;
*) echo "usage: matrix.sh LIBDIR 4|6 [CASE...]"; exit 2 ;;
esac
tcp_host=198.18.10.1 tcp_guest=198.18.10.11
guest_gid=$("$vm" exec vm1 "rxe-gid $fam" 2>/dev/null | tr -dc 0-9)
[ -n "$guest_gid" ] || { echo "SKIP: guest vm1 is not up (run.sh up)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/cases.sh"
failed=0
# Each run of a program gets its own TCP port: a server left behind by a failed case cannot
# answer the next one. The ports stay below Linux's ephemeral range (32768-60999): a port in it
# can be held by an outgoing connection, and the server then cannot listen (it happened in CI).
port=$((10000 + RANDOM % 700 * 30))

# The cases: name, the line that shows the reporting side finished, the program and its
# arguments. Pingpong messages span 4 packets of the path MTU (the programs default to 1024:
# -m), perftest's 64 KiB messages 64 or 16, and the UD datagram fills the MTU. Latency READ
# and atomic servers are passive and print no figures: their exit code is what counts.
pp=$((4 * mtu)) n=${RXE_MATRIX_ITERS:-200} n_small=${RXE_MATRIX_ITERS:-300}
declare -A marker args
names=()
def() { names+=("$1"); marker[$1]=$2; args[$1]=$3; }
def rc_pingpong "iters in" "ibv_rc_pingpong -n $n -s $pp -m $mtu"
def uc_pingpong "iters in" "ibv_uc_pingpong -n $n -s $pp -m $mtu"
def ud_pingpong "iters in" "ibv_ud_pingpong -n $n -s $mtu"
def srq_pingpong "iters in" "ibv_srq_pingpong -n $n -s $pp -m $mtu"
def send_bw "^ 65536 " "ib_send_bw -s 65536 -n $n"
def write_bw "^ 65536 " "ib_write_bw -s 65536 -n $n"
def read_bw "^ 65536 " "ib_read_bw -s 65536 -n $n"
def atomic_fadd_bw "^ 8 " "ib_atomic_bw -A FETCH_AND_ADD -n $n_small"
def atomic_cas_bw "^ 8 " "ib_atomic_bw -A CMP_AND_SWAP -n $n_small"
def send_lat "^ 64 " "ib_send_lat -s 64 -n $n_small"
def write_lat "^ 64 " "ib_write_lat -s 64 -n $n_small"
def read_lat "^ 64 " "ib_read_lat -s 64 -n $n_small"
def atomic_lat "^ 8 " "ib_atomic_lat -n $n_small"
[ $# -gt 0 ] || set -- "${names[@]}"

# Every program gets $limit seconds: the longest case, 50 lossy 64 KiB transfers, takes about
# 10, and a guest whose link has stalled (cases.sh, path_lost) costs twice the limit.
limit=60
host() {
	env LD_LIBRARY_PATH="$lib" UROCE_IP="$host_ip" ${RXE_MATRIX_XDP:+UROCE_XDP=$RXE_MATRIX_XDP} \
		${RXE_MATRIX_PACKET:+UROCE_PACKET=$RXE_MATRIX_PACKET} \
		bash "$here/../interop/watchdog.sh" $limit "$@"
}

# uroce's local ACK timeout for perftest (-u): 18 (1.07 s) instead of perftest's 14 (67 ms).
# An emulated guest on a busy host can fall silent: for half a second in the first CI runs,
# for 2.15 s on 2026-11-27 (vm1 sent nothing, then acknowledged all 8 copies of uroce's
# RDMA WRITE at once, 0.3 s after uroce had given up with -u 16). With retry_cnt 7, uroce
# gives up after 7 timeouts as IBA 9.7.6.1.3 says, where rxe would retry for ever
# (docs/interop.md, deviations). 7 x 1.07 s rides that out; the pingpongs have no option.
uroce_timeout="-u ${RXE_MATRIX_UROCE_TIMEOUT:-18}"

# Waits until a server listens on TCP port $1, on the host or (with $2 = vm1) in the guest.
listening() {
	if [ "${2:-}" = vm1 ]; then
		"$vm" exec vm1 "for i in \$(seq 100); do ss -ltnH 'sport = :$1' | grep -q . && exit 0; sleep 0.1; done; exit 1" >/dev/null 2>&1
	else
		local i
		for i in $(seq 100); do
			ss -ltnH "sport = :$1" | grep -q . && return 0
			sleep 0.1
		done
		return 1
	fi
}

# perftest derives its clock rate from a linear fit of cycles against gettimeofday() and gives
# up without a report when the fit is poor (r^2 < 0.9, perftest get_clock.c), which happens in
# a guest under TCG emulation when the host is busy. That run says nothing about the transport:
# it is run once more, and the result line says so.
clock_fit_failed() { grep -q "Correlation coefficient r^2" "$tmp/c" "$tmp/s"; }
# The pingpong programs fix their local ACK timeout at 14 (67 ms) with 7 retries, about half
# a second of silence in all; a TCG guest descheduled by a busy host can be silent longer
# (a capture of 2026-11-26: rxe sent nothing for 560 ms, then 13 duplicate ACKs at once,
# after uroce's QP had given up). Such a run ("transport retry counter exceeded", status 12,
# on either side) is run once more, and the result line says so; a second one fails.
retry_exceeded() { grep -qE "retry counter exceeded|status 12\b" "$tmp/c" "$tmp/s"; }

# uroce client -> rxe server (in the background in the guest, its exit code in its log).
# Sets ok and why; outputs in $tmp/c and $tmp/s.
uroce_to_rxe() {
	local rc
	port=$((port + 1)) ok=0
	"$vm" exec vm1 "rxe-bg s$port bash -c '$prog $gargs -p $port $rest; echo rxe-exit=\$?'" >/dev/null 2>&1
	listening $port vm1
	host $prog $hargs -p $port $rest $tcp_guest >"$tmp/c" 2>&1
	rc=$?
	# a server whose client failed may wait forever for it
	"$vm" exec vm1 "rxe-wait s$port $([ $rc -eq 0 ] && echo $limit || echo 5)" >"$tmp/s" 2>&1
	[ $rc -eq 0 ] && grep -q "^rxe-exit=0" "$tmp/s" && grep -q -- "$mark" "$tmp/c" && ok=1
	why="client exit $rc, server $(grep -o 'rxe-exit=[0-9]*' "$tmp/s")"
}

# rxe client -> uroce server. Sets ok and why. The client runs in the background in the
# guest: a client whose server failed would go on retransmitting to a QP that is gone (for
# 2 minutes, thousands of packets the capture check would count): it gets 5 s.
rxe_to_uroce() {
	local rc src src_rc
	port=$((port + 1)) ok=0
	host $prog $hargs -p $port $rest >"$tmp/s" 2>&1 &
	src=$!
	listening $port
	"$vm" exec vm1 "rxe-bg c$port bash -c 'timeout $limit $prog $gargs -p $port $rest $tcp_host; echo rxe-exit=\$?'" >/dev/null 2>&1
	wait $src
	src_rc=$?
	# rxe-wait stops the job's shell only: the program itself is stopped by name
	"$vm" exec vm1 "rxe-wait c$port $([ $src_rc -eq 0 ] && echo $limit || echo 5); pkill -f '^(timeout $limit )?$prog .*-p $port( |\$)'" >"$tmp/c" 2>&1
	rc=$(sed -n 's/^rxe-exit=//p' "$tmp/c")
	rc=${rc:-124}
	[ $rc -eq 0 ] && [ $src_rc -eq 0 ] && grep -q -- "$mark" "$tmp/c" && ok=1
	why="client exit $rc, server exit $src_rc"
}

# run_case NAME: both directions. The guest's GID flag is -g for the pingpong programs and -x
# for perftest; the host's GID index is always 0 (UROCE_IP).
run_case() {
	local name=$1 a=${args[$1]:-} mark=${marker[$1]:-} prog ok why t0 note dir
	[ -n "$a" ] || { echo "FAIL $tag $name: no such case"; failed=1; return; }
	prog=${a%% *}
	local gargs="-d rxe0 -x $guest_gid" hargs="-d uroce0 -x 0 $uroce_timeout" rest=${a#* }
	case $prog in ibv_*) gargs="-d rxe0 -g $guest_gid" hargs="-d uroce0 -g 0" ;; esac
	for dir in uroce_to_rxe rxe_to_uroce; do
		t0=$SECONDS note=
		$dir
		if [ $ok = 0 ] && clock_fit_failed; then
			note=", run again: perftest's clock fit failed"
			$dir
		elif [ $ok = 0 ] && [ "${prog#ibv_}" != "$prog" ] && retry_exceeded; then
			note=", run again: the retry budget ran out while the guest was silent"
			$dir
		fi
		report $ok "$name" "${dir/_to_/->}" $t0 "$note" "$why"
	done
}

run_cases "$@"
