#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce-dump's command line on the real captures of ../shared/testdata/captures: every output
# mode on every capture, what the outputs must say, standard input, -c, the link types libpcap
# hands over (raw IP, Linux cooked, DLT_INFINIBAND, raw ERF), bad and cut-short files, and
# damaged packets (which must never crash it: the sanitizer build runs this too).
set -u

captures=${UROCE_SHARED:-}/testdata/captures
[ -n "${UROCE_SHARED:-}" ] && [ -d "$captures" ] || { echo "no captures: skipped"; exit 77; }
: "${UROCE_DUMP:?the uroce-dump binary}"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dump=$UROCE_DUMP
fails=0

fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# Exit statuses 0, 1 and 2 are uroce-dump's own; anything else is a crash. Sanitizer reports
# get a status of their own rather than ASan's and UBSan's default 1.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86:halt_on_error=1:print_stacktrace=1
crashed() { [ "$1" -gt 2 ]; }

# Every mode on every capture: exit 0, one line (or object) per frame.
for cap in "$captures"/*.pcap "$captures"/*.erf; do
	name=$(basename "$cap")
	# the frame count from tshark's golden output, when there is one
	golden=${UROCE_VECTORS:-}/tshark/$name.fields.txt
	frames=
	[ -f "$golden" ] && frames=$(($(wc -l <"$golden") - 1))
	for mode in "" "-V" "-T text" "-T json" "--flows" "--flows=json" \
		"-T fields -e frame.number -e infiniband.bth.opcode -e uroce.icrc.status"; do
		# shellcheck disable=SC2086 # mode is a list of words
		"$dump" -q -r "$cap" $mode >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc -eq 0 ] || fail "$name ${mode:-default}: exit $rc: $(head -c 300 "$tmp/err")"
		[ -s "$tmp/out" ] || fail "$name ${mode:-default}: no output"
	done
	"$dump" -q -r "$cap" >"$tmp/lines"
	[ -z "$frames" ] && frames=$(wc -l <"$tmp/lines")
	[ "$(wc -l <"$tmp/lines")" -eq "$frames" ] || fail "$name: $(wc -l <"$tmp/lines") lines for $frames frames"
	"$dump" -q -r "$cap" -T json >"$tmp/json"
	python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    obj = json.loads(line)
    assert obj["frame.number"] == n + 1, obj["frame.number"]
    n += 1
assert n == int(sys.argv[2]), n
' "$tmp/json" "$frames" || fail "$name: -T json is not one valid JSON object per frame"
	# Every RoCEv2 ICRC and native VCRC in these captures verifies (facts.md section 1).
	"$dump" -r "$cap" >/dev/null 2>"$tmp/summary"
	grep -q "ICRC [0-9]* ok, 0 bad, 0 unchecked; VCRC [0-9]* ok, 0 bad" "$tmp/summary" ||
		fail "$name: summary: $(cat "$tmp/summary")"
	grep -q " 0 malformed" "$tmp/summary" || fail "$name: malformed packets: $(cat "$tmp/summary")"
done

# What the outputs must say.
expect() { # capture, options, pattern
	local cap=$1 opts=$2 pat=$3
	# shellcheck disable=SC2086
	"$dump" -q -r "$captures/$cap" $opts >"$tmp/out" 2>&1
	grep -Eq -- "$pat" "$tmp/out" || fail "$cap ${opts:-default}: no '$pat'"
}
expect rxe-write-loss-nak.pcap "" " RC ACKNOWLEDGE .* NAK PSN Sequence Error msn [0-9]+ icrc ok$"
expect rxe-write-loss-nak.pcap "-V" "^    Syndrome: 96 \(NAK: PSN Sequence Error\)$"
expect rxe-rnr-nak.pcap "" " RC ACKNOWLEDGE .* RNR NAK 0\.64 ms msn [0-9]+ icrc ok$"
expect rxe-rnr-nak.pcap "-V" "^    Timer: 12 \(0\.64 ms\)$"
expect cx4lx-cnp.pcap "" " RoCEv2 CNP qp 0x000118 "
expect cx4lx-cnp.pcap "-V" "^    Opcode: 129 \(CNP\)$"
expect rxe-cm-write-read.pcap "" " CM REQ \(ConnectRequest\) "
expect rxe-cm-write-read.pcap "-V" "ConnectRequest"
expect rxe-atomic-cmpswap.pcap "" " RC CMP_SWAP .* swap [0-9]+ compare [0-9]+ icrc ok$"
expect rxe-atomic-cmpswap.pcap "-V" "^    Original Remote Data: [0-9]+$"
expect ib-native.erf "" " MAD SubnAdm GetResp PathRecord len 256 icrc ok vcrc ok$"
expect ib-native.erf "-V" "^    Variant CRC: 0x[0-9a-f]{4} \(ok\)$"
expect rxe-cm-write-read.pcap "" "^1 0\.000000 192\.168\.65\.5 > 192\.168\.65\.4 RoCEv2 UD SEND_ONLY qp 0x000001 psn 65 .*CM REQ \(ConnectRequest\) len 256 icrc ok$"
expect rxe-cm-write-read.pcap "" "^4 .* RC RDMA_WRITE_ONLY qp 0x000011 psn 9209053 ackreq va 0xaaab09dd5000 rkey 0x000002d5 dmalen 18 len 18 icrc ok$"
expect rxe-rnr-nak.pcap "" "^45 .* RC ACKNOWLEDGE qp 0x00001a psn 2691940 RNR NAK 0\.64 ms msn 2 icrc ok$"
expect rxe-cm-write-read-arp.pcap "" "^12 .* ARP$"
expect cx4lx-cnp.pcap "" "RoCEv2 CNP qp 0x000118 psn 0 becn icrc ok"
expect ib-native.erf "" "^6 .* LID 1 > LID 4 InfiniBand UD SEND_ONLY qp 0x000405 .* IPoIB ARP len 60 icrc ok vcrc ok$"
expect cx4lx-cnp.pcap "-V" "Invariant CRC: 0x82fd002a \(ok\)"
expect rxe-atomic-cmpswap.pcap "-T json" '"infiniband.atomicacketh.origremdt":"2508215909148552790"'

# -T fields options, as tshark takes them.
"$dump" -q -r "$captures/rxe-cm-write-read.pcap" -c 2 -T fields -e frame.number -e ip.src \
	-E header=y -E separator=, -E quote=d >"$tmp/out"
printf 'frame.number,ip.src\n"1","192.168.65.5"\n"2","192.168.65.4"\n' | diff - "$tmp/out" >/dev/null ||
	fail "-E header/separator/quote: $(cat "$tmp/out")"
"$dump" -q -r "$captures/ib-native.erf" -c 1 -T fields -e infiniband.bth.opcode -E occurrence=l >"$tmp/out"
[ "$(cat "$tmp/out")" = 100 ] || fail "-E occurrence=l: $(cat "$tmp/out")"
"$dump" -G fields | grep -q "^infiniband.bth.opcode	" || fail "-G fields lacks infiniband.bth.opcode"

# -c and standard input (pcap, pcapng and raw ERF alike).
[ "$("$dump" -q -r "$captures/rxe-rnr-nak.pcap" -c 5 | wc -l)" -eq 5 ] || fail "-c 5 did not print 5 lines"
[ "$("$dump" -q -r "$captures/rxe-rnr-nak.pcap" -c 5 -T json | wc -l)" -eq 5 ] || fail "-c 5 -T json"
for cap in rxe-cm-write-read.pcap rxe-rnr-nak.pcap ib-native.erf; do
	"$dump" -q -r "$captures/$cap" >"$tmp/file"
	"$dump" -q -r - <"$captures/$cap" >"$tmp/stdin" || fail "$cap: -r - failed"
	cmp -s "$tmp/file" "$tmp/stdin" || fail "$cap: -r - differs from -r FILE"
	cat "$captures/$cap" | "$dump" -q -r - >"$tmp/pipe" || fail "$cap: -r - from a pipe failed"
	cmp -s "$tmp/file" "$tmp/pipe" || fail "$cap: -r - from a pipe differs"
done
"$dump" -q -r "$captures/rxe-rnr-nak.pcap" -f "udp port 4791" >"$tmp/out" || fail "-f on a file"
grep -q "TCP" "$tmp/out" && fail "-f 'udp port 4791' let TCP through"

# The same packets under the other link types: raw IP, Linux cooked (v1, v2), DLT_INFINIBAND,
# and in raw ERF files of Ethernet and IPv4 records.
python3 - "$captures" "$tmp" <<'EOF'
import struct, sys
caps, tmp = sys.argv[1], sys.argv[2]

def records(path):
    data = open(path, "rb").read()
    assert struct.unpack("<I", data[:4])[0] == 0xA1B2C3D4
    off = 24
    while off < len(data):
        ts, us, cap, wire = struct.unpack("<IIII", data[off:off + 16])
        yield ts, us, data[off + 16:off + 16 + cap], wire
        off += 16 + cap

def write(path, linktype, recs):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, linktype))
        for ts, us, pkt, wire in recs:
            f.write(struct.pack("<IIII", ts, us, len(pkt), wire) + pkt)

eth = list(records(caps + "/rxe-cm-write-read-arp.pcap"))
def sll(pkt):
    return struct.pack(">HHH8sH", 0, 1, 6, pkt[6:12] + b"\0\0", struct.unpack(">H", pkt[12:14])[0])
def sll2(pkt):
    return struct.pack(">HHIHBB8s", struct.unpack(">H", pkt[12:14])[0], 0, 2, 1, 0, 6, pkt[6:12] + b"\0\0")
write(tmp + "/raw.pcap", 101, [(t, u, p[14:], w - 14) for t, u, p, w in eth])
write(tmp + "/sll.pcap", 113, [(t, u, sll(p) + p[14:], w + 2) for t, u, p, w in eth])
write(tmp + "/sll2.pcap", 276, [(t, u, sll2(p) + p[14:], w + 6) for t, u, p, w in eth])
# DLT_INFINIBAND: the packets of the ERF records, from the LRH on.
erf = list(records(caps + "/ib-native-erf.pcap"))
write(tmp + "/ib.pcap", 247, [(t, u, p[16:], len(p) - 16) for t, u, p, w in erf])

# VLAN tags: one 802.1Q tag, or an 802.1ad service tag over an 802.1Q tag.
def tagged(i, p):
    if i % 2:
        tags = b"\x88\xa8" + struct.pack(">H", 5 << 13 | 1 << 12 | 100) + \
            b"\x81\x00" + struct.pack(">H", 3 << 13 | 200)
    else:
        tags = b"\x81\x00" + struct.pack(">H", 6 << 13 | 7)
    return p[:12] + tags + p[12:]
write(tmp + "/vlan.pcap", 1, [(t, u, tagged(i, p), len(p) + 8) for i, (t, u, p, w) in enumerate(eth)])

# Raw ERF files of Ethernet (type 2, two pad bytes) and raw IPv4 (type 22) records.
def erf_record(t, u, rtype, body, wire):
    rlen = (16 + len(body) + 7) // 8 * 8
    ts = (t << 32) | (u * (1 << 32) // 1000000)
    return struct.pack("<Q", ts) + struct.pack(">BBHHH", rtype, 4, rlen, 0, wire) + \
        body + bytes(rlen - 16 - len(body))
with open(tmp + "/eth.erf", "wb") as f:
    for t, u, p, w in eth:
        f.write(erf_record(t, u, 2, b"\0\0" + p, w))
with open(tmp + "/ip.erf", "wb") as f:
    for t, u, p, w in eth:
        if p[12:14] == b"\x08\x00":
            f.write(erf_record(t, u, 22, p[14:], w - 14))
EOF
"$dump" -q -r "$captures/rxe-cm-write-read-arp.pcap" | cut -d' ' -f3- >"$tmp/eth"
for lt in raw sll sll2 eth ip; do
	[ -f "$tmp/$lt.pcap" ] || mv "$tmp/$lt.erf" "$tmp/$lt.pcap"
	"$dump" -q -r "$tmp/$lt.pcap" >"$tmp/$lt.out" || fail "$lt: exit $?"
	# the same RoCE lines; ARP cannot be dissected without its Ethernet header
	grep RoCEv2 "$tmp/eth" | diff - <(cut -d' ' -f3- "$tmp/$lt.out" | grep RoCEv2) >/dev/null ||
		fail "$lt: RoCEv2 lines differ from Ethernet's"
	[ "$(grep -c "icrc ok" "$tmp/$lt.out")" -eq 12 ] || fail "$lt: not 12 good ICRCs"
done
grep -q "Linux cooked capture, protocol 0x0806 (ARP)" "$tmp/sll.out" || fail "sll: ARP not named"
cut -d' ' -f3- "$tmp/eth.out" | diff "$tmp/eth" - >/dev/null || fail "ERF type 2: lines differ from pcap's"
"$dump" -q -r "$tmp/vlan.pcap" >"$tmp/vlan.out" || fail "vlan: exit $?"
[ "$(grep -c " vlan 100 vlan 200 RoCEv2 .* icrc ok$" "$tmp/vlan.out")" -eq 6 ] || fail "vlan: $(head -n 3 "$tmp/vlan.out")"
if command -v tshark >/dev/null; then
	vf=(-e frame.number -e eth.type -e vlan.id -e vlan.priority -e vlan.dei -e vlan.etype
	    -e ieee8021ad.id -e ieee8021ad.priority -e ieee8021ad.dei -e ip.src -e infiniband.bth.psn)
	tshark -r "$tmp/vlan.pcap" -T fields "${vf[@]}" 2>/dev/null >"$tmp/vlan.tshark"
	"$dump" -q -r "$tmp/vlan.pcap" -T fields "${vf[@]}" | diff "$tmp/vlan.tshark" - ||
		fail "vlan: fields differ from tshark's"
fi
"$dump" -q -r "$tmp/ib.pcap" | cut -d' ' -f3- >"$tmp/ib.out"
"$dump" -q -r "$captures/ib-native-erf.pcap" | cut -d' ' -f3- | diff - "$tmp/ib.out" >/dev/null ||
	fail "DLT_INFINIBAND: lines differ from ERF's"

# Files that are not captures, or not all there: a message and a non-zero exit, never a crash.
check_bad() { # file, pattern the message must match
	"$dump" -r "$1" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -ne 0 ] || fail "$1: exit 0"
	crashed $rc && fail "$1: crashed ($rc)"
	grep -Eq "$2" "$tmp/err" || fail "$1: message '$(cat "$tmp/err")' lacks '$2'"
}
check_bad "$tmp/no-such-file" "No such file"
printf 'this is not a capture file\n' >"$tmp/garbage"
check_bad "$tmp/garbage" "not a pcap, pcapng or ERF"
: >"$tmp/empty"
check_bad "$tmp/empty" "empty"
head -c 1000 /dev/urandom >"$tmp/random"
"$dump" -r "$tmp/random" >/dev/null 2>&1
crashed $? && fail "random bytes: crashed"
"$dump" -r "$captures/cx4lx-cnp.pcap" -T bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "a bad option does not exit 2"
"$dump" -r "$captures/cx4lx-cnp.pcap" -T fields -e no.such.field >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown field 'no.such.field'" "$tmp/err" || fail "unknown field: $(cat "$tmp/err")"

for cap in rxe-cm-write-read.pcap rxe-ipv6-rc-pingpong.pcap ib-native.erf ib-native-erf.pcap; do
	size=$(stat -c %s "$captures/$cap")
	for cut in 20 30 100 $((size / 2)) $((size - 1)); do
		head -c "$cut" "$captures/$cap" >"$tmp/cut"
		for mode in "" "-V" "-T json" "--flows"; do
			# shellcheck disable=SC2086
			"$dump" -r "$tmp/cut" $mode >/dev/null 2>"$tmp/err"
			rc=$?
			crashed $rc && fail "$cap cut at $cut ${mode:-default}: crashed ($rc)"
		done
		if [ "$cut" -eq $((size - 1)) ]; then
			[ $rc -eq 1 ] || fail "$cap cut short by one byte: exit $rc, not 1"
			grep -Eq "truncated|ends in the middle" "$tmp/err" || fail "$cap cut short: $(cat "$tmp/err")"
		fi
	done
done

# Damaged packets: a flipped payload bit gives a bad ICRC; random damage anywhere never crashes.
python3 - "$captures" "$tmp" <<'EOF'
import random, sys
caps, tmp = sys.argv[1], sys.argv[2]
data = bytearray(open(caps + "/rxe-cm-write-read.pcap", "rb").read())
off = 24
for _ in range(3):  # the fourth frame is the RDMA WRITE: damage its last payload byte
    off += 16 + int.from_bytes(data[off + 8:off + 12], "little")
cap = int.from_bytes(data[off + 8:off + 12], "little")
data[off + 16 + cap - 7] ^= 0x01
open(tmp + "/badicrc.pcap", "wb").write(data)
rng = random.Random(4791)
for name in ["rxe-cm-write-read.pcap", "ib-native.erf", "ib-native-erf.pcap", "cx4lx-cnp.pcap"]:
    orig = open(caps + "/" + name, "rb").read()
    head = 24 if name.endswith(".pcap") else 0
    for i in range(25):
        d = bytearray(orig)
        for _ in range(rng.randint(1, 20)):
            d[rng.randrange(head, len(d))] = rng.randrange(256)
        open("%s/mut-%s-%02d" % (tmp, name, i), "wb").write(d)
EOF
"$dump" -q -r "$tmp/badicrc.pcap" >"$tmp/out"
grep -q "^4 .* icrc BAD (want 0x[0-9a-f]\{8\})$" "$tmp/out" || fail "a damaged payload does not give 'icrc BAD'"
"$dump" -r "$tmp/badicrc.pcap" 2>&1 >/dev/null | grep -q "ICRC 11 ok, 1 bad" || fail "summary misses the bad ICRC"
for f in "$tmp"/mut-*; do
	for mode in "" "-V" "-T json" "--flows"; do
		# shellcheck disable=SC2086
		"$dump" -q -r "$f" $mode >"$tmp/out" 2>&1
		rc=$?
		crashed $rc && fail "$(basename "$f") ${mode:-default}: crashed ($rc): $(tail -n 3 "$tmp/out")"
	done
done

# Live capture on the loopback interface, when this user may capture: RoCEv2 packets sent to
# 127.0.7.77:4791 must show up (their ICRC is zero, hence BAD). The address is this test's
# own: other tests run uroce traffic on lo at the same time.
"$dump" -q -i lo -c 1 -f 'udp port 9' >/dev/null 2>"$tmp/err" &
probe=$!
sleep 0.5
kill $probe 2>/dev/null
wait $probe 2>/dev/null
if grep -qi "permission\|not permitted" "$tmp/err"; then
	echo "live capture not permitted: that part skipped"
else
	timeout 30 "$dump" -i lo -c 3 -f 'udp dst port 4791 and dst host 127.0.7.77' >"$tmp/live" 2>"$tmp/live.err" &
	live=$!
	python3 - "$tmp/live" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
bth = bytes.fromhex("0400ffff00000011800000ff")  # RC SEND ONLY to QP 0x11, PSN 255
for _ in range(200):  # until the capture has printed three (live output is line-buffered)
    s.sendto(bth + b"hello!!!" + bytes(4), ("127.0.7.77", 4791))
    time.sleep(0.05)
    if open(sys.argv[1]).read().count("\n") >= 3:
        break
EOF
	wait $live
	rc=$?
	[ $rc -eq 0 ] || fail "live capture on lo: exit $rc: $(cat "$tmp/live.err")"
	[ "$(grep -c "RoCEv2 RC SEND_ONLY qp 0x000011 psn 255 ackreq len 8 icrc BAD" "$tmp/live")" -eq 3 ] ||
		fail "live capture on lo: $(cat "$tmp/live")"
fi

echo "$fails failure(s)"
[ $fails -eq 0 ]
