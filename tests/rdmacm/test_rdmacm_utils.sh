#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's rdmacm-utils, unmodified, over uroce's librdmacm.so.1 between 127.0.0.1 (server)
# and 127.0.0.2 (client) in a network namespace of its own:
#  - rping -v -V -C 100: 100 RDMA READ/WRITE ping-pongs, each verified by rping (-V); the
#    exchange captured: RoCEv2 only, every ICRC good, CM MADs over QP1;
#  - ucmatose -c 10: ten connections with data on one listener ("test complete"); again with
#    -m, the ids moved to a new event channel (rdma_migrate_id) before disconnecting;
#  - udaddy: UD, the QPN and Q_Key resolved by SIDR ("test complete");
#  - rdma_server / rdma_client: rdma_getaddrinfo, rdma_create_ep, rdma_get_request ("end 0");
#  - mckey: a receiver and a sender joined to 239.1.2.3 (the join at once, the receiver's QP
#    attached by the library), ten datagrams through the group ("test complete");
#  - misuse: a connection to a port nobody listens on is REJECTED; a second server on the
#    address and port of a running one fails with EADDRINUSE.
#  - rping between 10.11.0.1 and 10.11.0.2, two addresses of one veth: the client's route
#    to the server goes through lo.
. "$(dirname "$0")/lib.sh"
ic_need rdmacm-utils rping ucmatose udaddy rdma_server rdma_client mckey
ic_need tshark tshark dumpcap
cm_enter

cap=$IC_TMP/rping.pcap
hpc_capture_start "$cap"
cm_pair rping 'server ping data: rdma-ping-99: ' 'ping data: rdma-ping-99: ' -- \
	rping -s -a $CM_S -p 7470 -v -V -C 100 -- rping -c -a $CM_S -p 7470 -v -V -C 100
hpc_capture_stop "$cap"
n=$(grep -c '^ping data: rdma-ping-' "$IC_TMP/rping.client")
[ "$n" = 100 ] && ic_pass rping.count "100 pings verified" || ic_fail rping.count "$n pings, not 100"
cm_check_cm_capture rping "$cap"

cm_pair ucmatose '^test complete' '^test complete' -- \
	ucmatose -b $CM_S -p 7471 -c 10 -C 10 -- ucmatose -s $CM_S -p 7471 -c 10 -C 10
cm_pair ucmatose_migrate '^test complete' 'migrating to new event channel' -- \
	ucmatose -b $CM_S -p 7475 -c 4 -m -- ucmatose -s $CM_S -p 7475 -c 4 -m
cm_pair udaddy '^test complete' '^test complete' -- udaddy -b $CM_S -- udaddy -s $CM_S
cm_pair rdma_server_client '^rdma_server: end 0' '^rdma_client: end 0' -- \
	rdma_server -s $CM_S -p 7472 -- rdma_client -s $CM_S -p 7472
cm_pair mckey '^test complete' '^test complete' -- \
	mckey -m 239.1.2.3 -b $CM_S -C 10 -- mckey -m 239.1.2.3 -s -b $CM_C -C 10

# Misuse. A client to port 7474, where nothing listens (the server listens on 7473): the
# server's CM rejects the REQ (invalid Service ID) and rping reports the rejection.
ic_cmd UROCE_IP=$CM_S -- rping -s -a $CM_S -p 7473 -C 1
"${IC_CMD[@]}" >"$IC_TMP/busy.server" 2>&1 </dev/null &
spid=$!
IC_PIDS+=("$spid")
if cm_wait_bound "$spid" $CM_S; then
	sleep 0.5
	ic_cmd UROCE_IP=$CM_C -- rping -c -a $CM_S -p 7474 -C 1
	"${IC_CMD[@]}" >"$IC_TMP/nolistener.client" 2>&1 </dev/null
	rc=$?
	if [ $rc != 0 ] && [ $rc != 124 ] && grep -q 'RDMA_CM_EVENT_REJECTED' "$IC_TMP/nolistener.client"; then
		ic_pass no_listener "exit $rc: $(grep -m1 REJECTED "$IC_TMP/nolistener.client")"
	else
		ic_fail no_listener "exit $rc, no RDMA_CM_EVENT_REJECTED"
		ic_show client "$IC_TMP/nolistener.client"
	fi
	# A second server on 127.0.0.1 port 7473. ucmatose, not rping: rping starts its event
	# thread before it binds, and on this error path destroys the channel that the thread
	# may not have started waiting on yet, so the thread can pass rdma_get_cm_event a freed
	# channel (rping's race, as with rdma-core's library; AddressSanitizer reports it).
	ic_cmd UROCE_IP=$CM_S -- ucmatose -b $CM_S -p 7473 -c 1
	"${IC_CMD[@]}" >"$IC_TMP/inuse.server" 2>&1 </dev/null
	rc=$?
	if [ $rc != 0 ] && [ $rc != 124 ] && grep -q 'Address already in use' "$IC_TMP/inuse.server"; then
		ic_pass in_use "exit $rc: $(grep -m1 'in use' "$IC_TMP/inuse.server")"
	else
		ic_fail in_use "exit $rc, no 'Address already in use'"
		ic_show server "$IC_TMP/inuse.server"
	fi
else
	ic_fail misuse "the first server's port never came up"
	ic_show server "$IC_TMP/busy.server"
fi
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null

# Two addresses of one veth (libfabric's tests place their processes so): the kernel routes
# the client's packets to 10.11.0.1 through lo, and its source address is found on the
# interface that holds the destination, as Linux's rdma_set_src_addr_rcu does; the client
# resolves the server's address with no source (rping -c without -I).
if ip link add name cm0 type veth peer name cm1 && ip link set cm0 up && ip link set cm1 up &&
	ip addr add 10.11.0.1/24 dev cm0 && ip addr add 10.11.0.2/24 dev cm0; then
	CM_S=10.11.0.1 CM_C=10.11.0.2 cm_pair rping_veth 'server ping data: rdma-ping-9: ' \
		'ping data: rdma-ping-9: ' -- rping -s -a 10.11.0.1 -p 7476 -v -V -C 10 -- \
		rping -c -a 10.11.0.1 -p 7476 -v -V -C 10
else
	ic_fail rping_veth "cannot make the veth pair cm0/cm1 with 10.11.0.1 and 10.11.0.2"
fi
ic_finish
