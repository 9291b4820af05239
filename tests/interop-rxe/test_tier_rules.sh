#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rxe tier's rules around its cases, without guests: cases.sh's run_cases (a failure with
# vm1's way to the host lost is LOST and named for a rerun, the cases after it wait for that
# rerun, a lost way in the rerun fails, and no case starts once the tier's budget is spent),
# and report's lines for a failure. interop/test_watchdog.sh checks the watchdog its programs
# run under.
# Registered with the normal suite.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
check() { # check WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failed=1; fi
}

# ---- cases.sh run_cases, with a stand-in for run.sh and for the cases ----
# The stand-in guest answers a ping unless $tmp/down exists; a case named bad* fails, and a
# case named cut* fails and takes vm1's way to the host with it.
cat >"$tmp/vm" <<EOF
#!/bin/sh
case "\$3" in ping*) [ ! -e "$tmp/down" ] ;; *) exit 0 ;; esac
EOF
chmod +x "$tmp/vm"
# run_rules [ENV=VALUE...] -- CASE...: run_cases in a script of its own (it exits), the
# output in $tmp/out, the status in $rc
run_rules() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" bash -c '
		vm=$1 tag=t tmp=$2 host_ip=fd00::1 failed=0
		. "$3/cases.sh"
		run_case() {
			case $1 in
			bad*) echo "FAIL $tag $1 x->y (1 s): client exit 1"; echo "  client: err"; failed=1 ;;
			cut*) touch "$tmp/down"; echo "FAIL $tag $1 x->y (1 s): client exit 124"; failed=1 ;;
			*) echo "PASS $tag $1 x->y (1 s)" ;;
			esac
		}
		shift 3
		run_cases "$@"' _ "$tmp/vm" "$tmp" "$here" "$@" >"$tmp/out" 2>&1
	rc=$?
	rm -f "$tmp/down"
}

run_rules RXE_CASES_RERUN="$tmp/rerun" -- a b c
check "run_cases: all pass, status 0" test $rc = 0
check "run_cases: one line each" test "$(grep -c '^PASS' "$tmp/out")" = 3

run_rules RXE_CASES_RERUN="$tmp/rerun" -- a bad1 c
check "run_cases: a failure with the way intact is a failure (status 1)" test $rc = 1
check "run_cases: and the cases after it still run" grep -q '^PASS t c' "$tmp/out"

rm -f "$tmp/rerun"
run_rules RXE_CASES_RERUN="$tmp/rerun" -- a cut1 c d
check "run_cases: a failure with the way lost: status 3" test $rc = 3
check "run_cases: its lines are LOST, not FAIL" \
	sh -c "grep -q '^LOST t cut1' '$tmp/out' && ! grep -q '^FAIL' '$tmp/out'"
check "run_cases: what the check saw is printed" grep -q '^  path: vm1 cannot ping' "$tmp/out"
check "run_cases: the case and those after it are named for the rerun" \
	test "$(cat "$tmp/rerun" 2>/dev/null)" = "cut1 c d"
check "run_cases: the cases after it are not run now" sh -c "! grep -q ' c x->y' '$tmp/out'"

run_rules RXE_CASES_RERUN="$tmp/rerun" RXE_CASES_AGAIN=1 -- cut1 c
check "run_cases: in the rerun, a lost way fails (status 3)" test $rc = 3
check "run_cases: the case FAILs" grep -q '^FAIL t cut1 x->y' "$tmp/out"
check "run_cases: and the cases after it are reported not run" grep -q '^FAIL t c: not run (vm1 lost' "$tmp/out"

run_rules RXE_CASES_RERUN= -- cut1 c
check "run_cases: with no rerun (the lossy runs), a lost way fails at once" \
	sh -c "[ $rc = 3 ] && grep -q '^FAIL t cut1 x->y' '$tmp/out' && grep -q '^FAIL t c: not run' '$tmp/out'"

run_rules RXE_TIER_DEADLINE=$(($(date +%s) - 1)) -- a b
check "run_cases: past the tier's deadline no case starts" \
	sh -c "[ $rc = 1 ] && [ \$(grep -c \"not run (the tier's time budget is spent)\" '$tmp/out') = 2 ]"

# ---- cases.sh report ----
# rping's failure in CI: its error lines on stderr came before its buffered data lines
{
	echo "rdma_get_cm_event: Bad file descriptor"
	for i in 1 2 3 4 5 6; do echo "server ping data: rdma-ping-$i"; done
} >"$tmp/s"
printf '[hang] thread 1 state S\nping data: rdma-ping-6\n' >"$tmp/c"
bash -c 'tag=t tmp=$1 failed=0 SECONDS=0; . "$2/cases.sh"
	report 1 rping "x->y" 0 "" ""; report 0 rping "y->x" 0 "" "server exit 255"; echo "failed=$failed"' \
	_ "$tmp" "$here" >"$tmp/out" 2>&1
check "report: a pass is one line" grep -q '^PASS t rping x->y (0 s)$' "$tmp/out"
check "report: a failure says what failed" grep -q '^FAIL t rping y->x (0 s): server exit 255$' "$tmp/out"
check "report: a failure shows the error line above the data" \
	grep -q '^  server: rdma_get_cm_event: Bad file descriptor$' "$tmp/out"
check "report: and the last lines of each program" \
	sh -c "grep -q '^  server: server ping data: rdma-ping-6$' '$tmp/out' && grep -q '^  client: ping data: rdma-ping-6$' '$tmp/out'"
check "report: the watchdog's lines once, as such" test "$(grep -c 'thread 1 state S' "$tmp/out")" = 1
check "report: a failure marks the run failed" grep -q '^failed=1$' "$tmp/out"

[ $failed = 0 ] && echo "tier rules: all checks passed"
exit $failed
