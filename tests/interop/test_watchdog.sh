#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# watchdog.sh, which runs every program of the interop, rdma_cm, HPC and rxe tests (ic_cmd):
# a hung program is stopped with status 124, with what it started, after saying where it
# waits (its threads, and for a uroce program its device as uroce-stat shows it); a program's
# own status passes through, silently; a SIGTERM reaches the program; the program reads the
# watchdog's standard input.
. "$(dirname "$0")/lib.sh"
ic_need procps pgrep
dog=$IC_HERE/watchdog.sh
check() { # check WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then ic_pass "$what"; else ic_fail "$what" ""; fi
}

bash "$dog" 1 sleep 30 2>"$IC_TMP/err"
check "a hung program ends with 124" test $? = 124
check "it says where the program waited" grep -q '^\[hang\] thread sleep state S' "$IC_TMP/err"

bash "$dog" 5 sh -c 'exit 3' 2>"$IC_TMP/err"
check "a program's own status passes through" test $? = 3
check "and nothing is said about it" test ! -s "$IC_TMP/err"

check "the program reads the watchdog's standard input" \
	test "$(echo through | bash "$dog" 5 cat)" = through

bash "$dog" 1 sh -c 'sleep 1234.6 & wait' 2>/dev/null
sleep 0.3
check "what a hung program started is stopped with it" sh -c "! pgrep -f '^sleep 1234.6'"

bash "$dog" 30 sleep 1234.5 2>/dev/null &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
check "stopped itself, it stops the program (and the program's status is its own)" \
	test $? = 143
sleep 0.3
check "no program left" sh -c "! pgrep -f '^sleep 1234.5'"

# A uroce program: ibv_rc_pingpong's server has its QP and waits for a TCP client that never
# comes. The hang report holds its device's line from uroce-stat.
if command -v ibv_rc_pingpong >/dev/null && [ -x "${UROCE_STAT:-}" ]; then
	mkdir -m 700 "$IC_TMP/rt"
	IC_TIMEOUT=2
	ic_cmd UROCE_IP=127.0.34.1 UROCE_RUNTIME_DIR="$IC_TMP/rt" -- ibv_rc_pingpong -g 0 -p 18934
	"${IC_CMD[@]}" >"$IC_TMP/pp" 2>&1 </dev/null
	check "a hung uroce program ends with 124" test $? = 124
	check "its report shows its device as uroce-stat does" \
		grep -qE '^\[hang\] pid [0-9]+ \(ibv_rc_pingpong\) uroce0 backend udp addrs 127\.0\.34\.1' "$IC_TMP/pp"
	check "and its QP" grep -qE '^\[hang\] +[0-9]+ RC +INIT' "$IC_TMP/pp"
	[ "$IC_FAILED" = 0 ] || ic_show "ibv_rc_pingpong under watchdog.sh" "$IC_TMP/pp"
else
	ic_skip_case "a uroce program's hang report" "ibv_rc_pingpong or uroce-stat is missing"
fi
ic_finish
