#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rdma_cm API of uroce's librdmacm.so.1 in one process (tests/rdmacm/rdmacm_api.c: address
# info, devices, port spaces, EADDRINUSE, ADDR_ERROR for an unreachable address, REJECTED
# without a listener, REJECTED 8 for a REQ before the listen and then a retry with new objects
# that connects, rdma_reject's private data, a connection with data and its
# disconnection, ECE and datagram rsockets refused), in a network namespace of its own.
. "$(dirname "$0")/lib.sh"
cm_enter
prog=$UROCE_BUILD/tests/rdmacm_api
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
ic_cmd UROCE_IP=$CM_S -- "$prog"
"${IC_CMD[@]}" >"$IC_TMP/api.out" 2>&1 </dev/null
rc=$?
cat "$IC_TMP/api.out"
if [ $rc = 0 ] && grep -q '^0 failures$' "$IC_TMP/api.out" && ! grep -q '^FAIL' "$IC_TMP/api.out"; then
	ic_pass api "$(grep -c '^ok ' "$IC_TMP/api.out") checks"
else
	ic_fail api "exit $rc"
fi
ic_finish
