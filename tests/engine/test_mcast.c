/* SPDX-License-Identifier: MIT */
/* UD multicast on the simulated fabric, in virtual time (docs/engine.md "Multicast"): one
 * sender, two receiving nodes with several QPs attached to the group, a node that is not a
 * member. Every attached QP gets one copy of each datagram, with its header area and source
 * QP; a QP whose Q_Key differs, or that cannot receive in its state, drops its copy alone;
 * QPs not attached and nodes not joined get nothing; detaching stops the copies, and the
 * last detach of a node says it may leave the group; the sender's own attached QP gets a
 * copy through the host's loopback. Then the rules of the receive path (QPN 0xFFFFFF with a
 * group and only with one), the verbs' errors, and two QPs on one SRQ. */
#include "harness.h"

#define QKEY 0x11111111u
#define OTHER_QKEY 0x22222222u
#define SLOT 4096 /* receive buffer bytes per WQE */
#define MCAST_QPN 0xFFFFFFu

static struct uroce_io_addr group_addr(bool ipv6)
{
	struct uroce_io_addr g = {.ipv6 = ipv6};

	if (ipv6) {
		g.ip[0] = 0xFF, g.ip[1] = 0x0E; /* ff0e::1:42, global scope */
		g.ip[13] = 0x01, g.ip[15] = 0x42;
	} else {
		memcpy(g.ip, (uint8_t[]){239, 7, 8, 9}, 4);
	}
	return g;
}

/* A UD QP on node i with Q_Key qkey, taken up to `to` (RESET, INIT, RTR or RTS). */
static struct uroce_qp *ud_qp(struct h_net *net, int i, uint32_t qkey, enum uroce_qp_state to,
			      struct uroce_srq *srq)
{
	struct h_qp_opts o = {.type = UROCE_QPT_UD};
	struct uroce_qp *qp = h_qp_create(net, i, &o, srq);
	struct uroce_qp_attr a = {.qp_state = UROCE_QPS_INIT, .port_num = 1, .qkey = qkey};

	if (to == UROCE_QPS_RESET)
		return qp;
	assert_int_equal(uroce_qp_modify(qp, &a, UROCE_QPA_STATE | UROCE_QPA_PKEY_INDEX |
							 UROCE_QPA_PORT | UROCE_QPA_QKEY),
			 0);
	for (enum uroce_qp_state s = UROCE_QPS_RTR; s <= to; s++) {
		a.qp_state = s;
		assert_int_equal(uroce_qp_modify(qp, &a, UROCE_QPA_STATE |
								 (s == UROCE_QPS_RTS ? UROCE_QPA_SQ_PSN : 0)),
				 0);
	}
	assert_int_equal(uroce_qp_state(qp), to);
	return qp;
}

/* Attaches qp (on node i) to the group and, when the group is new to the node, joins it on
 * the node's backend, as the verbs layer does; returns what the engine said. */
static int attach(struct h_net *net, int i, struct uroce_qp *qp, const struct uroce_io_addr *g)
{
	int r = uroce_mcast_attach(qp, g);
	if (r == 1)
		assert_int_equal(uroce_io_join(net->node[i].io, g, true), 0);
	return r;
}

static int detach(struct h_net *net, int i, struct uroce_qp *qp, const struct uroce_io_addr *g)
{
	int r = uroce_mcast_detach(qp, g);
	if (r == 1)
		assert_int_equal(uroce_io_join(net->node[i].io, g, false), 0);
	return r;
}

static void mc_send(struct uroce_qp *qp, struct uroce_ah *ah, uint64_t id, const struct h_buf *b,
		    uint32_t len, uint32_t qpn, uint32_t qkey)
{
	struct uroce_sge sge = h_sge(b, 0, len);
	struct uroce_send_wr wr = {.wr_id = id, .sg_list = &sge, .num_sge = len ? 1 : 0,
				   .opcode = UROCE_WR_SEND, .send_flags = UROCE_SEND_SIGNALED,
				   .wr.ud = {.ah = ah, .remote_qpn = qpn, .remote_qkey = qkey}};
	const struct uroce_send_wr *bad;
	assert_int_equal(uroce_post_send(qp, &wr, &bad), 0);
}

/* Posts n receive WQEs on qp from the node's buffer r, slots [first, first + n), wr_id the
 * slot number. */
static void post_slots(struct uroce_qp *qp, const struct h_buf *r, uint32_t first, uint32_t n)
{
	for (uint32_t k = first; k < first + n; k++)
		h_post_recv(qp, k, r, (size_t)k * SLOT, SLOT);
}

/* Node 0 sends, nodes 1 and 2 receive, node 3 is not a member. On node 1: a and b (Q_Key
 * QKEY, in RTS and RTR), c (another Q_Key), e (attached in INIT: cannot receive) and g (not
 * attached); on node 2: d; on node 3: f, not attached. */
static void test_mcast_copies_to_every_attached_qp(void **state)
{
	(void)state;
	for (int v6 = 0; v6 < 2; v6++) {
		struct h_net *net = h_net_new(21, 4, v6, NULL);
		struct uroce_io_addr g = group_addr(v6);
		struct uroce_qp *s = ud_qp(net, 0, QKEY, UROCE_QPS_RTS, NULL);
		struct uroce_qp *n1[5] = {
			ud_qp(net, 1, QKEY, UROCE_QPS_RTS, NULL),       /* a */
			ud_qp(net, 1, QKEY, UROCE_QPS_RTR, NULL),       /* b */
			ud_qp(net, 1, OTHER_QKEY, UROCE_QPS_RTS, NULL), /* c */
			ud_qp(net, 1, QKEY, UROCE_QPS_INIT, NULL),      /* e */
			ud_qp(net, 1, QKEY, UROCE_QPS_RTS, NULL),       /* g */
		};
		struct uroce_qp *d = ud_qp(net, 2, QKEY, UROCE_QPS_RTS, NULL);
		struct uroce_qp *f = ud_qp(net, 3, QKEY, UROCE_QPS_RTS, NULL);
		struct h_buf src = h_buf_new(net, 0, 2048, H_ALL_ACCESS, 5);
		struct h_buf r[4];
		struct uroce_ah_attr aa = {.dgid = g, .port_num = 1, .hop_limit = 7};
		struct uroce_ah *ah;
		const uint32_t nmsg = 3;

		for (int i = 1; i < 4; i++)
			r[i] = h_buf_new(net, i, 64 * SLOT, H_ALL_ACCESS, 0);
		assert_int_equal(uroce_ah_create(net->node[0].pd, &aa, &ah), 0);
		/* The first attach on a node is the one that joins; a second attach of the same
		 * QP changes nothing. */
		assert_int_equal(attach(net, 1, n1[0], &g), 1);
		assert_int_equal(attach(net, 1, n1[0], &g), 0);
		for (int k = 1; k < 4; k++)
			assert_int_equal(attach(net, 1, n1[k], &g), 0);
		assert_int_equal(attach(net, 2, d, &g), 1);
		for (int k = 0; k < 5; k++)
			post_slots(n1[k], &r[1], (uint32_t)k * 8, 8);
		post_slots(d, &r[2], 0, 8);
		post_slots(f, &r[3], 0, 8);

		for (uint32_t m = 0; m < nmsg; m++)
			mc_send(s, ah, m, &src, 1000 + m, MCAST_QPN, QKEY);
		h_run(net, UINT64_MAX);
		for (uint32_t m = 0; m < nmsg; m++) {
			struct uroce_wc wc = h_poll1(net, 0);
			h_expect_wc(&wc, m, UROCE_WC_SUCCESS, UROCE_WC_SEND);
		}
		/* The datagrams arrive in order, each message its own length; per datagram, the
		 * copies complete in attach order: a, then b (c, e and g get none). */
		int total1[2] = {0}, total2 = 0;
		struct uroce_wc wc;
		for (int node = 1; node <= 2; node++) {
			for (uint32_t m = 0; m < nmsg; m++) {
				int want = node == 1 ? 2 : 1;
				for (int k = 0; k < want; k++) {
					assert_int_equal(uroce_cq_poll(net->node[node].cq, &wc, 1), 1);
					h_expect_wc(&wc, wc.wr_id, UROCE_WC_SUCCESS, UROCE_WC_RECV);
					assert_int_equal(wc.byte_len, UROCE_UD_GRH_LEN + 1000 + m);
					assert_int_equal(wc.src_qp, uroce_qp_num(s));
					const uint8_t *slot = r[node].p + wc.wr_id * SLOT;
					if (v6)
						assert_memory_equal(slot + 24, g.ip, 16);
					else
						assert_memory_equal(slot + 36, g.ip, 4);
					assert_int_equal(v6 ? slot[7] : slot[28], 7); /* hop limit */
					assert_memory_equal(slot + UROCE_UD_GRH_LEN, src.p, 1000 + m);
					if (node == 2) {
						assert_ptr_equal(wc.qp, d);
						total2++;
						continue;
					}
					assert_ptr_equal(wc.qp, n1[k]);
					total1[k]++;
				}
			}
			h_expect_empty(net, node);
		}
		assert_int_equal(total1[0], nmsg);
		assert_int_equal(total1[1], nmsg);
		assert_int_equal(total2, nmsg);
		h_expect_empty(net, 3);

		/* Refused copies are counted on their QP only; node 1 counts each datagram once. */
		struct uroce_dev *dev1 = net->node[1].dev;
		assert_int_equal(uroce_qp_counters(n1[2])->drop_bad_qkey, nmsg);
		assert_int_equal(uroce_qp_counters(n1[3])->drop_qp_state, nmsg);
		assert_int_equal(uroce_qp_counters(n1[0])->rcvd_pkts, nmsg);
		assert_int_equal(uroce_qp_counters(n1[4])->rcvd_pkts, 0);
		assert_int_equal(h_counter(dev1, UROCE_CNT_rcvd_pkts), nmsg);
		assert_int_equal(h_counter(dev1, UROCE_CNT_drop_bad_qkey), nmsg);
		assert_int_equal(h_counter(dev1, UROCE_CNT_drop_qp_state), nmsg);
		/* Node 3 never joined: the fabric took it nothing. */
		assert_int_equal(uroce_sim_endpoint_counters(net->sim, 3)->delivered, 0);
		assert_int_equal(h_counter(net->node[3].dev, UROCE_CNT_rcvd_pkts), 0);
		assert_int_equal(uroce_qp_counters(f)->rcvd_pkts, 0);

		/* Detaching b stops its copies; a goes on. The last detach on a node is the
		 * one that leaves: then node 1 gets nothing at all, node 2 still does. */
		assert_int_equal(detach(net, 1, n1[1], &g), 0);
		mc_send(s, ah, 10, &src, 64, MCAST_QPN, QKEY);
		h_run(net, UINT64_MAX);
		assert_int_equal(uroce_cq_poll(net->node[1].cq, &wc, 1), 1);
		assert_ptr_equal(wc.qp, n1[0]);
		h_expect_empty(net, 1);
		for (int k = 0; k < 4; k++)
			if (k != 1)
				assert_int_equal(detach(net, 1, n1[k], &g), k == 3 ? 1 : 0);
		uint64_t before = uroce_sim_endpoint_counters(net->sim, 1)->delivered;
		mc_send(s, ah, 11, &src, 64, MCAST_QPN, QKEY);
		h_run(net, UINT64_MAX);
		h_expect_empty(net, 1);
		assert_int_equal(uroce_sim_endpoint_counters(net->sim, 1)->delivered, before);
		assert_int_equal(h_counter(dev1, UROCE_CNT_rcvd_pkts), nmsg + 1);
		assert_int_equal(uroce_cq_poll(net->node[2].cq, &wc, 1), 1);
		assert_int_equal(uroce_cq_poll(net->node[2].cq, &wc, 1), 1);
		assert_ptr_equal(wc.qp, d);
		for (uint64_t id = 10; id <= 11; id++) {
			wc = h_poll1(net, 0);
			h_expect_wc(&wc, id, UROCE_WC_SUCCESS, UROCE_WC_SEND);
		}
		assert_int_equal(detach(net, 2, d, &g), 1);

		uroce_ah_destroy(ah);
		h_buf_free(&src);
		for (int i = 1; i < 4; i++)
			h_buf_free(&r[i]);
		h_net_free(net);
	}
}

/* The sender's own QP, attached, gets a copy of what its node sends to the group when the
 * host loops multicast back (a link from the node to itself: IP_MULTICAST_LOOP), as mckey
 * expects by default (rdma-core's mckey loops every message back unless told not to). */
static void test_mcast_loopback_to_sender(void **state)
{
	struct h_net *net = h_net_new(22, 2, false, NULL);
	struct uroce_io_addr g = group_addr(false);
	struct uroce_sim_link_cfg ideal = {.latency_ns = 1000};
	struct uroce_qp *s = ud_qp(net, 0, QKEY, UROCE_QPS_RTS, NULL);
	struct uroce_qp *peer = ud_qp(net, 0, QKEY, UROCE_QPS_RTS, NULL);
	struct uroce_qp *far = ud_qp(net, 1, QKEY, UROCE_QPS_RTS, NULL);
	struct h_buf src = h_buf_new(net, 0, 256, H_ALL_ACCESS, 3);
	struct h_buf r0 = h_buf_new(net, 0, 4 * SLOT, H_ALL_ACCESS, 0);
	struct h_buf r1 = h_buf_new(net, 1, 4 * SLOT, H_ALL_ACCESS, 0);
	struct uroce_ah_attr aa = {.dgid = g, .port_num = 1, .hop_limit = 1};
	struct uroce_ah *ah;
	struct uroce_wc wc;
	int sends = 0, recvs[2] = {0};
	(void)state;

	assert_true(uroce_sim_connect(net->sim, 0, 0, &ideal) >= 0);
	assert_int_equal(uroce_ah_create(net->node[0].pd, &aa, &ah), 0);
	assert_int_equal(attach(net, 0, s, &g), 1);
	assert_int_equal(attach(net, 0, peer, &g), 0);
	assert_int_equal(attach(net, 1, far, &g), 1);
	post_slots(s, &r0, 0, 2);
	post_slots(peer, &r0, 2, 2);
	post_slots(far, &r1, 0, 2);
	mc_send(s, ah, 1, &src, 256, MCAST_QPN, QKEY);
	h_run(net, UINT64_MAX);
	while (uroce_cq_poll(net->node[0].cq, &wc, 1) == 1) {
		assert_int_equal(wc.status, UROCE_WC_SUCCESS);
		if (wc.opcode == UROCE_WC_SEND) {
			sends++;
			continue;
		}
		assert_int_equal(wc.src_qp, uroce_qp_num(s));
		assert_memory_equal(r0.p + wc.wr_id * SLOT + UROCE_UD_GRH_LEN, src.p, 256);
		recvs[wc.qp == peer]++;
	}
	assert_int_equal(sends, 1);
	assert_int_equal(recvs[0], 1); /* the sender's own QP */
	assert_int_equal(recvs[1], 1);
	wc = h_poll1(net, 1);
	assert_ptr_equal(wc.qp, far);
	for (int k = 0; k < 2; k++)
		assert_int_equal(detach(net, 0, k ? peer : s, &g), k);
	assert_int_equal(detach(net, 1, far, &g), 1);
	uroce_ah_destroy(ah);
	h_buf_free(&src);
	h_buf_free(&r0);
	h_buf_free(&r1);
	h_net_free(net);
}

/* The receive path: a datagram to a group carries QPN 0xFFFFFF and only such a datagram does
 * (drop_mcast_qpn both ways); a group no QP of the device is attached to is not local
 * (drop_not_local) even when the datagram reaches the device. */
static void test_mcast_receive_rules(void **state)
{
	struct h_net *net = h_net_new(23, 3, false, NULL);
	struct uroce_io_addr g = group_addr(false), g2 = g;
	struct uroce_qp *s = ud_qp(net, 0, QKEY, UROCE_QPS_RTS, NULL);
	struct uroce_qp *a = ud_qp(net, 1, QKEY, UROCE_QPS_RTS, NULL);
	struct h_buf src = h_buf_new(net, 0, 64, H_ALL_ACCESS, 3);
	struct h_buf r = h_buf_new(net, 1, 4 * SLOT, H_ALL_ACCESS, 0);
	struct uroce_ah_attr to_group = {.dgid = g, .port_num = 1, .hop_limit = 1};
	struct uroce_ah_attr to_node1 = {.dgid = net->node[1].addr, .port_num = 1, .hop_limit = 1};
	struct uroce_ah *ahg, *ah1, *ahg2;
	struct uroce_dev *dev1 = net->node[1].dev, *dev2 = net->node[2].dev;
	(void)state;

	g2.ip[3]++;
	struct uroce_ah_attr to_group2 = {.dgid = g2, .port_num = 1, .hop_limit = 1};
	assert_int_equal(uroce_ah_create(net->node[0].pd, &to_group, &ahg), 0);
	assert_int_equal(uroce_ah_create(net->node[0].pd, &to_group2, &ahg2), 0);
	assert_int_equal(uroce_ah_create(net->node[0].pd, &to_node1, &ah1), 0);
	assert_int_equal(attach(net, 1, a, &g), 1);
	post_slots(a, &r, 0, 4);
	/* Node 2 joins g2 on its network, but no QP of it is attached. */
	assert_int_equal(uroce_io_join(net->node[2].io, &g2, true), 0);

	mc_send(s, ahg, 1, &src, 8, uroce_qp_num(a), QKEY); /* a group with a QP's number */
	mc_send(s, ah1, 2, &src, 8, MCAST_QPN, QKEY);       /* 0xFFFFFF to a GID */
	mc_send(s, ahg2, 3, &src, 8, MCAST_QPN, QKEY);      /* a group nobody attached to */
	mc_send(s, ahg, 4, &src, 8, MCAST_QPN, QKEY);       /* right */
	h_run(net, UINT64_MAX);
	assert_int_equal(h_counter(dev1, UROCE_CNT_drop_mcast_qpn), 2);
	assert_int_equal(h_counter(dev2, UROCE_CNT_drop_not_local), 1);
	assert_int_equal(h_counter(dev1, UROCE_CNT_rcvd_pkts), 1);
	struct uroce_wc wc = h_poll1(net, 1);
	h_expect_wc(&wc, 0, UROCE_WC_SUCCESS, UROCE_WC_RECV);
	h_expect_empty(net, 1);
	h_expect_empty(net, 2);

	assert_int_equal(detach(net, 1, a, &g), 1);
	assert_int_equal(uroce_io_join(net->node[2].io, &g2, false), 0);
	uroce_ah_destroy(ahg);
	uroce_ah_destroy(ahg2);
	uroce_ah_destroy(ah1);
	h_buf_free(&src);
	h_buf_free(&r);
	h_net_free(net);
}

/* What attach and detach accept (ibv_attach_mcast(3); the kernel's ib_attach_mcast and
 * uverbs): UD QPs only, multicast addresses only, any state; detaching what is not attached
 * is EINVAL; an attached QP cannot be destroyed (EBUSY); the per-group limit; a device
 * freed with QPs still attached frees everything. */
static void test_mcast_attach_rules(void **state)
{
	struct h_net *net = h_net_new(24, 2, false, NULL);
	struct uroce_io_addr g = group_addr(false), g6 = group_addr(true), uni = net->node[1].addr;
	struct h_qp_opts rc = {.type = UROCE_QPT_RC};
	struct uroce_qp *ud = ud_qp(net, 0, QKEY, UROCE_QPS_RESET, NULL);
	struct uroce_qp *rcqp = h_qp_create(net, 0, &rc, NULL);
	struct uroce_qp *many[UROCE_MAX_MCAST_QP_ATTACH + 1];
	struct uroce_io_addr more = g;
	(void)state;

	assert_int_equal(uroce_mcast_attach(rcqp, &g), UROCE_EINVAL);
	assert_int_equal(uroce_mcast_attach(ud, &uni), UROCE_EINVAL);
	assert_int_equal(uroce_mcast_detach(ud, &g), UROCE_EINVAL);      /* no such group */
	assert_int_equal(uroce_mcast_attach(ud, &g), 1);                 /* in RESET */
	assert_int_equal(uroce_mcast_attach(ud, &g6), 1);                /* and an IPv6 group */
	assert_int_equal(uroce_mcast_detach(rcqp, &g), UROCE_EINVAL);
	assert_int_equal(uroce_qp_destroy(ud), UROCE_EBUSY);
	assert_int_equal(uroce_mcast_detach(ud, &g), 1);
	assert_int_equal(uroce_mcast_detach(ud, &g), UROCE_EINVAL);      /* not any more */
	assert_int_equal(uroce_qp_destroy(ud), UROCE_EBUSY);             /* still g6 */
	assert_int_equal(uroce_mcast_detach(ud, &g6), 1);
	assert_int_equal(uroce_qp_destroy(ud), 0);

	/* UROCE_MAX_MCAST_QP_ATTACH QPs per group; one more is ENOMEM, in another group it
	 * is fine. A QP attached to a group, but not this one: EINVAL on detach. */
	for (int k = 0; k <= UROCE_MAX_MCAST_QP_ATTACH; k++)
		many[k] = ud_qp(net, 1, QKEY, UROCE_QPS_RESET, NULL);
	for (int k = 0; k < UROCE_MAX_MCAST_QP_ATTACH; k++)
		assert_int_equal(uroce_mcast_attach(many[k], &g), k == 0);
	assert_int_equal(uroce_mcast_attach(many[UROCE_MAX_MCAST_QP_ATTACH], &g), UROCE_ENOMEM);
	more.ip[3]++;
	assert_int_equal(uroce_mcast_attach(many[UROCE_MAX_MCAST_QP_ATTACH], &more), 1);
	assert_int_equal(uroce_mcast_detach(many[UROCE_MAX_MCAST_QP_ATTACH], &g), UROCE_EINVAL);
	struct uroce_dev_attr attr;
	uroce_dev_query(net->node[1].dev, &attr);
	assert_int_equal(attr.max_mcast_qp_attach, UROCE_MAX_MCAST_QP_ATTACH);
	assert_int_equal(attr.max_mcast_grp, UROCE_MAX_MCAST_GRP);
	assert_int_equal(attr.max_total_mcast_qp_attach,
			 UROCE_MAX_MCAST_GRP * UROCE_MAX_MCAST_QP_ATTACH);
	/* h_net_free frees node 1's device with everything still attached (ASan: no leak). */
	h_net_free(net);
}

/* Two QPs on one SRQ, both attached: each copy takes a WQE of the shared queue. */
static void test_mcast_shared_receive_queue(void **state)
{
	struct h_net *net = h_net_new(25, 2, true, NULL);
	struct uroce_io_addr g = group_addr(true);
	struct uroce_srq_attr sa = {.max_wr = 8, .max_sge = 1};
	struct uroce_srq *srq;
	struct uroce_qp *s = ud_qp(net, 0, QKEY, UROCE_QPS_RTS, NULL);
	struct h_buf src = h_buf_new(net, 0, 64, H_ALL_ACCESS, 3);
	struct h_buf r = h_buf_new(net, 1, 8 * SLOT, H_ALL_ACCESS, 0);
	struct uroce_ah_attr aa = {.dgid = g, .port_num = 1, .hop_limit = 1};
	struct uroce_ah *ah;
	(void)state;

	assert_int_equal(uroce_srq_create(net->node[1].pd, &sa, &srq), 0);
	struct uroce_qp *a = ud_qp(net, 1, QKEY, UROCE_QPS_RTS, srq);
	struct uroce_qp *b = ud_qp(net, 1, QKEY, UROCE_QPS_RTS, srq);
	assert_int_equal(uroce_ah_create(net->node[0].pd, &aa, &ah), 0);
	assert_int_equal(attach(net, 1, a, &g), 1);
	assert_int_equal(attach(net, 1, b, &g), 0);
	for (uint32_t k = 0; k < 3; k++) {
		struct uroce_sge sge = h_sge(&r, (size_t)k * SLOT, SLOT);
		struct uroce_recv_wr wr = {.wr_id = k, .sg_list = &sge, .num_sge = 1};
		const struct uroce_recv_wr *bad;
		assert_int_equal(uroce_post_srq_recv(srq, &wr, &bad), 0);
	}
	mc_send(s, ah, 1, &src, 32, MCAST_QPN, QKEY);
	mc_send(s, ah, 2, &src, 32, MCAST_QPN, QKEY);
	h_run(net, UINT64_MAX);
	/* Three WQEs for four copies: a, b, a, then b finds none (a silent drop). */
	struct uroce_qp *want[3] = {a, b, a};
	for (uint64_t k = 0; k < 3; k++) {
		struct uroce_wc wc = h_poll1(net, 1);
		h_expect_wc(&wc, k, UROCE_WC_SUCCESS, UROCE_WC_RECV);
		assert_ptr_equal(wc.qp, want[k]);
	}
	h_expect_empty(net, 1);
	assert_int_equal(uroce_qp_counters(b)->drop_no_recv_wqe, 1);
	assert_int_equal(detach(net, 1, a, &g), 0);
	assert_int_equal(detach(net, 1, b, &g), 1);
	uroce_ah_destroy(ah);
	h_buf_free(&src);
	h_buf_free(&r);
	h_net_free(net);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mcast_copies_to_every_attached_qp),
		cmocka_unit_test(test_mcast_loopback_to_sender),
		cmocka_unit_test(test_mcast_receive_rules),
		cmocka_unit_test(test_mcast_attach_rules),
		cmocka_unit_test(test_mcast_shared_receive_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
