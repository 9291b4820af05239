#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma_cm between two "hosts": the test's network namespace (A, the servers) and a second one
# (B, the clients) joined by a veth pair, over IPv4 and IPv6, unmodified Debian programs over
# uroce's two libraries: rping (-v -V -C 50), ucmatose (-c 4), udaddy (SIDR), ib_send_bw -R
# (perftest resolves its peer as AF_INET only), and mckey with one sender on B and two
# receivers on A (two processes, two addresses), every receiver getting all 10 datagrams.
# Unlike the loopback tests, the addresses are resolved through a real interface's routes
# and neighbours, and the packets cross it.
. "$(dirname "$0")/lib.sh"
ic_need rdmacm-utils rping ucmatose udaddy mckey
ic_need perftest ib_send_bw
cm_enter
cm_two_hosts 10.77.0.1/24 10.77.0.2/24 fd77::1/64 fd77::2/64 10.77.0.3/24 10.77.0.4/24 \
	fd77::3/64 fd77::4/64
# the kernel needs its IPv6 routes before the first resolution
sleep 1

# mckey_two NAME GROUP RECEIVER1 RECEIVER2 SENDER: two receivers on A, each with its own
# address, joined to GROUP; then a sender on B sends 10 datagrams to the group.
mckey_two()
{
	local name=$1 group=$2 r1=$3 r2=$4 snd=$5 pids=() rc i a f t0=$SECONDS
	for i in 1 2; do
		f=$IC_TMP/$name.r$i
		if [ $i = 1 ]; then a=$r1; else a=$r2; fi
		ic_cmd UROCE_IP="$a" -- mckey -m "$group" -b "$a" -C 10
		"${IC_CMD[@]}" >"$f" 2>&1 </dev/null &
		pids+=($!)
		IC_PIDS+=($!)
		cm_wait_bound $! "$a" || { ic_fail "$name" "receiver $i's uroce port never came up"; return 1; }
	done
	sleep 1 # from the bind to the join
	ic_cmd UROCE_IP="$snd" -- mckey -m "$group" -s -b "$snd" -C 10
	cm_client_ns "${IC_CMD[@]}" >"$IC_TMP/$name.s" 2>&1 </dev/null
	rc=$?
	ic_check_output "$name" sender "$IC_TMP/$name.s" $rc none >"$IC_TMP/$name.problems"
	grep -q '^test complete' "$IC_TMP/$name.s" || echo "the sender did not complete" >>"$IC_TMP/$name.problems"
	for i in 1 2; do
		wait "${pids[$((i - 1))]}"
		rc=$?
		ic_check_output "$name" "receiver $i" "$IC_TMP/$name.r$i" $rc none >>"$IC_TMP/$name.problems"
		grep -q '^test complete' "$IC_TMP/$name.r$i" ||
			echo "receiver $i did not get its 10 datagrams" >>"$IC_TMP/$name.problems"
	done
	if [ -s "$IC_TMP/$name.problems" ]; then
		ic_fail "$name" "$(tr '\n' ';' <"$IC_TMP/$name.problems")"
		for f in "$IC_TMP/$name".r1 "$IC_TMP/$name".r2 "$IC_TMP/$name".s; do ic_show "$f" "$f"; done
		return 1
	fi
	ic_pass "$name" "$((SECONDS - t0))s"
}

for fam in 4 6; do
	if [ $fam = 4 ]; then
		CM_S=10.77.0.1 CM_C=10.77.0.2 r2=10.77.0.3 group=239.1.2.3
	else
		CM_S=fd77::1 CM_C=fd77::2 r2=fd77::3 group=ff0e::1:2:3
	fi
	cm_pair rping$fam 'server ping data: rdma-ping-49: ' 'ping data: rdma-ping-49: ' -- \
		rping -s -a $CM_S -p 7470 -v -V -C 50 -- rping -c -a $CM_S -p 7470 -v -V -C 50
	cm_pair ucmatose$fam '^test complete' '^test complete' -- \
		ucmatose -b $CM_S -p 7471 -c 4 -- ucmatose -s $CM_S -p 7471 -c 4
	cm_pair udaddy$fam '^test complete' '^test complete' -- udaddy -b $CM_S -- udaddy -s $CM_S
	mckey_two mckey$fam $group $CM_S $r2 $CM_C
done
CM_S=10.77.0.1 CM_C=10.77.0.2
cm_pair send_bw_cm4 '^ 65536 +200 ' '^ 65536 +200 ' -- \
	ib_send_bw -R -d uroce0 -p 7472 -s 65536 -n 200 -- \
	ib_send_bw -R -d uroce0 -p 7472 -s 65536 -n 200 $CM_S
ic_finish
