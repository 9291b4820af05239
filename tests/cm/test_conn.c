/* SPDX-License-Identifier: MIT */
/* The connected service of the CM, message by message and state by state: establishment,
 * the fields and TIDs of every message, timeouts and retries with their exact timing,
 * duplicates, timewait, stale connections, REJ and MRA, destroy in every state, listeners,
 * the API's errors and the header checks. Tests are named after the clause they check:
 * CA17-xx numbers are verified against the Annex A17 text; IBA 12.x section numbers are not
 * (the base specification was not available: they follow wire/cm.h, see docs/cm.md "Tests").
 * Every expectation about what Linux does cites drivers/infiniband/core/cm.c. */
#include "harness.h"

#define T_REQ (2 * uroce_cm_time_ns(18) + uroce_cm_time_ns(20)) /* REQ resend interval */
#define T_REP uroce_cm_time_ns(20)      /* REP and passive DREQ resend interval */
#define T_TIMEWAIT uroce_cm_time_ns(19) /* the QPs' local ACK timeout */
#define LIMIT (1000 * H_SEC)

static bool established(struct h_net *net, void *arg)
{
	struct uroce_cm_id *a = arg, *b = h_accepted(&net->node[1]);
	return uroce_cm_id_state(a) == UROCE_CM_ESTABLISHED && b &&
	       uroce_cm_id_state(b) == UROCE_CM_ESTABLISHED;
}

/* A connection from node 0 to node 1's listener, established; returns node 0's ID. */
static struct uroce_cm_id *connect_pair(struct h_net *net, struct uroce_cm_id **listener)
{
	struct uroce_cm_id *l = h_listen(net, 1, H_SID), *a = h_connect(net, 0, 1);
	assert_true(h_run(net, LIMIT, established, a));
	if (listener)
		*listener = l;
	return a;
}

/* ---- Establishment ---- */

static void test_IBA12_9_establish(void **state)
{
	(void)state;
	for (int v6 = 0; v6 <= 1; v6++) {
		struct h_net net;
		struct uroce_cm_id *l;
		h_init(&net, 2, v6, NULL);
		struct uroce_cm_id *a = connect_pair(&net, &l);
		struct h_node *na = &net.node[0], *nb = &net.node[1];

		/* One REQ, one REP, one RTU: nothing resent on a perfect network. */
		assert_int_equal(na->sent[UROCE_CM_ATTR_REQ], 1);
		assert_int_equal(nb->sent[UROCE_CM_ATTR_REP], 1);
		assert_int_equal(na->sent[UROCE_CM_ATTR_RTU], 1);
		assert_int_equal(h_counter(na, UROCE_CM_CNT_tx_retries), 0);
		/* The events, in order, exactly once. */
		assert_int_equal(na->nev, 1);
		assert_int_equal(na->ev[0].type, UROCE_CM_EV_REP_RECEIVED);
		assert_ptr_equal(na->ev[0].id, a);
		assert_int_equal(nb->nev, 2);
		assert_int_equal(nb->ev[0].type, UROCE_CM_EV_REQ_RECEIVED);
		assert_ptr_equal(nb->ev[0].listen_id, l);
		assert_int_equal(nb->ev[0].msg.attr, UROCE_CM_ATTR_REQ);
		assert_true(uroce_io_addr_equal(&nb->ev[0].peer, &na->addr));
		assert_true(uroce_io_addr_equal(&nb->ev[0].local, &nb->addr));
		assert_int_equal(nb->ev[1].type, UROCE_CM_EV_RTU_RECEIVED);
		assert_ptr_equal(nb->ev[1].id, nb->ev[0].id);
		/* Three messages, each one way: 3 latencies. */
		assert_int_equal(net.now, 3 * H_LATENCY_NS);
		/* Nothing pending: no timer runs in ESTABLISHED. */
		assert_int_equal(uroce_cm_next_deadline(na->cm), UROCE_CM_NEVER);
		assert_int_equal(uroce_cm_next_deadline(nb->cm), UROCE_CM_NEVER);
		h_check_accounting(na);
		h_check_accounting(nb);
		h_fini(&net);
	}
}

/* What each side's QP needs (Linux's ib_cm_init_qp_attr): the peer's QPN and PSN, the
 * resources swapped between REQ and REP, the path seen from each side. */
static void test_IBA12_7_negotiated_values(void **state)
{
	struct h_net net;
	struct uroce_cm_conn ca, cb;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL), *b = h_accepted(&net.node[1]);

	assert_int_equal(uroce_cm_id_query(a, &ca), 0);
	assert_int_equal(uroce_cm_id_query(b, &cb), 0);
	assert_int_equal(ca.local_comm_id, cb.remote_comm_id);
	assert_int_equal(cb.local_comm_id, ca.remote_comm_id);
	/* each side's IDs carry its prefix (its slot, docs/multiprocess.md) */
	assert_int_equal(ca.local_comm_id >> 24, 1);
	assert_int_equal(cb.local_comm_id >> 24, 2);
	assert_int_equal(ca.local_qpn, H_QPN(0));
	assert_int_equal(ca.remote_qpn, H_QPN(1));
	assert_int_equal(cb.local_qpn, H_QPN(1));
	assert_int_equal(cb.remote_qpn, H_QPN(0));
	/* Each QP's rq_psn is its own starting PSN, its sq_psn the peer's. */
	assert_int_equal(ca.rq_psn, H_PSN(0));
	assert_int_equal(ca.sq_psn, H_PSN(1));
	assert_int_equal(cb.rq_psn, H_PSN(1));
	assert_int_equal(cb.sq_psn, H_PSN(0));
	/* REQ: responder resources 4, initiator depth 2; REP: 2 and 4. */
	assert_int_equal(ca.initiator_depth, 2);
	assert_int_equal(ca.responder_resources, 4);
	assert_int_equal(cb.initiator_depth, 4);
	assert_int_equal(cb.responder_resources, 2);
	assert_int_equal(ca.remote_ca_guid, H_GUID(1));
	assert_int_equal(cb.remote_ca_guid, H_GUID(0));
	assert_int_equal(ca.service_id, H_SID);
	assert_int_equal(cb.service_id, H_SID);
	assert_int_equal(ca.path_mtu, 3);
	assert_int_equal(cb.path_mtu, 3);
	assert_int_equal(cb.retry_count, 7);
	assert_int_equal(cb.rnr_retry_count, 7);
	assert_int_equal(ca.rnr_retry_count, 7);
	/* ACK timeout: packet life time 18 and ACK delay 15 give 19 on both sides (the REQ's
	 * Local ACK Timeout; cm_ack_timeout(15, 18) after the REP). */
	assert_int_equal(ca.ack_timeout, 19);
	assert_int_equal(cb.ack_timeout, 19);
	/* The passive side's path is the active side's, reversed. */
	assert_true(uroce_io_addr_equal(&cb.path.local, &net.node[1].addr));
	assert_true(uroce_io_addr_equal(&cb.path.remote, &net.node[0].addr));
	assert_true(uroce_io_addr_equal(&cb.peer, &net.node[0].addr));
	assert_int_equal(cb.path.flow_label, 0xBFDFF);
	assert_int_equal(cb.path.hop_limit, 64);
	assert_int_equal(cb.path.packet_life_time, 18);
	assert_int_equal(cb.path.pkey, 0xFFFF);
	assert_int_equal(cb.transport, UROCE_CM_TRANSPORT_RC);
	h_fini(&net);
}

/* Every message's fields and TID (Linux's cm_format_*: a REQ, DREQ or SIDR_REQ starts a TID
 * from the agent's number and the comm ID; answers carry the TID of what they answer). */
static void test_IBA12_6_message_fields_and_tids(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m, rep;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	struct uroce_cm_conn ca;
	assert_int_equal(uroce_cm_id_query(a, &ca), 0);

	assert_true(h_take(&net, 0, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_REQ);
	/* The common header: version 1, class 0x07, class version 2, Send. */
	assert_int_equal(m.data[0], 1);
	assert_int_equal(m.data[1], 7);
	assert_int_equal(m.data[2], 2);
	assert_int_equal(m.data[3], 3);
	uint64_t tid = h_tid(&m);
	assert_int_equal(tid, (2ull << 32) | ca.local_comm_id);
	struct uroce_cm_msg q = h_decode(&m);
	assert_int_equal(q.req.local_comm_id, ca.local_comm_id);
	assert_int_equal(q.req.service_id, H_SID);
	assert_int_equal(q.req.local_ca_guid, H_GUID(0));
	assert_int_equal(q.req.local_qpn, H_QPN(0));
	assert_int_equal(q.req.starting_psn, H_PSN(0));
	assert_int_equal(q.req.remote_cm_resp_timeout, 20);
	assert_int_equal(q.req.local_cm_resp_timeout, 20);
	assert_int_equal(q.req.max_cm_retries, 15);
	assert_int_equal(q.req.pkey, 0xFFFF);
	assert_int_equal(q.req.primary.local_ack_timeout, 19);
	assert_int_equal(q.req.primary.hop_limit, 64);
	assert_int_equal(q.req.primary.flow_label, 0xBFDFF);
	static const uint8_t gid_b[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, 2};
	assert_memory_equal(q.req.primary.remote_gid, gid_b, 16);
	/* No alternate path. */
	assert_int_equal(q.req.alternate.local_lid, 0);
	assert_int_equal(q.req.alternate.hop_limit, 0);
	assert_true(uroce_io_addr_equal(&m.peer, &net.node[1].addr));
	assert_int_equal(m.traffic_class, 0);
	assert_int_equal(m.hop_limit, 64);
	assert_int_equal(m.flow_label, 0xBFDFF);

	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REQ_RECEIVED);
	struct uroce_cm_rep_param rp = h_rep(1);
	assert_int_equal(uroce_cm_send_rep(ev.id, &rp, net.now), 0);
	struct uroce_cm_id *b = ev.id;
	assert_true(h_take(&net, 1, &rep));
	assert_int_equal(h_attr(&rep), UROCE_CM_ATTR_REP);
	assert_int_equal(h_tid(&rep), tid);
	struct uroce_cm_msg r = h_decode(&rep);
	assert_int_equal(r.rep.remote_comm_id, ca.local_comm_id);
	assert_int_equal(r.rep.local_qpn, H_QPN(1));
	assert_int_equal(r.rep.starting_psn, H_PSN(1));
	assert_int_equal(r.rep.target_ack_delay, 15);
	assert_int_equal(r.rep.rnr_retry_count, 7);
	assert_int_equal(r.rep.local_ca_guid, H_GUID(1));
	assert_int_equal(r.rep.failover_accepted, 0);
	assert_true(uroce_io_addr_equal(&rep.peer, &net.node[0].addr));
	assert_int_equal(rep.hop_limit, 64);

	h_give(&net, 0, &rep);
	assert_true(h_event(&net, 0, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REP_RECEIVED);
	assert_int_equal(uroce_cm_send_rtu(a, "rtu", 3), 0);
	assert_true(h_take(&net, 0, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_RTU);
	assert_int_equal(h_tid(&m), tid);
	struct uroce_cm_msg u = h_decode(&m);
	assert_int_equal(u.rtu.local_comm_id, ca.local_comm_id);
	assert_int_equal(u.rtu.remote_comm_id, r.rep.local_comm_id);
	assert_memory_equal(u.rtu.private_data, "rtu", 3);
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_RTU_RECEIVED);
	assert_memory_equal(ev.msg.rtu.private_data, "rtu", 3);

	/* The passive side disconnects: its DREQ starts a TID of its own. */
	assert_int_equal(uroce_cm_send_dreq(b, "bye", 3, net.now), 0);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_DREQ);
	uint64_t dtid = h_tid(&m);
	assert_int_equal(dtid, (2ull << 32) | r.rep.local_comm_id);
	struct uroce_cm_msg d = h_decode(&m);
	assert_int_equal(d.dreq.remote_qpn_eecn, H_QPN(0));
	assert_int_equal(d.dreq.remote_comm_id, ca.local_comm_id);
	h_give(&net, 0, &m);
	assert_true(h_event(&net, 0, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_DREQ_RECEIVED);
	assert_memory_equal(ev.msg.dreq.private_data, "bye", 3);
	assert_int_equal(uroce_cm_send_drep(a, NULL, 0, net.now), 0);
	assert_true(h_take(&net, 0, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_DREP);
	assert_int_equal(h_tid(&m), dtid);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_TIMEWAIT);
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_DREP_RECEIVED);
	assert_int_equal(uroce_cm_id_state(b), UROCE_CM_TIMEWAIT);
	h_fini(&net);
}

/* ---- Annex A17.6.1 ---- */

/* Linux's cm_format_req: LIDs 0xFFFF (permissive) for a routed path, the path's LIDs (0 on
 * RoCE) with Subnet Local for a path of hop limit 1; the fields are reserved either way. */
static void test_CA17_34_req_lids_as_linux_writes_them(void **state)
{
	(void)state;
	for (int hop = 1; hop <= 64; hop += 63) {
		struct h_net net;
		struct uroce_cm_mad m;
		struct uroce_cm_id *a;
		h_init(&net, 2, false, NULL);
		struct uroce_cm_req_param p = h_req(&net, 0, 1);
		p.path.hop_limit = (uint8_t)hop;
		assert_int_equal(uroce_cm_create_id(net.node[0].cm, NULL, &a), 0);
		assert_int_equal(uroce_cm_send_req(a, &p, 0), 0);
		assert_true(h_take(&net, 0, &m));
		struct uroce_cm_msg q = h_decode(&m);
		uint16_t lid = hop > 1 ? 0xFFFF : 0;
		assert_int_equal(q.req.primary.local_lid, lid);
		assert_int_equal(q.req.primary.remote_lid, lid);
		assert_int_equal(q.req.primary.subnet_local, hop <= 1);
		h_fini(&net);
	}
}

/* CA17-34: the four LID fields of a REQ are reserved between RoCEv2 ports, ignored on receipt
 * and never checked: a REQ with any LIDs is taken exactly as one with the usual ones (the
 * same REP, byte for byte, from an identical CM). */
static void test_CA17_34_req_lids_ignored(void **state)
{
	uint8_t reps[2][UROCE_MAD_LEN];
	(void)state;
	for (int variant = 0; variant < 2; variant++) {
		struct h_net net;
		struct uroce_cm_mad m;
		struct uroce_cm_event ev;
		h_init(&net, 2, false, NULL);
		h_listen(&net, 1, H_SID);
		h_connect(&net, 0, 1);
		assert_true(h_take(&net, 0, &m));
		if (variant) {
			/* Primary local/remote LID at MAD data bytes 52 and 54, alternate at 96 and
			 * 98 (IBA 12.6.5). */
			put_be16(m.data + 24 + 52, 0x0001);
			put_be16(m.data + 24 + 54, 0xBEEF);
			put_be16(m.data + 24 + 96, 0x1234);
			put_be16(m.data + 24 + 98, 0xC000);
		}
		h_give(&net, 1, &m);
		assert_true(h_event(&net, 1, &ev));
		assert_int_equal(ev.type, UROCE_CM_EV_REQ_RECEIVED);
		struct uroce_cm_rep_param rp = h_rep(1);
		assert_int_equal(uroce_cm_send_rep(ev.id, &rp, 0), 0);
		assert_true(h_take(&net, 1, &m));
		memcpy(reps[variant], m.data, UROCE_MAD_LEN);
		assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_rx_handled), 1);
		h_fini(&net);
	}
	assert_memory_equal(reps[0], reps[1], UROCE_MAD_LEN);
}

/* CA17-35: a REJ between RoCEv2 ports never carries reason 13 (Primary Remote Port LID
 * rejected) or 19 (Alternate Remote Port LID rejected). */
static void test_CA17_35_rej_lid_reasons_refused(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(uroce_cm_send_rej(ev.id, UROCE_CM_REJ_INVALID_LID, NULL, 0, NULL, 0, 0),
			 UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_rej(ev.id, UROCE_CM_REJ_INVALID_ALT_LID, NULL, 0, NULL, 0, 0),
			 UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_rej(a, UROCE_CM_REJ_INVALID_LID, NULL, 0, NULL, 0, 0),
			 UROCE_EINVAL);
	/* Nothing was sent, nothing changed. */
	assert_false(h_take(&net, 1, &m));
	assert_int_equal(uroce_cm_id_state(ev.id), UROCE_CM_REQ_RCVD);
	/* Any other reason goes out. */
	assert_int_equal(uroce_cm_send_rej(ev.id, UROCE_CM_REJ_INVALID_GID, NULL, 0, NULL, 0, 0), 0);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_decode(&m).rej.reason, UROCE_CM_REJ_INVALID_GID);
	h_fini(&net);
}

/* LAP and APR are dropped, as Linux drops them on a RoCE port (Annex A17 CA17-36 and
 * CA17-37 only say how their LIDs and status codes would look). */
static void test_CA17_36_lap_apr_not_supported(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL);
	struct uroce_cm_conn ca;
	assert_int_equal(uroce_cm_id_query(a, &ca), 0);
	for (uint16_t attr = UROCE_CM_ATTR_LAP; attr <= UROCE_CM_ATTR_APR; attr++) {
		struct uroce_cm_msg msg = {.attr = attr};
		struct uroce_mad_hdr h = {.base_version = 1, .mgmt_class = 7, .class_version = 2,
					  .method = 3, .attr_id = attr};
		msg.lap.local_comm_id = ca.remote_comm_id;
		msg.lap.remote_comm_id = ca.local_comm_id;
		memset(&m, 0, sizeof(m));
		uroce_mad_hdr_encode(&h, m.data, sizeof(m.data));
		uroce_cm_encode(&msg, m.data + 24, UROCE_CM_DATA_LEN);
		m.peer = net.node[1].addr;
		m.local = net.node[0].addr;
		h_inject(&net, 0, &m);
	}
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_drop_lap_apr), 2);
	assert_false(h_take(&net, 0, &m));
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_ESTABLISHED);
	h_check_accounting(&net.node[0]);
	h_fini(&net);
}

/* ---- Disconnection and timewait ---- */

static bool both_idle(struct h_net *net, void *arg)
{
	struct uroce_cm_id *a = arg, *b = h_accepted(&net->node[1]);
	return uroce_cm_id_state(a) == UROCE_CM_IDLE && uroce_cm_id_state(b) == UROCE_CM_IDLE;
}

/* DREQ, DREP, then timewait for the QP's local ACK timeout on both sides (Linux's
 * cm_enter_timewait: cm_convert_to_ms(av.timeout); exact 4.096 us x 2^19 here). */
static void test_IBA12_9_disconnect_and_timewait(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL);
	struct h_node *na = &net.node[0], *nb = &net.node[1];
	uint64_t t0 = net.now;

	assert_int_equal(uroce_cm_send_dreq(a, NULL, 0, net.now), 0);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_DREQ_SENT);
	assert_true(h_run(&net, LIMIT, both_idle, a));
	const struct uroce_cm_event *dreq = h_last(nb, UROCE_CM_EV_DREQ_RECEIVED);
	const struct uroce_cm_event *drep = h_last(na, UROCE_CM_EV_DREP_RECEIVED);
	assert_non_null(dreq);
	assert_non_null(drep);
	/* Node 1 entered timewait when it sent the DREP (t0 + 1 latency), node 0 when it got it
	 * (t0 + 2 latencies); each left it exactly one timewait later. */
	const struct uroce_cm_event *exit_a = h_last(na, UROCE_CM_EV_TIMEWAIT_EXIT);
	const struct uroce_cm_event *exit_b = h_last(nb, UROCE_CM_EV_TIMEWAIT_EXIT);
	assert_non_null(exit_a);
	assert_non_null(exit_b);
	assert_int_equal(na->at[exit_a - na->ev], t0 + 2 * H_LATENCY_NS + T_TIMEWAIT);
	assert_int_equal(nb->at[exit_b - nb->ev], t0 + H_LATENCY_NS + T_TIMEWAIT);
	assert_int_equal(h_counter(na, UROCE_CM_CNT_timewait_entered), 1);
	assert_int_equal(h_counter(nb, UROCE_CM_CNT_timewait_entered), 1);
	assert_int_equal(uroce_cm_next_deadline(na->cm), UROCE_CM_NEVER);
	/* An ID back in IDLE connects again. */
	struct uroce_cm_req_param p = h_req(&net, 0, 1);
	assert_int_equal(uroce_cm_send_req(a, &p, net.now), 0);
	h_fini(&net);
}

/* Both sides disconnect at once: each DREQ finds the other in DREQ_SENT, each side answers
 * (Linux's cm_dreq_handler takes a DREQ in DREQ_SENT), both end in timewait. */
static void test_IBA12_9_simultaneous_disconnect(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL), *b = h_accepted(&net.node[1]);
	assert_int_equal(uroce_cm_send_dreq(a, NULL, 0, net.now), 0);
	assert_int_equal(uroce_cm_send_dreq(b, NULL, 0, net.now), 0);
	assert_true(h_run(&net, LIMIT, both_idle, a));
	for (int i = 0; i < 2; i++) {
		assert_int_equal(h_count(&net.node[i], UROCE_CM_EV_DREQ_RECEIVED), 1);
		assert_int_equal(h_count(&net.node[i], UROCE_CM_EV_TIMEWAIT_EXIT), 1);
		assert_int_equal(h_count(&net.node[i], UROCE_CM_EV_DREQ_ERROR), 0);
		h_check_accounting(&net.node[i]);
	}
	h_fini(&net);
}

/* ---- Timeouts: a peer that disappears ---- */

static bool has_event(struct h_net *net, void *arg)
{
	const int *want = arg; /* node, event type */
	return h_count(&net->node[want[0]], (enum uroce_cm_event_type)want[1]) > 0;
}

/* The REQ goes 1 + max_cm_retries times, T_REQ apart (Linux's ib_send_cm_req and the MAD
 * layer's retries), then REQ_ERROR and IDLE. */
static void test_IBA12_9_req_timeout_peer_gone(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	net.node[1].down = true;
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	int want[2] = {0, UROCE_CM_EV_REQ_ERROR};
	assert_true(h_run(&net, LIMIT, has_event, want));
	struct h_node *na = &net.node[0];
	assert_int_equal(na->nev, 1);
	assert_int_equal(na->at[0], 16 * T_REQ);
	assert_int_equal(na->sent[UROCE_CM_ATTR_REQ], 16);
	assert_int_equal(h_counter(na, UROCE_CM_CNT_tx_retries), 15);
	assert_int_equal(h_counter(na, UROCE_CM_CNT_tx_timeouts), 1);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	assert_int_equal(uroce_cm_next_deadline(na->cm), UROCE_CM_NEVER);
	h_fini(&net);
}

static bool down_on_req(void *ctx, struct h_node *n, const struct uroce_cm_event *ev)
{
	struct h_net *net = ctx;
	(void)n;
	if (ev->type == UROCE_CM_EV_REQ_RECEIVED)
		net->node[0].down = true; /* after node 1 answers: the policy still runs */
	return false;
}

/* The REP goes 1 + the REQ's max_cm_retries times, one REQ sender's response timeout apart,
 * then REP_ERROR (Linux's cm_process_send_error). */
static void test_IBA12_9_rep_timeout_peer_gone(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	net.on_event = down_on_req;
	net.ctx = &net;
	h_listen(&net, 1, H_SID);
	h_connect(&net, 0, 1);
	int want[2] = {1, UROCE_CM_EV_REP_ERROR};
	assert_true(h_run(&net, LIMIT, has_event, want));
	struct h_node *nb = &net.node[1];
	assert_int_equal(nb->sent[UROCE_CM_ATTR_REP], 16);
	assert_int_equal(nb->at[nb->nev - 1], H_LATENCY_NS + 16 * T_REP);
	assert_int_equal(uroce_cm_id_state(h_accepted(nb)), UROCE_CM_IDLE);
	h_fini(&net);
}

/* A DREQ to a peer that is gone: resent, then DREQ_ERROR and timewait anyway. */
static void test_IBA12_9_dreq_timeout_peer_gone(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL);
	uint64_t t0 = net.now;
	net.node[1].down = true;
	assert_int_equal(uroce_cm_send_dreq(a, NULL, 0, net.now), 0);
	int want[2] = {0, UROCE_CM_EV_TIMEWAIT_EXIT};
	assert_true(h_run(&net, LIMIT, has_event, want));
	struct h_node *na = &net.node[0];
	const struct uroce_cm_event *err = h_last(na, UROCE_CM_EV_DREQ_ERROR);
	assert_non_null(err);
	assert_int_equal(na->sent[UROCE_CM_ATTR_DREQ], 16);
	assert_int_equal(na->at[err - na->ev], t0 + 16 * T_REQ);
	assert_int_equal(na->at[na->nev - 1], t0 + 16 * T_REQ + T_TIMEWAIT);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	h_fini(&net);
}

/* ---- Duplicates ---- */

/* A REQ again (Linux's cm_dup_req_handler): ignored while the owner decides (REQ_RCVD), the
 * MRA again once one was sent, the REP again once accepted (uroce answers at once where
 * Linux waits for its REP timer), nothing once established. */
static void test_IBA12_9_duplicate_req(void **state)
{
	struct h_net net;
	struct uroce_cm_mad req, m, m2;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &req));
	h_give(&net, 1, &req);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_id *b = ev.id;

	h_give(&net, 1, &req); /* REQ_RCVD: nothing */
	assert_false(h_take(&net, 1, &m));
	assert_false(h_event(&net, 1, &ev));
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_dup_req), 1);

	assert_int_equal(uroce_cm_send_mra(b, 22, "wait", 4), 0);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_MRA);
	h_give(&net, 1, &req); /* MRA_REQ_SENT: the same MRA */
	assert_true(h_take(&net, 1, &m2));
	assert_memory_equal(m.data, m2.data, UROCE_MAD_LEN);

	struct uroce_cm_rep_param rp = h_rep(1);
	assert_int_equal(uroce_cm_send_rep(b, &rp, net.now), 0);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_REP);
	h_give(&net, 1, &req); /* REP_SENT: the same REP */
	assert_true(h_take(&net, 1, &m2));
	assert_memory_equal(m.data, m2.data, UROCE_MAD_LEN);

	assert_int_equal(uroce_cm_establish(b), 0);
	h_give(&net, 1, &req); /* ESTABLISHED: a late copy, nothing */
	assert_false(h_take(&net, 1, &m2));
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_dup_req), 4);
	/* Exactly one REQ_RECEIVED. */
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_USER_ESTABLISHED);
	assert_false(h_event(&net, 1, &ev));
	h_check_accounting(&net.node[1]);
	h_fini(&net);
}

/* A REP again (Linux's cm_dup_rep_handler): the RTU again once established, the MRA again
 * while the owner decides after an MRA; one REP_RECEIVED only. */
static void test_IBA12_9_duplicate_rep(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m, rep, m2;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_rep_param rp = h_rep(1);
	assert_int_equal(uroce_cm_send_rep(ev.id, &rp, net.now), 0);
	assert_true(h_take(&net, 1, &rep));

	h_give(&net, 0, &rep);
	assert_true(h_event(&net, 0, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REP_RECEIVED);
	/* REP_RCVD (the owner has not answered): a duplicate gets nothing. */
	h_give(&net, 0, &rep);
	assert_false(h_take(&net, 0, &m));
	/* The MRA rdma_cm sends (delayed): only a duplicate gets it. */
	assert_int_equal(uroce_cm_send_mra(a, UROCE_CM_MRA_FLAG_DELAY | 24, NULL, 0), 0);
	assert_false(h_take(&net, 0, &m));
	h_give(&net, 0, &rep);
	assert_true(h_take(&net, 0, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_MRA);
	struct uroce_cm_msg a_mra = h_decode(&m);
	assert_int_equal(a_mra.mra.msg_mraed, UROCE_CM_MSG_REP);
	assert_int_equal(a_mra.mra.service_timeout, 24);

	assert_int_equal(uroce_cm_send_rtu(a, NULL, 0), 0);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 0, &rep); /* ESTABLISHED: the same RTU */
	assert_true(h_take(&net, 0, &m2));
	assert_int_equal(h_attr(&m2), UROCE_CM_ATTR_RTU);
	assert_memory_equal(m.data, m2.data, UROCE_MAD_LEN);
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_dup_rep), 3);
	assert_false(h_event(&net, 0, &ev));
	h_check_accounting(&net.node[0]);
	h_fini(&net);
}

/* A DREQ again: ignored in DREQ_RCVD, the same DREP again in timewait (Linux's
 * cm_dreq_handler); an RTU again: counted, nothing else. */
static void test_IBA12_9_duplicate_dreq_and_rtu(void **state)
{
	struct h_net net;
	struct uroce_cm_mad dreq, m, m2;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	net.node[1].drep = false;
	struct uroce_cm_id *a = connect_pair(&net, NULL), *b = h_accepted(&net.node[1]);
	assert_int_equal(uroce_cm_send_dreq(a, NULL, 0, net.now), 0);
	assert_true(h_take(&net, 0, &dreq));
	h_give(&net, 1, &dreq);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_DREQ_RECEIVED);
	h_give(&net, 1, &dreq);
	assert_false(h_take(&net, 1, &m));
	assert_false(h_event(&net, 1, &ev));
	assert_int_equal(uroce_cm_send_drep(b, "ok", 2, net.now), 0);
	assert_true(h_take(&net, 1, &m));
	h_give(&net, 1, &dreq);
	assert_true(h_take(&net, 1, &m2));
	assert_memory_equal(m.data, m2.data, UROCE_MAD_LEN);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_dup_dreq), 2);

	/* An RTU of this connection once more. */
	struct uroce_cm_msg rtu = {.attr = UROCE_CM_ATTR_RTU};
	struct uroce_cm_conn cb;
	assert_int_equal(uroce_cm_id_query(b, &cb), 0);
	rtu.rtu.local_comm_id = cb.remote_comm_id;
	rtu.rtu.remote_comm_id = cb.local_comm_id;
	struct uroce_mad_hdr h = {.base_version = 1, .mgmt_class = 7, .class_version = 2,
				  .method = 3, .attr_id = UROCE_CM_ATTR_RTU};
	uroce_mad_hdr_encode(&h, m.data, sizeof(m.data));
	uroce_cm_encode(&rtu, m.data + 24, UROCE_CM_DATA_LEN);
	m.peer = net.node[0].addr;
	m.local = net.node[1].addr;
	h_inject(&net, 1, &m);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_dup_rtu), 1);
	assert_false(h_event(&net, 1, &ev));
	h_check_accounting(&net.node[1]);
	h_fini(&net);
}

/* A REQ of a connection in timewait is answered with REJ "stale connection" (IBA 12.9's
 * timewait; Linux's cm_dup_req_handler TIMEWAIT case, which uroce reaches because it keeps
 * the remote comm ID through timewait). */
static void test_IBA12_9_req_in_timewait_rejected_stale(void **state)
{
	struct h_net net;
	struct uroce_cm_mad req, m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &req));
	h_give(&net, 1, &req);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_id *b = ev.id;
	struct uroce_cm_rep_param rp = h_rep(1);
	assert_int_equal(uroce_cm_send_rep(b, &rp, 0), 0);
	assert_true(h_take(&net, 1, &m));
	/* Node 1 rejects after its REP: REP_SENT goes to timewait. */
	assert_int_equal(uroce_cm_send_rej(b, UROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0, 0), 0);
	assert_int_equal(uroce_cm_id_state(b), UROCE_CM_TIMEWAIT);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_REJ);
	/* The REQ, late. */
	h_give(&net, 1, &req);
	assert_true(h_take(&net, 1, &m));
	struct uroce_cm_msg j = h_decode(&m);
	assert_int_equal(j.rej.reason, UROCE_CM_REJ_STALE_CONN);
	struct uroce_cm_conn ca;
	assert_int_equal(uroce_cm_id_query(a, &ca), 0);
	assert_int_equal(j.rej.remote_comm_id, ca.local_comm_id);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_rej_stale_sent), 1);
	/* Once timewait ends the connection is forgotten. */
	uroce_cm_on_timer(net.node[1].cm, T_TIMEWAIT);
	assert_int_equal(uroce_cm_id_state(b), UROCE_CM_IDLE);
	h_fini(&net);
}

/* Stale connection (Linux's cm_match_req): a REQ from a QP this side still has a connection
 * with means the peer lost it. The REQ is rejected as stale, the old connection gets a
 * DREQ, which the restarted peer (knowing nothing of it) answers with a DREP. */
static void test_IBA12_9_stale_connection(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	connect_pair(&net, NULL);
	struct uroce_cm_id *old_b = h_accepted(&net.node[1]);
	/* Node 0 restarts: a new CM, the same CA GUID, another seed. */
	struct uroce_cm_cfg cfg = {.ca_guid = H_GUID(0), .seed = 99, .tid_high = 2, .ack_delay = 15};
	uroce_cm_free(net.node[0].cm);
	assert_int_equal(uroce_cm_new(&cfg, &net.node[0].cm), 0);
	net.node[0].nev = 0;
	net.node[0].rcvd = 0;
	net.node[0].qpns = 0;
	struct uroce_cm_id *a = h_connect(&net, 0, 1); /* the same QPN */
	h_settle(&net, LIMIT);
	const struct uroce_cm_event *rej = h_last(&net.node[0], UROCE_CM_EV_REJ_RECEIVED);
	assert_non_null(rej);
	assert_int_equal(rej->msg.rej.reason, UROCE_CM_REJ_STALE_CONN);
	assert_int_equal(rej->msg.rej.msg_rejected, UROCE_CM_MSG_REQ);
	/* The rejected ID waited out a timewait: it must not take the old QP's packets. */
	assert_int_equal(h_count(&net.node[0], UROCE_CM_EV_TIMEWAIT_EXIT), 1);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_rej_stale_sent), 1);
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_drep_unknown_sent), 1);
	assert_int_equal(h_count(&net.node[1], UROCE_CM_EV_REQ_RECEIVED), 1);
	assert_int_equal(h_count(&net.node[1], UROCE_CM_EV_DREP_RECEIVED), 1);
	assert_int_equal(uroce_cm_id_state(old_b), UROCE_CM_IDLE);
	h_check_accounting(&net.node[0]);
	h_check_accounting(&net.node[1]);
	h_fini(&net);
}

/* ---- REJ ---- */

/* No listener: REJ "invalid service ID" for the REQ (Linux's cm_match_req); the active ID
 * returns to IDLE with REJ_RECEIVED. */
static void test_IBA12_6_7_rej_invalid_service_id(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, true, NULL);
	h_listen(&net, 1, H_SID + 1);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	h_settle(&net, LIMIT);
	const struct uroce_cm_event *rej = h_last(&net.node[0], UROCE_CM_EV_REJ_RECEIVED);
	assert_non_null(rej);
	assert_ptr_equal(rej->id, a);
	assert_int_equal(rej->msg.rej.reason, UROCE_CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(rej->msg.rej.msg_rejected, UROCE_CM_MSG_REQ);
	assert_int_equal(rej->msg.rej.local_comm_id, 0);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	assert_int_equal(net.node[0].sent[UROCE_CM_ATTR_REQ], 1);
	assert_int_equal(net.node[1].nev, 0);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_rej_no_listener_sent), 1);
	h_fini(&net);
}

/* RD and XRC REQs are refused with "invalid transport type": uroce has neither. */
static void test_IBA12_6_7_rej_invalid_transport(void **state)
{
	(void)state;
	for (uint8_t t = UROCE_CM_TRANSPORT_RD; t <= UROCE_CM_TRANSPORT_EXT; t++) {
		struct h_net net;
		struct uroce_cm_mad m;
		struct uroce_cm_event ev;
		h_init(&net, 2, false, NULL);
		h_listen(&net, 1, H_SID);
		h_connect(&net, 0, 1);
		assert_true(h_take(&net, 0, &m));
		m.data[24 + 43] = (uint8_t)((m.data[24 + 43] & ~6u) | t << 1);
		h_give(&net, 1, &m);
		assert_false(h_event(&net, 1, &ev));
		assert_true(h_take(&net, 1, &m));
		assert_int_equal(h_decode(&m).rej.reason, UROCE_CM_REJ_INVALID_TRANSPORT_TYPE);
		h_give(&net, 0, &m);
		assert_true(h_event(&net, 0, &ev));
		assert_int_equal(ev.type, UROCE_CM_EV_REJ_RECEIVED);
		h_fini(&net);
	}
}

static bool reject_req(void *ctx, struct h_node *n, const struct uroce_cm_event *ev)
{
	(void)n;
	if (ev->type != UROCE_CM_EV_REQ_RECEIVED)
		return false;
	static const uint8_t ari[3] = {1, 2, 3};
	assert_int_equal(uroce_cm_send_rej(ev->id, UROCE_CM_REJ_CONSUMER_DEFINED, ari, 3, "no",
					   2, ((struct h_net *)ctx)->now), 0);
	return true;
}

/* The owner rejects with ARI and private data; both arrive, and both IDs return to IDLE. */
static void test_IBA12_6_7_consumer_reject(void **state)
{
	struct h_net net;
	(void)state;
	h_init(&net, 2, false, NULL);
	net.on_event = reject_req;
	net.ctx = &net;
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	h_settle(&net, LIMIT);
	const struct uroce_cm_event *rej = h_last(&net.node[0], UROCE_CM_EV_REJ_RECEIVED);
	assert_non_null(rej);
	assert_int_equal(rej->msg.rej.reason, UROCE_CM_REJ_CONSUMER_DEFINED);
	assert_int_equal(rej->msg.rej.reject_info_len, 3);
	assert_int_equal(rej->msg.rej.ari[2], 3);
	assert_memory_equal(rej->msg.rej.private_data, "no", 2);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	assert_int_equal(uroce_cm_id_state(h_accepted(&net.node[1])), UROCE_CM_IDLE);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), UROCE_CM_NEVER);
	h_fini(&net);
}

/* ---- MRA ---- */

/* An MRA moves the REQ's next resend to the MRA's service timeout + the packet life time
 * (Linux's cm_mra_handler), keeping the retries left. */
static void test_IBA12_6_6_mra_extends_wait(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), T_REQ);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_id *b = ev.id;
	assert_int_equal(uroce_cm_send_mra(b, 25, "later", 5), 0);
	assert_int_equal(uroce_cm_id_state(b), UROCE_CM_MRA_REQ_SENT);
	assert_true(h_take(&net, 1, &m));
	struct uroce_cm_msg mra = h_decode(&m);
	assert_int_equal(mra.mra.msg_mraed, UROCE_CM_MSG_REQ);
	assert_int_equal(mra.mra.service_timeout, 25);
	net.now = 1000;
	h_give(&net, 0, &m);
	assert_true(h_event(&net, 0, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_MRA_RECEIVED);
	assert_memory_equal(ev.msg.mra.private_data, "later", 5);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_MRA_REQ_RCVD);
	uint64_t wait = uroce_cm_time_ns(25) + uroce_cm_time_ns(19);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), 1000 + wait);
	/* A second MRA changes nothing. */
	h_give(&net, 0, &m);
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_dup_mra), 1);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), 1000 + wait);
	/* The REQ is resent after the longer wait, and the REP still completes it. */
	uroce_cm_on_timer(net.node[0].cm, 1000 + wait - 1);
	assert_false(h_take(&net, 0, &m));
	uroce_cm_on_timer(net.node[0].cm, 1000 + wait);
	assert_true(h_take(&net, 0, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_REQ);
	struct uroce_cm_rep_param rp = h_rep(1);
	assert_int_equal(uroce_cm_send_rep(b, &rp, net.now), 0);
	assert_true(h_take(&net, 1, &m));
	h_give(&net, 0, &m);
	assert_true(h_event(&net, 0, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REP_RECEIVED);
	h_fini(&net);
}

/* ---- COMM_EST ---- */

/* The passive QP received before the RTU: the owner says so and the ID is established; a
 * late RTU is then a duplicate (Linux's ib_cm_notify, cm_establish_handler). */
static void test_IBA12_9_comm_est(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_id *b = ev.id;
	assert_int_equal(uroce_cm_establish(b), UROCE_EINVAL); /* REQ_RCVD: too early */
	struct uroce_cm_rep_param rp = h_rep(1);
	assert_int_equal(uroce_cm_send_rep(b, &rp, 0), 0);
	assert_int_equal(uroce_cm_establish(b), 0);
	assert_int_equal(uroce_cm_id_state(b), UROCE_CM_ESTABLISHED);
	assert_int_equal(uroce_cm_establish(b), UROCE_EINVAL); /* Linux: -EISCONN */
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_USER_ESTABLISHED);
	/* No REP resend any more. */
	assert_int_equal(uroce_cm_next_deadline(net.node[1].cm), UROCE_CM_NEVER);
	h_fini(&net);
}

/* ---- Destroy ---- */

/* Destroying an ID sends what its state calls for (Linux's cm_destroy_id), and the peer's
 * ID ends accordingly. */
static void test_destroy_req_sent_sends_rej_timeout(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_id *b = ev.id;
	uroce_cm_destroy_id(a, 0);
	/* REJ "timeout", ARI = the CA GUID: the passive side finds its ID by it, since the
	 * active side never learnt the passive comm ID. */
	assert_true(h_take(&net, 0, &m));
	struct uroce_cm_msg j = h_decode(&m);
	assert_int_equal(j.rej.reason, UROCE_CM_REJ_TIMEOUT);
	assert_int_equal(j.rej.reject_info_len, 8);
	assert_int_equal(get_be64(j.rej.ari), H_GUID(0));
	assert_int_equal(j.rej.remote_comm_id, 0);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), UROCE_CM_NEVER);
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REJ_RECEIVED);
	assert_ptr_equal(ev.id, b);
	assert_int_equal(uroce_cm_id_state(b), UROCE_CM_IDLE);
	h_fini(&net);
}

static void test_destroy_req_rcvd_sends_rej_consumer(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	struct uroce_cm_id *a = h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	uroce_cm_destroy_id(ev.id, 0);
	assert_true(h_take(&net, 1, &m));
	struct uroce_cm_msg j = h_decode(&m);
	assert_int_equal(j.rej.reason, UROCE_CM_REJ_CONSUMER_DEFINED);
	assert_int_equal(j.rej.msg_rejected, UROCE_CM_MSG_REQ);
	assert_int_equal(j.rej.local_comm_id, 0); /* Linux's cm_format_rej in REQ_RCVD */
	h_give(&net, 0, &m);
	assert_true(h_event(&net, 0, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_REJ_RECEIVED);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	h_fini(&net);
}

/* REP_SENT: REJ, then timewait inside the CM (the ID itself is gone: no event). */
static void test_destroy_rep_sent_rejects_then_timewait(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	struct uroce_cm_rep_param rp = h_rep(1);
	assert_int_equal(uroce_cm_send_rep(ev.id, &rp, 0), 0);
	assert_true(h_take(&net, 1, &m));
	uroce_cm_destroy_id(ev.id, 0);
	assert_true(h_take(&net, 1, &m));
	assert_int_equal(h_decode(&m).rej.reason, UROCE_CM_REJ_CONSUMER_DEFINED);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_timewait_entered), 1);
	assert_int_equal(uroce_cm_next_deadline(net.node[1].cm), T_TIMEWAIT);
	uroce_cm_on_timer(net.node[1].cm, T_TIMEWAIT);
	assert_false(h_event(&net, 1, &ev));
	assert_int_equal(uroce_cm_next_deadline(net.node[1].cm), UROCE_CM_NEVER);
	h_fini(&net);
}

/* ESTABLISHED: a DREQ, resent until the DREP comes (where Linux sends it once), then
 * timewait inside the CM; nothing is reported any more. */
static void test_destroy_established_disconnects(void **state)
{
	struct h_net net;
	struct uroce_impair_cfg lossy = {.loss = 0.5, .seed = 7};
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL);
	net.impaired = true;
	assert_int_equal(uroce_impair_init(&net.im, &lossy, 0), 0);
	uroce_cm_destroy_id(a, net.now);
	int nev = net.node[0].nev;
	h_settle(&net, LIMIT);
	assert_int_equal(net.node[0].nev, nev);
	assert_true(net.node[0].sent[UROCE_CM_ATTR_DREQ] > 1);
	assert_int_equal(h_count(&net.node[1], UROCE_CM_EV_DREQ_RECEIVED), 1);
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_timewait_entered), 1);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), UROCE_CM_NEVER);
	h_fini(&net);
}

/* DREQ_RCVD: the DREP, then timewait inside the CM; the DREQ_RECEIVED event still queued
 * is never returned. */
static void test_destroy_dreq_rcvd_sends_drep(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL), *b = h_accepted(&net.node[1]);
	uint64_t t0 = net.now;
	assert_int_equal(uroce_cm_send_dreq(b, NULL, 0, net.now), 0);
	assert_true(h_take(&net, 1, &m));
	h_give(&net, 0, &m);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_DREQ_RCVD);
	uroce_cm_destroy_id(a, net.now);
	assert_false(h_event(&net, 0, &ev));
	assert_true(h_take(&net, 0, &m));
	assert_int_equal(h_attr(&m), UROCE_CM_ATTR_DREP);
	h_give(&net, 1, &m);
	assert_true(h_event(&net, 1, &ev));
	assert_int_equal(ev.type, UROCE_CM_EV_DREP_RECEIVED);
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), t0 + T_TIMEWAIT);
	uroce_cm_on_timer(net.node[0].cm, t0 + T_TIMEWAIT);
	assert_false(h_event(&net, 0, &ev));
	assert_int_equal(uroce_cm_next_deadline(net.node[0].cm), UROCE_CM_NEVER);
	h_fini(&net);
}

/* A listener destroyed with REQ_RECEIVED events still queued: those REQs are rejected, and
 * their IDs never handed out. */
static void test_destroy_listener_rejects_queued_reqs(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m;
	struct uroce_cm_event ev;
	(void)state;
	h_init(&net, 3, false, NULL);
	struct uroce_cm_id *l = h_listen(&net, 1, H_SID);
	h_connect(&net, 0, 1);
	h_connect(&net, 2, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_true(h_take(&net, 2, &m));
	h_give(&net, 1, &m);
	uroce_cm_destroy_id(l, 0);
	assert_false(h_event(&net, 1, &ev));
	for (int i = 0; i < 2; i++) {
		assert_true(h_take(&net, 1, &m));
		assert_int_equal(h_decode(&m).rej.reason, UROCE_CM_REJ_CONSUMER_DEFINED);
	}
	assert_false(h_take(&net, 1, &m));
	/* The Service ID is free again. */
	h_listen(&net, 1, H_SID);
	h_fini(&net);
}

/* ---- Listeners and the API's rules ---- */

static void test_listen_rules(void **state)
{
	struct h_net net;
	struct uroce_cm_id *a, *b, *c;
	(void)state;
	h_init(&net, 1, false, NULL);
	struct uroce_cm *cm = net.node[0].cm;
	assert_int_equal(uroce_cm_create_id(cm, (void *)1, &a), 0);
	assert_int_equal(uroce_cm_create_id(cm, NULL, &b), 0);
	assert_int_equal(uroce_cm_create_id(cm, NULL, &c), 0);
	assert_ptr_equal(uroce_cm_id_context(a), (void *)1);
	assert_int_equal(uroce_cm_listen(a, H_SID, 0), 0);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_LISTEN);
	assert_int_equal(uroce_cm_listen(a, H_SID + 1, 0), UROCE_EINVAL); /* not IDLE */
	assert_int_equal(uroce_cm_listen(b, H_SID, 0), UROCE_EBUSY);
	/* A range holding H_SID overlaps. */
	assert_int_equal(uroce_cm_listen(b, H_SID & ~0xFFFFull, 0xFFFFFFFFFFFF0000ull), UROCE_EBUSY);
	assert_int_equal(uroce_cm_listen(b, H_SID + 1, 0), 0);
	assert_int_equal(uroce_cm_listen(c, 0x0000000001110000ull, 0xFFFFFFFFFFFF0000ull), 0);
	uroce_cm_destroy_id(a, 0);
	assert_int_equal(uroce_cm_create_id(cm, NULL, &a), 0);
	assert_int_equal(uroce_cm_listen(a, H_SID, 0), 0);
	h_fini(&net);
}

static void test_api_state_and_parameter_errors(void **state)
{
	struct h_net net;
	struct uroce_cm_id *a;
	struct uroce_cm_conn conn;
	static const uint8_t big[256];
	(void)state;
	h_init(&net, 2, false, NULL);
	assert_int_equal(uroce_cm_create_id(net.node[0].cm, NULL, &a), 0);
	struct uroce_cm_rep_param rp = h_rep(0);
	/* Nothing but a REQ or a SIDR_REQ from IDLE. */
	assert_int_equal(uroce_cm_id_query(a, &conn), UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_rep(a, &rp, 0), UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_rtu(a, NULL, 0), UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_rej(a, 28, NULL, 0, NULL, 0, 0), UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_mra(a, 20, NULL, 0), UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_dreq(a, NULL, 0, 0), UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_drep(a, NULL, 0, 0), UROCE_EINVAL);
	/* Every field past its width, one at a time. */
	struct uroce_cm_req_param p, ok = h_req(&net, 0, 1);
#define BAD(stmt)                                                               \
	do {                                                                    \
		p = ok;                                                         \
		stmt;                                                           \
		assert_int_equal(uroce_cm_send_req(a, &p, 0), UROCE_EINVAL);    \
	} while (0)
	BAD(p.qpn = 0x1000000);
	BAD(p.starting_psn = 0x1000000);
	BAD(p.transport = UROCE_CM_TRANSPORT_RD);
	BAD(p.transport = UROCE_CM_TRANSPORT_EXT);
	BAD(p.max_cm_retries = 16);
	BAD(p.retry_count = 8);
	BAD(p.rnr_retry_count = 8);
	BAD(p.remote_cm_response_timeout = 32);
	BAD(p.local_cm_response_timeout = 32);
	BAD(p.path.mtu = 0);
	BAD(p.path.mtu = 6);
	BAD(p.path.flow_label = 0x100000);
	BAD(p.path.sl = 16);
	BAD(p.path.rate = 64);
	BAD(p.path.packet_life_time = 32);
	BAD(p.path.remote = h_addr(1, true)); /* IPv4 to IPv6 */
	BAD((p.private_data = big, p.private_data_len = UROCE_CM_REQ_PRIVATE_LEN + 1));
	BAD((p.private_data = NULL, p.private_data_len = 1));
#undef BAD
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_IDLE);
	assert_false(uroce_cm_next_mad(net.node[0].cm, &(struct uroce_cm_mad){0}));
	p = ok;
	p.private_data = big;
	p.private_data_len = UROCE_CM_REQ_PRIVATE_LEN;
	assert_int_equal(uroce_cm_send_req(a, &p, 0), 0);
	assert_int_equal(uroce_cm_send_req(a, &p, 0), UROCE_EINVAL); /* not IDLE */
	assert_int_equal(uroce_cm_id_query(a, &conn), 0);
	/* A private data length past each message's field. */
	h_listen(&net, 1, H_SID);
	h_settle(&net, H_SEC);
	struct uroce_cm_id *b = h_accepted(&net.node[1]);
	assert_non_null(b);
	(void)b;
	assert_int_equal(uroce_cm_send_rtu(a, big, UROCE_CM_RTU_PRIVATE_LEN + 1), UROCE_EINVAL);
	assert_int_equal(uroce_cm_send_dreq(a, big, UROCE_CM_DREQ_PRIVATE_LEN + 1, 0), UROCE_EINVAL);
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_ESTABLISHED);
	h_fini(&net);
	struct uroce_cm *cm;
	struct uroce_cm_cfg cfg = {.ack_delay = 32};
	assert_int_equal(uroce_cm_new(&cfg, &cm), UROCE_EINVAL);
}

/* ---- Received MADs that are not taken ---- */

/* Each bad header changes its own drop counter and nothing else. */
static void test_header_checks(void **state)
{
	struct h_net net;
	struct uroce_cm_mad req, m;
	(void)state;
	h_init(&net, 2, false, NULL);
	h_listen(&net, 1, H_SID);
	h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &req));
	static const struct {
		size_t off;
		uint8_t v;
		enum uroce_cm_counter c;
	} cases[] = {
		{0, 2, UROCE_CM_CNT_drop_version},   /* base version */
		{1, 0x03, UROCE_CM_CNT_drop_class},  /* SA */
		{1, 0x01, UROCE_CM_CNT_drop_class},  /* SMP */
		{2, 1, UROCE_CM_CNT_drop_version},   /* class version */
		{3, 0x01, UROCE_CM_CNT_drop_method}, /* Get */
		{3, 0x83, UROCE_CM_CNT_drop_method}, /* a response */
		{17, 0x01, UROCE_CM_CNT_drop_attr},  /* ClassPortInfo */
		{17, 0x1B, UROCE_CM_CNT_drop_attr},  /* unassigned */
		{17, 0x19, UROCE_CM_CNT_drop_lap_apr},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		union uroce_cm_counters before = *uroce_cm_counters(net.node[1].cm);
		m = req;
		m.data[cases[i].off] = cases[i].v;
		h_give(&net, 1, &m);
		const union uroce_cm_counters *after = uroce_cm_counters(net.node[1].cm);
		for (int c = 0; c < UROCE_CM_NCOUNTERS; c++) {
			uint64_t d = after->v[c] - before.v[c];
			uint64_t want = c == (int)cases[i].c || c == UROCE_CM_CNT_rx_mads;
			assert_int_equal(d, want);
		}
		assert_false(h_take(&net, 1, &m));
	}
	h_check_accounting(&net.node[1]);
	h_fini(&net);
}

/* Messages naming no ID: a DREQ gets a DREP anyway (Linux's cm_issue_drep), everything
 * else is dropped (Linux's handlers return -EINVAL; no REJ "invalid comm ID" is sent, so that
 * a stray message cannot tear down what it does not name). From the wrong address, or a
 * DREQ naming another QPN: dropped. */
static void test_unknown_ids_and_wrong_peer(void **state)
{
	struct h_net net;
	struct uroce_cm_mad m, m2;
	(void)state;
	h_init(&net, 3, false, NULL);
	struct uroce_cm_id *a = connect_pair(&net, NULL);
	struct uroce_cm_conn ca;
	assert_int_equal(uroce_cm_id_query(a, &ca), 0);
	struct uroce_mad_hdr h = {.base_version = 1, .mgmt_class = 7, .class_version = 2,
				  .method = 3, .tid = 0x1234};
	struct uroce_cm_msg msg;

	/* A DREQ from node 2 naming nothing: DREP, comm IDs swapped, the same TID. */
	memset(&msg, 0, sizeof(msg));
	msg.attr = h.attr_id = UROCE_CM_ATTR_DREQ;
	msg.dreq.local_comm_id = 77;
	msg.dreq.remote_comm_id = 88;
	uroce_mad_hdr_encode(&h, m.data, sizeof(m.data));
	uroce_cm_encode(&msg, m.data + 24, UROCE_CM_DATA_LEN);
	m.peer = net.node[2].addr;
	m.local = net.node[0].addr;
	h_inject(&net, 0, &m);
	assert_true(h_take(&net, 0, &m2));
	assert_int_equal(h_attr(&m2), UROCE_CM_ATTR_DREP);
	assert_int_equal(h_tid(&m2), 0x1234);
	struct uroce_cm_msg d = h_decode(&m2);
	assert_int_equal(d.drep.local_comm_id, 88);
	assert_int_equal(d.drep.remote_comm_id, 77);
	assert_true(uroce_io_addr_equal(&m2.peer, &net.node[2].addr));

	/* The connection's own DREQ from node 2's address: wrong peer. */
	msg.dreq.local_comm_id = ca.remote_comm_id;
	msg.dreq.remote_comm_id = ca.local_comm_id;
	msg.dreq.remote_qpn_eecn = ca.local_qpn;
	uroce_cm_encode(&msg, m.data + 24, UROCE_CM_DATA_LEN);
	h_inject(&net, 0, &m);
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_drop_wrong_peer), 1);
	/* From the peer, naming another QPN. */
	m.peer = net.node[1].addr;
	msg.dreq.remote_qpn_eecn = ca.local_qpn + 1;
	uroce_cm_encode(&msg, m.data + 24, UROCE_CM_DATA_LEN);
	h_inject(&net, 0, &m);
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_drop_dreq_qpn), 1);
	assert_false(h_take(&net, 0, &m2));
	assert_int_equal(uroce_cm_id_state(a), UROCE_CM_ESTABLISHED);

	/* REP, RTU, REJ, MRA, DREP, SIDR_REP naming nothing. */
	static const uint16_t attrs[] = {UROCE_CM_ATTR_REP, UROCE_CM_ATTR_RTU, UROCE_CM_ATTR_REJ,
					 UROCE_CM_ATTR_MRA, UROCE_CM_ATTR_DREP,
					 UROCE_CM_ATTR_SIDR_REP};
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		memset(&msg, 0, sizeof(msg));
		msg.attr = h.attr_id = attrs[i];
		msg.rtu.local_comm_id = 5;
		msg.rtu.remote_comm_id = 6;
		uroce_mad_hdr_encode(&h, m.data, sizeof(m.data));
		uroce_cm_encode(&msg, m.data + 24, UROCE_CM_DATA_LEN);
		h_inject(&net, 0, &m);
	}
	assert_int_equal(h_counter(&net.node[0], UROCE_CM_CNT_drop_unknown_id), 6);
	assert_false(h_take(&net, 0, &m2));
	h_check_accounting(&net.node[0]);
	h_fini(&net);
}

/* max_ids and max_queued: past them an ID is refused, a REQ dropped (the peer's retry finds
 * room later), a MAD dropped and counted. */
static void test_limits(void **state)
{
	struct h_net net;
	struct uroce_cm *small;
	struct uroce_cm_id *ids[3];
	struct uroce_cm_mad m;
	(void)state;
	h_init(&net, 2, false, NULL);
	struct uroce_cm_cfg cfg = {.ca_guid = H_GUID(1), .ack_delay = 15, .max_ids = 2,
				   .max_queued = 1};
	uroce_cm_free(net.node[1].cm);
	assert_int_equal(uroce_cm_new(&cfg, &small), 0);
	net.node[1].cm = small;
	assert_int_equal(uroce_cm_create_id(small, NULL, &ids[0]), 0);
	assert_int_equal(uroce_cm_listen(ids[0], H_SID, 0), 0);
	assert_int_equal(uroce_cm_create_id(small, NULL, &ids[1]), 0);
	assert_int_equal(uroce_cm_create_id(small, NULL, &ids[2]), UROCE_ENOMEM);
	h_connect(&net, 0, 1);
	assert_true(h_take(&net, 0, &m));
	h_give(&net, 1, &m);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_drop_no_resources), 1);
	uroce_cm_destroy_id(ids[1], 0);
	h_give(&net, 1, &m);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_rx_handled), 1);
	/* One queued MAD at most: a second REJ in a row is dropped. */
	struct uroce_cm_event ev;
	assert_true(h_event(&net, 1, &ev));
	uroce_cm_destroy_id(ev.id, 0);
	m.data[24] ^= 1; /* another comm ID: a new REQ, no listener... */
	m.data[24 + 8 + 7] ^= 1; /* ... for another Service ID */
	h_give(&net, 1, &m);
	assert_int_equal(h_counter(&net.node[1], UROCE_CM_CNT_tx_queue_full), 1);
	h_check_accounting(&net.node[1]);
	h_fini(&net);
}

/* The units and conversions every timer uses. */
static void test_units(void **state)
{
	struct uroce_io_addr a4 = h_addr(0, false), a6 = h_addr(0, true), back;
	uint8_t gid[16];
	(void)state;
	assert_int_equal(uroce_cm_time_ns(0), 4096);
	assert_int_equal(uroce_cm_time_ns(20), 4096ull << 20);
	assert_int_equal(uroce_cm_time_ns(40), 4096ull << 31);
	/* cm_ack_timeout: max(delay, life + 1), one more when the other is within one step. */
	assert_int_equal(uroce_cm_ack_timeout(15, 18), 19);
	assert_int_equal(uroce_cm_ack_timeout(18, 18), 20);
	assert_int_equal(uroce_cm_ack_timeout(19, 18), 20);
	assert_int_equal(uroce_cm_ack_timeout(20, 18), 21);
	assert_int_equal(uroce_cm_ack_timeout(22, 18), 22);
	assert_int_equal(uroce_cm_ack_timeout(0, 0), 2);
	assert_int_equal(uroce_cm_ack_timeout(31, 31), 31);
	uroce_cm_gid_from_addr(gid, &a4);
	assert_int_equal(gid[10], 0xFF);
	assert_int_equal(gid[12], 10);
	uroce_cm_addr_from_gid(&back, gid);
	assert_true(uroce_io_addr_equal(&back, &a4));
	uroce_cm_gid_from_addr(gid, &a6);
	uroce_cm_addr_from_gid(&back, gid);
	assert_true(uroce_io_addr_equal(&back, &a6));
	assert_string_equal(uroce_cm_state_name(UROCE_CM_MRA_REP_RCVD), "MRA_REP_RCVD");
	assert_null(uroce_cm_state_name(UROCE_CM_NSTATES));
	assert_string_equal(uroce_cm_event_name(UROCE_CM_EV_SIDR_REP_RECEIVED), "SIDR_REP_RECEIVED");
	assert_null(uroce_cm_event_name(UROCE_CM_NEVENTS));
	assert_string_equal(uroce_cm_counter_name(UROCE_CM_CNT_rx_mads), "rx_mads");
	assert_non_null(uroce_cm_counter_desc(UROCE_CM_CNT_events_lost));
	assert_null(uroce_cm_counter_name(UROCE_CM_NCOUNTERS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_IBA12_9_establish),
		cmocka_unit_test(test_IBA12_7_negotiated_values),
		cmocka_unit_test(test_IBA12_6_message_fields_and_tids),
		cmocka_unit_test(test_CA17_34_req_lids_as_linux_writes_them),
		cmocka_unit_test(test_CA17_34_req_lids_ignored),
		cmocka_unit_test(test_CA17_35_rej_lid_reasons_refused),
		cmocka_unit_test(test_CA17_36_lap_apr_not_supported),
		cmocka_unit_test(test_IBA12_9_disconnect_and_timewait),
		cmocka_unit_test(test_IBA12_9_simultaneous_disconnect),
		cmocka_unit_test(test_IBA12_9_req_timeout_peer_gone),
		cmocka_unit_test(test_IBA12_9_rep_timeout_peer_gone),
		cmocka_unit_test(test_IBA12_9_dreq_timeout_peer_gone),
		cmocka_unit_test(test_IBA12_9_duplicate_req),
		cmocka_unit_test(test_IBA12_9_duplicate_rep),
		cmocka_unit_test(test_IBA12_9_duplicate_dreq_and_rtu),
		cmocka_unit_test(test_IBA12_9_req_in_timewait_rejected_stale),
		cmocka_unit_test(test_IBA12_9_stale_connection),
		cmocka_unit_test(test_IBA12_6_7_rej_invalid_service_id),
		cmocka_unit_test(test_IBA12_6_7_rej_invalid_transport),
		cmocka_unit_test(test_IBA12_6_7_consumer_reject),
		cmocka_unit_test(test_IBA12_6_6_mra_extends_wait),
		cmocka_unit_test(test_IBA12_9_comm_est),
		cmocka_unit_test(test_destroy_req_sent_sends_rej_timeout),
		cmocka_unit_test(test_destroy_req_rcvd_sends_rej_consumer),
		cmocka_unit_test(test_destroy_rep_sent_rejects_then_timewait),
		cmocka_unit_test(test_destroy_established_disconnects),
		cmocka_unit_test(test_destroy_dreq_rcvd_sends_drep),
		cmocka_unit_test(test_destroy_listener_rejects_queued_reqs),
		cmocka_unit_test(test_listen_rules),
		cmocka_unit_test(test_api_state_and_parameter_errors),
		cmocka_unit_test(test_header_checks),
		cmocka_unit_test(test_unknown_ids_and_wrong_peer),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
