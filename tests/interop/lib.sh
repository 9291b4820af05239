# SPDX-License-Identifier: MIT
# Helpers for the interoperability tests: unmodified Debian programs (ibverbs-utils, perftest)
# loaded with uroce's libibverbs.so.1 through LD_LIBRARY_PATH, two processes per case, each
# restricted by UROCE_IP to its own loopback address (design.md "Addressing").
#
# Sourced by tests/interop/test_*.sh and tests/verbs/test_ipv6.sh (which runs its programs in a
# network namespace through ic_cmd and judges them with ic_check_output). Environment (set by
# tests/interop/CMakeLists.txt, and tests/CMakeLists.txt for tests/verbs):
#   UROCE_LIBDIR   directory of uroce's libibverbs.so.1, libmlx5.so.1, libefa.so.1 (required)
#   UROCE_BUILD    the build directory (uroce-dump lives in tools/uroce-dump there)
#   UROCE_SOURCE   the source tree;  UROCE_SHARED  ../shared (the real captures)
# Optional:
#   UROCE_INTEROP_KEEP=1       keep the scratch directory (captures, outputs) and print its path
#   UROCE_INTEROP_TIMEOUT=SEC  per-process limit (default 60; sanitizer builds get 3x)
#
# A case runs the server first, waits until it listens on its TCP port (both pingpong and
# perftest exchange connection data over TCP), then runs the client. It passes when both exit
# with 0, both print their success markers, and neither prints an error line. Each case prints
# one "PASS name" or "FAIL name" line, and on failure both outputs. ic_finish exits 1 if any
# case failed. Exit code 77 (CTest: skipped) when the programs are not installed.
set -u

IC_TEST=$(basename "$0" .sh)
: "${UROCE_LIBDIR:?UROCE_LIBDIR must name the directory of uroce libibverbs.so.1}"
if [ ! -e "$UROCE_LIBDIR/libibverbs.so.1" ]; then
	echo "FAIL: no libibverbs.so.1 in $UROCE_LIBDIR"
	exit 1
fi
IC_LIBDIR=$(cd "$UROCE_LIBDIR" && pwd)
IC_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
IC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/uroce-$IC_TEST.XXXXXX")
IC_PASSED=0
IC_FAILED=0
IC_SKIPPED=0
IC_FAILED_NAMES=()
IC_PIDS=()
IC_NETNS=()
IC_START=$SECONDS

ic_cleanup()
{
	local pid ns
	for pid in "${IC_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for ns in "${IC_NETNS[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	if [ "${UROCE_INTEROP_KEEP:-0}" = 1 ]; then
		echo "scratch directory kept: $IC_TMP"
	else
		rm -rf "$IC_TMP"
	fi
}
trap ic_cleanup EXIT

ic_skip()
{
	echo "SKIP $IC_TEST: $*"
	exit 77
}

# ic_netns NAME...: makes network namespaces, each with its lo up, for a test that builds its
# own network; ic_cleanup stops what still runs in them and removes them. Skips the test when
# namespaces cannot be made or entered here.
ic_netns()
{
	local ns
	for ns in "$@"; do
		ip netns add "$ns" 2>/dev/null || ic_skip "cannot create a network namespace"
		IC_NETNS+=("$ns")
		ip -n "$ns" link set lo up
	done
	ip netns exec "$1" true 2>/dev/null || ic_skip "ip netns exec does not work here"
}

# ic_need_mount_ns: skips the test where no private mount namespace can be made: in a chroot
# whose root is no mount point, unshare cannot change the root's propagation.
ic_need_mount_ns()
{
	unshare --mount --propagation private true 2>/dev/null ||
		ic_skip "no private mount namespace here (in a chroot, bind-mount its root on itself first)"
}

# ic_need PACKAGE PROGRAM...: skips the whole test when a program is missing.
ic_need()
{
	local pkg=$1 prog
	shift
	for prog in "$@"; do
		command -v "$prog" >/dev/null 2>&1 ||
			ic_skip "$prog not found: install the Debian package $pkg (scripts/install-deps.sh)"
	done
}

ic_need coreutils timeout

# ---- Sanitizer builds ----
# A library built with -DUROCE_SANITIZE=ON needs the ASan runtime first in the link order of the
# unsanitized programs: preload the runtimes the library itself was linked with. Leak detection
# stays on (LSan reports at exit without changing the exit code); ic_check_leaks then fails a
# case only for leaks allocated inside uroce, not for the programs' own (perftest never frees
# its device list, its parameter strings, or the receive CQ of a one-way SEND client).
IC_PRELOAD=
IC_SANITIZED=0
if nm -D "$IC_LIBDIR/libibverbs.so.1" 2>/dev/null | grep -q ' __asan_init' ||
	ldd "$IC_LIBDIR/libibverbs.so.1" 2>/dev/null | grep -q libasan; then
	IC_SANITIZED=1
	for rt in libasan libubsan; do
		f=$(ldd "$IC_LIBDIR/libibverbs.so.1" 2>/dev/null | awk -v rt="$rt" '$1 ~ "^" rt "\\." { print $3 }')
		[ -n "$f" ] || f=$(gcc -print-file-name="$rt.so" 2>/dev/null)
		if [ -n "$f" ] && [ -e "$f" ]; then
			IC_PRELOAD="${IC_PRELOAD:+$IC_PRELOAD }$f"
		elif [ "$rt" = libasan ]; then
			echo "FAIL: $IC_LIBDIR/libibverbs.so.1 is built with ASan but its runtime was not found"
			exit 1
		fi
	done
	export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export LSAN_OPTIONS="exitcode=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
	export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
	echo "sanitizer build: LD_PRELOAD=$IC_PRELOAD, leak check of uroce's own allocations"
fi
# A library built with -DUROCE_TSAN=ON: ThreadSanitizer's runtime must be in the process from
# its first instruction (it intercepts libc and pthread), so it is preloaded as well. A report
# stops the program at once with exit code 66 (halt_on_error), which fails the case whatever
# the program would have done next, and its "WARNING: ThreadSanitizer" lines are error lines
# (IC_ERRORS). The runtime's sleep at exit (1 s) is cut to 50 ms, as for the other tests
# (tests/CMakeLists.txt). tsan.supp names the only reports tolerated: inside the programs
# themselves, never in uroce.
IC_TSAN=0
if ldd "$IC_LIBDIR/libibverbs.so.1" 2>/dev/null | grep -q libtsan; then
	IC_TSAN=1
	IC_PRELOAD=$(ldd "$IC_LIBDIR/libibverbs.so.1" | awk '$1 ~ /^libtsan\./ { print $3 }')
	if [ -z "$IC_PRELOAD" ] || [ ! -e "$IC_PRELOAD" ]; then
		echo "FAIL: $IC_LIBDIR/libibverbs.so.1 is built with TSan but its runtime was not found"
		exit 1
	fi
	export TSAN_OPTIONS="halt_on_error=1:atexit_sleep_ms=50:second_deadlock_stack=1:suppressions=$IC_HERE/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
	echo "ThreadSanitizer build: LD_PRELOAD=$IC_PRELOAD, a report fails the case"
fi
# watchdog.sh shows a hung program's device with uroce-stat
[ -n "${UROCE_BUILD:-}" ] && export UROCE_STAT=${UROCE_STAT:-$UROCE_BUILD/tools/uroce-stat/uroce-stat}
IC_TIMEOUT=${UROCE_INTEROP_TIMEOUT:-60}
if [ -z "${UROCE_INTEROP_TIMEOUT:-}" ] && { [ "$IC_SANITIZED" = 1 ] || [ "$IC_TSAN" = 1 ]; }; then
	IC_TIMEOUT=180
fi

# ic_cmd [VAR=VALUE...] -- PROGRAM ARGS...: sets IC_CMD to the command line that runs PROGRAM
# against the uroce library with that environment, within IC_TIMEOUT. Callers run
# "${IC_CMD[@]}", in the background or not; in the background $! is the PID of watchdog.sh,
# which passes a SIGTERM on to the program, and when the time is up says where the program hung
# (its threads, its uroce device, its backtraces) before it stops it, as timeout(1) would.
ic_cmd()
{
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	IC_CMD=(bash "$IC_HERE/watchdog.sh" "$IC_TIMEOUT" env LD_LIBRARY_PATH="$IC_LIBDIR")
	# Open MPI's launcher gets no sanitizer runtime: its ranks get it from the command line
	# (-x LD_PRELOAD=...). Open MPI 4.1's mpirun reads a freed buffer in its PMIx log path
	# (orte_rml_oob_send_buffer_nb after orte_rml_send_callback freed it, under
	# pmix_server_log_fn) whenever a rank reports an error, and AddressSanitizer stops it
	# there, before it can pass the rank's failure on.
	[ -n "$IC_PRELOAD" ] && [[ " $* " != *" mpirun.openmpi "* ]] &&
		IC_CMD+=(LD_PRELOAD="$IC_PRELOAD")
	IC_CMD+=("${envs[@]}")
	# Line-buffered output, so that a program stopped by the timeout still shows how far it
	# got (stdbuf appends its library to LD_PRELOAD: the ASan runtime stays first).
	command -v stdbuf >/dev/null && IC_CMD+=(stdbuf -oL -eL)
	IC_CMD+=("$@")
}

# ic_capture_ns NS IFACE FILE NAME [DUMPCAP_ARGS...]: dumpcap on IFACE in namespace NS into
# FILE, in the background (its PID in IC_CAPTURE_PID and IC_PIDS, its messages in
# $IC_TMP/NAME.dumpcap), once it captures (at most 10 s).
ic_capture_ns()
{
	local ns=$1 ifc=$2 file=$3 name=$4
	shift 4
	ip netns exec "$ns" dumpcap -q -i "$ifc" "$@" -w "$file" 2>"$IC_TMP/$name.dumpcap" &
	IC_CAPTURE_PID=$!
	IC_PIDS+=($IC_CAPTURE_PID)
	for _ in $(seq 100); do
		grep -qs "Capturing on" "$IC_TMP/$name.dumpcap" && break
		sleep 0.1
	done
}

# ic_counter FILE NAME: the counter NAME in the UROCE_STATS=1 report in FILE (its first
# counters block is the device's), 0 when absent.
ic_counter()
{
	awk -v k="$2" '$1 == k { print $2; found = 1; exit } END { if (!found) print 0 }' "$1"
}

# True while process $1 runs (a child that exited but was not waited for is a zombie, which
# kill -0 would still report).
ic_alive()
{
	local st
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "${st%% *}" != Z ]
}

ic_pass()
{
	echo "PASS $1${2:+ ($2)}"
	IC_PASSED=$((IC_PASSED + 1))
}

# ic_skip_case NAME REASON: a case this build cannot run, said so; the rest of the test runs.
ic_skip_case()
{
	echo "SKIP $1: $2"
	IC_SKIPPED=$((IC_SKIPPED + 1))
}

ic_fail()
{
	echo "FAIL $1: $2"
	IC_FAILED=$((IC_FAILED + 1))
	IC_FAILED_NAMES+=("$1")
}

# Prints a file indented under a title, for failure reports.
ic_show()
{
	echo "---- $1 ----"
	sed 's/^/    /' "$2"
}

ic_finish()
{
	local t=$((SECONDS - IC_START))
	if [ "$IC_FAILED" -gt 0 ]; then
		echo "$IC_TEST: $IC_PASSED passed, $IC_FAILED failed (${IC_FAILED_NAMES[*]}) in ${t}s"
		exit 1
	fi
	if [ "$IC_PASSED" -eq 0 ]; then
		echo "$IC_TEST: no case ran"
		exit 1
	fi
	if [ "$IC_SKIPPED" -gt 0 ]; then
		echo "$IC_TEST: all $IC_PASSED cases passed, $IC_SKIPPED skipped, in ${t}s"
	else
		echo "$IC_TEST: all $IC_PASSED cases passed in ${t}s"
	fi
	exit 0
}

# True when something listens on TCP port $1 (any address, IPv4 or IPv6).
ic_listening()
{
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" 'FNR > 1 && substr($2, length($2) - 4) == p && $4 == "0A" { found = 1 }
		END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# True when UDP address $1 port $2 (IPv4) is bound.
ic_udp_bound()
{
	local a b c d hex
	IFS=. read -r a b c d <<<"$1"
	hex=$(printf '%02X%02X%02X%02X:%04X' "$d" "$c" "$b" "$a" "$2")
	awk -v h="$hex" 'FNR > 1 && $2 == h { found = 1 } END { exit !found }' /proc/net/udp 2>/dev/null
}

# The GID form perftest prints for an IPv4 address: "...:255:255:127:00:11:01".
ic_perftest_gid()
{
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '255:255:%02d:%02d:%02d:%02d' "$a" "$b" "$c" "$d"
}

# Lines that mean something went wrong, in either program's output or the library's.
IC_ERRORS="[Cc]ouldn't|[Cc]ould not|[Ff]ailed|[Ee]rror|[Uu]nable|[Ii]nvalid|not found|^uroce:|Segmentation|Aborted|runtime error|Sanitizer|timed out"

# The error lines of an output, without LeakSanitizer's report (ic_check_leaks judges that).
ic_error_lines()
{
	grep -E "$IC_ERRORS" "$1" | grep -vE 'ERROR: LeakSanitizer: detected memory leaks|^SUMMARY: AddressSanitizer: [0-9]+ byte\(s\) leaked'
}

# Leak records whose allocation stack goes through uroce (its sources or its library files),
# except the handles the program never released: LSan cannot tell a library that loses memory
# from a program that never calls ibv_dereg_mr or ibv_free_device_list (perftest does both), so
# an allocation made by a constructor (create, alloc, reg_mr, open_device, get_device_list)
# that the program called directly, one uroce frame deep, is the program's. Everything else
# under uroce is reported: its internal allocations, the progress thread, any other call.
ic_check_leaks()
{
	[ "$IC_SANITIZED" = 1 ] || return 0
	awk -v src="${UROCE_SOURCE:-/nonexistent}/src/" -v lib="$IC_LIBDIR/" '
		# A leak belongs to the program when the uroce frames are only the create, alloc,
		# reg or open call it made (with its internal helper, e.g. ibv_reg_mr_iova2 and
		# reg_mr, which a Debug build does not inline), starting at frame #1.
		function flush() {
			if (rec != "" && nours > 0 && !(ctor1 && allctor)) { print rec "\n"; n++ }
			rec = ""; nours = 0; ctor1 = 0; allctor = 1
		}
		/^(Direct|Indirect) leak of/ { flush(); inrec = 1; rec = $0; next }
		inrec && /^ *#[0-9]+ / {
			rec = rec "\n" $0
			ours = index($0, src) || index($0, lib)
			if (ours) {
				nours++
				isctor = $4 ~ /^(ibv_(create|alloc|reg_mr|open_device|get_device_list)|reg_mr$|uv_create_qp_ex$)/
				if ($1 == "#1" && isctor) ctor1 = 1
				if (!isctor) allctor = 0
			}
			next
		}
		inrec && /^$/ { next }
		inrec { flush(); inrec = 0 }
		BEGIN { allctor = 1 }
		END { flush(); exit n > 0 }' "$1"
}

# ic_check_output NAME SIDE FILE RC KIND: prints what is wrong with one side's output, nothing
# when it is right. KIND: pingpong:ITERS, perftest:ITERS (ITERS "-" in duration mode: any count),
# perftest-quiet (a perftest side that prints no result table: the passive side of WRITE, READ
# and atomic tests, and ucx_perftest's server), ucx-final:ITERS (ucx_perftest's client: its
# "Final:" row with ITERS iterations).
ic_check_output()
{
	local side=$2 f=$3 rc=$4 kind=$5 iters bad
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "$side timed out after ${IC_TIMEOUT}s"
	elif [ "$rc" != 0 ]; then
		echo "$side exited with $rc"
	fi
	bad=$(ic_error_lines "$f" | head -n 3)
	[ -n "$bad" ] && echo "$side printed: $(tr '\n' '|' <<<"$bad")"
	case $kind in
	pingpong:*)
		iters=${kind#pingpong:}
		grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$' "$f" ||
			echo "$side printed no '... bytes in ... seconds = ... Mbit/sec' line"
		grep -Eq "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter\$" "$f" ||
			echo "$side printed no '$iters iters in ...' line"
		;;
	perftest:*)
		iters=${kind#perftest:}
		# The result row: message size, iteration count, then figures.
		if [ "$iters" = - ]; then
			grep -Eq '^ *[0-9]+ +[1-9][0-9]* +[0-9]+\.[0-9]+' "$f" ||
				echo "$side printed no result row"
		else
			grep -Eq "^ *[0-9]+ +$iters +[0-9]+\\.[0-9]+" "$f" ||
				echo "$side printed no result row with $iters iterations"
		fi
		;;
	perftest-quiet) ;;
	ucx-final:*)
		iters=${kind#ucx-final:}
		grep -Eq "^Final: +$iters +[0-9]+\.[0-9]+" "$f" ||
			echo "$side printed no 'Final: $iters ...' row"
		;;
	esac
	if [ "$IC_SANITIZED" = 1 ] && ! ic_check_leaks "$f" >"$f.leaks"; then
		echo "$side: LeakSanitizer found memory leaked inside uroce"
	fi
}

# ic_pair NAME KIND_SERVER KIND_CLIENT SERVER_IP CLIENT_IP PORT [VAR=VALUE...] -- PROGRAM ARGS...
# Runs PROGRAM ARGS -p PORT as the server with UROCE_IP=SERVER_IP, then PROGRAM ARGS -p PORT
# SERVER_IP as the client with UROCE_IP=CLIENT_IP, with the extra environment on both sides.
# Checks both (ic_check_output) and prints PASS or FAIL. Leaves the outputs in
# $IC_TMP/NAME.server and $IC_TMP/NAME.client. Returns 0 on PASS.
# IC_END_RACE=1: accept the one failure the pingpong programs cannot avoid on a lossy link (see
# ic_end_race).
ic_pair()
{
	local name=$1 ks=$2 kc=$3 sip=$4 cip=$5 port=$6 envs=() spid cpid src=0 crc=0 i
	shift 6
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	local s="$IC_TMP/$name.server" c="$IC_TMP/$name.client" problems
	local t0=$SECONDS pids=("${IC_PIDS[@]}")

	if ic_listening "$port"; then
		ic_fail "$name" "TCP port $port is already in use by another program"
		return 1
	fi
	for i in "$sip" "$cip"; do
		if ic_udp_bound "$i" 4791; then
			ic_fail "$name" "UDP $i:4791 is already bound by another program (a test with the same addresses?)"
			return 1
		fi
	done
	ic_cmd UROCE_IP="$sip" "${envs[@]}" -- "$@" -p "$port"
	"${IC_CMD[@]}" >"$s" 2>&1 </dev/null &
	spid=$!
	IC_PIDS+=("$spid")
	# Wait until the server listens (it opens the device first): at most 30 s, less if it dies.
	for ((i = 0; i < 300; i++)); do
		ic_listening "$port" && break
		ic_alive "$spid" || break
		sleep 0.1
	done
	if ! ic_listening "$port"; then
		ic_alive "$spid" && kill "$spid"
		wait "$spid"
		i=$?
		IC_PIDS=("${pids[@]}")
		ic_fail "$name" "the server never listened on TCP port $port (exit $i)"
		ic_show "server: $*" "$s"
		return 1
	fi
	ic_cmd UROCE_IP="$cip" "${envs[@]}" -- "$@" -p "$port" "$sip"
	"${IC_CMD[@]}" >"$c" 2>&1 </dev/null &
	cpid=$!
	IC_PIDS+=("$cpid")
	wait "$cpid"
	crc=$?
	# The server finishes at about the same time; give it 30 s more, then stop it.
	for ((i = 0; i < 300; i++)); do
		ic_alive "$spid" || break
		sleep 0.1
	done
	ic_alive "$spid" && kill "$spid"
	wait "$spid"
	src=$?
	IC_PIDS=("${pids[@]}")

	problems=$( {
		ic_check_output "$name" server "$s" "$src" "$ks"
		ic_check_output "$name" client "$c" "$crc" "$kc"
	})
	if [ -n "$problems" ] && [ "${IC_END_RACE:-0}" = 1 ] && ic_end_race "$s" "$src" "$c" "$crc" "$kc" "$ks"; then
		ic_pass "$name" "$((SECONDS - t0))s; accepted: one side's last request was retried after the other had exited"
		return 0
	fi
	if [ -n "$problems" ]; then
		ic_fail "$name" "$(tr '\n' ';' <<<"$problems")"
		echo "  server: UROCE_IP=$sip ${envs[*]} $* -p $port"
		echo "  client: UROCE_IP=$cip ${envs[*]} $* -p $port $sip"
		ic_show "server output" "$s"
		ic_show "client output" "$c"
		[ -s "$s.leaks" ] && ic_show "server leaks inside uroce" "$s.leaks"
		[ -s "$c.leaks" ] && ic_show "client leaks inside uroce" "$c.leaks"
		return 1
	fi
	ic_pass "$name" "$((SECONDS - t0))s"
}

# The pingpong examples, and perftest's ib_send_lat and ib_write_lat, end as soon as their own
# counts are reached. On a lossy link the ACK of one side's last SEND (or WRITE) can be lost
# after the other side has seen everything it waited for and exited: the request is retried
# into the void and ends in "transport retry counter exceeded", as it would on a real NIC.
# That is the only failure accepted, and only when the other side completed every iteration,
# which proves all the failing side's requests arrived, and when the failed request was the
# failing side's last (wr_id 2 is the SEND in ibv_rc_pingpong and ibv_srq_pingpong; perftest
# prints its send count, scnt).
ic_end_race()
{
	local s=$1 src=$2 c=$3 crc=$4 kc=$5 ks=$6
	if [ -z "$(ic_check_output x client "$c" "$crc" "$kc")" ]; then
		ic_only_last_retry_exceeded "$s" "$src" "$ks"
	elif [ -z "$(ic_check_output x server "$s" "$src" "$ks")" ]; then
		ic_only_last_retry_exceeded "$c" "$crc" "$kc"
	else
		return 1
	fi
}

# FILE RC KIND: the program exited with 1 and its only error is the retry counter of its last
# request.
ic_only_last_retry_exceeded()
{
	case $3 in
	pingpong:*) ic_only_retry_exceeded "$1" "$2" ;;
	perftest:*)
		local re='^ Completion with error at (client|server)$|^ Failed status 12: wr_id [0-9]+ syndrom 0x[0-9a-f]+$|^Test exited with Error$'
		[ "$2" = 1 ] && grep -Eq "^scnt=${3#perftest:}, ccnt=[0-9]+\$" "$1" &&
			grep -Eq '^ Failed status 12: ' "$1" &&
			! ic_error_lines "$1" | grep -qvE "$re"
		;;
	*) return 1 ;;
	esac
}

ic_only_retry_exceeded()
{
	local re='^Failed status transport retry counter exceeded \(12\) for wr_id 2$'
	[ "$2" = 1 ] && grep -Eq "$re" "$1" &&
		! ic_error_lines "$1" | grep -vE "$re" | grep -qvE '^parse WC failed [0-9]+$'
}

# ic_ns_pair NAME KIND_SERVER KIND_CLIENT NS ARGS... -- CLIENT_EXTRA...: a pair of programs in
# network namespaces, for the tests that run them there (tests/verbs/test_ipv6.sh,
# tests/interop/test_xdp.sh). The caller defines ic_server and ic_client (PROGRAM ARGS...: run
# it with the test's namespace and environment); ARGS end with the TCP port, on which the
# server must listen in namespace NS before the client starts. Judged as ic_pair does, outputs
# in $IC_TMP/NAME.server and $IC_TMP/NAME.client.
ic_ns_pair()
{
	local name=$1 ks=$2 kc=$3 ns=$4
	shift 4
	local args=() srv rc_s rc_c problems s="$IC_TMP/$name.server" c="$IC_TMP/$name.client"
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	ic_server "${args[@]}" >"$s" 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		ip netns exec "$ns" ss -ltn | grep -q ":${args[-1]} " && break
		sleep 0.1
	done
	ic_client "${args[@]}" "$@" >"$c" 2>&1
	rc_c=$?
	[ $rc_c -eq 0 ] || kill "$srv" 2>/dev/null # a server without its client never ends
	wait "$srv"
	rc_s=$?
	problems=$( {
		ic_check_output "$name" server "$s" "$rc_s" "$ks"
		ic_check_output "$name" client "$c" "$rc_c" "$kc"
	})
	if [ -z "$problems" ]; then
		ic_pass "$name"
		return
	fi
	ic_fail "$name" "$(tr '\n' ';' <<<"$problems")"
	ic_show "server output" "$s"
	ic_show "client output" "$c"
	[ -s "$s.leaks" ] && ic_show "server leaks inside uroce" "$s.leaks"
	[ -s "$c.leaks" ] && ic_show "client leaks inside uroce" "$c.leaks"
}
