#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# watchdog.sh SECONDS COMMAND [ARG...]: runs COMMAND as timeout(1) would (exit 124 when it is
# stopped, SIGKILL 5 s after the SIGTERM), but first says where it hung, on stderr, in lines
# that start with "[hang]": each thread's state and kernel wait channel, its TCP sockets, its
# uroce device as uroce-stat shows it (counters, QPs and their PSNs; UROCE_STAT names the
# tool) and every thread's backtrace when gdb is installed. A program that times out otherwise
# leaves nothing behind (its buffered stdout is lost with it), and a CI log is all there is of
# a CI run. The interop, rdma_cm and HPC tests (interop/lib.sh's ic_cmd) and the rxe tier run
# their programs under it; what it stops, it stops with its descendants (an mpirun's ranks).
set -u
secs=$1
shift
# <&0: a command sent to the background gets /dev/null for its standard input otherwise
# (bash, without job control), and some programs read theirs (tests/verbs/cm_peer.c)
"$@" <&0 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' INT TERM

# The process and everything it started, children first.
tree() {
	local c
	for c in $(pgrep -P "$1"); do tree "$c"; done
	echo "$1"
}

where() {
	local t v stat=${UROCE_STAT:-} envs=()
	echo "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)still running after $secs s:"
	for t in /proc/"$pid"/task/*; do
		echo "thread $(cat "$t/comm") $(awk '{print "state", $3}' "$t/stat"), waiting in $(cat "$t/wchan")"
	done 2>/dev/null
	ss -tanpH 2>/dev/null | grep "pid=$pid," | awk '{print "tcp", $1, $4, "->", $5}'
	# uroce-stat looks where the program published its page: the program's own variables
	for v in UROCE_RUNTIME_DIR XDG_RUNTIME_DIR; do
		t=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n "s/^$v=//p")
		[ -n "$t" ] && envs+=("$v=$t")
	done
	[ -n "$stat" ] && [ -x "$stat" ] && env -u UROCE_RUNTIME_DIR -u XDG_RUNTIME_DIR "${envs[@]}" \
		timeout 10 "$stat" -p "$pid" 2>&1
	command -v gdb >/dev/null &&
		timeout 30 gdb -q -batch -p "$pid" -ex 'thread apply all bt 12' 2>/dev/null |
		grep -E '^(Thread|#)'
}

# Polls rather than sleeps the whole time, so that it ends with the command.
(
	for ((i = 0; i < secs * 5; i++)); do
		kill -0 "$pid" 2>/dev/null || exit 0
		sleep 0.2
	done
	kill -0 "$pid" 2>/dev/null || exit 0
	where | sed 's/^/[hang] /' >&2
	procs=$(tree "$pid")
	kill -TERM $procs 2>/dev/null
	for ((i = 0; i < 25; i++)); do
		kill -0 $procs 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL $procs 2>/dev/null
	exit 1
) &
dog=$!
# A SIGTERM passed on interrupts the wait: wait again for the program's own status.
while :; do
	wait "$pid"
	rc=$?
	kill -0 "$pid" 2>/dev/null || break
done
wait "$dog" || rc=124
exit $rc
