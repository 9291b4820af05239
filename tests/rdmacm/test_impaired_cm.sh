#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The reliable rdma_cm programs again with UROCE_IMPAIR dropping 1 % of the packets each side
# receives, CM MADs included (the CM resends them; RC retransmits the rest): rping -C 100
# with verification, ucmatose -c 10 and ib_send_bw -R. The results must be those of a clean
# network, only slower.
. "$(dirname "$0")/lib.sh"
ic_need rdmacm-utils rping ucmatose
ic_need perftest ib_send_bw
cm_enter

loss=loss=0.01,seed=${UROCE_IMPAIR_SEED:-1616}
echo "UROCE_IMPAIR=$loss on both sides"
cm_pair rping 'server ping data: rdma-ping-99: ' 'ping data: rdma-ping-99: ' UROCE_IMPAIR=$loss -- \
	rping -s -a $CM_S -p 7480 -v -V -C 100 -- rping -c -a $CM_S -p 7480 -v -V -C 100
cm_pair ucmatose '^test complete' '^test complete' UROCE_IMPAIR=$loss -- \
	ucmatose -b $CM_S -p 7481 -c 10 -C 10 -- ucmatose -s $CM_S -p 7481 -c 10 -C 10
cm_pair send_bw '^ *[0-9]+ +1000 +[0-9]+\.[0-9]+' '^ *[0-9]+ +1000 +[0-9]+\.[0-9]+' UROCE_IMPAIR=$loss -- \
	ib_send_bw -R -d uroce0 -p 18520 -n 1000 -- ib_send_bw -R -d uroce0 -p 18520 -n 1000 $CM_S
ic_finish
