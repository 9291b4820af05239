#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# uroce-dump --series and --plot (docs/flows.md "Time series") on a hand-built capture whose
# every frame's time is known: the CSV's rows, step by step, against the frames put in each
# step; a step without packets; the PSN reached; retransmissions; CE marks and CNPs; another
# step; the plot (a PNG from gnuplot); and the errors of the options. Needs UROCE_DUMP.
set -u
if [ -z "${UROCE_DUMP:-}" ] || [ ! -x "$UROCE_DUMP" ]; then
	echo "FAIL: UROCE_DUMP must name the uroce-dump binary (got '${UROCE_DUMP:-}')"
	exit 1
fi
command -v python3 >/dev/null || { echo "FAIL: python3 builds the capture"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail()
{
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# A = 10.9.0.1 QP 0x11 writes to B = 10.9.0.2 QP 0x22 (RoCEv2/IPv4, correct ICRCs, as in
# test_flows.sh); B sends CNPs to A's QP. Times in microseconds from the first frame.
python3 - "$tmp/t.pcap" "$(dirname "$0")" <<'EOF' || fail "could not build the capture"
import struct, sys
sys.path.insert(0, sys.argv[2])
from rocev2_synth import frame, write_pcap
A, B = bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2])
frames = []

def write(t_us, psn, tos=0):  # RDMA WRITE ONLY, 100 bytes: 174 bytes on the wire
    frames.append((t_us, frame(A, B, 0x0A, 0x22, psn, struct.pack(">QII", 0x1000, 0x77, 100),
                               b"w" * 100, tos=tos)))

def cnp(t_us):                # 16 reserved bytes: 74 bytes on the wire
    frames.append((t_us, frame(B, A, 0x81, 0x11, 0, bytes(16))))

# step 0 (0..10 ms): PSNs 100..109, the fourth marked CE; a CNP
for i in range(10):
    write(1000 * i, 100 + i, tos=3 if i == 3 else 2)
cnp(5000)
# step 1 (10..20 ms): nothing
# step 2 (20..30 ms): PSNs 110..114, then 112 again (a retransmission); a CNP
for i in range(5):
    write(25000 + 100 * i, 110 + i)
write(27000, 112)
cnp(26000)
# step 3 (30..40 ms): PSN 115
write(35000, 115)

write_pcap(sys.argv[1], sorted(frames, key=lambda x: x[0]))
EOF

if ! "$UROCE_DUMP" -q -r "$tmp/t.pcap" --series="$tmp/s.csv" >"$tmp/out" 2>&1; then
	fail "uroce-dump --series failed: $(head -c 300 "$tmp/out")"
fi
[ -s "$tmp/out" ] && fail "--series alone printed something: $(head -c 200 "$tmp/out")"
# flow,time_s,packets,bytes,mbps,ce,cnp,retransmitted,psn; mbps = bytes * 8 / 10 ms
cat >"$tmp/want.csv" <<'EOF'
flow,time_s,packets,bytes,mbps,ce,cnp,retransmitted,psn
# flow 1: RC 10.9.0.1 -> 10.9.0.2, dest QP 0x000022
1,0.000000,10,1740,1.392,1,0,0,9
1,0.010000,0,0,0.000,0,0,0,9
1,0.020000,6,1044,0.835,0,0,1,14
1,0.030000,1,174,0.139,0,0,0,15


# flow 2: CNP 10.9.0.2 -> 10.9.0.1, dest QP 0x000011
2,0.000000,1,74,0.059,0,1,0,0
2,0.010000,0,0,0.000,0,0,0,0
2,0.020000,1,74,0.059,0,1,0,0
EOF
if ! diff -u "$tmp/want.csv" "$tmp/s.csv" >"$tmp/diff"; then
	fail "the series (10 ms steps) is not the expected one:"
	cat "$tmp/diff"
fi

# A 20 ms step: the same packets in two steps.
"$UROCE_DUMP" -q -r "$tmp/t.pcap" --series="$tmp/s20.csv" --step=20 ||
	fail "uroce-dump --series --step=20 failed"
got=$(grep '^1,' "$tmp/s20.csv" | cut -d, -f2-4,8,9 | tr '\n' ' ')
[ "$got" = "0.000000,10,1740,0,9 0.020000,7,1218,1,15 " ] ||
	fail "20 ms steps: flow 1 is '$got'"

# With --flows the report is printed as well, and agrees with the series.
"$UROCE_DUMP" -q -r "$tmp/t.pcap" --flows=json --series="$tmp/s3.csv" >"$tmp/r.json" ||
	fail "--flows=json --series failed"
python3 - "$tmp/r.json" <<'EOF' || fail "--flows report with --series"
import json, sys
f = json.load(open(sys.argv[1]))["flows"]
got = (f[0]["packets"], f[0]["bytes"], f[0]["ecn_ce"], f[1]["cnp"])
assert got == (17, 2958, 1, 2), got
EOF
cmp -s "$tmp/s.csv" "$tmp/s3.csv" || fail "the series differs when --flows is given too"

# The plot: a PNG, when gnuplot is there (scripts/install-deps.sh installs gnuplot-nox).
if command -v gnuplot >/dev/null 2>&1; then
	if ! "$UROCE_DUMP" -q -r "$tmp/t.pcap" --series="$tmp/p.csv" --plot="$tmp/p.png" 2>"$tmp/perr"; then
		fail "--plot failed: $(head -c 300 "$tmp/perr")"
	elif [ "$(head -c 8 "$tmp/p.png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
		fail "--plot did not write a PNG"
	fi
else
	fail "gnuplot is not installed: --plot cannot be checked (scripts/install-deps.sh)"
fi

# Errors: exit status 2 and a message naming the option.
usage_error()
{
	local want=$1
	shift
	"$UROCE_DUMP" -q -r "$tmp/t.pcap" "$@" >"$tmp/e.out" 2>&1
	local rc=$?
	if [ $rc != 2 ] || ! grep -q -- "$want" "$tmp/e.out"; then
		fail "uroce-dump $*: exit $rc, '$(head -c 200 "$tmp/e.out")' (want 2 and '$want')"
	fi
}
usage_error "give --series" --plot="$tmp/x.png"
usage_error "--step is the step of --series" --step=5
usage_error "--step takes milliseconds" --series="$tmp/x.csv" --step=0
usage_error "--step takes milliseconds" --series="$tmp/x.csv" --step=abc
"$UROCE_DUMP" -q -r "$tmp/t.pcap" --series=/nonexistent/dir/s.csv >"$tmp/e.out" 2>&1
rc=$?
{ [ $rc = 1 ] && grep -q "cannot write /nonexistent/dir/s.csv" "$tmp/e.out"; } ||
	fail "an unwritable --series: exit $rc, '$(head -c 200 "$tmp/e.out")'"

if [ $failures -ne 0 ]; then
	echo "test_flows_series: $failures failure(s)"
	exit 1
fi
echo "test_flows_series: all checks passed"
