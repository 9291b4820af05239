#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce-dump --flows on ATOMIC WRITE (IBA 1.5): tests/vectors/atomic-write.pcap is what
# tests/verbs/test_verbs_atomic_write put on lo (captured with dumpcap, lo segmenting GSO sends:
# 14 frames). Its first QP sends three ATOMIC WRITEs and two READs, each answered by a READ
# RESPONSE ONLY, an ATOMIC WRITE's without payload (as Linux rxe answers it); the other two QPs
# get a remote access and an invalid request NAK. The empty responses answer their ATOMIC
# WRITEs: none is left unmatched, and the messages that got one are acknowledged.
set -u

: "${UROCE_DUMP:?the uroce-dump binary}"
: "${UROCE_VECTORS:?the test vectors directory}"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
cap=$UROCE_VECTORS/atomic-write.pcap

"$UROCE_DUMP" -q -r "$cap" --flows=json | python3 -c '
import json, sys

doc = json.load(sys.stdin)
flows = {f["id"]: f for f in doc["flows"]}
bad = 0

def eq(actual, expected, what):
    global bad
    if actual != expected:
        print(f"FAIL {what}: {actual!r}, expected {expected!r}")
        bad += 1
    else:
        print(f"ok   {what}: {actual!r}")

eq(len(flows), 6, "flows")
req, resp = flows[1]["requests"], flows[2]["responses"]
eq(flows[1]["opcodes"], {"RC_ATOMIC_WRITE": 3, "RC_RDMA_READ_REQUEST": 2}, "requests of QP 1")
eq(req["messages_by_kind"]["atomic_write"], {"messages": 3, "complete": 3, "bytes": 24},
   "ATOMIC WRITE messages")
eq([m["acked"] for m in req["messages"] if m["kind"] == "atomic_write"], [True] * 3,
   "ATOMIC WRITEs acknowledged by their empty READ responses")
eq(req["latency_us"]["samples"], 5, "latency samples (every request answered)")
eq(flows[2]["opcodes"], {"RC_RDMA_READ_RESPONSE_ONLY": 5}, "responses of QP 1")
eq(resp["unmatched"], 0, "responses not matched to a request")
eq(resp["read_response_bytes"], 56, "READ response bytes (the empty ones carry none)")
eq(flows[4]["responses"]["naks"]["REMOTE_ACCESS"], 1, "MR without REMOTE_WRITE")
eq(flows[6]["responses"]["naks"]["INVALID_REQ"], 1, "misaligned address")
for i in (3, 5):
    eq([m["acked"] for m in flows[i]["requests"]["messages"]], [False], f"NAKed ATOMIC WRITE {i}")
sys.exit(1 if bad else 0)
' || { echo "FAIL uroce-dump --flows on $cap"; exit 1; }
# The text report names them too.
"$UROCE_DUMP" -q -r "$cap" --flows | grep -q "ATOMIC WRITE 3 (3 complete, 24 bytes)" ||
	{ echo "FAIL the text report does not list the three ATOMIC WRITEs"; exit 1; }
echo "PASS"
