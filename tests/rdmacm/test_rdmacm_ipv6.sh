#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma_cm over IPv6: rping (-v -V -C 50), ucmatose (-c 4) and udaddy, unmodified, between
# fd00::1 (server) and fd00::2 (client) on the lo of a network namespace of its own: the
# addresses resolved through the kernel's IPv6 routes, the IP CM header and the path of IPv6,
# the CM MADs over IPv6 (Annex A17.6.1).
. "$(dirname "$0")/lib.sh"
ic_need rdmacm-utils rping ucmatose udaddy
cm_enter
for a in fd00::1 fd00::2; do
	ip -6 addr add $a/128 dev lo nodad || { echo "FAIL: cannot add $a"; exit 1; }
done
CM_S=fd00::1
CM_C=fd00::2
cm_pair rping6 'server ping data: rdma-ping-49: ' 'ping data: rdma-ping-49: ' -- \
	rping -s -a $CM_S -p 7470 -v -V -C 50 -- rping -c -a $CM_S -p 7470 -v -V -C 50
cm_pair ucmatose6 '^test complete' '^test complete' -- \
	ucmatose -b $CM_S -p 7471 -c 4 -- ucmatose -s $CM_S -p 7471 -c 4
cm_pair udaddy6 '^test complete' '^test complete' -- udaddy -b $CM_S -- udaddy -s $CM_S
ic_finish
