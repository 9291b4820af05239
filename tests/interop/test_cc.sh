#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Congestion control between two unmodified programs (docs/congestion.md): ib_write_bw over
# uroce between 127.0.18.1 and 127.0.18.2, both with UROCE_IMPAIR=ce=P, which marks CE the
# ECN-capable packets each side receives, as a congested switch would.
#  - UROCE_CC=dcqcn: the data and ACKs are ECN-capable, so marks happen; the receiver of the
#    WRITEs sends CNPs (np_cnp_sent) and the writer's DCQCN handles them (rp_cnp_handled),
#    and the transfer completes with every iteration reported;
#  - UROCE_CC=none: nothing is ECN-capable, so nothing is marked and no CNP is sent.
# The counters are read from UROCE_STATS=1's report at each program's exit.
. "$(dirname "$0")/lib.sh"
ic_need perftest ib_write_bw

s=127.0.18.1
c=127.0.18.2
n=400

run() # NAME PORT UROCE_CC
{
	ic_pair "$1" perftest:$n perftest:$n $s $c "$2" UROCE_STATS=1 UROCE_CC="$3" \
		UROCE_IMPAIR=ce=0.01,seed=5 -- ib_write_bw -d uroce0 -x 0 -n $n -s 65536
}

if run dcqcn 19190 dcqcn; then
	srv=$IC_TMP/dcqcn.server cli=$IC_TMP/dcqcn.client
	marked=$(ic_counter "$srv" udp_impair_ce_marked) sent=$(ic_counter "$srv" np_cnp_sent)
	handled=$(ic_counter "$cli" rp_cnp_handled)
	echo "dcqcn: the receiver marked $marked packets CE and sent $sent CNPs; the writer handled $handled"
	if [ "$marked" -gt 0 ] && [ "$sent" -gt 0 ] && [ "$handled" -gt 0 ] &&
		[ "$(ic_counter "$srv" np_ecn_marked_roce_packets)" -ge "$sent" ]; then
		ic_pass dcqcn.cnps "$sent CNPs sent, $handled handled"
	else
		ic_fail dcqcn.cnps "marked $marked, CNPs sent $sent, handled $handled"
		ic_show server "$srv"
		ic_show client "$cli"
	fi
fi
if run none 19191 none; then
	srv=$IC_TMP/none.server cli=$IC_TMP/none.client
	if [ "$(ic_counter "$srv" udp_impair_ce_marked)" = 0 ] && [ "$(ic_counter "$srv" np_cnp_sent)" = 0 ] &&
		[ "$(ic_counter "$cli" rp_cnp_handled)" = 0 ]; then
		ic_pass none.no_marks "nothing ECN-capable, nothing marked, no CNP"
	else
		ic_fail none.no_marks "marks or CNPs without congestion control"
		ic_show server "$srv"
	fi
fi
ic_finish
