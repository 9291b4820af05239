#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce on the host against Linux rxe (rdma_rxe, Linux 6.1) in a QEMU guest of
# ../shared/tools/rxe-vm, both directions: unmodified ibverbs-utils and perftest on both sides.
# A first slice of the issue 5 tier: the guests must already be up (`run.sh up`); this script
# does not boot or stop them. Usage: matrix.sh LIBDIR [4|6]  (IPv4 or IPv6 GIDs)
# Prints one PASS/FAIL line per case and direction; exits 1 if any failed.
set -u
lib=$(cd "${1:?usage: matrix.sh LIBDIR [4|6]}" && pwd)
fam=${2:-4}
vm=${RXE_VM_TOOL:-$(dirname "$0")/../../../shared/tools/rxe-vm/run.sh}
[ -x "$vm" ] || { echo "SKIP: no rxe-vm tool at $vm"; exit 77; }
# RoCE runs between the addresses of family $fam; the programs' TCP side channel always uses
# IPv4 (perftest's socket is AF_INET only, the pingpong servers listen on the first address
# getaddrinfo gives, IPv4).
if [ "$fam" = 6 ]; then
	host_ip=fd00:198:18:10::1
else
	host_ip=198.18.10.1
fi
tcp_host=198.18.10.1 tcp_guest=198.18.10.11
guest_gid=$("$vm" exec vm1 "rxe-gid $fam" 2>/dev/null | tr -dc 0-9)
[ -n "$guest_gid" ] || { echo "SKIP: guest vm1 is not up (run.sh up)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
port=19000

host() { LD_LIBRARY_PATH="$lib" UROCE_IP="$host_ip" timeout 120 "$@"; }

# case NAME MARKER PROGRAM ARGS...: both directions. The guest's GID flag is -g for the
# pingpong programs and -x for perftest; the host's GID index is always 0 (UROCE_IP).
case_() {
	local name=$1 marker=$2 prog=$3
	shift 3
	local gflag=-x dev="-d rxe0" hdev="-d uroce0"
	case $prog in ibv_*) gflag=-g ;; esac
	port=$((port + 1))
	# uroce client -> rxe server
	"$vm" exec vm1 "rxe-bg s$port $prog $dev $gflag $guest_gid -p $port $*" >/dev/null 2>&1
	sleep 2
	host "$prog" $hdev $gflag 0 -p $port "$@" "$tcp_guest" >"$tmp/c" 2>&1
	local rc=$?
	"$vm" exec vm1 "rxe-wait s$port 120" >"$tmp/s" 2>&1
	# The client reports; the passive server of READ and atomic latency prints no figures.
	if [ $rc -eq 0 ] && grep -q -- "$marker" "$tmp/c"; then
		echo "PASS $name uroce->rxe"
	else
		echo "FAIL $name uroce->rxe (client $rc)"; sed 's/^/  /' "$tmp/c" | tail -5; sed 's/^/  rxe: /' "$tmp/s" | tail -5
		failed=1
	fi
	# rxe client -> uroce server
	port=$((port + 1))
	host "$prog" $hdev $gflag 0 -p $port "$@" >"$tmp/s" 2>&1 &
	local srv=$!
	sleep 1
	"$vm" exec vm1 "$prog $dev $gflag $guest_gid -p $port $* $tcp_host" >"$tmp/c" 2>&1
	wait $srv
	rc=$?
	if [ $rc -eq 0 ] && grep -q -- "$marker" "$tmp/c"; then
		echo "PASS $name rxe->uroce"
	else
		echo "FAIL $name rxe->uroce (server $rc)"; sed 's/^/  /' "$tmp/s" | tail -5; sed 's/^/  rxe: /' "$tmp/c" | tail -5
		failed=1
	fi
}

case_ rc_pingpong "iters in" ibv_rc_pingpong -n 200
case_ uc_pingpong "iters in" ibv_uc_pingpong -n 200
case_ ud_pingpong "iters in" ibv_ud_pingpong -n 200 -s 512
case_ srq_pingpong "iters in" ibv_srq_pingpong -n 200
case_ send_bw "^ 65536" ib_send_bw -s 65536 -n 300
case_ write_bw "^ 65536" ib_write_bw -s 65536 -n 300
case_ read_bw "^ 65536" ib_read_bw -s 65536 -n 300
case_ atomic_fadd_bw "^ 8 " ib_atomic_bw -A FETCH_AND_ADD -n 300
case_ atomic_cas_bw "^ 8 " ib_atomic_bw -A CMP_AND_SWAP -n 300
case_ send_lat "^ 64 " ib_send_lat -s 64 -n 300
case_ write_lat "^ 64 " ib_write_lat -s 64 -n 300
case_ read_lat "^ 64 " ib_read_lat -s 64 -n 300
case_ atomic_lat "^ 8 " ib_atomic_lat -n 300
exit $failed
