#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce-demo end to end (the README's first command): two processes on 127.0.3.1 and
# 127.0.3.2 (addresses no other test uses) must pass every step, once on a clean path, once
# with 2 % of the received packets lost (go-back-N, NAKs and timeouts then do the work), and,
# when this user may capture on lo, once more writing a capture that uroce-dump must explain
# with both queue pairs' flows and no bad ICRC. Few iterations: this checks correctness, not
# speed. Exits 77 (skipped) when the demo was not built.
set -u

: "${UROCE_BUILD:?the build directory}"
demo=$UROCE_BUILD/tools/uroce-demo/uroce-demo
dump=$UROCE_BUILD/tools/uroce-dump/uroce-dump
[ -x "$demo" ] || { echo "$demo not built: skipped"; exit 77; }
command -v timeout >/dev/null || { echo "timeout missing: skipped"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}
steps="SEND/RECV|RDMA WRITE|RDMA READ|ATOMICS|THROUGHPUT|LATENCY"

# run NAME ARGS...: the demo must exit 0 and print one PASS line for each of the six steps.
run() {
	local name=$1 out=$tmp/$1.out rc
	shift
	timeout 300 "$demo" --server-ip 127.0.3.2 --client-ip 127.0.3.1 --iters 200 "$@" \
		>"$out" 2>&1
	rc=$?
	sed "s/^/    [$name] /" "$out"
	[ $rc -eq 0 ] || fail "$name: exit status $rc"
	local passed
	passed=$(grep -Ec "^PASS  ($steps) " "$out")
	[ "$passed" -eq 6 ] || fail "$name: $passed of 6 steps passed"
	grep -Eq "^(FAIL|SKIP) " "$out" && fail "$name: a step failed or was skipped"
	grep -q "^6 of 6 steps passed$" "$out" || fail "$name: no closing '6 of 6 steps passed'"
	grep -q "libibverbs  .*$UROCE_BUILD/lib/libibverbs.so.1" "$out" ||
		grep -q "libibverbs  .*/lib/libibverbs.so.1" "$out" ||
		fail "$name: did not report uroce's libibverbs.so.1"
	return 0
}

run clean
run loss --impair loss=0.02,seed=3
# Reordering makes the requester resend READs and atomics the responder has answered: it
# must replay those answers and still take the new requests (a regression: responder.c
# res_alloc once refused a resource busy with a replay).
run reorder --impair reorder=0.05,seed=3

# A capture needs CAP_NET_RAW; without it the demo says so and exits 2.
if [ -x "$dump" ] && [ "$(id -u)" -eq 0 ]; then
	run capture --size 16K --capture "$tmp/demo.pcap"
	if [ -s "$tmp/demo.pcap" ]; then
		"$dump" -r "$tmp/demo.pcap" --flows >"$tmp/flows.out" 2>&1 ||
			fail "uroce-dump --flows on the capture: exit status $?"
		grep -q "RC 127.0.3.1 -> 127.0.3.2" "$tmp/flows.out" ||
			fail "capture: no flow from the client to the server"
		grep -q "RC 127.0.3.2 -> 127.0.3.1" "$tmp/flows.out" ||
			fail "capture: no flow from the server to the client"
		grep -q "RDMA READ .* complete" "$tmp/flows.out" ||
			fail "capture: the RDMA READ is not shown complete"
		grep -Eq "ICRC bad [1-9]" "$tmp/flows.out" && fail "capture: bad ICRCs"
		grep -q "explain it: .*uroce-dump -r $tmp/demo.pcap --flows" "$tmp/capture.out" ||
			fail "capture: the demo did not print the uroce-dump command"
	else
		fail "capture: no file written"
	fi
else
	echo "not root or uroce-dump not built: capture not checked"
fi

if [ $fails -gt 0 ]; then
	echo "$fails failures"
	exit 1
fi
echo "uroce-demo passed every step, clean and with 2 % loss"
