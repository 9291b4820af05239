#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QP1 and its MAD service through the real UDP path: two processes of tests/verbs/cm_peer.c,
# each with a CM of src/cm attached to its port through the bridge (src/verbs/bridge.h), go
# through REQ/REP/RTU, DREQ/DREP and timewait, then SIDR_REQ/SIDR_REP. cm_peer checks every
# event, that a second attach gets EBUSY, and that QP1's counters and the CM's agree (every
# MAD received reached the CM, every MAD of the CM was sent, none dropped). Then the same with
# UROCE_IMPAIR loss on both sides, three seeds: the exchange still completes, and the CM's
# resends (tx_retries) carried it. Addresses 127.0.22.1 and .2, which no other test uses.
# Judged by the programs' exit codes and lines, never by time.
set -u
. "$(dirname "$0")/../interop/lib.sh"
peer=${UROCE_BUILD:-/nonexistent}/tests/cm_peer
[ -x "$peer" ] || { echo "FAIL: no cm_peer at $peer (UROCE_BUILD=${UROCE_BUILD:-})"; exit 1; }
S=127.0.22.1 C=127.0.22.2
retries=0

# exchange NAME [VAR=VALUE...]: one server and one client with that environment.
exchange()
{
	local name=$1 fifo=$IC_TMP/$1.in srv_out=$IC_TMP/$1.server cli_out=$IC_TMP/$1.client
	local spid rs rc i n
	shift
	mkfifo "$fifo"
	ic_cmd UROCE_IP=$S "$@" -- "$peer" server
	"${IC_CMD[@]}" <"$fifo" >"$srv_out" 2>&1 &
	spid=$!
	IC_PIDS+=("$spid")
	exec 3>"$fifo" # the server's standard input: closed once the client is done
	for i in $(seq 200); do
		grep -q '^ready$' "$srv_out" && break
		ic_alive "$spid" || break
		sleep 0.05
	done
	ic_cmd UROCE_IP=$C "$@" -- "$peer" client $S
	"${IC_CMD[@]}" </dev/null >"$cli_out" 2>&1
	rc=$?
	exec 3>&-
	wait "$spid"
	rs=$?
	if [ "$rc" -eq 0 ] && [ "$rs" -eq 0 ] && grep -qx 'client ok' "$cli_out" &&
		grep -qx 'server ok' "$srv_out"; then
		for f in "$cli_out" "$srv_out"; do
			n=$(sed -n 's/.* tx_retries \([0-9]*\) .*/\1/p' "$f")
			retries=$((retries + ${n:-0}))
		done
		ic_pass "$name" "$(grep -h tx_retries "$cli_out" "$srv_out" | sed 's/;.*tx_retries/ retries/; s/ dup_rep.*//' | tr '\n' ' ')"
	else
		ic_fail "$name" "client exit $rc, server exit $rs"
		ic_show "server" "$srv_out"
		ic_show "client" "$cli_out"
	fi
}

exchange clean
retries=0
for seed in 4 5 6; do
	exchange "loss-seed$seed" UROCE_IMPAIR="loss=0.3,seed=$seed"
done
if [ "$retries" -gt 0 ]; then
	ic_pass "loss-resends" "$retries resends by the CMs"
else
	ic_fail "loss-resends" "30 % loss and no resend: the impairment did not reach QP1"
fi
ic_finish
