#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# qperf 0.4.11, unmodified, with its RDMA tests connected through rdma_cm (-cm1) over uroce's
# librdmacm.so.1: rc_bw, rc_lat, rc_rdma_write_bw and rc_rdma_read_lat, the qperf server on
# 127.0.0.1 and the client on 127.0.0.2 in a network namespace of its own. Each test must
# print its figure (bw or latency) and no error line.
#
# Two things of qperf 0.4.11's own: its server calls rdma_destroy_qp on its listener, which
# has no QP (upstream's 83bc16e fixes it; rdma-core's library dies of SIGSEGV there, uroce's
# does nothing), then exits without disconnecting, so that the client's DISCONNECTED comes
# from the DREP the library's exit sends (the kernel's rdma_cm sends it when the process's
# file is closed). And its UD tests do not use rdma_cm at all ("-cm1 set but not used in
# test ud_lat") and make a LID-only address handle, which a RoCE device refuses: ud_lat is
# not an rdma_cm test with this qperf and is not run.
. "$(dirname "$0")/lib.sh"
ic_need qperf qperf
cm_enter

port=19765
ic_cmd UROCE_IP=$CM_S -- qperf -lp $port
"${IC_CMD[@]}" >"$IC_TMP/qperf.server" 2>&1 </dev/null &
spid=$!
IC_PIDS+=("$spid")
for ((i = 0; i < 300; i++)); do
	ic_listening $port && break
	sleep 0.1
done
for t in rc_bw rc_lat rc_rdma_write_bw rc_rdma_read_lat; do
	out=$IC_TMP/qperf.$t
	ic_cmd UROCE_IP=$CM_C -- qperf -lp $port -cm1 -t 2 $CM_S $t
	"${IC_CMD[@]}" >"$out" 2>&1 </dev/null
	rc=$?
	case $t in
	*bw) re='^ +bw += +[0-9.]+ [KMG]?B/sec' ;;
	*) re='^ +latency += +[0-9.]+ [mun]?s' ;;
	esac
	bad=$(ic_error_lines "$out" | head -n 2)
	if [ $rc = 0 ] && grep -qx "$t:" "$out" && grep -Eq "$re" "$out" && [ -z "$bad" ]; then
		ic_pass "qperf.$t" "$(grep -E "$re" "$out" | sed 's/^ *//')"
	else
		ic_fail "qperf.$t" "exit $rc${bad:+, printed: $bad}"
		ic_show "client: qperf -cm1 $CM_S $t" "$out"
	fi
done
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
bad=$(ic_error_lines "$IC_TMP/qperf.server" | head -n 2)
[ -z "$bad" ] && ic_pass qperf.server "no error line" || {
	ic_fail qperf.server "printed: $bad"
	ic_show server "$IC_TMP/qperf.server"
}
ic_finish
