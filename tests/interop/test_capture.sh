#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The packets uroce puts on the wire, seen by others. While dumpcap captures on lo, the
# pingpong examples and perftest exchange every kind of RC, UC and UD packet between
# 127.0.15.1 and 127.0.15.2, then four RC runs with 2 % loss, each between its own pair of
# addresses 127.0.15.1x (retransmissions, NAKs, re-issued READs, replayed atomics). Then:
#  (a) tshark decodes every packet to UDP port 4791 as InfiniBand with no malformed packet,
#      and finds every opcode the runs must have used;
#  (b) every ICRC verifies with icrc_check.py, which shares no code with uroce (zlib's CRC-32
#      over the masked pseudo-header of Annex A17.3.3) and, where python3-scapy is installed,
#      agrees with scapy's RoCE layer on every packet;
#  (c) uroce-dump -r --flows reads the file with no malformed packet and no ICRC failure, and
#      shows retransmissions in each lossy run;
#  (d) the datamodel (datamodel/*.ksy, compiled by the Kaitai Struct compiler) parses every
#      frame with the same header fields as uroce-dump (datamodel/run-check.sh). (The clean runs share one address pair and
#      every process numbers its QPs from 0x10, so --flows merges their QPs into one flow per
#      direction and takes the PSN jumps between runs for retransmissions: no count is
#      asserted there.)
# The capture filter takes only these addresses, so other tests running at the same time do
# not change the counts.
. "$(dirname "$0")/lib.sh"
ic_need ibverbs-utils ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
ic_need perftest ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw
ic_need tshark tshark dumpcap
ic_need python3 python3
dump=${UROCE_BUILD:-/nonexistent}/tools/uroce-dump/uroce-dump
[ -x "$dump" ] || { echo "FAIL: no uroce-dump at $dump (UROCE_BUILD=${UROCE_BUILD:-})"; exit 1; }
[ "$(id -u)" = 0 ] || ic_skip "capturing on lo needs root (or dumpcap's capabilities)"
ic_need iproute2 ip

# The capture must show what a wire carries. uroce sends runs of equal-sized datagrams as GSO
# sends (docs/udp.md), which lo passes on whole: a capture on lo would show one large datagram
# per send, where a NIC, or the kernel in software, cuts it into the datagrams that go on the
# wire (segment k with IPv4 ID k). So the test runs in a network namespace of its own whose lo
# segments in software before the capture point (gso_max_segs 1): dumpcap sees each datagram
# as a wire would carry it, IPv4 ID included, and the independent ICRC check covers the GSO
# segments (check gso_segments below).
if [ -z "${IC_CAPTURE_NS:-}" ]; then
	ns=uroce-cap-$$
	ip netns add "$ns" 2>/dev/null || ic_skip "cannot create a network namespace"
	if ! ip netns exec "$ns" true 2>/dev/null; then
		ip netns del "$ns"
		ic_skip "ip netns exec does not work here (a plain chroot)"
	fi
	ip -n "$ns" link set lo up && ip -n "$ns" link set lo gso_max_segs 1
	IC_CAPTURE_NS=$ns ip netns exec "$ns" bash "$0" "$@"
	rc=$?
	ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$ns"
	exit $rc
fi

s=127.0.15.1
c=127.0.15.2
sentinel=127.0.15.99
cap=$IC_TMP/lo.pcapng
loss=loss=0.02,seed=3

dumpcap -q -i lo -B 64 -w "$cap" \
	-f "(udp port 4791 and net 127.0.15.0/24) or (udp dst port 9 and dst host $sentinel)" \
	2>"$IC_TMP/dumpcap.err" &
dpid=$!
IC_PIDS+=("$dpid")
for ((i = 0; i < 100; i++)); do
	grep -qs 'Capturing on' "$IC_TMP/dumpcap.err" && break
	ic_alive $dpid || break
	sleep 0.1
done
if ! grep -q 'Capturing on' "$IC_TMP/dumpcap.err"; then
	ic_fail capture "dumpcap did not start"
	ic_show dumpcap "$IC_TMP/dumpcap.err"
	ic_finish
fi
echo "capturing on lo into $cap"

pp() { ic_pair "$1" "pingpong:$n" "pingpong:$n" $s $c "$2" -- "${@:3}" -g 0 -n $n; }
pt() { ic_pair "$1" "perftest:$n" "perftest:$n" $s $c "$2" -- "${@:3}" -d uroce0 -x 0 -n $n; }
# The lossy runs: NAME PAIR PORT PROGRAM ARGS, between 127.0.15.PAIR1 and 127.0.15.PAIR2.
lossy=()
lpt()
{
	lossy+=("$1:127.0.15.${2}1:127.0.15.${2}2")
	ic_pair "$1" "perftest:$n" "perftest:$n" 127.0.15.${2}1 127.0.15.${2}2 "$3" UROCE_IMPAIR=$loss -- \
		"${@:4}" -d uroce0 -x 0 -n $n
}

# Sizes chosen for every pad count (0..3) and for FIRST/MIDDLE/LAST at MTU 1024 and 4096.
n=20
pp rc_pingpong 19191 ibv_rc_pingpong -s 5001
pp uc_pingpong 19192 ibv_uc_pingpong -s 3
pp ud_pingpong 19193 ibv_ud_pingpong -s 1001
pp srq_pingpong 19194 ibv_srq_pingpong -s 2
n=100
pt send_bw 19195 ib_send_bw -s 4097
pt write_bw 19196 ib_write_bw -s 8190
pt write_bw_small 19209 ib_write_bw -s 2
pt write_bw_64k 19210 ib_write_bw -s 65536
pt read_bw 19197 ib_read_bw -s 12289
pt read_bw_1B 19198 ib_read_bw -s 1
pt atomic_bw_fadd 19199 ib_atomic_bw -A FETCH_AND_ADD
pt atomic_bw_cswap 19200 ib_atomic_bw -A CMP_AND_SWAP
pt uc_send_bw 19201 ib_send_bw -c UC -s 9000
pt uc_write_bw 19202 ib_write_bw -c UC -s 9001
pt uc_write_bw_small 19203 ib_write_bw -c UC -s 7
pt ud_send_bw 19204 ib_send_bw -c UD -s 1
n=300
lpt lossy_write_bw 1 19205 ib_write_bw -s 16384
lpt lossy_read_bw 2 19206 ib_read_bw -s 16384
lpt lossy_send_bw 3 19207 ib_send_bw -s 8192
lpt lossy_atomic_bw 4 19208 ib_atomic_bw

# A last datagram the filter also takes: once it is in the file, everything before it is.
# The kernel hands packets to dumpcap in blocks that close on a timer, hence the pause.
echo -n end >/dev/udp/$sentinel/9 2>/dev/null
sleep 2
kill -INT $dpid
wait $dpid
IC_PIDS=()
[ "${UROCE_INTEROP_KEEP:-0}" = 1 ] && cat "$IC_TMP/dumpcap.err"
if [ "$(tshark -r "$cap" -Y "udp.dstport == 9 && ip.dst == $sentinel" 2>/dev/null | wc -l)" = 1 ]; then
	ic_pass capture_complete
else
	ic_fail capture_complete "the sentinel datagram sent after the runs is not in the capture"
	ic_show dumpcap "$IC_TMP/dumpcap.err"
fi
drops=$(sed -n "s|^Packets received/dropped on interface .*: [0-9]*/\([0-9]*\) .*|\1|p" "$IC_TMP/dumpcap.err")
if [ "${drops:-x}" = 0 ]; then
	ic_pass capture_no_drops
else
	ic_fail capture_no_drops "dumpcap dropped '${drops}' packets"
	ic_show dumpcap "$IC_TMP/dumpcap.err"
fi

# ---- (a) tshark ----
# tshark hands the payload of SENDs and WRITEs to heuristic dissectors (RPC-over-RDMA, SMB
# Direct, iSER, EoIB...), which guess at application data: the pingpongs' zero-filled buffers
# look like the start of some of them and then end "malformed" inside that guessed protocol.
# The InfiniBand decoding is judged with those heuristics off (Wireshark 4.0 names); with
# them on, a malformed frame is still a failure when the InfiniBand layer itself is where the
# dissection stopped.
heur=()
for h in rpcrdma_infiniband smb_direct_infiniband smcr_infiniband nvme_rdma lnet_ib \
	iser_infiniband eth_over_ib mellanox_eoib sdp_infiniband fc_infiniband; do
	heur+=(--disable-heuristic "$h")
done
total=$(tshark -r "$cap" -Y 'udp.dstport == 4791' 2>/dev/null | wc -l)
ib=$(tshark -r "$cap" -Y 'infiniband' 2>/dev/null | wc -l)
malformed=$(tshark -r "$cap" "${heur[@]}" -Y '_ws.malformed' 2>/dev/null | wc -l)
tshark -r "$cap" -Y '_ws.malformed' -T fields -e frame.number -e frame.protocols 2>/dev/null \
	>"$IC_TMP/malformed_heur"
in_ib=$(awk '$2 ~ /:infiniband$/' "$IC_TMP/malformed_heur" | wc -l)
echo "tshark: $total packets to UDP port 4791, $ib decoded as InfiniBand, $malformed malformed;" \
	"with payload heuristics on, $(wc -l <"$IC_TMP/malformed_heur") payloads misread as" \
	"$(awk '{ n = split($2, p, ":"); print p[n] }' "$IC_TMP/malformed_heur" | sort -u | tr '\n' ' ')"
if [ "$total" -gt 0 ] && [ "$ib" = "$total" ]; then
	ic_pass tshark_decodes_infiniband "$ib packets"
else
	ic_fail tshark_decodes_infiniband "$ib of $total packets to port 4791 decode as infiniband"
fi
if [ "$malformed" = 0 ] && [ "$in_ib" = 0 ]; then
	ic_pass tshark_no_malformed
else
	ic_fail tshark_no_malformed "$malformed malformed packets, $in_ib stopped in the InfiniBand layer"
	tshark -r "$cap" "${heur[@]}" -Y '_ws.malformed' 2>/dev/null | head -n 10
	awk '$2 ~ /:infiniband$/' "$IC_TMP/malformed_heur" | head -n 10
fi
# Every opcode the runs must have produced (IBA Table 38): RC SEND FIRST/MIDDLE/LAST/ONLY,
# WRITE FIRST/MIDDLE/LAST/ONLY, READ request and responses FIRST/MIDDLE/LAST/ONLY, ACK,
# ATOMIC ACK, CmpSwap, FetchAdd; UC SEND FIRST/MIDDLE/LAST/ONLY, WRITE FIRST/MIDDLE/LAST/ONLY;
# UD SEND ONLY.
tshark -r "$cap" -Y infiniband -T fields -e infiniband.bth.opcode -e infiniband.aeth.syndrome \
	2>/dev/null | sort | uniq -c >"$IC_TMP/opcodes"
missing=()
for op in 0 1 2 4 6 7 8 10 12 13 14 15 16 17 18 19 20 32 33 34 36 38 39 40 42 100; do
	awk -v op=$op '$2 == op { f = 1 } END { exit !f }' "$IC_TMP/opcodes" || missing+=("$op")
done
if [ ${#missing[@]} -eq 0 ]; then
	ic_pass tshark_opcodes "$(awk '{ n++ } END { print n }' "$IC_TMP/opcodes") opcode/syndrome pairs"
else
	ic_fail tshark_opcodes "opcodes never seen: ${missing[*]}"
	sed 's/^/    /' "$IC_TMP/opcodes"
fi
# The lossy runs: a PSN-sequence NAK (AETH syndrome 0x60 = 96) answered a gap.
if awk '$2 == 17 && $3 == 96 { f = 1 } END { exit !f }' "$IC_TMP/opcodes"; then
	ic_pass tshark_nak_seen
else
	ic_fail tshark_nak_seen "no ACK with syndrome 0x60 (PSN sequence error NAK) in the lossy runs"
fi

# ---- (b) independent ICRC check ----
py=python3
scapy=
for p in python3 /usr/bin/python3; do
	if command -v $p >/dev/null && $p -c 'import scapy.contrib.roce' 2>/dev/null; then
		py=$p
		scapy=--scapy
		break
	fi
done
[ -n "$scapy" ] || echo "note: python3-scapy not installed: ICRC checked by icrc_check.py alone"
$py "$IC_HERE/icrc_check.py" $scapy "$cap" >"$IC_TMP/icrc" 2>&1
rc=$?
tail -n 1 "$IC_TMP/icrc"
summary=$(tail -n 1 "$IC_TMP/icrc")
if [ $rc = 0 ] && [[ $summary == *": $total RoCEv2 packets, $total ICRC ok, 0 bad"* ]] &&
	{ [ -z "$scapy" ] || [[ $summary == *"scapy agrees on $total" ]]; }; then
	ic_pass icrc_independent "$total packets${scapy:+, scapy agrees}"
else
	ic_fail icrc_independent "icrc_check.py exit $rc, expected all $total ICRCs to verify"
	head -n 20 "$IC_TMP/icrc"
fi

# GSO sends (docs/udp.md): segment k of a send leaves with IPv4 ID k and the ICRC computed for
# it. The 64 KiB WRITEs' MIDDLE..LAST packets, runs of ACKs and of equal small WRITEs go out
# that way; their ICRCs are among those verified just above.
gso=$(tshark -r "$cap" -Y 'udp.dstport == 4791 && ip.id != 0' 2>/dev/null | wc -l)
maxid=0
for id in $(tshark -r "$cap" -Y 'udp.dstport == 4791' -T fields -e ip.id 2>/dev/null | sort -u); do
	[ $((id)) -gt $maxid ] && maxid=$((id)) # tshark prints the ID in hex, 0x000e
done
if [ "$gso" -gt 0 ] && [ "$maxid" -ge 14 ]; then
	ic_pass gso_segments "$gso packets with IPv4 ID != 0 (up to $maxid), ICRCs verified"
else
	ic_fail gso_segments "$gso packets with IPv4 ID != 0, highest ID $maxid: no GSO run of 15 (64 KiB WRITE) seen"
fi

# The same check must see a change where the ICRC does not look (masked fields) and must see
# one flipped bit anywhere it does look, on these packets too.
python3 "$IC_HERE/icrc_check.py" --mutate masked "$cap" "$IC_TMP/masked.pcap" >/dev/null &&
	python3 "$IC_HERE/icrc_check.py" "$IC_TMP/masked.pcap" >"$IC_TMP/icrc_masked" 2>&1
rc=$?
if [ $rc = 0 ] && tail -n 1 "$IC_TMP/icrc_masked" | grep -q ": $total RoCEv2 packets, $total ICRC ok, 0 bad\$"; then
	ic_pass icrc_masked_fields_changed "all $total still verify"
else
	ic_fail icrc_masked_fields_changed "exit $rc: $(tail -n 1 "$IC_TMP/icrc_masked")"
fi
python3 "$IC_HERE/icrc_check.py" --mutate unmasked "$cap" "$IC_TMP/flipped.pcap" >/dev/null
python3 "$IC_HERE/icrc_check.py" "$IC_TMP/flipped.pcap" >"$IC_TMP/icrc_flipped" 2>&1
rc=$?
if [ $rc = 1 ] && tail -n 1 "$IC_TMP/icrc_flipped" | grep -q ": $total RoCEv2 packets, 0 ICRC ok, $total bad\$"; then
	ic_pass icrc_bit_flipped "all $total rejected"
else
	ic_fail icrc_bit_flipped "exit $rc: $(tail -n 1 "$IC_TMP/icrc_flipped")"
fi

# ---- (c) uroce-dump ----
# The report goes to standard output, the closing summary line to standard error.
"$dump" -r "$cap" --flows >"$IC_TMP/flows.txt" 2>"$IC_TMP/flows.sum"
rc=$?
summary=$(grep '^uroce-dump: ' "$IC_TMP/flows.sum" | tail -n 1)
echo "$summary"
if [ $rc = 0 ] && [[ $summary == *" 0 malformed; ICRC $total ok, 0 bad, 0 unchecked;"* ]]; then
	ic_pass uroce_dump_flows
else
	ic_fail uroce_dump_flows "uroce-dump --flows exit $rc, expected $total ICRCs ok, none bad or malformed"
	tail -n 20 "$IC_TMP/flows.txt" "$IC_TMP/flows.sum"
fi
"$dump" -q -r "$cap" --flows=json >"$IC_TMP/flows.json" 2>"$IC_TMP/flows.err"
# One line per lossy run: NAME RETRANSMITTED_PACKETS ICRC_BAD, over the flows of its pair.
python3 - "$IC_TMP/flows.json" "${lossy[@]}" >"$IC_TMP/retx" 2>&1 <<'EOF'
import json, sys
flows = json.load(open(sys.argv[1]))["flows"]
for run in sys.argv[2:]:
    name, a, b = run.split(":")
    retx = bad = 0
    for f in flows:
        if {f.get("src"), f.get("dst")} == {a, b}:
            seq = (f.get("requests") or {}).get("sequence") or {}
            retx += seq.get("retransmitted_packets") or 0
            bad += f.get("icrc_bad") or 0
    print(name, retx, bad)
EOF
for run in "${lossy[@]}"; do
	name=${run%%:*}
	read -r _ retx bad < <(grep "^$name " "$IC_TMP/retx")
	if [ "${retx:-0}" -gt 0 ] 2>/dev/null && [ "$bad" = 0 ]; then
		ic_pass "$name/retransmits" "$retx packets retransmitted after the losses"
	else
		ic_fail "$name/retransmits" "uroce-dump --flows=json shows no retransmission in its flows"
		cat "$IC_TMP/retx"
		head -c 2000 "$IC_TMP/flows.err"
	fi
done

# ---- (d) the datamodel ----
bash "$IC_HERE/../../datamodel/run-check.sh" "$dump" "$cap" >"$IC_TMP/datamodel" 2>&1
rc=$?
tail -n 1 "$IC_TMP/datamodel"
if [ $rc = 0 ]; then
	ic_pass datamodel_agrees "$(tail -n 1 "$IC_TMP/datamodel" | sed 's/^datamodel check: //')"
else
	ic_fail datamodel_agrees "datamodel/run-check.sh exit $rc"
	head -n 30 "$IC_TMP/datamodel"
fi

ic_finish
