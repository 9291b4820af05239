#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_capture.py, the capture check of the interop-rxe tier, on hand-made `uroce-dump
# --flows=json` reports, and check_cm.py, the rdma_cm phase's, on hand-made field rows: each
# rule must fail the report that breaks it, and a report that keeps them all must pass. Needs no guest: registered with the normal suite.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# report FILE SPEC...: writes a flows report; each SPEC is
# src/requests/retransmitted/gaps/naks_sent/icrc_bad/mtu
report() {
	local f=$1
	shift
	python3 - "$@" >"$f" <<-'EOF'
		import json, sys
		flows = []
		for i, spec in enumerate(sys.argv[1:]):
		    src, req, resent, gaps, naks, icrc, mtu = spec.split("/")
		    flows.append({
		        "id": i + 1, "src": src, "icrc_bad": int(icrc), "mtu": int(mtu),
		        "requests": {"packets": int(req), "sequence": {
		            "retransmitted_packets": int(resent), "gaps": int(gaps)}},
		        "responses": {"naks": {"PSN_SEQ_ERR": int(naks)}},
		    })
		print(json.dumps({"ib_packets": 1000, "malformed_frames": 0, "flows": flows}))
	EOF
}

expect() { # expect PASS|FAIL NAME ARGS... : check_capture.py's verdict on a report
	local want=$1 name=$2 got
	shift 2
	got=$(python3 "$here/check_capture.py" "$@" | cut -d' ' -f1)
	if [ "$got" = "$want" ]; then
		echo "PASS $name"
	else
		echo "FAIL $name: check_capture.py said $got, expected $want"
		python3 "$here/check_capture.py" "$@"
		failed=1
	fi
}

u=198.18.10.1 r=198.18.10.11
report "$tmp/clean.json" "$u/1000/5/0/0/0/1024" "$r/1000/40/0/0/0/1024"
expect PASS "clean run with a few resends" "$tmp/clean.json" c clean 1024
expect FAIL "expected MTU not on the wire" "$tmp/clean.json" c clean 4096
# after a reboot: the part checked has small messages only, the whole phase full packets
report "$tmp/after.json" "$u/600/0/0/0/0/0" "$r/600/0/0/0/0/0"
expect FAIL "no full packet after a reboot, alone" "$tmp/after.json" c clean 1024
expect PASS "no full packet after a reboot, the whole phase has them" "$tmp/after.json" c clean \
	1024 --mtu-from="$tmp/clean.json"
expect FAIL "the whole phase without the MTU either" "$tmp/after.json" c clean 1024 \
	--mtu-from="$tmp/after.json"
report "$tmp/icrc.json" "$u/1000/0/0/0/1/1024" "$r/1000/0/0/0/0/1024"
expect FAIL "one ICRC failure" "$tmp/icrc.json" c clean 1024
report "$tmp/gap.json" "$u/1000/0/0/0/0/1024" "$r/1000/1/1/0/0/1024"
expect FAIL "a PSN gap without loss" "$tmp/gap.json" c clean 1024
report "$tmp/uroce_resends.json" "fd00:198:18:10::1/1000/11/0/0/0/1024" "$r/1000/0/0/0/0/1024"
expect FAIL "uroce resending over 1 % without loss (IPv6)" "$tmp/uroce_resends.json" c clean 1024
report "$tmp/rxe_resends.json" "$u/1000/0/0/0/0/1024" "$r/1000/51/0/0/0/1024"
expect FAIL "rxe resending over 5 % without loss" "$tmp/rxe_resends.json" c clean 1024
report "$tmp/loss.json" "$u/1000/800/30/25/0/1024" "$r/1000/850/28/31/0/1024"
expect PASS "lossy run recovered on both sides" "$tmp/loss.json" l loss 1024 --host-loss
report "$tmp/loss_no_nak.json" "$u/1000/800/30/25/0/1024" "$r/1000/850/28/0/0/1024"
expect FAIL "lossy run where rxe sent no NAK" "$tmp/loss_no_nak.json" l loss 1024 --host-loss
expect PASS "the same without host-side loss" "$tmp/loss_no_nak.json" l loss 1024
report "$tmp/no_loss.json" "$u/1000/800/0/25/0/1024" "$r/1000/850/0/31/0/1024"
expect FAIL "lossy run with no gap: the loss did not act" "$tmp/no_loss.json" l loss 1024

# check_cm.py, the rdma_cm phase's check, on hand-made `uroce-dump -T fields` rows:
# time,src4,src6,dst4,dst6,destqp,qkey,srcqp,attr,req_local_comm_id,rtu_local_comm_id,icrc
cm() { printf '%s\n' "$@" >"$tmp/cm.csv"; }
cmexpect() { # cmexpect PASS|FAIL NAME
	local got
	got=$(python3 "$here/check_cm.py" "$tmp/cm.csv" c | grep -E '^(PASS|FAIL)' | cut -d' ' -f1)
	if [ "$got" = "$1" ]; then
		echo "PASS $2"
	else
		echo "FAIL $2: check_cm.py said $got, expected $1"
		python3 "$here/check_cm.py" "$tmp/cm.csv" c
		failed=1
	fi
}
q=0x0000000080010000
good=("1.000,$u,,$r,,0x000001,$q,0x00000001,0x0010,0x11,,ok"
	"1.010,$r,,$u,,0x000001,$q,0x00000001,0x0013,,,ok"
	"1.020,$u,,$r,,0x000001,$q,0x00000001,0x0014,,0x11,ok"
	"1.030,$u,,$r,,0x000011,,,,,,ok" "1.040,$r,,$u,,0x000012,,,,,,ok"
	"2.000,$r,,$u,,0x000001,$q,0x00000001,0x0010,0x22,,ok"
	"2.050,$u,,$r,,0x000001,$q,0x00000001,0x0013,,,ok"
	"2.100,$r,,$u,,0x000001,$q,0x00000001,0x0014,,0x22,ok")
cm "${good[@]}"
cmexpect PASS "rdma_cm: both directions connected, data both ways"
[ "$(python3 "$here/check_cm.py" "$tmp/cm.csv" c | grep -c 'SETUP c uroce->rxe: n 1, median 20.0 ms')" = 1 ] &&
	echo "PASS rdma_cm: REQ to RTU time" || { echo "FAIL rdma_cm: REQ to RTU time"; failed=1; }
cm "${good[@]}" "3.0,$u,,$r,,0x000011,,,,,,bad"
cmexpect FAIL "rdma_cm: one ICRC failure"
cm "${good[@]}" "3.0,$u,,$r,,0x000001,0x0000000000000001,0x00000001,0x0015,,,ok"
cmexpect FAIL "rdma_cm: a MAD with another Q_Key"
cm "${good[@]:0:5}"
cmexpect FAIL "rdma_cm: no connection from rxe to uroce"
cm "${good[@]:0:3}" "${good[@]:4:4}"
cmexpect FAIL "rdma_cm: no data from uroce"
exit $failed
