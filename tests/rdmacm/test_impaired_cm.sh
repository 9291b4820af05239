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

# A server whose peer has finished may still wait for a disconnection: when the client's last
# DREQ or DREP is lost and its process has ended, nobody answers the server's resends (a
# user-space CM ends with its process, where the kernel's answers from timewait after the
# process is gone), and the server's DREQ_ERROR comes after 15 resends 4.3 s apart. Such a
# server, once its data checked, is stopped with a note (CM_LINGER; docs/rdmacm.md "Open").
CM_LINGER="the peer's process ended with a DREQ or DREP lost"
loss=loss=0.01,seed=${UROCE_IMPAIR_SEED:-1616}
echo "UROCE_IMPAIR=$loss on both sides"
cm_pair rping 'server ping data: rdma-ping-99: ' 'ping data: rdma-ping-99: ' UROCE_IMPAIR=$loss -- \
	rping -s -a $CM_S -p 7480 -v -V -C 100 -- rping -c -a $CM_S -p 7480 -v -V -C 100
cm_pair ucmatose '^data transfers complete' '^test complete' UROCE_IMPAIR=$loss -- \
	ucmatose -b $CM_S -p 7481 -c 10 -C 10 -- ucmatose -s $CM_S -p 7481 -c 10 -C 10
cm_pair send_bw '^ *[0-9]+ +1000 +[0-9]+\.[0-9]+' '^ *[0-9]+ +1000 +[0-9]+\.[0-9]+' UROCE_IMPAIR=$loss -- \
	ib_send_bw -R -d uroce0 -p 18520 -n 1000 -- ib_send_bw -R -d uroce0 -p 18520 -n 1000 $CM_S
ic_finish
