#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# UCX 1.13 (Debian's ucx-utils and libucx0, unmodified) over uroce, in a network namespace of
# its own under tools/uroce-devns (tests/hpc/lib.sh):
#  - ucx_info -d lists the memory domain uroce0 with the rc_verbs and ud_verbs transports on
#    the device uroce0:1;
#  - ucx_perftest tag_lat, tag_bw, ucp_put_bw and ucp_get run between a server on 127.0.0.1
#    and a client on 127.0.0.2, once with UCX_TLS=rc_v (rc_verbs, with ud_verbs for the
#    connection set-up only: UCX's own name for the verbs RC transport) and once with
#    UCX_TLS=ud_v (ud_verbs alone), each run captured on lo;
#  - each capture holds only RoCEv2 packets whose ICRCs verify (icrc_check.py, uroce-dump),
#    the opcodes each transport must use (RC: SEND, RDMA WRITE for ucp_put_bw, RDMA READ for
#    ucp_get; UD: nothing but UD SEND), and at least the bytes the tests moved in each
#    direction.
# The figures are not judged (docs/performance.md "UCX" has them).
. "$(dirname "$0")/../interop/lib.sh"
. "$(dirname "$0")/lib.sh"
ic_need ucx-utils ucx_info ucx_perftest
hpc_enter "$@"

srv=127.0.0.1
cli=127.0.0.2
port=13337

# ---- ucx_info -d ----
ic_cmd UROCE_IP=$srv -- ucx_info -d
"${IC_CMD[@]}" >"$IC_TMP/ucx_info" 2>&1 </dev/null
rc=$?
tls=$(awk '/^# Memory domain: uroce0$/ { md = 1; next } /^# Memory domain:/ { md = 0 }
	md && /^# +Transport: / { t = $3 } md && /^# +Device: uroce0:1$/ && t { print t; t = "" }' \
	"$IC_TMP/ucx_info" | sort | xargs)
# Every transport has an "error handling:" capability line, and UCX's rdma_cm connection
# manager needs the kernel's (uroce(7) "UCX"): neither is an error of this test.
bad=$(ic_error_lines "$IC_TMP/ucx_info" |
	grep -vE '^# *error handling:|^# < failed to open connection manager rdmacm >$' | head -n 3)
if [ $rc = 0 ] && [ "$tls" = "rc_verbs ud_verbs" ] && [ -z "$bad" ]; then
	ic_pass ucx_info "memory domain uroce0: rc_verbs and ud_verbs on uroce0:1"
else
	ic_fail ucx_info "exit $rc; transports on uroce0:1: '${tls}', expected 'rc_verbs ud_verbs'${bad:+; printed: $bad}"
	ic_show "ucx_info -d" "$IC_TMP/ucx_info"
fi

# ---- ucx_perftest ----
# NAME ITERS ARGS...: one ucx_perftest run, server on $srv, client on $cli.
perf()
{
	local name=$1 n=$2
	shift 2
	ic_pair "$tl.$name" perftest-quiet "ucx-final:$n" $srv $cli $port \
		UCX_TLS="$tl" UCX_NET_DEVICES=uroce0:1 -- ucx_perftest -t "$name" -n "$n" "$@"
}

for tl in rc_v ud_v; do
	cap=$IC_TMP/$tl.pcap
	hpc_capture_start "$cap"
	perf tag_lat 2000 -s 8 -w 100
	perf tag_bw 500 -s 65536 -w 50
	perf ucp_put_bw 500 -s 65536 -w 50
	perf ucp_get 200 -s 65536 -w 20
	hpc_capture_stop "$cap"
	hpc_check_capture "$tl" "$cap"

	# The bytes moved: tag_bw and ucp_put_bw send 500 messages of 64 KiB each from the
	# client, ucp_get brings 200 from the server (not counting the warm-up, which
	# ucx_perftest may cut short).
	hpc_bytes "$cap" >"$cap.bytes"
	up=$(awk -v s=$cli -v d=$srv '$1 == s && $2 == d { print $3 }' "$cap.bytes")
	down=$(awk -v s=$srv -v d=$cli '$1 == s && $2 == d { print $3 }' "$cap.bytes")
	if [ "${up:-0}" -ge $((2 * 500 * 65536)) ] && [ "${down:-0}" -ge $((200 * 65536)) ]; then
		ic_pass "$tl.bytes" "$cli -> $srv $up bytes, $srv -> $cli $down bytes in RoCEv2 packets"
	else
		ic_fail "$tl.bytes" "$cli -> $srv ${up:-0} bytes (at least $((2 * 500 * 65536))), $srv -> $cli ${down:-0} (at least $((200 * 65536)))"
	fi

	# The opcodes (IBA Table 38): RC SEND 0..5, RDMA WRITE 6..11, RDMA READ request 12 and
	# responses 13..16, ACK 17; UD SEND ONLY 100 and 101.
	hpc_opcodes "$cap" >"$cap.ops"
	ops=$(awk '{ printf "%s%s", sep, $2; sep = " " }' "$cap.ops")
	case $tl in
	rc_v)
		want='send write read_request read_response'
		have=$(awk '$2 <= 5 { s = 1 } $2 >= 6 && $2 <= 11 { w = 1 } $2 == 12 { q = 1 }
			$2 >= 13 && $2 <= 16 { r = 1 }
			END { printf "%s%s%s%s", s ? "send " : "", w ? "write " : "",
				q ? "read_request " : "", r ? "read_response" : "" }' "$cap.ops")
		;;
	ud_v)
		want='ud_send_only'
		have=$(awk '$2 == 100 || $2 == 101 { u = 1 } $2 != 100 && $2 != 101 { o = 1 }
			END { printf "%s", u && !o ? "ud_send_only" : "" }' "$cap.ops")
		;;
	esac
	if [ "$have" = "$want" ]; then
		ic_pass "$tl.opcodes" "opcodes $ops"
	else
		ic_fail "$tl.opcodes" "expected $want, the capture has opcodes $ops"
	fi
done
ic_finish
