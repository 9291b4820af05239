#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# watchdog.sh SECONDS COMMAND [ARG...]: runs COMMAND as timeout(1) would (exit 124 when it is
# stopped), but first says where it hung, on stderr, in lines that start with "[hang]": each
# thread's state and kernel wait channel, its TCP sockets, and every thread's backtrace when
# gdb is installed. A program that times out in the tier otherwise leaves nothing behind (its
# buffered stdout is lost with it), and a CI log is all there is of a CI run.
set -u
secs=$1
shift
"$@" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' INT TERM

where() {
	local t
	echo "$(cat /proc/"$pid"/cmdline 2>/dev/null | tr '\0' ' ')still running after $secs s:"
	for t in /proc/"$pid"/task/*; do
		echo "thread $(cat "$t/comm") $(awk '{print "state", $3}' "$t/stat"), waiting in $(cat "$t/wchan")"
	done 2>/dev/null
	ss -tanpH 2>/dev/null | grep "pid=$pid," | awk '{print "tcp", $1, $4, "->", $5}'
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
	kill -TERM "$pid" 2>/dev/null
	sleep 5
	kill -KILL "$pid" 2>/dev/null
	exit 1
) &
dog=$!
wait "$pid"
rc=$?
wait "$dog" || rc=124
exit $rc
