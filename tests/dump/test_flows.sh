#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce-dump --flows on the real captures of ../shared/testdata/captures. The expected numbers
# were counted independently with tshark 4.0; the command that gives each one is next to it.
# Needs UROCE_DUMP (the binary) and UROCE_SHARED; exits 77 (skipped) without the captures.
set -u
unset UROCE_DUMP_MESSAGES # the checks expect the default listing

caps=${UROCE_SHARED:-/nonexistent}/testdata/captures
if [ ! -d "$caps" ]; then
	echo "skipped: no captures at $caps"
	exit 77
fi
if [ -z "${UROCE_DUMP:-}" ] || [ ! -x "$UROCE_DUMP" ]; then
	echo "FAIL: UROCE_DUMP must name the uroce-dump binary (got '${UROCE_DUMP:-}')"
	exit 1
fi
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read the JSON report"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail()
{
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# Runs the report in both formats; the JSON one must parse.
report()
{
	local cap=$1 name=$2
	if ! "$UROCE_DUMP" -q -r "$caps/$cap" --flows=json >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		fail "$cap: uroce-dump --flows=json exited with $? ($(head -c 300 "$tmp/$name.err"))"
	fi
	python3 -m json.tool "$tmp/$name.json" >/dev/null 2>&1 ||
		fail "$cap: --flows=json is not valid JSON"
	"$UROCE_DUMP" -q -r "$caps/$cap" --flows >"$tmp/$name.txt" 2>&1 ||
		fail "$cap: uroce-dump --flows failed"
}

# Reads Python checks from standard input and runs them on report $1. In the checks,
# flow(src, dst, qp) is the flow with those addresses and destination QP, eq(actual,
# expected, what) compares one figure.
check()
{
	local name=$1
	python3 - "$tmp/$name.json" "$name" 3<&0 <<'EOF' || failures=$((failures + 1))
import json, os, sys

doc = json.load(open(sys.argv[1]))
bad = 0

def flow(src, dst, qp):
    for f in doc["flows"]:
        if f["src"] == src and f["dst"] == dst and f["dst_qp"] == qp:
            return f
    raise SystemExit(f"FAIL: {sys.argv[2]}: no flow {src} -> {dst} QP {qp:#x}")

def eq(actual, expected, what):
    global bad
    if actual != expected:
        print(f"FAIL: {sys.argv[2]}: {what}: got {actual!r}, expected {expected!r}")
        bad += 1

exec(os.fdopen(3).read())
sys.exit(1 if bad else 0)
EOF
}

expect_text()
{
	grep -q -- "$2" "$tmp/$1.txt" || fail "$1: the text report lacks '$2'"
}

# --- rxe-write-loss-nak: PSN-sequence NAKs and go-back-N --------------------------------------
report rxe-write-loss-nak.pcap wl
check wl <<'EOF'
req = flow("198.18.10.11", "198.18.10.12", 0x1D)
rsp = flow("198.18.10.12", "198.18.10.11", 0x1D)
eq(req["reverse_flow"], rsp["id"], "pairing of the WRITE flow with its ACK flow")
# tshark -Y 'infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 8' | wc -l
eq(req["requests"]["packets"], 1462, "WRITE request packets")
seq = req["requests"]["sequence"]
# requests minus distinct PSNs (tshark -T fields -e infiniband.bth.psn | sort -u | wc -l: 302)
eq(seq["duplicate_packets"], 1462 - 302, "request packets whose PSN was seen before")
# PSN steps backwards in the same list: awk 'NR > 1 && $1 < p { n++ } { p = $1 }'
eq(seq["gbn_episodes"], 11, "go-back-N episodes")
eq(seq["episodes"][0]["cause"], "nak", "first episode follows a NAK")
eq(seq["episodes"][0]["psn"], 16384016, "first episode restarts at the NAKed PSN")
# tshark -Y 'infiniband.aeth.syndrome.opcode == 3 && infiniband.aeth.syndrome.error_code == 0'
eq(rsp["responses"]["naks"]["PSN_SEQ_ERR"], 12, "PSN sequence error NAKs")
eq(rsp["responses"]["nak_total"], 12, "NAKs")
# tshark -Y 'infiniband.bth.opcode == 17 && infiniband.aeth.syndrome.opcode == 0'
eq(rsp["responses"]["acks"], 3, "ACKs")
eq(rsp["responses"]["rnr_naks"], 0, "RNR NAKs")
# 24 WRITE FIRST packets, of which 5 distinct PSNs: 5 WRITE messages of 64 packets
w = req["requests"]["messages"]
eq(req["requests"]["messages_total"], 5, "WRITE messages")
eq((w[0]["kind"], w[0]["va"], w[0]["rkey"], w[0]["length"]),
   ("rdma_write", "0x00007f40a1b1d000", "0x00000e2f", 65536), "first WRITE's RETH")
eq((w[0]["distinct_packets"], w[0]["bytes"], w[0]["complete"], w[0]["acked"]),
   (64, 65536, True, True), "first WRITE reconstructed")
EOF
expect_text wl "PSN Sequence Error 12"
expect_text wl "go-back-N episodes"

# --- rxe-read-loss-reissue: re-issued READ requests ------------------------------------------
report rxe-read-loss-reissue.pcap rl
check rl <<'EOF'
req = flow("198.18.10.11", "198.18.10.12", 0x20)
rsp = flow("198.18.10.12", "198.18.10.11", 0x20)
eq(req["reverse_flow"], rsp["id"], "pairing of READ requests with their responses")
# tshark -Y 'infiniband.bth.opcode == 12'
eq(req["requests"]["packets"], 29, "READ requests")
seq = req["requests"]["sequence"]
# READ requests not at the buffer start (-Y '... && infiniband.reth.va != 0x7f42dfcbd000': 9)
# re-issue the rest of a READ; the first of them opens the capture, so it counts as new.
eq(seq["read_reissued"], 8, "READs re-issued for their remainder")
# 29 requests, 14 distinct PSNs
eq(seq["read_resent"] + seq["read_reissued"], 29 - 6, "READ requests sent again")
eq(seq["duplicate_packets"], 29 - 14, "READ requests whose PSN was seen before")
eq(seq["gbn_episodes"], 8, "READ retry episodes")
# tshark -Y 'infiniband.bth.opcode >= 13 && infiniband.bth.opcode <= 16'
eq(rsp["responses"]["read_response_packets"], 1472, "READ response packets")
r = req["requests"]["messages"]
eq([m["kind"] for m in r], ["rdma_read"] * 6, "READ messages")
eq((r[1]["length"], r[1]["response_bytes"], r[1]["complete"]), (65536, 65536, True),
   "second READ fully answered across its retries")
EOF
expect_text rl "re-issued for the rest"

# --- rxe-rnr-nak: RNR NAKs and their timer ---------------------------------------------------
report rxe-rnr-nak.pcap rnr
check rnr <<'EOF'
req = flow("198.18.10.11", "198.18.10.12", 0x1A)
rsp = flow("198.18.10.12", "198.18.10.11", 0x1A)["responses"]
# tshark -Y 'infiniband.aeth.syndrome.opcode == 1' -T fields -e infiniband.aeth.syndrome.timer
eq(rsp["rnr_naks"], 4, "RNR NAKs")
eq(rsp["rnr_timers"], [{"timer": 12, "us": 640, "count": 4}], "RNR NAK timers")
eq(rsp["naks"]["PSN_SEQ_ERR"], 4, "PSN sequence error NAKs")
eq(rsp["acks"], 8, "ACKs")
seq = req["requests"]["sequence"]
eq(seq["gbn_episodes"], 4, "retransmission episodes")
eq([e["cause"] for e in seq["episodes"]], ["rnr_nak"] * 4, "episodes follow the RNR NAKs")
eq(seq["duplicate_packets"], 563 - 161, "SEND packets whose PSN was seen before")
EOF
expect_text rnr "timer 12 (0.64 ms) x4"

# --- rxe-atomic-cmpswap: atomics and their original values -----------------------------------
report rxe-atomic-cmpswap.pcap at
check at <<'EOF'
req = flow("198.18.10.11", "198.18.10.12", 0x18)
rsp = flow("198.18.10.12", "198.18.10.11", 0x18)
# tshark -Y 'infiniband.bth.opcode == 19' / 'infiniband.bth.opcode == 18': 200 each
eq(req["requests"]["messages_by_kind"]["atomic"], {"messages": 200, "complete": 200, "bytes": 0},
   "CmpSwap messages answered")
eq(rsp["responses"]["atomic_acks"], 200, "ATOMIC ACKs")
m = req["requests"]["messages"][0]
# first ATOMIC ACK: infiniband.atomicacketh.origremdt 2508215909148552790
eq((m["opcode"], m["va"], m["rkey"], m["compare"], m["swap_add"], m["original"]),
   ("RC_CMP_SWAP", "0x0000564230059000", "0x000009ed", "0x0000000000000000",
    "0x0000000000000000", "0x22cef9148cc86e56"), "first CmpSwap and its original value")
eq(req["requests"]["latency_us"]["samples"], 200, "latency samples")
EOF
expect_text at "original 0x22cef9148cc86e56"

# --- rxe-cm-write-read: WRITE ONLY, READ with its responses, CM over QP1 ---------------------
report rxe-cm-write-read.pcap cm
check cm <<'EOF'
req = flow("192.168.65.5", "192.168.65.4", 0x11)
rsp = flow("192.168.65.4", "192.168.65.5", 0x11)
w, r = req["requests"]["messages"]
eq((w["kind"], w["opcode"], w["length"], w["complete"], w["acked"]),
   ("rdma_write", "RC_RDMA_WRITE_ONLY", 18, True, True), "WRITE ONLY")
# READ RESPONSE FIRST, MIDDLE x2, LAST (tshark -Y 'infiniband.bth.opcode >= 13 && ... <= 15')
eq((r["kind"], r["va"], r["rkey"], r["length"]),
   ("rdma_read", "0x0000aaab09dd5000", "0x000002d5", 4096), "READ request")
eq((r["response_packets"], r["response_bytes"], r["complete"]), (4, 4096, True),
   "READ reconstructed from its responses")
eq(rsp["responses"]["acks"], 1, "ACK of the WRITE")
eq(req["requests"]["latency_us"]["samples"], 2, "latency samples")
cm = flow("192.168.65.5", "192.168.65.4", 1)
eq(cm["transport"], "UD", "QP1 transport")
eq([m["mad"]["class"] + " " + m["mad"]["attribute"] for m in cm["requests"]["messages"]],
   ["CM ConnectRequest", "CM ReadyToUse", "CM DisconnectRequest"], "CM over QP1")
EOF
expect_text cm "MAD CM Send ConnectRequest"

# --- cx4lx-cnp: one CNP ----------------------------------------------------------------------
report cx4lx-cnp.pcap cnp
check cnp <<'EOF'
# tshark -Y 'infiniband.bth.opcode == 129'
f = flow("10.0.17.1", "10.0.18.1", 0x118)
eq((f["cnp"], f["ecn_ce"], f["icrc_bad"]), (1, 0, 0), "CNP, ECN-CE and ICRC counts")
EOF

# --- rxe-ipv6-rc-pingpong: SEND FIRST/MIDDLE/LAST messages -----------------------------------
report rxe-ipv6-rc-pingpong.pcap pp
check pp <<'EOF'
a = flow("fd00:198:18:10::11", "fd00:198:18:10::12", 0x21)
b = flow("fd00:198:18:10::12", "fd00:198:18:10::11", 0x21)
eq((a["reverse_flow"], b["reverse_flow"]), (b["id"], a["id"]), "the two directions paired")
# tshark -Y 'infiniband.bth.opcode == 0 && ipv6.src == fd00:198:18:10::11': 29 (LAST: 29)
eq(a["requests"]["messages_by_kind"]["send"], {"messages": 29, "complete": 29, "bytes": 29 * 4096},
   "SEND messages")
m = a["requests"]["messages"][0]
eq((m["kind"], m["packets"], m["bytes"], m["complete"], m["acked"]), ("send", 4, 4096, True, True),
   "first SEND reconstructed")
# ACKs to .11's requests travel from .12 (tshark: 29 ACKs from ::12)
eq(b["responses"]["acks"], 29, "ACKs of the SENDs")
EOF

# --- ib-native-erf: native InfiniBand flows by LID -------------------------------------------
report ib-native-erf.pcap ib
check ib <<'EOF'
req = flow("4", "1", 0xFC0407)
rsp = flow("1", "4", 0x870408)
eq((req["addr_type"], req["encap"], req["reverse_flow"]), ("lid", "InfiniBand", rsp["id"]),
   "IPoIB-CM connection paired by PSN")
eq((req["requests"]["packets"], rsp["responses"]["acks"]), (6, 6), "RC SENDs and their ACKs")
eq(sum(f["vcrc_bad"] + f["icrc_bad"] for f in doc["flows"]), 0, "CRC failures")
eq(doc["ib_packets"], 43, "InfiniBand packets")
EOF

# --- Listing limit ---------------------------------------------------------------------------
UROCE_DUMP_MESSAGES=2 "$UROCE_DUMP" -q -r "$caps/rxe-rnr-nak.pcap" --flows=json >"$tmp/lim.json" ||
	fail "UROCE_DUMP_MESSAGES=2 run failed"
check lim <<'EOF'
q = flow("198.18.10.11", "198.18.10.12", 0x1A)["requests"]
eq((len(q["messages"]), q["messages_not_listed"]), (2, q["messages_total"] - 2), "messages listed")
EOF

# --- Hand-built: PSN wrap, immediate, invalidate, FetchAdd, NAK and RNR NAK, ECN-CE -----------
python3 - "$tmp/synth.pcap" "$(dirname "$0")" <<'EOF' || fail "could not build the hand-made capture"
import struct, sys
sys.path.insert(0, sys.argv[2])
from rocev2_synth import frame, write_pcap
# A = 10.9.0.1 QP 0x11 sending to B = 10.9.0.2 QP 0x22, frames 100 us apart.
A, B = bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2])
frames = []

def pkt(*args, **kw):
    frames.append(frame(*args, **kw))

def req(opcode, psn, ext=b"", payload=b"", ackreq=False, tos=0):
    pkt(A, B, opcode, 0x22, psn, ext, payload, ackreq, tos)

def resp(opcode, psn, syndrome, ext=b""):
    pkt(B, A, opcode, 0x11, psn, struct.pack(">I", syndrome << 24 | 1) + ext)

req(0x06, 0xFFFFFE, struct.pack(">QII", 0x7F0000001000, 0xABCD, 612), b"a" * 256)  # WRITE FIRST
req(0x07, 0xFFFFFF, b"", b"b" * 256)                                   # WRITE MIDDLE
req(0x09, 0x000000, struct.pack(">I", 0xC0FFEE), b"c" * 100, True)     # WRITE LAST with imm
resp(0x11, 0x000000, 0x1F)                                             # ACK across the wrap
req(0x17, 0x000001, struct.pack(">I", 0x5555), b"d" * 40, True)        # SEND ONLY with inval.
resp(0x11, 0x000001, 0x1F)
req(0x14, 0x000002, struct.pack(">QIQQ", 0x7F0000002000, 0xABCD, 5, 0), tos=3)  # FetchAdd, CE
resp(0x12, 0x000002, 0x1F, struct.pack(">Q", 41))                      # original value 41
req(0x04, 0x000004, b"", b"e" * 8, True)                               # PSN 3 lost upstream
resp(0x11, 0x000003, 0x60)                                             # NAK PSN sequence error
req(0x04, 0x000003, b"", b"f" * 8)                                     # go back to 3
req(0x04, 0x000004, b"", b"e" * 8, True)
resp(0x11, 0x000004, 0x1F)
req(0x04, 0x000005, b"", b"g" * 8, True)
resp(0x11, 0x000005, 0x2E)                                             # RNR NAK, timer 14
req(0x04, 0x000005, b"", b"g" * 8, True)                               # after the RNR timer
resp(0x11, 0x000005, 0x1F)

write_pcap(sys.argv[1], [(100 * i, f) for i, f in enumerate(frames)])
EOF
"$UROCE_DUMP" -q -r "$tmp/synth.pcap" --flows=json >"$tmp/synth.json" ||
	fail "hand-built capture: uroce-dump failed"
check synth <<'EOF'
req = flow("10.9.0.1", "10.9.0.2", 0x22)
rsp = flow("10.9.0.2", "10.9.0.1", 0x11)
eq((req["reverse_flow"], req["icrc_bad"], rsp["icrc_bad"], req["ecn_ce"]), (rsp["id"], 0, 0, 1),
   "pairing, ICRC and the ECN-CE mark")
seq = req["requests"]["sequence"]
eq((seq["psn_first"], seq["psn_last"], seq["gaps"], seq["gap_psns"]), (0xFFFFFE, 5, 1, 1),
   "PSN range across the wrap, one lost PSN")
eq([(e["psn"], e["cause"]) for e in seq["episodes"]], [(3, "nak"), (5, "rnr_nak")],
   "retransmissions and their causes")
w, inv, fa, s4, s3, s5 = req["requests"]["messages"]
eq((w["psn"], w["distinct_packets"], w["length"], w["bytes"], w["immediate"], w["complete"],
    w["acked"]), (0xFFFFFE, 3, 612, 612, "0x00c0ffee", True, True),
   "WRITE with immediate across the wrap")
eq((inv["kind"], inv["invalidate_rkey"], inv["bytes"]), ("send", "0x00005555", 40),
   "SEND with Invalidate")
eq((fa["opcode"], fa["swap_add"], fa["original"]),
   ("RC_FETCH_ADD", "0x0000000000000005", "0x0000000000000029"), "FetchAdd and its original value")
eq((s3["psn"], s3["complete"], s3["retransmitted_packets"]), (3, True, 1),
   "SEND first seen as a retransmission")
eq(rsp["responses"]["rnr_timers"], [{"timer": 14, "us": 1280, "count": 1}], "RNR NAK timer")
eq(req["requests"]["latency_us"]["samples"], 3, "latency samples (Karn's rule drops 2)")
EOF

# --- Damaged input: a cut record, snapped packets ----------------------------------------
python3 - "$caps" "$tmp" <<'EOF' || fail "could not derive the damaged captures"
import struct, sys
caps, tmp = sys.argv[1], sys.argv[2]
data = open(f"{caps}/rxe-write-loss-nak.pcap", "rb").read()
# A file that ends in the middle of a record.
open(f"{tmp}/cut.pcap", "wb").write(data[:len(data) // 2 + 7])
# Every packet snapped to 70 bytes: the headers survive, the payload and ICRC do not. The
# capture is pcapng: each Enhanced Packet Block (type 6) is rewritten, other blocks kept.
order = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
out, off = [], 0
while off + 12 <= len(data):
    btype, blen = struct.unpack(order + "II", data[off:off + 8])
    block = data[off:off + blen]
    if btype == 6:
        ifid, hi, lo, incl, orig = struct.unpack(order + "5I", block[8:28])
        keep = min(incl, 70)
        body = struct.pack(order + "5I", ifid, hi, lo, keep, orig) + block[28:28 + keep]
        body += b"\0" * (-len(body) % 4)
        n = len(body) + 12
        block = struct.pack(order + "II", 6, n) + body + struct.pack(order + "I", n)
    out.append(block)
    off += blen
open(f"{tmp}/snap.pcap", "wb").write(b"".join(out))
EOF
# uroce-dump reports the cut (exit status 1) after printing what it read.
"$UROCE_DUMP" -q -r "$tmp/cut.pcap" --flows=json >"$tmp/cut.json" 2>"$tmp/cut.err"
status=$?
if [ "$status" -gt 1 ] || grep -q -e Sanitizer -e "runtime error" "$tmp/cut.err"; then
	fail "cut capture: uroce-dump crashed (status $status): $(head -c 300 "$tmp/cut.err")"
fi
python3 -m json.tool "$tmp/cut.json" >/dev/null 2>&1 ||
	fail "cut capture: the report is not valid JSON"
check cut <<'EOF'
eq(doc["frames"] > 500 and doc["frames"] < 1500, True, "frames read before the cut")
EOF
"$UROCE_DUMP" -q -r "$tmp/snap.pcap" --flows=json >"$tmp/snap.json" ||
	fail "snapped capture: uroce-dump failed"
check snap <<'EOF'
req = flow("198.18.10.11", "198.18.10.12", 0x1D)
eq(req["requests"]["packets"], 1462, "snapped WRITE packets still analysed")
eq(req["requests"]["sequence"]["gbn_episodes"], 11, "snapped capture: go-back-N episodes")
eq(doc["malformed_frames"], 0, "snapped WRITE packets are cut by the capture, not malformed")
EOF

# --- Every capture: valid JSON, and text without a crash --------------------------------------
for cap in "$caps"/*.pcap "$caps"/*.erf; do
	n=$(basename "$cap")
	"$UROCE_DUMP" -q -r "$cap" --flows=json 2>/dev/null | python3 -m json.tool >/dev/null 2>&1 ||
		fail "$n: --flows=json is not valid JSON"
	"$UROCE_DUMP" -q -r "$cap" --flows >/dev/null 2>&1 || fail "$n: --flows failed"
done

if [ "$failures" -ne 0 ]; then
	echo "$failures check(s) failed"
	exit 1
fi
echo "all flow checks passed"
