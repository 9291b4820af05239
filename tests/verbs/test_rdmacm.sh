#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma_cm programs with Debian's librdmacm over uroce's libibverbs.so.1 end with librdmacm's
# own error, not a crash. (uroce's own librdmacm.so.1, beside libibverbs.so.1 in the build's
# lib/, is left out here: tests/rdmacm run the same programs over it.)
#
# librdmacm talks to the kernel's rdma_cm through /dev/infiniband/rdma_cm, which a host
# without an RDMA device does not have; before that, it calls ibv_get_sysfs_path (to read the
# rdma_cm ABI version), whose signature uroce once had wrong, so that every rdma_cm program
# died of SIGSEGV before printing anything. Each program here (rdmacm-utils' rping, ucmatose
# and udaddy, perftest's ib_send_bw -R, qperf -cm1 against a qperf server) must exit on its
# own (not by a signal, not hang: within interop/lib.sh's time limit) and print librdmacm's
# failure to create its event channel.
# Exits 77 (skipped) when the host has a kernel rdma_cm (then these programs would use it) or
# none of the programs is installed; a missing one of them is a failure. With a sanitizer
# build, the programs run with its runtimes preloaded (interop/lib.sh).
set -u

. "$(dirname "$0")/../interop/lib.sh"
[ -e /dev/infiniband/rdma_cm ] && { echo "this host has a kernel rdma_cm: skipped"; exit 77; }

# The build's libraries but uroce's librdmacm: Debian's is the one these programs load here.
mkdir -p "$IC_TMP/lib"
for f in "$IC_LIBDIR"/*.so*; do
	case $(basename "$f") in librdmacm*) continue ;; esac
	ln -s "$f" "$IC_TMP/lib/"
done
export LD_LIBRARY_PATH=$IC_TMP/lib
[ -n "$IC_PRELOAD" ] && export LD_PRELOAD=$IC_PRELOAD
# librdmacm's messages when rdma_create_event_channel fails (the programs word it their way).
cm_error='failed to create RDMA CM event channel|rdma_create_event_channel failed'
fails=0
ran=0
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# check NAME OUTPUT STATUS: the program ended by itself with librdmacm's error.
check() {
	local name=$1 out=$2 rc=$3

	if [ "$rc" -eq 124 ]; then
		fail "$name did not end within $IC_TIMEOUT s"
	elif [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
		fail "$name died of signal $((rc - 128))"
	elif [ "$rc" -eq 0 ]; then
		fail "$name succeeded without an rdma_cm"
	elif ! grep -Eq "$cm_error" <<<"$out"; then
		fail "$name (exit $rc) did not print librdmacm's error:"
		head -n 5 <<<"$out" | sed 's/^/    /'
	else
		echo "$name: exit $rc, $(grep -Em1 "$cm_error" <<<"$out" | sed 's/^ *//')"
	fi
}

# run NAME COMMAND...: one program, bounded in time.
run() {
	local name=$1 out rc
	shift
	if ! command -v "$1" >/dev/null; then
		fail "$1 is not installed (scripts/install-deps.sh installs it)"
		return
	fi
	ran=$((ran + 1))
	out=$(UROCE_IP=127.0.0.1 timeout "$IC_TIMEOUT" "$@" </dev/null 2>&1)
	rc=$?
	check "$name" "$out" $rc
}

run "rping -s" rping -s -a 127.0.0.1 -C 1
run "rping -c" rping -c -a 127.0.0.1 -C 1
run ucmatose ucmatose
run "ucmatose -s" ucmatose -s 127.0.0.1
run udaddy udaddy
run "ib_send_bw -R" ib_send_bw -d uroce0 -x 0 -R
run "ib_write_lat -R" ib_write_lat -d uroce0 -x 0 -R 127.0.0.1

# qperf: the client reaches a qperf server over TCP, then both try rdma_cm (-cm1).
if command -v qperf >/dev/null; then
	port=$((20000 + RANDOM % 12000)) # below the ephemeral ports (32768-)
	UROCE_IP=127.0.0.2 timeout $((2 * IC_TIMEOUT)) qperf -lp $port </dev/null >/dev/null 2>&1 &
	server=$!
	IC_PIDS+=($server)
	for _ in $(seq 200); do # until the server listens
		ss -ltnH "sport = :$port" 2>/dev/null | grep -q . && break
		sleep 0.1
	done
	out=$(UROCE_IP=127.0.0.1 timeout "$IC_TIMEOUT" qperf -lp $port -cm1 127.0.0.1 rc_bw \
		</dev/null 2>&1)
	rc=$?
	kill $server 2>/dev/null
	wait $server 2>/dev/null
	ran=$((ran + 1))
	check "qperf -cm1" "$out" $rc
else
	fail "qperf is not installed (scripts/install-deps.sh installs it)"
fi

[ $ran -gt 0 ] || { echo "no rdma_cm program installed: skipped"; exit 77; }
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "$ran rdma_cm programs ended with librdmacm's error"
